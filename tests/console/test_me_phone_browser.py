"""Issue 21 item 11: a player's own page fits a phone.

At 390 px the page was 456 px wide, "Sign out" was clipped and the ratings table showed two of
its ten columns. Now it fits 360 px with no sideways scrolling, and each sitting is a card.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.services import seat_player
from tests.browser import sign_in
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]

# Every ratings cell with a label: its label as shown (CSS ::before), its value, and its box.
CELLS = """() => [...document.querySelectorAll("table.ratings tbody td[data-label]")].map(td => {
    const r = td.getBoundingClientRect();
    return {label: getComputedStyle(td, "::before").content.replace(/"/g, ""),
            value: td.innerText.trim(), left: r.left, right: r.right, height: r.height};
})"""


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="ph")


@pytest.mark.parametrize("viewport", PHONES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_players_page_fits_a_phone(
    browser: Any,
    live_server: Any,
    world: Floor,
    viewport: dict[str, int],
) -> None:
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    context = browser.new_context(viewport=viewport, base_url=live_server.url)
    context.set_default_timeout(10_000)
    page = context.new_page()
    sign_in(page, world.kate.user.username)
    page.get_by_role("heading", name="My ratings").wait_for()
    width = viewport["width"]

    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate("document.body.scrollWidth") <= width

    sign_out = page.get_by_role("button", name="Sign out")
    box = sign_out.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= width, box
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= viewport["height"], box
    assert sign_out.evaluate("el => el.scrollWidth <= el.clientWidth")  # its words are not cut

    # The sitting is a card: every figure with its label, each inside the screen.
    cells = page.evaluate(CELLS)
    assert [cell["label"] for cell in cells] == [
        "Started",
        "Ended",
        "Minutes",
        "Decisions",
        "Handle",
        "Average bet",
        "Theo",
        "Result",
        "Comp points",
    ]
    for cell in cells:
        assert cell["value"], cell
        assert cell["left"] >= 0, cell
        assert cell["right"] <= width, cell
    assert page.get_by_test_id("sitting").inner_text().startswith(world.faro.name)
    assert page.get_by_test_id("sitting").get_by_text("$0.00").first.is_visible()
    # Still a table to a screen reader: its column headers are there, only not drawn.
    assert page.get_by_role("columnheader", name="Handle").count() == 1
    context.close()


def test_the_players_page_is_still_a_table_on_a_tablet(
    browser: Any,
    live_server: Any,
    world: Floor,
) -> None:
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=live_server.url)
    page = context.new_page()
    sign_in(page, world.kate.user.username)
    page.get_by_role("heading", name="My ratings").wait_for()
    assert page.get_by_test_id("sitting").evaluate("el => getComputedStyle(el).display") == "table-row"
    assert page.get_by_role("columnheader", name="Comp points").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    context.close()
