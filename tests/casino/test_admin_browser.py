"""Issue 21 item 13 in Chromium: the admin as an admin reads it, on a tablet and a phone.

The Entry list is titled "Entries" and shows dollars; a round's change page shows its state and
actions as tables and lines in words (cards as A♥, players by name), with no JSON braces in
what is drawn, and the page never scrolls sideways as a whole (wide tables scroll in their box).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from casino.models import Role
from tests import factories
from tests.browser import EVERY_SIZE, no_sideways_scroll, open_page, shot
from tests.console.conftest import Floor, build_floor
from tests.console.test_games import make_table, play_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Where an element is drawn, and whether the box that holds it lets it be scrolled to.
BOX = """el => {
    const r = el.getBoundingClientRect();
    let box = el.parentElement;
    while (box && box !== document.body && !(box.scrollWidth > box.clientWidth
           && ["auto", "scroll"].includes(getComputedStyle(box).overflowX))) box = box.parentElement;
    const own = !!box && box !== document.body;
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, scrolls: own};
}"""
# The Entry list's cells under a header, as drawn: their text and how many lines it takes.
COLUMN = """name => {
    const heads = [...document.querySelectorAll("#result_list thead th")].map(th => th.textContent.trim());
    const at = heads.indexOf(name);
    return [...document.querySelectorAll("#result_list tbody tr")].map(tr => {
        const range = document.createRange();
        range.selectNodeContents(tr.children[at]);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        return {text: tr.children[at].innerText.trim(), lines};
    });
}"""
DOLLARS = re.compile(r"^[-−]?\$\d{1,3}(?:,\d{3})*\.\d\d$")


@pytest.fixture
def floor(transactional_db: None) -> Floor:
    return build_floor(prefix="adb")


def _sign_in_to_admin(page: Any) -> None:
    factories.staff(Role.ADMIN, username="adbsuper", is_staff=True, is_superuser=True)
    page.goto("/admin/login/")
    page.get_by_label("Username").fill("adbsuper")
    page.get_by_label("Password").fill(factories.PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Site administration").wait_for()


def _inside_width(page: Any, locator: Any, width: int) -> None:
    """Drawn inside the screen's width, or inside a box of its own that scrolls sideways."""
    where = locator.evaluate(BOX)
    assert where["scrolls"] or (where["left"] >= 0 and where["right"] <= width), where


@EVERY_SIZE
def test_the_admin_says_entries_shows_dollars_and_a_round_in_words(
    browser: Any,
    live_server: Any,
    floor: Floor,
    viewport: dict[str, int],
) -> None:
    floor.open_faro(inventory=1_234_500)
    table, players = make_table(floor, "newmarket", 3)
    dealer = Client()
    dealer.force_login(floor.dealer)
    round_ = play_round(floor, table, dealer)
    width = viewport["width"]

    page = open_page(browser, live_server, viewport)
    _sign_in_to_admin(page)
    entries_link = page.get_by_role("link", name="Entries", exact=True)
    assert entries_link.is_visible()
    assert page.get_by_text("Entrys").count() == 0
    _inside_width(page, entries_link, width)
    no_sideways_scroll(page)

    # The Entry list: titled in the plural, amounts in dollars.
    entries_link.click()
    page.wait_for_url("**/admin/ledger/entry/")
    crumbs = page.locator(".breadcrumbs").inner_text()
    assert crumbs.split("›")[-1].strip() == "Entries", crumbs
    bankroll = page.locator("#result_list td", has_text="$12,345.00").first
    assert bankroll.is_visible()
    bankroll.scroll_into_view_if_needed()
    _inside_width(page, bankroll, width)
    listed = page.locator("#result_list").inner_text()
    assert "1234500" not in listed
    for column in ("Amount", "Balance after"):
        cells = page.evaluate(COLUMN, column)
        assert cells, column
        assert all(DOLLARS.match(cell["text"]) for cell in cells), (column, cells)
        assert {cell["lines"] for cell in cells} == {1}, (column, cells)  # never "−" above "$2,000.00"
    no_sideways_scroll(page)
    shot(page, f"admin-entries-{width}x{viewport['height']}")

    # A round's page: its state as tables in words, its actions as lines, no JSON.
    page.goto(f"/admin/tables/round/{round_.pk}/change/")
    state = page.locator(".field-state_shown table.round-json").first
    state.wait_for()
    assert state.is_visible()
    content = page.locator("#content").inner_text()
    for brace in ('{"', "{'", '":', "[{"):
        assert brace not in content, brace
    assert re.search(r"A♥\s+\$\d+\.\d\d", page.locator(".field-state_shown").inner_text())
    for player in players:
        assert player.name in content
    action = page.locator(".field-what", has_text=re.compile(r"\bplay · player [A-Z]")).first
    action.scroll_into_view_if_needed()
    assert action.is_visible()
    assert re.search(r"card (?:10|[2-9AJQK])[♠♥♦♣]", action.inner_text())
    _inside_width(page, action, width)
    state.scroll_into_view_if_needed()
    _inside_width(page, state, width)
    box = state.bounding_box()
    assert box is not None
    assert box["y"] < viewport["height"], box  # scrolled to: on screen
    assert box["y"] + box["height"] > 0, box
    no_sideways_scroll(page)
    shot(page, f"admin-round-{width}x{viewport['height']}")
    page.context.close()
