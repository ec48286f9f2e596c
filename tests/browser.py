"""Driving Chromium in tests: the browser, a tablet-sized page, and the dealer's common taps.

Debian's Chromium (``/usr/bin/chromium``, installed by deploy/scripts/setup) is required: a
missing browser fails these tests, it does not skip them. The ``browser`` fixture itself is in
tests/conftest.py, so every folder's browser tests share it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tables.rounds import start_round
from tables.services import seat_player
from tests.factories import PASSWORD

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
README_SHOTS = ROOT / "deploy" / "docs" / "screenshots"
TABLET = {"width": 1280, "height": 800}
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def open_page(browser: Any, live_server: Any) -> Any:
    context = browser.new_context(viewport=TABLET, base_url=live_server.url)
    context.set_default_timeout(10_000)
    return context.new_page()


def shot(page: Any, name: str) -> Path:
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def sign_in(page: Any, username: str) -> None:
    page.goto("/console/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def receipt(page: Any) -> Any:
    return page.get_by_test_id("receipt")


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
    form = page.locator("#bet-form")
    form.locator("label.pick", has_text=player).click()
    for rank in ranks:
        form.locator(f'label.rank[data-rank="{rank}"]').click()
    if amount.startswith("$"):
        form.locator("#custom-amount").fill(amount[1:])
    else:
        form.locator(".amount-picks label.pick", has_text=amount).first.click()
    if coppered:
        form.locator(".copper-toggle").click()
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


def live_faro_deal(world: Any) -> None:
    """The browser floor's Faro table open, Kate Elder seated, an electronic deal under way."""
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    start_round(actor=world.dealer, table_id=world.faro.pk, shoe="electronic")


def dealer_at_faro(page: Any, world: Any) -> None:
    """Sign ``page`` in as the floor's dealer and open the Faro table's screen."""
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
