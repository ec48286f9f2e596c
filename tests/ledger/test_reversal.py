"""reverse_transfer: a mistake is corrected by its mirror transfer, once; the original stays as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.errors import AlreadyReversed, InsufficientFunds
from ledger.models import Account, Entry, Transfer
from ledger.services import Leg, post_transfer, reverse_transfer

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
