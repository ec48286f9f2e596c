"""Issue 21 item 8: the cage as a screen.

Buy-ins and cash-outs existed only in the API. The cashier now signs in to /cage/: finds a
player by name, sees the balance, buys in and cashes out (a double tap posts once: the
console's one-time form token), reads a refusal in dollars on the same screen, approves a
fill a dealer asked for, and prints a slip.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from ledger.models import Entry, Transfer
from tables.console.idempotency import new_token
from tables.services import request_tray_change
from tables.slips.models import Slip
from tests.browser import PHONE, PORTRAIT, TABLET, confirmed, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [TABLET, PORTRAIT, PHONE]

# Two posts of the same form at once, as a double tap sends them (same one-time token).
DOUBLE_TAP = """async (selector) => {
    const form = document.querySelector(selector);
    const data = new FormData(form);
    const send = () => fetch(form.action, {method: 'POST', body: data, headers: {'HX-Request': 'true'}});
    const replies = await Promise.all([send(), send()]);
    return Promise.all(replies.map(async r => [r.status, await r.text()]));
}"""


def _on_screen(locator: Any, viewport: dict[str, int]) -> None:
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= viewport["width"], box


def _buy_ins(player: Any, amount: int) -> int:
    return Entry.objects.filter(
        transfer__kind="buy_in", account=player.wallet, amount=amount, transfer__meta__player=player.pk
    ).count()


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_cashier_works_the_cage_from_one_screen(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    fill = request_tray_change(actor=world.dealer, table_id=world.faro.pk, kind="fill", amount=20_000)
    wyatt = world.wyatt
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]

    # Find a player by name; the result shows the balance in dollars.
    page.get_by_label("Name").fill("Wyatt")
    page.get_by_role("button", name="Find").click()
    result = page.get_by_role("link", name=f"Choose {wyatt.name}")
    assert "$2,000.00 available" in result.inner_text()
    result.click()
    assert page.get_by_test_id("cage-available").inner_text() == "$2,000.00"

    # Buy in $50 with a double tap: one transfer in the ledger, the second tap replays the first.
    page.get_by_label("Buy in ($)").fill("50")
    replies = page.evaluate(DOUBLE_TAP, "[data-testid=buy-in-form]")
    assert [status for status, _ in replies] == [200, 200]
    assert sum("already done" in body for _, body in replies) == 1
    assert _buy_ins(wyatt, 5_000) == 1
    page.reload()
    assert page.get_by_test_id("cage-available").inner_text() == "$2,050.00"

    # Cash out $30 by tapping; the receipt offers the slip.
    page.get_by_label("Cash out ($)").fill("30")
    page.get_by_role("button", name="Cash out").click()
    confirmed(page, f"Cash-out of $30.00 for {wyatt.name}")
    assert page.get_by_test_id("cage-available").inner_text() == "$2,020.00"
    slip_link = page.get_by_test_id("slip-link")
    _on_screen(slip_link, viewport)
    slip_href = slip_link.get_attribute("href")

    # Too much: refused on the same screen, in dollars; nothing moves.
    before = Transfer.objects.count()
    page.get_by_label("Cash out ($)").fill("5,000")
    page.get_by_role("button", name="Cash out").click()
    refusal = page.get_by_test_id("inline-error")
    refusal.wait_for()
    words = f"{wyatt.name} has $2,020.00 available; a cash-out of $5,000.00 needs $2,980.00 more."
    assert words in refusal.inner_text()
    assert words in receipt(page).inner_text()
    assert "cents" not in page.inner_text("body")
    assert urlsplit(page.url).path == "/cage/"
    _on_screen(refusal, viewport)
    assert Transfer.objects.count() == before
    shot(page, f"cage-refusal-{viewport['width']}")

    # A fill the dealer asked for: the cage issues it here, a second person; its chips leave the
    # cage for transit, and the tray has them once the dealer and a pit boss sign for them.
    approve = page.get_by_role("button", name=f"Approve fill of $200.00 for {world.faro.name}")
    _on_screen(approve, viewport)
    approve.click()
    confirmed(page, f"Issued: fill {fill.number} of $200.00 for {world.faro.name}")
    fill = Slip.objects.get(pk=fill.pk)
    assert fill.status == "issued"
    assert [s.user_id for s in fill.signatures.all()] == [world.cashier.pk]
    world.faro.tray.refresh_from_db()
    assert world.faro.tray.balance == 1_000_000
    row = page.get_by_test_id("cage-request")
    assert row.count() == 1
    assert f"{fill.number} — issued, in transit: waiting for the dealer's and a pit boss's signatures" in (
        row.inner_text()
    )
    assert page.get_by_role("button", name=f"Approve fill of $200.00 for {world.faro.name}").count() == 0

    # The slip: player, dollars, time, cashier, transfer id; printable (no nav when printed).
    page.goto(slip_href)
    slip = page.get_by_test_id("slip")
    text = slip.inner_text()
    transfer_id = int(slip_href.rstrip("/").rsplit("/", 1)[1])
    for part in ("Cash-out slip", wyatt.name, "$30.00", world.cashier.name, f"#{transfer_id}"):
        assert part in text, part
    _on_screen(slip, viewport)
    page.emulate_media(media="print")
    assert page.locator(".topbar").is_hidden()
    assert page.get_by_role("button", name="Print").is_hidden()
    shot(page, f"cage-slip-{viewport['width']}")


def test_only_the_cashier_opens_the_cage(browser: Any, live_server: Any, world: Floor, as_user: Any) -> None:
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.goto("/cage/")
    assert page.get_by_role("heading", name="Not for this account").is_visible()
    for user in (world.dealer, world.pit_boss, world.auditor):
        body = {"token": new_token(), "amount": "50"}
        refused = as_user(user).post(f"/cage/players/{world.wyatt.pk}/buy-in/", body)
        assert refused.status_code == 403
    assert _buy_ins(world.wyatt, 5_000) == 0
