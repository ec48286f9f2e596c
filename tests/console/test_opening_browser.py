"""Issue 21 item 7: opening a table, and a tray that cannot pay.

The open form pre-filled 0, said a difference "is recorded as a variance" while a first
opening in fact issues the bankroll from the cage, and a $0 tray later stopped the deal with
no next step. Now the form pre-fills the last closer, shows "Last closer $X, you counted $Y,
variance $Z" and what will post before the dealer confirms, and a tray short for a payout
offers "Request a fill" pre-filled with what it lacks.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.models import Transfer
from tables.models import TableSession
from tables.rounds import apply_round_action, start_round
from tables.services import close_table, seat_player
from tables.slips.models import Slip
from tests.browser import PHONE, PORTRAIT, TABLET, confirmed, key_cards, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [TABLET, PORTRAIT, PHONE]


def _within(page: Any, locator: Any, viewport: dict[str, int]) -> None:
    """On screen without scrolling: inside the viewport's width and height."""
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= viewport["width"], box
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= viewport["height"], box


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_opening_prefills_the_last_closer_and_shows_the_variance_before_confirming(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro(1_000_000)  # first opening: $10,000 issued from the cage
    close_table(actor=world.dealer, table_id=world.faro.pk, closing_inventory=995_000)  # closer $9,950
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")

    count = page.get_by_label("Opening count (dollars)")
    assert count.input_value() == "9950"  # the last closer, not 0
    assert "The last closer was $9,950.00" in page.get_by_test_id("open-panel").inner_text()
    assert "recorded as a variance" not in page.inner_text("body")
    count.fill("9,900")
    page.get_by_role("button", name="Check count").click()
    check = page.get_by_test_id("open-check")
    check.wait_for()
    assert check.inner_text() == "Last closer $9,950.00, you counted $9,900.00, variance $50.00 short."
    panel = page.get_by_test_id("open-panel").inner_text()
    assert "posted to over/short, so the tray's ledger balance becomes your count" in panel
    assert TableSession.objects.filter(table=world.faro).count() == 1  # nothing has moved yet
    confirm = page.get_by_role("button", name="Open table")
    _within(page, check, viewport)
    _within(page, confirm, viewport)
    shot(page, f"open-confirm-{viewport['width']}")

    confirm.click()
    confirmed(page, "is open with $9,900.00")
    session = TableSession.objects.filter(table=world.faro, closed_at__isnull=True).get()
    assert (session.opening_inventory, session.opening_ledger, session.opening_variance) == (
        990_000,
        995_000,
        -5_000,
    )
    world.faro.tray.refresh_from_db()
    assert world.faro.tray.balance == 990_000
    variance = Transfer.objects.filter(kind="count_variance", meta__stage="opening").get()
    assert variance.entries.get(account=world.faro.tray).amount == -5_000  # tray → over/short


def test_a_first_opening_says_the_cage_issues_the_bankroll(
    browser: Any, live_server: Any, world: Floor
) -> None:
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    assert page.get_by_label("Opening count (dollars)").input_value() == ""  # no closer yet: not 0
    assert "never been open" in page.get_by_test_id("open-panel").inner_text()
    page.get_by_label("Opening count (dollars)").fill("5,000")
    page.get_by_role("button", name="Check count").click()
    page.get_by_test_id("open-check").filter(has_text="No last closer").wait_for()
    assert "The cage issues $5,000.00 to the tray" in page.get_by_test_id("open-panel").inner_text()
    page.get_by_role("button", name="Open table").click()
    confirmed(page, "is open with $5,000.00")
    assert Transfer.objects.filter(kind="table_issue", entries__amount=500_000).exists()


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_tray_that_cannot_pay_offers_a_fill_of_what_it_lacks(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro(0)  # a $0 tray
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    deal = start_round(actor=world.dealer, table_id=world.faro.pk, shoe="manual")
    deal = apply_round_action(actor=world.dealer, round_id=deal.pk, action={"type": "soda", "card": "KS"})
    bet = {"type": "bet", "player": world.kate.pk, "ranks": ["Q"], "amount": 5_000}
    apply_round_action(actor=world.dealer, round_id=deal.pk, action=bet)

    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    key_cards(page, ["2C", "QD"], "this payout needs $50.00 more")  # Kate's queen wins: the tray owes $50
    assert "Request a fill" in receipt(page).inner_text()
    amount = page.get_by_label("Fill ($)")
    assert amount.input_value() == "50"
    button = page.get_by_role("button", name="Request a fill")
    _within(page, button, viewport)
    shot(page, f"tray-short-fill-{viewport['width']}")
    assert not Slip.objects.filter(kind="fill").exists()

    button.click()
    confirmed(page, "Fill of $50.00 requested")
    fill = Slip.objects.get(kind="fill")
    assert (fill.kind, fill.amount, fill.status, fill.requested_by_id) == (
        "fill",
        5_000,
        "pending",
        world.dealer.pk,
    )
