"""Issue 21 item 11: a player's own page fits a phone.

At 390 px the page was 456 px wide, "Sign out" was clipped and the ratings table showed two of
its ten columns. Now it fits 360 px with no sideways scrolling, and each sitting is a card (on an
upright tablet too, where ten columns do not fit 810 px: two figures a line there); on a tablet
held sideways it stays a table with every column on screen.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.services import seat_player
from tests.browser import PHONE, PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, shot, sign_in
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW_PHONE = {"width": 360, "height": 740}  # the narrowest phone the page must fit

# Every ratings cell with a label: its label as shown (CSS ::before), its value, and its box.
CELLS = """() => [...document.querySelectorAll("table.ratings tbody td[data-label]")].map(td => {
    const r = td.getBoundingClientRect();
    return {label: getComputedStyle(td, "::before").content.replace(/"/g, ""),
            value: td.innerText.trim(), left: r.left, right: r.right, height: r.height};
})"""


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="ph")


def kate_on_her_page(browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]) -> Any:
    """Kate, seated at Faro so that her page has a sitting to show, signed in to her own page."""
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.kate.user.username)
    page.get_by_role("heading", name="My ratings").wait_for()
    return page


@pytest.mark.parametrize("viewport", [NARROW_PHONE, PHONE, PORTRAIT], ids=["phone-360", "phone", "portrait"])
def test_the_players_page_fits_a_phone_or_an_upright_tablet(
    browser: Any,
    live_server: Any,
    world: Floor,
    viewport: dict[str, int],
) -> None:
    page = kate_on_her_page(browser, live_server, world, viewport)
    width = viewport["width"]

    no_sideways_scroll(page)
    assert page.evaluate("document.body.scrollWidth") <= width

    sign_out = page.get_by_role("button", name="Sign out")
    on_screen(sign_out)
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
    columns = len({round(cell["left"]) for cell in cells})
    assert columns == (1 if width < 640 else 2), cells  # a phone: one figure a line
    assert page.get_by_test_id("sitting").inner_text().startswith(world.faro.name)
    assert page.get_by_test_id("sitting").get_by_text("$0.00").first.is_visible()
    # Still a table to a screen reader: its column headers are there, only not drawn.
    assert page.get_by_role("columnheader", name="Handle").count() == 1
    shot(page, f"me-{width}x{viewport['height']}")
    page.context.close()


def test_the_players_page_is_still_a_table_on_a_tablet(browser: Any, live_server: Any, world: Floor) -> None:
    viewport = TABLET
    page = kate_on_her_page(browser, live_server, world, viewport)
    width = viewport["width"]
    assert page.get_by_test_id("sitting").evaluate("el => getComputedStyle(el).display") == "table-row"
    # Every column header is drawn, inside the screen, on one row.
    headers = page.evaluate(
        """() => [...document.querySelectorAll("table.ratings thead th")].map(th => {
            const r = th.getBoundingClientRect();
            return {text: th.innerText.trim(), left: r.left, right: r.right, top: r.top};
        })"""
    )
    assert [h["text"] for h in headers][-1] == "Comp points", headers
    assert len({h["top"] for h in headers}) == 1, headers
    for header in headers:
        assert header["left"] >= 0, header
        assert header["right"] <= width, header
    assert page.get_by_role("columnheader", name="Comp points").is_visible()
    no_sideways_scroll(page)
    sign_out = page.get_by_role("button", name="Sign out").bounding_box()
    assert sign_out is not None
    assert sign_out["x"] >= 0, sign_out
    assert sign_out["x"] + sign_out["width"] <= width, sign_out
    shot(page, f"me-{width}x{viewport['height']}")
    page.context.close()
