"""Driving Chromium in tests: the browser, a tablet-sized page, and the dealer's common taps.

Debian's Chromium (``/usr/bin/chromium``, installed by deploy/scripts/setup) is required: a
missing browser fails these tests, it does not skip them. The ``browser`` fixture itself is in
tests/conftest.py, so every folder's browser tests share it.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from tables.rounds import start_round
from tables.services import seat_player
from tests.factories import PASSWORD

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
README_SHOTS = ROOT / "deploy" / "docs" / "screenshots"
TABLET = {"width": 1280, "height": 800}
PORTRAIT = {"width": 810, "height": 1080}  # an iPad held upright
PHONE = {"width": 390, "height": 844}
# The three screens every console page is tried on, as a test's ``viewport`` parameter.
EVERY_SIZE = pytest.mark.parametrize(
    "viewport", [TABLET, PORTRAIT, PHONE], ids=["tablet", "portrait", "phone"]
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# The contexts the running test opened; tests/conftest.py closes them when it ends. A page left
# open keeps polling and keeps its keep-alive socket, and with it a live-server thread and that
# thread's PostgreSQL connection: a run's leftovers would exhaust the server's connections.
_opened: list[Any] = []


def open_page(browser: Any, live_server: Any, viewport: dict[str, int] = TABLET) -> Any:
    context = browser.new_context(viewport=viewport, base_url=live_server.url)
    _opened.append(context)
    context.set_default_timeout(10_000)
    return context.new_page()


def close_pages() -> None:
    """Close every context the test opened (one already closed by the test is skipped)."""
    while _opened:
        context = _opened.pop()
        with contextlib.suppress(Exception):  # Chromium already gone: nothing left to close
            context.close()


def shot(page: Any, name: str) -> Path:
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def sign_in(page: Any, username: str, password: str = PASSWORD) -> None:
    page.goto("/console/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def receipt(page: Any) -> Any:
    return page.get_by_test_id("receipt")


def on_screen(locator: Any) -> dict[str, float]:
    """``locator`` is drawn wholly inside its page's viewport (seen without scrolling); its box."""
    box = locator.bounding_box()
    size = locator.page.viewport_size
    assert box is not None, f"{locator} is not laid out"
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= size["width"], box
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= size["height"], box
    return box


def no_sideways_scroll(page: Any) -> None:
    """The page is no wider than its window, which is as wide as the viewport asked for."""
    width = page.viewport_size["width"]
    assert page.evaluate("innerWidth") == width
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width


# htmx shows swapped-in content at once but wires its hx-* attributes only when it settles
# (20 ms later, more on a busy machine); typing into a search box before then fires no request.
HTMX_SETTLED = "() => !document.querySelector('.htmx-added, .htmx-settling, .htmx-request')"


def confirmed(page: Any, text: str) -> None:
    """Wait for the receipt to say ``text`` and for htmx to have wired the screen it came with."""
    receipt(page).filter(has_text=text).wait_for()
    page.wait_for_function(HTMX_SETTLED)


def key_cards(page: Any, cards: tuple[str, ...] | list[str], expect: str) -> None:
    for card in cards:
        page.locator(f'#card-picker [data-card="{card}"]').click()
    page.get_by_test_id("deal-manual").click()
    confirmed(page, expect)


def place_bet(page: Any, player: str, ranks: list[str], amount: str, *, coppered: bool = False) -> None:
    """Player → cards → chip ("25" taps the $25 chip; "$600" types an amount) → copper → confirm."""
    form = page.locator("#bet-form")
    form.locator(".bet-players label.pick", has_text=player).click()
    for rank in ranks:
        form.locator(f'label.rank[data-rank="{rank}"]').click()
    choose_chip(page, amount)
    if coppered:
        form.locator(".copper-toggle").click()
    form.locator("[data-confirm]").click()


def choose_chip(page: Any, amount: str) -> None:
    """Tap a chip ("25": the chip showing $25) or type an amount ("$600")."""
    form = page.locator("#bet-form")
    if amount.startswith("$"):
        form.locator("#custom-amount").fill(amount[1:])
    else:
        exact = re.compile(rf"^\${re.escape(amount)}$")
        form.locator(".amount-picks label.pick").filter(has_text=exact).click()


def call_turn(page: Any, player: str, order: str, amount: str) -> None:
    """At the last turn: player → one of the possible orders ("9 · J · 4") → chip → confirm."""
    form = page.locator("#bet-form")
    form.locator(".bet-players label.pick", has_text=player).click()
    form.locator("#call-turn label.pick", has_text=order).click()
    choose_chip(page, amount)
    form.locator("[data-confirm]").click()


def check_accessibility(page: Any) -> None:
    """Every control has a name, and the first Tab lands on the skip link, then the header."""
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('input:not([type=hidden]), select, button, a[href]')]
            .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                          && !el.textContent.trim())
            .map(el => el.outerHTML.slice(0, 120))"""
    )
    assert unnamed == []
    page.reload()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Skip to content"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Casekeeper"


def live_faro_deal(world: Any, seed: str | None = None) -> None:
    """The browser floor's Faro table open, Kate Elder seated, an electronic deal under way
    (``seed``: a known deck, for a test that needs one)."""
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    start_round(actor=world.dealer, table_id=world.faro.pk, shoe="electronic", seed=seed)


def dealer_at_faro(page: Any, world: Any) -> None:
    """Sign ``page`` in as the floor's dealer and open the Faro table's screen."""
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
