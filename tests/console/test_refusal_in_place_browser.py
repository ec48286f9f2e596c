"""Issue 21 item 1: a refused action (a 400) is a message on the same screen, DEBUG on or off.

With DEBUG on, ``{% htmx_script %}`` used to add django-htmx's debug handler, which replaces the
whole document with any 400 response: the dealer lost the styled screen to bare HTML. Each case
checks, on a tablet (landscape, upright) and a phone, with DEBUG off and then on, that the
screen's landmarks are still there and on screen, and the refusal is in words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The page still carries its stylesheet, its top bar and the marker set before the refusal: a
# document rewritten by innerHTML would lose the marker on <html> and the console.css link.
SAME_PAGE = """() => ({
    marker: document.documentElement.dataset.before === "refusal",
    styled: !!document.querySelector('link[rel=stylesheet][href*="console/console.css"]'),
    topbar: !!document.querySelector("header.topbar"),
})"""


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="ref", more_tables=True)


def _debug_off_then_on(settings: Any, page: Any) -> Iterator[bool]:
    """Run the case with DEBUG off, then again with it on, on one floor (building it is the slow
    part). The live server really runs with each: only DEBUG shows Django's technical 404."""
    for debug in (False, True):
        settings.DEBUG = debug
        page.goto("/console/no-such-screen/")
        assert ("URLconf" in page.content()) is debug
        yield debug


def _mark(page: Any) -> None:
    page.evaluate("document.documentElement.dataset.before = 'refusal'")


def _assert_same_page(page: Any) -> None:
    assert page.evaluate(SAME_PAGE) == {"marker": True, "styled": True, "topbar": True}


def _refusal_in_words(receipt: Any) -> str:
    text = receipt.inner_text()
    assert text.startswith("Refused: "), text
    assert "<" not in text, text
    assert "Bad Request" not in text, text
    assert len(re.findall(r"[A-Za-z]{2,}", text)) >= 4, text
    return text


@EVERY_SIZE
def test_an_over_limit_faro_bet_is_refused_on_the_same_screen(
    browser: Any,
    live_server: Any,
    world: Floor,
    settings: Any,
    viewport: dict[str, int],
) -> None:
    live_faro_deal(world)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    for debug in _debug_off_then_on(settings, page):
        page.goto(f"/console/tables/{world.faro.pk}/")
        _mark(page)
        with page.expect_response(lambda response: response.request.method == "POST") as sent:
            place_bet(page, "Kate Elder", ["K"], "$600")
        assert sent.value.status == 400
        page.locator("#bet-form").get_by_test_id("inline-error").filter(
            has_text="The table maximum is $500.00"
        ).wait_for()
        _assert_same_page(page)
        # Where the dealer is (no scrolling): the sticky table header, with the refusal in it.
        on_screen(page.locator(".table-head h1").first)
        assert page.locator(".table-head h1").inner_text() == world.faro.name
        receipt = page.get_by_test_id("receipt")
        assert "The table maximum is $500.00" in _refusal_in_words(receipt)
        on_screen(page.locator("[data-testid=receipt]").first)
        assert page.locator("#bet-form [data-confirm]").is_visible()
        no_sideways_scroll(page)
        if debug:
            shot(page, f"refusal-faro-{viewport['width']}x{viewport['height']}")
        page.evaluate("window.scrollTo(0, 0)")
        on_screen(page.locator("header.topbar").first)
    page.context.close()


@EVERY_SIZE
def test_the_pits_min_above_max_is_refused_on_the_same_screen(
    browser: Any,
    live_server: Any,
    world: Floor,
    settings: Any,
    viewport: dict[str, int],
) -> None:
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.pit_boss.username)
    for debug in _debug_off_then_on(settings, page):
        page.goto("/pit/")
        page.get_by_role("heading", name="The pit").wait_for()
        _mark(page)
        card = page.get_by_test_id("pit-table").filter(has_text=world.faro.name)
        card.locator("summary").click()  # the limits are behind the card's "More" (issue 44)
        card.get_by_label("Min ($)").fill("600")
        card.get_by_label("Max ($)").fill("500")
        with page.expect_response(lambda response: response.request.method == "POST") as sent:
            card.get_by_role("button", name=f"Change limits at {world.faro.name}").click()
        assert sent.value.status == 400
        receipt = page.get_by_test_id("receipt")
        receipt.wait_for()
        _assert_same_page(page)
        _refusal_in_words(receipt)
        # The refusal is where the pit boss is looking, not at the top of a scrolled page.
        on_screen(page.locator("[data-testid=receipt]").first)
        assert card.get_by_role("button", name=f"Change limits at {world.faro.name}").is_visible()
        no_sideways_scroll(page)
        if debug:
            shot(page, f"refusal-pit-{viewport['width']}x{viewport['height']}")
        page.evaluate("window.scrollTo(0, 0)")
        on_screen(page.locator("header.topbar").first)
        on_screen(page.locator("main.page h1").first)
        world.faro.refresh_from_db()
        assert (world.faro.min_bet, world.faro.max_bet) == (500, 50_000)
    page.context.close()


def test_a_server_failure_or_a_lost_connection_is_said_on_the_same_screen(
    browser: Any,
    live_server: Any,
    world: Floor,
) -> None:
    """htmx swaps nothing on a 5xx or a failed send: console.js says so in the receipt's place."""
    live_faro_deal(world)
    page = open_page(browser, live_server)
    dealer_at_faro(page, world)
    _mark(page)
    page.route(
        "**/*",
        lambda route: (
            route.fulfill(status=500, body="<h1>Server Error (500)</h1>")
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    place_bet(page, "Kate Elder", ["K"], "$10")
    page.get_by_test_id("receipt").filter(has_text="The server failed (error 500)").wait_for()
    _assert_same_page(page)
    on_screen(page.locator("[data-testid=receipt]").first)
    assert "Server Error" not in page.inner_text("body")

    page.unroute("**/*")
    page.route("**/*", lambda route: route.abort())  # the connection is gone: nothing gets through
    page.locator("#bet-form [data-confirm]").click()
    lost = page.get_by_test_id("receipt").filter(has_text="No answer from the server")
    lost.wait_for()
    _assert_same_page(page)
    assert page.get_by_test_id("receipt").count() == 1
    # Back online, the next answer (the bet form's 5 s poll for limit changes) clears it.
    page.unroute("**/*")
    lost.wait_for(state="hidden", timeout=20_000)
