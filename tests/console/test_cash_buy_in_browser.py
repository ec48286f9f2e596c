"""Issue 47 in Chromium, on a tablet held either way: a cash buy-in on the dealer's console in two
taps (a seated player, an amount), answered in words with the drop box the cash went into; a
typed amount that is not dollars is refused under the form, and nothing moves."""

from __future__ import annotations

from typing import Any

import pytest

from tables.drop.models import DropBox
from tables.services import seat_player
from tests.browser import (
    PORTRAIT,
    TABLET,
    confirmed,
    no_sideways_scroll,
    on_screen,
    open_page,
    receipt,
    shot,
    sign_in,
)
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])


@SIZES
def test_a_cash_buy_in_takes_two_taps_and_says_where_the_cash_went(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, seat=1)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.wyatt.pk, seat=2)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")

    panel = page.get_by_test_id("cash-panel")
    panel.scroll_into_view_if_needed()
    kate = panel.locator("label.pick", has_text="Kate Elder")
    five_hundred = panel.get_by_role("button", name="$500.00")
    on_screen(kate)  # both taps in view together
    on_screen(five_hundred)
    assert kate.bounding_box()["height"] >= 48
    assert five_hundred.bounding_box()["height"] >= 48
    no_sideways_scroll(page)
    shot(page, f"cash-buy-in-{viewport['width']}x{viewport['height']}")

    kate.click()
    five_hundred.click()

    confirmed(page, "Kate Elder bought $500.00 of chips with cash; in drop box")
    box = DropBox.objects.get(table=world.faro)
    assert (
        f"Kate Elder bought $500.00 of chips with cash; in drop box {box.number}."
        in receipt(page).inner_text()
    )
    words = receipt(page).inner_text()
    assert "Kate Elder has $2,500.00 available to play." in words
    assert f"Drop box {box.number} has $500.00 of cash recorded into it." in words
    assert box.recorded == 50_000
    assert page.get_by_test_id("tray").inner_text() == "$9,500.00"
    page.context.close()


@SIZES
def test_a_typed_amount_that_is_not_dollars_is_refused_under_the_form(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, seat=1)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")

    panel = page.get_by_test_id("cash-panel")
    panel.get_by_label("Another amount, dollars").fill("lots")
    panel.get_by_test_id("cash-other").click()

    error = page.get_by_test_id("cash-panel").get_by_test_id("inline-error")
    error.wait_for()
    assert "dollars" in error.inner_text().lower()
    assert not DropBox.objects.exists()

    page.get_by_test_id("cash-panel").get_by_label("Another amount, dollars").fill("35")
    page.get_by_test_id("cash-panel").get_by_test_id("cash-other").click()
    confirmed(page, "Kate Elder bought $35.00 of chips with cash")
    assert DropBox.objects.get(table=world.faro).recorded == 3_500
    page.context.close()
