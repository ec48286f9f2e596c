"""Issue 44 item 18: a player's page shows their buy-ins, cash-outs and bets.

The API had the history (``GET /api/v1/players/me/transactions``, ``list_player_transactions``);
the player's page did not. It now lists it from the same selector, newest first, one line per
transfer, in words and dollars, at the casino's time (set here to Macau while the server's
TIME_ZONE is UTC, so a time in the wrong zone would show), twenty lines a page. Players use
phones: on a phone each line is a card inside the screen.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from casino.services import buy_in, cash_out
from ledger.models import Transfer
from tables.console.me import HISTORY_PER_PAGE
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.browser import EVERY_SIZE, no_sideways_scroll, open_page, shot, sign_in
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CASINO = "Asia/Macau"  # UTC+8 all year: never the server's UTC

# Each line of the history as drawn: its cells' text and its box.
LINES = """() => [...document.querySelectorAll("[data-testid=move]")].map(tr => {
    const r = tr.getBoundingClientRect();
    const cell = name => tr.querySelector("." + name).innerText.trim();
    return {when: cell("when"), what: cell("what"), amount: cell("amount"), after: cell("after"),
            left: r.left, right: r.right, amountVisible: tr.querySelector(".amount").checkVisibility()};
})"""


@pytest.fixture
def world(transactional_db: None, settings: Any) -> Floor:
    settings.TIME_ZONE = "UTC"
    settings.CASINO_TIME_ZONE = CASINO
    return build_floor(prefix="mh")  # Kate buys in $2,000.00


def a_night_of_kate(world: Floor) -> None:
    """Kate buys $1,500.00 more, bets $50.00 on the queen at Faro, and cashes out $300.00."""
    buy_in(actor=world.cashier, player=world.kate, amount=150_000)
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    deal = start_round(actor=world.dealer, table_id=world.faro.pk, shoe="manual")
    deal = apply_round_action(actor=world.dealer, round_id=deal.pk, action={"type": "soda", "card": "KS"})
    bet = {"type": "bet", "player": world.kate.pk, "ranks": ["Q"], "amount": 5_000}
    apply_round_action(actor=world.dealer, round_id=deal.pk, action=bet)
    cash_out(actor=world.cashier, player=world.kate, amount=30_000)


def _casino_time(moment: dt.datetime) -> str:
    local = moment.astimezone(ZoneInfo(CASINO))
    return f"{local:%b} {local.day}, {local.year}, {local:%H:%M}"


def _kates_page(browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]) -> Any:
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.kate.user.username)
    page.get_by_role("heading", name="My history").wait_for()
    return page


@EVERY_SIZE
def test_the_players_page_lists_their_buy_ins_bets_and_cash_outs(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    a_night_of_kate(world)
    page = _kates_page(browser, live_server, world, viewport)
    width = viewport["width"]
    lines = page.evaluate(LINES)
    assert [(line["what"], line["amount"], line["after"]) for line in lines] == [
        ("Cash-out at the cage", "−$300.00", "$3,150.00"),
        (f"Bet {world.faro.name}, deal #1", "−$50.00", "$3,450.00"),
        ("Buy-in at the cage", "+$1,500.00", "$3,500.00"),
        ("Buy-in at the cage", "+$2,000.00", "$2,000.00"),
    ], lines
    # At the casino's time, the moment each transfer was made, newest first.
    made = Transfer.objects.filter(kind="cash_out").get().created_at
    assert lines[0]["when"] == _casino_time(made), (lines[0], made)
    assert f"({CASINO})" in page.locator("#history").inner_text()
    no_sideways_scroll(page)
    for line in lines:
        assert line["left"] >= 0, line
        assert line["right"] <= width, line
        assert line["amountVisible"], line
    page.get_by_test_id("history").scroll_into_view_if_needed()
    first = page.get_by_test_id("move").first
    assert first.is_visible()
    shot(page, f"me-history-{width}x{viewport['height']}")
    page.context.close()


@EVERY_SIZE
def test_a_long_history_pages_back_with_older_and_newer(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    for dollars in range(1, HISTORY_PER_PAGE + 3):  # 22 more buy-ins: 23 lines, two pages
        buy_in(actor=world.cashier, player=world.kate, amount=dollars * 100)
    page = _kates_page(browser, live_server, world, viewport)
    moves = page.get_by_test_id("move")
    assert moves.count() == HISTORY_PER_PAGE
    assert moves.first.locator(".amount").inner_text() == "+$22.00"  # the newest first

    older = page.get_by_role("link", name="Older")
    older.scroll_into_view_if_needed()
    assert older.is_visible()
    older.click()
    page.get_by_text("Page 2 of 2").wait_for()
    assert [line["amount"] for line in page.evaluate(LINES)] == ["+$2.00", "+$1.00", "+$2,000.00"]
    history = page.locator("#history").bounding_box()
    assert history is not None
    assert history["y"] < viewport["height"]  # the link lands on the history, not the page's top
    no_sideways_scroll(page)

    page.get_by_role("link", name="Newer").click()
    page.get_by_text("Page 1 of 2").wait_for()
    assert moves.first.locator(".amount").inner_text() == "+$22.00"
    page.context.close()

