"""Issue 21 item 7: a tray that cannot pay.

A $0 tray once stopped the deal with no next step; now a tray short for a payout offers
"Request a fill" pre-filled with what it lacks. (Opening a table, once typed in dollars here, is
counted on the chip grid since issue 46: tests/console/test_open_close_grid_browser.py.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
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
