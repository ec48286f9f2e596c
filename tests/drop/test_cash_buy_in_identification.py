"""Issue 48: a cash buy-in at a table is cash in, added to the player's day with the cage's.

``tables.drop.services.cash_buy_in`` goes through ``casino.cash.services.record_cash`` (kind
``table_buy_in``): past $10,000.00 in a day, with the cage's buy-ins counted too, it is refused
with 409 ``identification_required`` until an ID is on file, and nothing reaches the drop box.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.cash.models import CashRefusal, CashTransaction
from casino.cash.selectors import day_totals
from casino.models import Player, User
from casino.services import buy_in
from ledger.errors import IdempotencyConflict
from ledger.gaming_day import gaming_day_for
from tables.drop.models import DropBox
from tables.drop.services import cash_buy_in
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich_table(table: Table) -> Table:
    """``table`` open with $20,000.00 in its tray: enough to sell past the CTR line."""
    factories.open_table_for(table, inventory=2_000_000)
    table.refresh_from_db()
    return table


def _url(table: Table) -> str:
    return f"/api/v1/tables/{table.pk}/cash-buy-ins"


def test_a_table_buy_in_is_a_cash_line_at_that_table(
    rich_table: Table, dealer: User, player: Player, login: Any
) -> None:
    response = login(dealer).post(_url(rich_table), {"player": player.pk, "amount": 350_000}, format="json")

    assert response.status_code == 201, response.content
    line = CashTransaction.objects.get(player=player)
    assert (line.kind, line.direction, line.amount, line.where, line.table_id, line.by) == (
        "table_buy_in", "in", 350_000, rich_table.name, rich_table.pk, dealer,
    )  # fmt: skip
    assert line.transfer_id == response.json()["transfer_id"]
    assert line.mtl


def test_the_cage_and_the_table_add_up_and_the_table_asks_for_id(
    rich_table: Table, dealer: User, cashier: User, player: Player, login: Any
) -> None:
    buy_in(actor=cashier, player=player, amount=600_000)
    client = login(dealer)

    refused = client.post(_url(rich_table), {"player": player.pk, "amount": 500_000}, format="json")

    assert refused.status_code == 409, refused.content
    error = refused.json()["error"]
    assert error["code"] == "identification_required"
    assert (
        f"{player.name}'s cash in today would be $11,000.00 with this cash buy-in of $5,000.00"
        in (error["message"])
    )
    assert not DropBox.objects.filter(table=rich_table, recorded__gt=0).exists()
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (600_000, 0)
    (refusal,) = CashRefusal.objects.filter(player=player)
    assert (refusal.kind, refusal.where, refusal.table_id, refusal.day_total) == (
        "table_buy_in", rich_table.name, rich_table.pk, 600_000,
    )  # fmt: skip

    factories.identified(player)
    done = client.post(_url(rich_table), {"player": player.pk, "amount": 500_000}, format="json")
    assert done.status_code == 201, done.content
    assert day_totals(player_id=player.pk, day=gaming_day_for()) == (1_100_000, 0)
    assert DropBox.objects.get(table=rich_table).recorded == 500_000


def test_a_retried_key_counts_once_in_the_day_and_the_box(
    rich_table: Table, dealer: User, player: Player, login: Any
) -> None:
    client = login(dealer)
    body = {"player": player.pk, "amount": 20_000}

    first = client.post(_url(rich_table), body, format="json", headers={"Idempotency-Key": "tap-1"})
    again = client.post(_url(rich_table), body, format="json", headers={"Idempotency-Key": "tap-1"})

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert CashTransaction.objects.filter(player=player).count() == 1
    assert DropBox.objects.get(table=rich_table).recorded == 20_000


def test_the_service_answers_a_key_posted_before_with_its_first_transfer(
    rich_table: Table, dealer: User, player: Player
) -> None:
    first = cash_buy_in(
        actor=dealer, table_id=rich_table.pk, player_id=player.pk, amount=30_000, key="till-3:9"
    )
    again = cash_buy_in(
        actor=dealer, table_id=rich_table.pk, player_id=player.pk, amount=30_000, key="till-3:9"
    )

    assert again.transfer.pk == first.transfer.pk
    assert CashTransaction.objects.filter(player=player).count() == 1
    assert DropBox.objects.get(table=rich_table).recorded == 30_000
    with pytest.raises(IdempotencyConflict):
        cash_buy_in(actor=dealer, table_id=rich_table.pk, player_id=player.pk, amount=40_000, key="till-3:9")
