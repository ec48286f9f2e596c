"""post_transfer: all legs or none, balances under lock, overdrafts refused, keys idempotent."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.db.models import Sum

from ledger.errors import IdempotencyConflict, InsufficientFunds, InvalidTransfer, UnknownAccount
from ledger.gaming_day import gaming_day_for
from ledger.models import Account, Entry, Transfer
from ledger.services import MAX_AMOUNT, Leg, post_transfer

pytestmark = pytest.mark.django_db

MakeWallet = Callable[..., Account]


def snapshot(*accounts: Account) -> dict[str, tuple[int, int, int, int]]:
    """Everything post_transfer may move on an account, read fresh from the database."""
    rows = Account.objects.filter(pk__in=[a.pk for a in accounts])
    return {a.code: (a.balance, a.debits_posted, a.credits_posted, a.held) for a in rows}


def fresh(account: Account) -> Account:
    account.refresh_from_db()
    return account


def test_single_leg_moves_balances_totals_and_writes_two_entries(
    cage: Account, make_wallet: MakeWallet
) -> None:
    wallet = make_wallet()
    cage_before = fresh(cage).balance

    transfer = post_transfer(
        key="buy-in-1",
        kind="buy_in",
        legs=[Leg(debit="cage", credit=wallet.code, amount=500)],
        memo="cash at the cage",
        meta={"player": 7},
    )

    assert fresh(wallet).balance == 500
    assert (wallet.debits_posted, wallet.credits_posted, wallet.held) == (0, 500, 0)
    assert wallet.version == 1
    assert fresh(cage).balance == cage_before - 500
    stored = Transfer.objects.get(key="buy-in-1")
    assert stored.pk == transfer.pk
    assert (stored.kind, stored.memo, stored.meta) == ("buy_in", "cash at the cage", {"player": 7})
    assert stored.gaming_day == gaming_day_for(stored.created_at)
    assert stored.reverses is None
    entries = list(stored.entries.order_by("amount"))
    assert [(e.account_id, e.leg, e.amount) for e in entries] == [(cage.pk, 0, -500), (wallet.pk, 0, 500)]
    assert entries[0].balance_after == cage_before - 500
    assert entries[1].balance_after == 500
    assert all(e.created_at == stored.created_at for e in entries)
    assert all(e.hold_id is None for e in entries)


def test_multi_leg_transfer_updates_every_account_and_chains_balance_after(make_wallet: MakeWallet) -> None:
    alice, carol = make_wallet(1_000), make_wallet(400)
    bob, dave = make_wallet(), make_wallet()

    transfer = post_transfer(
        key="settle-round-1",
        kind="settlement",
        legs=[
            Leg(debit=alice.code, credit=bob.code, amount=300),
            Leg(debit=carol.code, credit=bob.code, amount=50),
            Leg(debit=alice.code, credit=dave.code, amount=25),
            Leg(debit=carol.code, credit=dave.code, amount=350),
        ],
    )

    assert snapshot(alice, bob, carol, dave) == {
        alice.code: (675, 325, 1_000, 0),
        bob.code: (350, 0, 350, 0),
        carol.code: (0, 400, 400, 0),
        dave.code: (375, 0, 375, 0),
    }
    entries = list(transfer.entries.order_by("leg", "amount"))
    assert [(e.leg, e.account_id, e.amount, e.balance_after) for e in entries] == [
        (0, alice.pk, -300, 700),
        (0, bob.pk, 300, 300),
        (1, carol.pk, -50, 350),
        (1, bob.pk, 50, 350),
        (2, alice.pk, -25, 675),
        (2, dave.pk, 25, 25),
        (3, carol.pk, -350, 0),
        (3, dave.pk, 350, 375),
    ]
    assert sum(e.amount for e in entries) == 0


def test_balance_after_continues_from_the_stored_balance_across_transfers(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()

    post_transfer(key="bet-1", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=30)])
    post_transfer(key="bet-2", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=45)])

    history = list(Entry.objects.filter(account=wallet).order_by("id").values_list("amount", "balance_after"))
    assert history == [(100, 100), (-30, 70), (-45, 25)]
    assert fresh(wallet).balance == 25
    assert (wallet.debits_posted, wallet.credits_posted) == (75, 100)
    assert fresh(table).balance == 75


def test_a_non_negative_account_can_be_emptied_exactly(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()

    post_transfer(key="all-in", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=100)])

    assert fresh(wallet).balance == 0
    assert fresh(table).balance == 100


def test_overdraft_is_refused_with_insufficient_funds_and_moves_nothing(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    before = snapshot(wallet, table)
    entries_before = Entry.objects.count()

    with pytest.raises(InsufficientFunds) as caught:
        post_transfer(
            key="too-much", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=101)]
        )

    error = caught.value
    assert (error.code, error.status) == ("insufficient_funds", 409)
    assert error.fields == {"account": wallet.code, "available": 100, "needed": 101}
    assert snapshot(wallet, table) == before
    assert not Transfer.objects.filter(key="too-much").exists()
    assert Entry.objects.count() == entries_before


def test_a_refused_leg_refuses_the_whole_multi_leg_transfer(make_wallet: MakeWallet) -> None:
    rich, poor, payee = make_wallet(1_000), make_wallet(10), make_wallet()
    before = snapshot(rich, poor, payee)

    with pytest.raises(InsufficientFunds):
        post_transfer(
            key="half-good",
            kind="settlement",
            legs=[
                Leg(debit=rich.code, credit=payee.code, amount=500),
                Leg(debit=poor.code, credit=payee.code, amount=11),
            ],
        )

    assert snapshot(rich, poor, payee) == before
    assert not Transfer.objects.filter(key="half-good").exists()


def test_debits_of_one_account_across_legs_are_added_up(make_wallet: MakeWallet) -> None:
    wallet, left, right = make_wallet(100), make_wallet(), make_wallet()
    before = snapshot(wallet, left, right)

    with pytest.raises(InsufficientFunds) as caught:
        post_transfer(
            key="split",
            kind="bet",
            legs=[
                Leg(debit=wallet.code, credit=left.code, amount=60),
                Leg(debit=wallet.code, credit=right.code, amount=60),
            ],
        )

    assert caught.value.fields["needed"] == 120
    assert snapshot(wallet, left, right) == before


def test_an_account_may_pay_out_of_what_the_same_transfer_pays_in(make_wallet: MakeWallet) -> None:
    """Legs are simultaneous: a pot filled and won by one action never needs chips of its own."""
    player, pot, winner = make_wallet(50), make_wallet(), make_wallet()

    transfer = post_transfer(
        key="fill-and-win",
        kind="pot",
        legs=[Leg(player.code, pot.code, 50), Leg(pot.code, winner.code, 45), Leg(pot.code, "rake", 5)],
    )

    assert snapshot(player, pot, winner) == {
        player.code: (0, 50, 50, 0),
        pot.code: (0, 50, 50, 0),
        winner.code: (45, 0, 45, 0),
    }
    pot_entries = list(
        transfer.entries.filter(account=pot).order_by("id").values_list("amount", "balance_after")
    )
    assert pot_entries == [(50, 50), (-45, 5), (-5, 0)]


def test_balance_after_of_a_non_negative_account_is_never_negative(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(8), make_wallet(100)

    transfer = post_transfer(
        key="pay-then-receive",
        kind="bet",
        legs=[Leg(wallet.code, table.code, 51), Leg(table.code, wallet.code, 73)],
    )

    assert fresh(wallet).balance == 30
    # Credits are entered first: 8 + 73 = 81, then 81 - 51 = 30; never below zero.
    assert [e.balance_after for e in transfer.entries.filter(account=wallet).order_by("id")] == [81, 30]


def test_what_counts_is_each_accounts_net_result(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(10), make_wallet(100)
    before = snapshot(wallet, table)

    with pytest.raises(InsufficientFunds) as caught:
        post_transfer(
            key="net-short",
            kind="bet",
            legs=[Leg(table.code, wallet.code, 30), Leg(wallet.code, table.code, 41)],
        )

    assert caught.value.fields == {"account": wallet.code, "available": 10, "needed": 11}
    assert snapshot(wallet, table) == before
    post_transfer(
        key="net-exact",
        kind="bet",
        legs=[Leg(table.code, wallet.code, 30), Leg(wallet.code, table.code, 40)],
    )
    assert snapshot(wallet, table)[wallet.code] == (0, 40, 40, 0)


def test_the_cage_may_go_negative(cage: Account, make_wallet: MakeWallet) -> None:
    wallet = make_wallet()
    start = fresh(cage).balance
    amount = start + 1_000_000 if start > 0 else 1_000_000

    post_transfer(
        key="big-buy-in", kind="buy_in", legs=[Leg(debit="cage", credit=wallet.code, amount=amount)]
    )

    assert fresh(cage).balance == start - amount
    assert cage.balance < 0
    assert fresh(wallet).balance == amount


def test_the_largest_allowed_amount_is_accepted(cage: Account, make_wallet: MakeWallet) -> None:
    wallet = make_wallet()

    post_transfer(key="max", kind="buy_in", legs=[Leg(debit="cage", credit=wallet.code, amount=MAX_AMOUNT)])

    assert fresh(wallet).balance == MAX_AMOUNT


@pytest.mark.parametrize(
    "amount",
    [0, -1, -500, True, False, 1.0, 12.5, Decimal(5), "100", None, MAX_AMOUNT + 1],
    ids=[
        "zero",
        "minus-one",
        "negative",
        "true",
        "false",
        "float",
        "fraction",
        "decimal",
        "str",
        "none",
        "max+1",
    ],
)
def test_invalid_amounts_are_refused_and_move_nothing(make_wallet: MakeWallet, amount: Any) -> None:
    wallet, table = make_wallet(1_000), make_wallet()
    before = snapshot(wallet, table)

    with pytest.raises(InvalidTransfer) as caught:
        post_transfer(
            key="bad-amount", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=amount)]
        )

    assert (caught.value.code, caught.value.status) == ("invalid_transfer", 400)
    assert snapshot(wallet, table) == before
    assert not Transfer.objects.filter(key="bad-amount").exists()


def test_one_invalid_leg_refuses_the_whole_transfer(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(1_000), make_wallet()
    before = snapshot(wallet, table)

    with pytest.raises(InvalidTransfer):
        post_transfer(
            key="mixed",
            kind="bet",
            legs=[Leg(debit=wallet.code, credit=table.code, amount=10), Leg(wallet.code, table.code, 0)],
        )

    assert snapshot(wallet, table) == before


def test_a_leg_from_an_account_to_itself_is_refused(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    before = snapshot(wallet)

    with pytest.raises(InvalidTransfer, match="to itself"):
        post_transfer(key="loop", kind="bet", legs=[Leg(debit=wallet.code, credit=wallet.code, amount=10)])

    assert snapshot(wallet) == before
    assert not Transfer.objects.filter(key="loop").exists()


def test_a_transfer_without_legs_is_refused() -> None:
    with pytest.raises(InvalidTransfer, match="at least one leg"):
        post_transfer(key="empty", kind="bet", legs=[])

    assert not Transfer.objects.filter(key="empty").exists()


def test_an_unknown_account_is_refused_and_nothing_moves(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    before = snapshot(wallet)

    with pytest.raises(UnknownAccount, match="no-such-account") as caught:
        post_transfer(
            key="ghost", kind="bet", legs=[Leg(debit=wallet.code, credit="no-such-account", amount=10)]
        )

    assert (caught.value.code, caught.value.status) == ("unknown_account", 404)
    assert snapshot(wallet) == before
    assert not Transfer.objects.filter(key="ghost").exists()
    assert not Account.objects.filter(code="no-such-account").exists()


# --- idempotency -------------------------------------------------------------------------------


def test_same_key_and_content_returns_the_first_transfer_and_moves_nothing(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    legs = [Leg(debit=wallet.code, credit=table.code, amount=40)]
    first = post_transfer(key="bet-42", kind="bet", legs=legs, meta={"round": 1})
    after_first = snapshot(wallet, table)
    entries = Entry.objects.count()

    again = post_transfer(key="bet-42", kind="bet", legs=list(legs), meta={"round": 1})

    assert again.pk == first.pk
    assert (
        snapshot(wallet, table)
        == after_first
        == {
            wallet.code: (60, 40, 100, 0),
            table.code: (40, 0, 40, 0),
        }
    )
    assert Entry.objects.count() == entries
    assert Transfer.objects.filter(key="bet-42").count() == 1


def test_a_replay_succeeds_even_when_the_payer_could_no_longer_afford_it(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    legs = [Leg(debit=wallet.code, credit=table.code, amount=100)]
    first = post_transfer(key="all-in-7", kind="bet", legs=legs)

    again = post_transfer(key="all-in-7", kind="bet", legs=legs)

    assert again.pk == first.pk
    assert fresh(wallet).balance == 0
    assert fresh(table).balance == 100


def test_a_refused_attempt_does_not_burn_its_key(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(50), make_wallet()
    legs = [Leg(debit=wallet.code, credit=table.code, amount=80)]
    with pytest.raises(InsufficientFunds):
        post_transfer(key="retry-me", kind="bet", legs=legs)
    post_transfer(key="top-up", kind="buy_in", legs=[Leg(debit="cage", credit=wallet.code, amount=30)])

    transfer = post_transfer(key="retry-me", kind="bet", legs=legs)

    assert transfer.entries.count() == 2
    assert fresh(wallet).balance == 0
    assert fresh(table).balance == 80


@pytest.mark.parametrize(
    "change",
    ["amount", "payee", "payer", "kind", "meta", "extra-leg"],
)
def test_same_key_with_different_content_is_an_idempotency_conflict(
    make_wallet: MakeWallet, change: str
) -> None:
    wallet, other, table, side = make_wallet(100), make_wallet(100), make_wallet(), make_wallet()
    legs = [Leg(debit=wallet.code, credit=table.code, amount=40)]
    kind, meta = "bet", {"round": 1}
    first = post_transfer(key="bet-1", kind=kind, legs=legs, meta=meta)
    before = snapshot(wallet, other, table, side)
    if change == "amount":
        legs = [Leg(debit=wallet.code, credit=table.code, amount=41)]
    elif change == "payee":
        legs = [Leg(debit=wallet.code, credit=side.code, amount=40)]
    elif change == "payer":
        legs = [Leg(debit=other.code, credit=table.code, amount=40)]
    elif change == "kind":
        kind = "win"
    elif change == "meta":
        meta = {"round": 2}
    else:
        legs = [*legs, Leg(debit=wallet.code, credit=side.code, amount=1)]

    with pytest.raises(IdempotencyConflict) as caught:
        post_transfer(key="bet-1", kind=kind, legs=legs, meta=meta)

    assert (caught.value.code, caught.value.status) == ("idempotency_conflict", 409)
    assert snapshot(wallet, other, table, side) == before
    assert list(Transfer.objects.filter(key="bet-1").values_list("pk", flat=True)) == [first.pk]


def test_stored_totals_match_the_entries(make_wallet: MakeWallet) -> None:
    a, b, c = make_wallet(300), make_wallet(200), make_wallet()
    post_transfer(key="t1", kind="bet", legs=[Leg(a.code, b.code, 120), Leg(b.code, c.code, 70)])
    post_transfer(key="t2", kind="bet", legs=[Leg(c.code, a.code, 30)])

    for account in (fresh(a), fresh(b), fresh(c)):
        entries = Entry.objects.filter(account=account)
        debits = -(entries.filter(amount__lt=0).aggregate(s=Sum("amount"))["s"] or 0)
        credits = entries.filter(amount__gt=0).aggregate(s=Sum("amount"))["s"] or 0
        assert (account.debits_posted, account.credits_posted) == (debits, credits)
        assert account.balance == credits - debits
    assert (fresh(a).balance, fresh(b).balance, fresh(c).balance) == (210, 250, 40)
