"""Issue 48, item 3: the pit sees each seated player's cash in and out today on the table's
markers page, with "MTL" at the $3,000.00 line and the identification's state near $10,000.00,
read once for every seat (the page's queries do not grow with the players seated)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.cash.selectors import CashToday, cash_days_of
from casino.cash.services import record_identification
from casino.models import Player, User
from casino.services import buy_in, cash_out
from ledger.gaming_day import gaming_day_for
from tables.console.pit.markers import cash_marks
from tables.services import seat_player
from tests import factories
from tests.console.conftest import Floor

pytestmark = [pytest.mark.django_db]


def _identify(actor: User, player: Player) -> None:
    record_identification(
        actor=actor, player=player, kind="passport", number="P0001881", name=player.name,
        birth_date=dt.date(1848, 3, 19), address="1 Allen Street, Tombstone",
    )  # fmt: skip


def test_one_query_reads_the_cash_day_of_every_player_asked(cashier: User) -> None:
    spent = factories.PlayerFactory(actor=cashier)
    won = factories.PlayerFactory(actor=cashier, funded=500_000)
    idle = factories.PlayerFactory(actor=cashier)
    buy_in(actor=cashier, player=spent, amount=350_000)
    cash_out(actor=cashier, player=won, amount=120_000)
    _identify(cashier, won)

    with CaptureQueriesContext(connection) as queries:
        days = cash_days_of(player_ids=[spent.pk, won.pk, idle.pk], day=gaming_day_for())

    assert len(queries) == 1
    assert days == {
        spent.pk: CashToday(350_000, 0, False),
        won.pk: CashToday(500_000, 120_000, True),
        idle.pk: CashToday(0, 0, False),
    }
    assert cash_days_of(player_ids=[spent.pk], day=gaming_day_for() - dt.timedelta(days=1)) == {
        spent.pk: CashToday(0, 0, False)
    }


@pytest.mark.parametrize(
    ("cash", "marks"),
    [
        (CashToday(299_999, 0, False), ()),
        (CashToday(300_000, 0, False), ("MTL",)),
        (CashToday(0, 350_000, True), ("MTL",)),
        (CashToday(700_000, 0, False), ("MTL", "ID needed past $10,000.00")),
        (CashToday(900_000, 0, True), ("MTL", "ID on file")),
        (CashToday(0, 1_050_000, True), ("MTL", "CTR: past $10,000.00", "ID on file")),
    ],
)
def test_the_marks_say_mtl_then_the_identification_near_the_ctr_line(
    cash: CashToday, marks: tuple[str, ...]
) -> None:
    assert cash_marks(cash) == marks


def _markers_page(client: Any, floor: Floor) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(f"/pit/tables/{floor.faro.pk}/markers/")
    assert answer.status_code == 200
    return answer.content.decode(), len(queries)


def test_the_markers_page_shows_each_seat_s_cash_in_the_same_queries_for_one_or_four(
    floor: Floor, as_user: Any
) -> None:
    floor.open_faro()
    # build_floor bought Wyatt's and Kate's $2,000.00 in at the cage; $1,500.00 more for Wyatt.
    buy_in(actor=floor.cashier, player=floor.wyatt, amount=150_000)
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.wyatt.pk, seat=1)
    client = as_user(floor.pit_boss)
    client.get(f"/pit/tables/{floor.faro.pk}/markers/")  # sessions and caches warm

    page, alone = _markers_page(client, floor)
    assert "Cash in today $3,500.00 · cash out today $0.00" in page
    assert '<strong class="cash-mark" data-testid="cash-mark">MTL</strong>' in page

    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, seat=2)
    for seat in (3, 4):
        other = factories.PlayerFactory(actor=floor.cashier, funded=80_000)
        seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=other.pk, seat=seat)
    page, four = _markers_page(client, floor)

    assert four == alone
    assert page.count('data-testid="cash-today"') == 4
    assert "Cash in today $2,000.00 · cash out today $0.00" in page  # Kate: under the line, no mark
    assert page.count('data-testid="cash-mark"') == 1
