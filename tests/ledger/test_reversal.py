"""reverse_transfer: a mistake is corrected by its mirror transfer, once; the original stays as it was.
reverse_transfers: several at once (a correction), in an order their own legs cannot make fail."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.errors import AlreadyReversed, InsufficientFunds
from ledger.models import Account, Entry, Transfer
from ledger.services import Leg, hold, post_transfer, reverse_transfer, reverse_transfers

pytestmark = pytest.mark.django_db

MakeWallet = Callable[..., Account]


def balances(*accounts: Account) -> list[tuple[int, int, int]]:
    for account in accounts:
        account.refresh_from_db()
    return [(a.balance, a.debits_posted, a.credits_posted) for a in accounts]


def legs_of(transfer: Transfer) -> list[tuple[int, int, int, int]]:
    """(leg, payer pk, payee pk, amount) per leg, from the stored entries."""
    rows: dict[int, dict[str, int]] = {}
    for entry in transfer.entries.all():
        side = rows.setdefault(entry.leg, {})
        side["payer" if entry.amount < 0 else "payee"] = entry.account_id
        side["amount"] = abs(entry.amount)
    return [(leg, r["payer"], r["payee"], r["amount"]) for leg, r in sorted(rows.items())]


def test_a_reversal_posts_the_mirror_legs_and_restores_balances(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    original = post_transfer(
        key="wrong-bet", kind="bet", legs=[Leg(wallet.code, table.code, 40)], meta={"table": 3}
    )
    original_entries = list(original.entries.order_by("id").values_list("id", "amount", "balance_after"))

    reversal = reverse_transfer(transfer=original)

    assert reversal.key == "reversal:wrong-bet"
    assert reversal.kind == "reversal"
    assert reversal.reverses_id == original.pk
    assert reversal.meta == {"table": 3, "reverses": original.pk}
    assert reversal.memo == f"Reversal of transfer {original.pk}"
    original.refresh_from_db()
    assert original.reversed_by.pk == reversal.pk
    assert legs_of(reversal) == [(0, table.pk, wallet.pk, 40)]
    assert [(e.account_id, e.amount, e.balance_after) for e in reversal.entries.order_by("amount")] == [
        (table.pk, -40, 0),
        (wallet.pk, 40, 100),
    ]
    assert balances(wallet, table) == [(100, 40, 140), (0, 40, 40)]
    assert (
        list(original.entries.order_by("id").values_list("id", "amount", "balance_after")) == original_entries
    )


def test_a_multi_leg_reversal_mirrors_every_leg_in_order(make_wallet: MakeWallet) -> None:
    alice, bob = make_wallet(500), make_wallet(200)
    pot, rake = make_wallet(), make_wallet()
    original = post_transfer(
        key="round-9",
        kind="settlement",
        legs=[Leg(alice.code, pot.code, 300), Leg(bob.code, pot.code, 150), Leg(alice.code, rake.code, 20)],
    )
    assert balances(alice, bob, pot, rake) == [(180, 320, 500), (50, 150, 200), (450, 0, 450), (20, 0, 20)]

    reversal = reverse_transfer(transfer=original, key="fix-round-9", memo="dealer error")

    assert (reversal.key, reversal.memo) == ("fix-round-9", "dealer error")
    assert legs_of(reversal) == [
        (0, pot.pk, alice.pk, 300),
        (1, pot.pk, bob.pk, 150),
        (2, rake.pk, alice.pk, 20),
    ]
    assert [b[0] for b in balances(alice, bob, pot, rake)] == [500, 200, 0, 0]
    assert balances(pot)[0] == (0, 450, 450)
    assert Entry.objects.filter(transfer=reversal).count() == 6


@pytest.mark.parametrize("second_key", [None, "another-key"])
def test_a_transfer_is_reversed_only_once(make_wallet: MakeWallet, second_key: str | None) -> None:
    wallet, table = make_wallet(100), make_wallet()
    original = post_transfer(key="oops", kind="bet", legs=[Leg(wallet.code, table.code, 25)])
    first = reverse_transfer(transfer=original)
    after = balances(wallet, table)
    transfers = Transfer.objects.count()

    with pytest.raises(AlreadyReversed) as caught:
        reverse_transfer(transfer=original, key=second_key)

    assert (caught.value.code, caught.value.status) == ("already_reversed", 409)
    assert balances(wallet, table) == after
    assert Transfer.objects.count() == transfers
    assert list(Transfer.objects.filter(reverses=original).values_list("pk", flat=True)) == [first.pk]


def test_a_reversal_needs_the_payee_to_still_have_the_chips(make_wallet: MakeWallet) -> None:
    wallet, table, other = make_wallet(100), make_wallet(), make_wallet()
    original = post_transfer(key="paid", kind="bet", legs=[Leg(wallet.code, table.code, 60)])
    post_transfer(key="moved-on", kind="bet", legs=[Leg(table.code, other.code, 50)])
    before = balances(wallet, table, other)

    with pytest.raises(InsufficientFunds):
        reverse_transfer(transfer=original)

    assert balances(wallet, table, other) == before
    assert not Transfer.objects.filter(reverses=original).exists()
    post_transfer(key="moved-back", kind="bet", legs=[Leg(other.code, table.code, 50)])
    reversal = reverse_transfer(transfer=original)
    assert reversal.reverses_id == original.pk
    assert [b[0] for b in balances(wallet, table, other)] == [100, 0, 0]


def test_a_reversal_can_itself_be_reversed(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    original = post_transfer(key="bet", kind="bet", legs=[Leg(wallet.code, table.code, 30)])
    reversal = reverse_transfer(transfer=original)

    redo = reverse_transfer(transfer=reversal)

    assert redo.reverses_id == reversal.pk
    assert legs_of(redo) == [(0, wallet.pk, table.pk, 30)]
    assert [b[0] for b in balances(wallet, table)] == [70, 30]


def _deal(make_wallet: MakeWallet) -> tuple[Account, Account, Account, list[Transfer]]:
    """A punter's $1.00 bet goes to the layout, the bank pays $0.40 on it, the layout loses the
    bet to the bank: oldest first, the bet's return would find its layout empty (issue 44)."""
    wallet, layout = make_wallet(100), make_wallet()
    bank = make_wallet(500)
    deal = [
        post_transfer(key=f"bet-{wallet.code}", kind="bet", legs=[Leg(wallet.code, layout.code, 100)]),
        post_transfer(key=f"win-{wallet.code}", kind="win", legs=[Leg(bank.code, wallet.code, 40)]),
        post_transfer(key=f"loss-{wallet.code}", kind="loss", legs=[Leg(layout.code, bank.code, 100)]),
    ]
    return wallet, layout, bank, deal


def test_several_reversals_walk_the_history_backwards_and_restore_every_balance(
    make_wallet: MakeWallet,
) -> None:
    wallet, layout, bank, deal = _deal(make_wallet)
    with pytest.raises(InsufficientFunds):  # one at a time, oldest first, is refused
        reverse_transfer(transfer=deal[0])

    reversals = reverse_transfers(transfers=deal, key_prefix="fix:", memo="misdeal")

    assert [r.reverses_id for r in reversals] == [deal[2].pk, deal[1].pk, deal[0].pk]
    assert [(r.key, r.kind, r.memo) for r in reversals] == [
        (f"fix:{t.pk}", "reversal", "misdeal") for t in reversed(deal)
    ]
    assert [b[0] for b in balances(wallet, layout, bank)] == [100, 0, 500]
    for reversal, original in zip(reversals, reversed(deal), strict=True):  # each the mirror of its own
        assert [(leg, payee, payer, amount) for leg, payer, payee, amount in legs_of(original)] == legs_of(
            reversal
        )


def test_an_older_reversal_goes_first_when_chips_moved_since_and_the_newest_cannot_post_yet(
    make_wallet: MakeWallet,
) -> None:
    """The punter cashed the $0.40 win out: its reversal waits for the bet's return, which
    refills the wallet; walking strictly backwards would have been refused."""
    wallet, layout = make_wallet(100), make_wallet()
    bank, cage = make_wallet(500), make_wallet()
    bet = post_transfer(key="bet", kind="bet", legs=[Leg(wallet.code, layout.code, 100)])
    win = post_transfer(key="win", kind="win", legs=[Leg(bank.code, wallet.code, 40)])
    post_transfer(key="cash-out", kind="cash_out", legs=[Leg(wallet.code, cage.code, 40)])

    reversals = reverse_transfers(transfers=[bet, win], key_prefix="fix:", memo="misdeal")

    assert [r.reverses_id for r in reversals] == [bet.pk, win.pk]
    assert [b[0] for b in balances(wallet, layout, bank, cage)] == [60, 0, 500, 40]


def test_a_shortfall_no_order_avoids_is_refused_in_words_and_posts_nothing(make_wallet: MakeWallet) -> None:
    """A hold counts: what it reserves is not there to pay a reversal with."""
    wallet, layout = make_wallet(100, prefix="Kate"), make_wallet()
    bank = make_wallet(500)
    bet = post_transfer(key="bet2", kind="bet", legs=[Leg(wallet.code, layout.code, 50)])
    win = post_transfer(key="win2", kind="win", legs=[Leg(bank.code, wallet.code, 80)])
    hold(key="reserve", account_code=wallet.code, amount=120)  # of the 130 now in the wallet
    before = balances(wallet, layout, bank)
    transfers = Transfer.objects.count()

    with pytest.raises(InsufficientFunds) as caught:
        reverse_transfers(transfers=[bet, win], key_prefix="fix2:", memo="misdeal")

    assert caught.value.message == f"{wallet.name} has $0.60 available; this transfer needs $0.20 more."
    assert balances(wallet, layout, bank) == before
    assert Transfer.objects.count() == transfers


def test_reversing_a_transfer_twice_together_is_refused(make_wallet: MakeWallet) -> None:
    wallet, layout, _bank, deal = _deal(make_wallet)
    reverse_transfer(transfer=deal[2])
    with pytest.raises(AlreadyReversed):
        reverse_transfers(transfers=deal, key_prefix="again:", memo="twice")
    assert [b[0] for b in balances(wallet, layout)] == [40, 100]
