"""Issue 44 item 16, in Chromium at 1280×800 and 810×1080: tonight's last deal reads in words.

A settled Fan Tan deal listed its layout as codes ("S: A to K") and a settled Tonk deal its spreads
by internal index ("#0 Texas Jack"). Now a suit row says "Spades: ace to king" and a spread is
named by its owner. The result sits below "Start deal", which stays in view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from tables.console.dealer.drawings import fan_tan_rows
from tables.console.dealer.games import GAME_TITLES
from tables.models import Table
from tests.browser import PORTRAIT, TABLET, on_screen, open_page, shot, sign_in
from tests.console.conftest import Floor
from tests.console.test_games import make_table
from tests.console.test_tonight import GAMES, settle_a_deal
from tests.console.test_words_browser import word_problems

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
RANK = r"(?:ace|[2-9]|10|jack|queen|king)"
SUIT_ROW = re.compile(rf"^(?:Spades|Hearts|Diamonds|Clubs): (?:{RANK} to {RANK}|the 7 alone|no 7 yet)$")
SUIT_CODE = re.compile(r"(?<![\w♠♥♦♣])[SHDC]: ")  # "S: A to K"
INDEX = re.compile(r"#\d+ [A-Z]")  # "#0 Texas Jack"


def test_the_checks_catch_the_old_texts() -> None:
    assert SUIT_CODE.search("S: A to K")
    assert not SUIT_ROW.match("S: A to K")
    assert INDEX.search("#0 Texas Jack: 5♠ 5♥ 5♦")
    assert SUIT_ROW.match("Spades: ace to king")
    assert not SUIT_CODE.search("Spades: ace to king")
    assert not INDEX.search("Deal #2 is settled. Next deal")


def test_each_suit_row_is_said_in_words() -> None:
    layout = {
        "S": {"low": "A", "high": "K"},
        "H": {"low": "7", "high": "7"},
        "D": None,
        "C": {"low": "5", "high": "10"},
    }
    assert [row["words"] for row in fan_tan_rows({"layout": layout})] == [
        "Spades: ace to king",
        "Hearts: the 7 alone",
        "Diamonds: no 7 yet",
        "Clubs: 5 to 10",
    ]


def settled_tonight(world: Floor, game: str, wanted: Callable[[Mapping[str, Any]], bool]) -> Table:
    """A table of ``game`` whose last deal, settled tonight, has what the test reads (``wanted``)."""
    players, spec = GAMES[game]
    table, _ = make_table(world, game, players, **dict(spec))
    Table.objects.filter(pk=table.pk).update(name=f"{GAME_TITLES[game]} 3")  # not "fan_tan table"
    table.refresh_from_db()
    for number in range(1, 11):
        if wanted(settle_a_deal(table, number).state):
            return table
    raise AssertionError(f"no {game} deal of ten had what the test reads")


def open_the_table(
    browser: Any, live_server: Any, world: Floor, table: Table, viewport: dict[str, int]
) -> Any:
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table.pk}/")
    on_screen(page.get_by_role("button", name="Start deal"))  # above tonight's last result
    assert page.locator("#start-title").inner_text().endswith("is settled. Next deal")
    return page


@SIZES
def test_a_settled_fan_tan_deal_names_its_suit_rows_in_words(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    table = settled_tonight(world, "fan_tan", lambda public: any((public.get("layout") or {}).values()))
    page = open_the_table(browser, live_server, world, table, viewport)
    layout = page.locator("h3:text-is('Layout') + ul")
    layout.scroll_into_view_if_needed()
    shot(page, f"settled-fan-tan-{viewport['width']}x{viewport['height']}")
    rows = layout.locator("li").all_inner_texts()
    assert [row.split(":")[0] for row in rows] == ["Spades", "Hearts", "Diamonds", "Clubs"]
    assert all(SUIT_ROW.match(row) for row in rows), rows
    assert any(" to " in row for row in rows), rows
    text = page.inner_text("body")
    assert not SUIT_CODE.search(text), text
    assert word_problems(text) == [], text


@SIZES
def test_a_settled_tonk_deal_names_each_spread_by_its_player(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    table = settled_tonight(world, "tonk", lambda public: bool(public.get("spreads")))
    page = open_the_table(browser, live_server, world, table, viewport)
    spreads = page.locator("h3:text-is('Spreads') + ul")
    spreads.scroll_into_view_if_needed()
    shot(page, f"settled-tonk-{viewport['width']}x{viewport['height']}")
    rows = spreads.locator("li").all_inner_texts()
    assert rows, "the deal has spreads"
    assert all(row.split(":")[0] in {"Kate Elder", "Wyatt Earp"} for row in rows), rows
    text = page.inner_text("body")
    assert not INDEX.search(text), text
    assert word_problems(text) == [], text
