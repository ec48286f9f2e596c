"""Issue 44 item 13: a table's screen opens on tonight, not on last night's deal.

With no live deal, the screen shows the table's last deal (its result, "Deal #N is settled. Next
deal", and the correction panel) only when that deal was dealt tonight: in the session open now
and in this gaming day. A deal of an earlier gaming day or an earlier session is history; the
screen opens on "First deal" and offers no correction of it (the service refuses one of a closed
day). A live deal is always the current one, but a live deal carried over into a closed gaming
day cannot be corrected, so the panel is not offered for it.
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from typing import Any

import pytest
import time_machine

from casino.models import Player
from ledger.gaming_day import gaming_day_for
from ledger.services import close_gaming_day
from tables.models import Round, RoundStatus, Table
from tables.rounds import start_round
from tables.services import close_table, open_table, seat_player
from tables.simulation.night import Night, NightConfig, evening_of
from tests.console.conftest import Floor
from tests.console.test_games import make_table

pytestmark = pytest.mark.django_db

# The tables of the games this item is about: players to seat and the table's terms (make_table).
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "farmer": (4, {"ante": 500}),
    "fan_tan": (3, {}),
    "newmarket": (3, {}),
    "tonk": (2, {"ante": 500}),
    "stakes": (2, {"rules": {"variant": "page_one"}}),
}


def yesterday() -> dt.date:
    return gaming_day_for() - dt.timedelta(days=1)


def settle_a_deal(table: Table, number: int = 1) -> Round:
    """One deal played to its end by the simulated night's bots, through ``tables.rounds``."""
    Night(NightConfig(seed=7)).play_round(table, number)
    round_ = Round.objects.get(table=table, number=number)
    assert round_.status == RoundStatus.SETTLED, round_.status
    return round_


def close_on_the_count(floor: Floor, table: Table) -> int:
    table.tray.refresh_from_db()
    close_table(actor=floor.dealer, table_id=table.pk, closing_inventory=table.tray.balance)
    return table.tray.balance


def reopen_and_seat(floor: Floor, table: Table, count: int, players: list[Player]) -> None:
    open_table(actor=floor.dealer, table_id=table.pk, opening_inventory=count)
    for player in players:
        seat_player(actor=floor.dealer, table_id=table.pk, player_id=player.pk)


def dealt_last_night(floor: Floor, game: str) -> Table:
    """As the demo has it: last night the table opened, dealt a deal to its end and closed on the
    count, and that gaming day was closed; tonight it is open again with the same players."""
    players, spec = GAMES[game]
    with time_machine.travel(evening_of(yesterday()), tick=True):
        table, seated = make_table(floor, game, players, **dict(spec))
        table.refresh_from_db()
        settle_a_deal(table)
        count = close_on_the_count(floor, table)
    close_gaming_day(day=yesterday())
    reopen_and_seat(floor, table, count, seated)
    return table


def screen(as_user: Any, floor: Floor, table: Table) -> str:
    reply = as_user(floor.dealer).get(f"/console/tables/{table.pk}/")
    assert reply.status_code == 200
    return unescape(reply.content.decode())


def start_title(page: str) -> str:
    found = re.search(r'<h2 id="start-title">(.*?)</h2>', page, re.DOTALL)
    assert found, page[:3000]
    return found.group(1).strip()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_last_nights_deal_is_neither_shown_nor_offered_for_correction(
    floor: Floor, as_user: Any, game: str
) -> None:
    table = dealt_last_night(floor, game)
    page = screen(as_user, floor, table)
    assert start_title(page) == "First deal"
    assert "Deal #1" not in page
    assert 'data-testid="correction-panel"' not in page


def test_a_deal_of_last_night_in_a_session_still_open_is_not_shown(floor: Floor, as_user: Any) -> None:
    """A shift carried over the rollover: same session, but the deal is of an earlier gaming day."""
    with time_machine.travel(evening_of(yesterday()), tick=True):
        table, _ = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
        table.refresh_from_db()
        settle_a_deal(table)
    page = screen(as_user, floor, table)
    assert start_title(page) == "First deal"
    assert 'data-testid="correction-panel"' not in page


def test_a_deal_of_an_earlier_session_tonight_is_not_shown(floor: Floor, as_user: Any) -> None:
    table, seated = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
    table.refresh_from_db()
    settle_a_deal(table)
    reopen_and_seat(floor, table, close_on_the_count(floor, table), seated)
    page = screen(as_user, floor, table)
    assert start_title(page) == "First deal"
    assert 'data-testid="correction-panel"' not in page


def test_tonights_settled_deal_is_shown_with_the_correction_it_can_have(floor: Floor, as_user: Any) -> None:
    table, _ = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
    table.refresh_from_db()
    settle_a_deal(table)
    page = screen(as_user, floor, table)
    assert start_title(page) == "Deal #1 is settled. Next deal"
    assert 'data-testid="correction-panel"' in page
    assert "The whole deal #1" in page
    # The button that starts the next deal comes before the last deal's result.
    assert page.index(">Start deal</button>") < page.index('class="inline-ok"')


def test_a_live_deal_carried_into_a_closed_day_is_shown_without_a_correction_panel(
    floor: Floor, as_user: Any
) -> None:
    with time_machine.travel(evening_of(yesterday()), tick=True):
        table, _ = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
        start_round(actor=floor.dealer, table_id=table.pk, shoe="electronic")
    open_day = screen(as_user, floor, table)
    assert "The whole deal #1" in open_day  # its day still open: a correction can still post
    close_gaming_day(day=yesterday())
    page = screen(as_user, floor, table)
    assert "deal #1" in page  # the live deal, drawn
    assert 'data-testid="correction-panel"' not in page
