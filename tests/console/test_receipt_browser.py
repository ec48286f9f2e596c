"""Issue 21 item 5: a receipt never covers the game.

It sat in the sticky table header with no height limit: a Newmarket start gave a 13-line, 450 px
receipt over half of a 1280×800 screen until dismissed. Now it shows two lines with "more", a
success fades after a few seconds and a refusal stays, on a tablet (landscape, upright) and a phone.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import (
    EVERY_SIZE,
    dealer_at_faro,
    live_faro_deal,
    no_sideways_scroll,
    on_screen,
    open_page,
    place_bet,
    shot,
    sign_in,
)
from tests.console.conftest import Floor, build_floor
from tests.console.test_games import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOX = """el => {
    const style = getComputedStyle(el.querySelector("[data-receipt-body]"));
    const rect = el.getBoundingClientRect();
    return {height: rect.height, top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right,
            line: parseFloat(style.lineHeight), items: el.querySelectorAll("li").length};
}"""


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="rc")


@EVERY_SIZE
def test_a_long_receipt_shows_two_lines_opens_with_more_and_fades(
    browser: Any,
    live_server: Any,
    world: Floor,
    viewport: dict[str, int],
) -> None:
    table, _ = make_table(world, "newmarket", 3)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table.pk}/")
    page.get_by_role("button", name="Start deal").click()
    receipt = page.get_by_test_id("receipt").filter(has_text="started")
    receipt.wait_for()

    closed = receipt.evaluate(BOX)
    assert closed["items"] >= 5, closed  # a long receipt: the start lists every pot and ante
    more = receipt.get_by_role("button", name="more")
    more_box = more.bounding_box()
    assert more_box is not None
    assert more.is_visible()
    # Two lines of text (or the "more" button, if taller) plus the padding and border.
    assert closed["height"] <= max(2 * closed["line"], more_box["height"]) + 24, closed
    shot(page, f"receipt-closed-{viewport['width']}x{viewport['height']}")
    # On screen with its "more" button, in the top quarter of a tablet; on a phone, whose top bar
    # takes two lines, the sticky header holding it stays within a third of the screen once the
    # game scrolls under it.
    assert closed["top"] >= 0, closed
    assert closed["left"] >= 0, closed
    assert closed["right"] <= viewport["width"], closed
    if viewport["width"] > 600:
        assert closed["bottom"] <= viewport["height"] * 0.25, closed
    else:
        page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        head = page.locator(".table-head").bounding_box()
        assert head is not None
        assert head["y"] == 0, head  # stuck to the top
        assert head["y"] + head["height"] <= viewport["height"] / 3, head
        assert receipt.bounding_box()["y"] >= 0  # type: ignore[index]
        page.evaluate("window.scrollTo(0, 0)")
    assert more_box["x"] >= 0, more_box
    assert more_box["x"] + more_box["width"] <= viewport["width"], more_box
    no_sideways_scroll(page)

    more.click()
    opened = receipt.evaluate(BOX)
    assert opened["height"] > closed["height"] + closed["line"], (closed, opened)
    last = receipt.locator("li").last
    last.scroll_into_view_if_needed()
    assert last.is_visible()
    assert receipt.get_by_role("button", name="less").get_attribute("aria-expanded") == "true"
    # Opened, it is being read: it does not fade. Closed again, it fades and is hidden.
    receipt.get_by_role("button", name="less").click()
    assert receipt.evaluate(BOX)["height"] == closed["height"]
    receipt.wait_for(state="hidden", timeout=20_000)
    assert page.get_by_test_id("receipt").count() == 1  # hidden, still there for a screen reader's history


@EVERY_SIZE
def test_a_refusal_stays_while_a_success_fades(
    browser: Any,
    live_server: Any,
    world: Floor,
    viewport: dict[str, int],
) -> None:
    live_faro_deal(world)

    refused = open_page(browser, live_server, viewport)
    dealer_at_faro(refused, world)
    place_bet(refused, "Kate Elder", ["K"], "$600")
    refusal = refused.get_by_test_id("receipt").filter(has_text="Refused: The table maximum is $500.00")
    refusal.wait_for()
    assert refusal.get_attribute("data-fade-after") is None

    # Only after the refusal is on screen: a success on a second screen, waited for until it has
    # faded. The refusal has been up longer than that success, so a fade would have hidden it.
    done = open_page(browser, live_server, viewport)
    dealer_at_faro(done, world)
    place_bet(done, "Kate Elder", ["Q"], "$25")
    success = done.get_by_test_id("receipt").filter(has_text="Kate Elder bet $25.00 on Q")
    success.wait_for()
    assert success.get_by_role("button", name="more").is_hidden()  # it fits: no "more"
    success.wait_for(state="hidden", timeout=20_000)

    assert refusal.is_visible()
    on_screen(refusal)
    shot(refused, f"receipt-refusal-{viewport['width']}x{viewport['height']}")
    refusal.get_by_role("button", name="Dismiss").click()
    refusal.wait_for(state="hidden")
