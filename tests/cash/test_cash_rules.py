"""Issue 48: cash in and cash out add up per player per gaming day; the MTL and the CTR line.

The cage took a $12,000 cash buy-in with no prompt. Now a cash transaction that takes a day's
total in its direction past $10,000.00 is refused (409 ``identification_required``) until an
identification is on file; one of $3,000.00 or more, or one taking a total past $3,000.00, is a
line of the multiple-transaction log.
"""

from __future__ import annotations

import pytest

from casino.cash.errors import IdentificationRequired
from casino.cash.models import CashRefusal, CashTransaction
from casino.cash.selectors import day_totals, list_ctrs
from casino.cash.services import record_cash
from casino.models import ActionLog, Player, User
from casino.services import buy_in, cash_out
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from ledger.services import Leg, post_transfer
from tests import factories

pytestmark = [pytest.mark.django_db]


def lines(player: Player) -> list[tuple[str, int, bool]]:
    rows = CashTransaction.objects.filter(player=player).order_by("pk")
    return [(row.kind, row.amount, row.mtl) for row in rows]


def test_a_buy_in_is_a_cash_line_linked_to_its_transfer(cashier: User, player: Player) -> None:
    transfer = buy_in(actor=cashier, player=player, amount=25_000)

    line = CashTransaction.objects.get(player=player)
    assert (line.direction, line.kind, line.amount, line.where, line.by) == (
        "in", "cage_buy_in", 25_000, "Cage", cashier,
    )  # fmt: skip
    assert line.transfer == transfer
    assert line.gaming_day == transfer.gaming_day == gaming_day_for()
    assert line.table_id is None
    assert day_totals(player_id=player.pk, day=line.gaming_day) == (25_000, 0)


def test_a_twelve_thousand_dollar_buy_in_without_id_is_refused_and_nothing_moves(
    cashier: User, player: Player
) -> None:
    transfers = Transfer.objects.count()

    with pytest.raises(IdentificationRequired) as refused:
        buy_in(actor=cashier, player=player, amount=1_200_000)

    assert refused.value.status == 409
    assert refused.value.code == "identification_required"
    assert refused.value.message == (
        f"{player.name}'s cash in today would be $12,000.00 with this buy-in of $12,000.00 (already $0.00), "
        f"past the $10,000.00 reporting line, and no identification is on file: record {player.name}'s "
        "identification first. Nothing moved."
    )
    assert Transfer.objects.count() == transfers
    assert not CashTransaction.objects.filter(player=player).exists()
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (0, 0)
    player.wallet.refresh_from_db()
    assert player.wallet.balance == 0


def test_with_identification_on_file_it_goes_through_and_the_ctr_lists_it(
    cashier: User, player: Player
) -> None:
    factories.identified(player)

    transfer = buy_in(actor=cashier, player=player, amount=1_200_000)

    (report,) = [r for r in list_ctrs(day=gaming_day_for()) if r["player"] == player.pk]
    assert (report["cash_in"], report["cash_out"], report["directions"]) == (1_200_000, 0, ["cash_in"])
    assert [t.transfer_id for t in report["transactions"]] == [transfer.pk]
    assert report["identification"].number == f"D{player.pk:07d}"


def test_the_day_adds_up_across_transactions_and_the_one_past_the_line_is_refused(
    cashier: User, player: Player
) -> None:
    for amount in (400_000, 400_000):
        buy_in(actor=cashier, player=player, amount=amount)
    buy_in(actor=cashier, player=player, amount=200_000)  # exactly $10,000.00: not past the line

    with pytest.raises(IdentificationRequired) as refused:
        buy_in(actor=cashier, player=player, amount=1)

    assert refused.value.fields["day_total"] == 1_000_000
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (1_000_000, 0)


def test_cash_out_has_its_own_total(cashier: User, player: Player) -> None:
    factories.identified(player)
    buy_in(actor=cashier, player=player, amount=2_000_000)
    other = factories.PlayerFactory(actor=cashier)
    factories.identified(other)
    buy_in(actor=cashier, player=other, amount=2_000_000)

    cash_out(actor=cashier, player=player, amount=1_100_000)

    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (2_000_000, 1_100_000)
    report = next(r for r in list_ctrs(day=gaming_day_for()) if r["player"] == player.pk)
    assert report["directions"] == ["cash_in", "cash_out"]


def test_a_cash_out_past_the_line_without_id_is_refused(cashier: User, player: Player) -> None:
    """Chips won at the tables (no cash in at all) cashed out past the line need an ID too."""
    post_transfer(key=f"won:{player.pk}", kind="payout", legs=[Leg("cage", player.wallet.code, 1_500_000)])

    with pytest.raises(IdentificationRequired) as refused:
        cash_out(actor=cashier, player=player, amount=1_100_000)

    assert refused.value.fields["direction"] == "out"
    assert "cash out today would be $11,000.00 with this cash-out of $11,000.00" in refused.value.message
    player.wallet.refresh_from_db()
    assert player.wallet.balance == 1_500_000
    factories.identified(player)
    cash_out(actor=cashier, player=player, amount=1_100_000)
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (0, 1_100_000)


@pytest.mark.parametrize(
    ("amounts", "expected"),
    [
        ((300_000,), [True]),  # $3,000.00 exactly: a line on its own
        ((299_999,), [False]),
        ((200_000, 100_000), [False, False]),  # the total reaches $3,000.00 but does not pass it
        ((200_000, 100_000, 1), [False, False, True]),  # this one takes it past
        ((200_000, 150_000, 10_000), [False, True, False]),  # past already: later small ones are not
    ],
    ids=["exactly-3000", "just-under", "reaches", "passes", "after"],
)
def test_mtl_lines(cashier: User, player: Player, amounts: tuple[int, ...], expected: list[bool]) -> None:
    for amount in amounts:
        buy_in(actor=cashier, player=player, amount=amount)

    assert [mtl for _, _, mtl in lines(player)] == expected


def test_a_key_posted_before_adds_no_second_cash_line(cashier: User, player: Player) -> None:
    first = buy_in(actor=cashier, player=player, amount=600_000, key="till-7:1")
    again = buy_in(actor=cashier, player=player, amount=600_000, key="till-7:1")

    assert again.pk == first.pk
    assert lines(player) == [("cage_buy_in", 600_000, True)]
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (600_000, 0)


def test_record_cash_refuses_a_kind_in_the_wrong_direction(cashier: User, player: Player) -> None:
    with pytest.raises(ValueError, match="not cash out"):
        record_cash(
            player=player, direction="out", kind="table_buy_in", amount=100, where="Faro 1", by=cashier
        )


def test_identification_is_logged(cashier: User, player: Player) -> None:
    identification = factories.identified(player, by=cashier)

    log = ActionLog.objects.get(action="cash.identification_recorded")
    assert (log.actor, log.object_id, log.data) == (cashier, str(identification.pk), {"player": player.pk})
    assert not CashRefusal.objects.exists()
