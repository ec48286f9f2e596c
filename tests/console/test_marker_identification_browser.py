"""Issue 48: a cash payment on a marker at the cage that would take the player's cash in today
past $10,000.00 with no identification on file is refused, and the screen offers what a refused
buy-in offers: record the ID examined and the same payment goes through, in one tap."""

from __future__ import annotations

from typing import Any

import pytest

from casino.cash.models import CashRefusal, CashTransaction, Identification
from casino.models import Role
from tables.credit.models import Marker
from tables.credit.services import issue_marker, set_credit_line
from tables.services import seat_player
from tests import factories
from tests.browser import PORTRAIT, TABLET, confirmed, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=lambda v: f"{v['width']}x{v['height']}")


@SIZES
def test_a_cash_payment_refused_for_want_of_id_records_it_and_pays_in_one_tap(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    wyatt = world.wyatt  # bought in $2,000.00 in cash at the cage today
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=wyatt.pk, seat=1)
    set_credit_line(actor=factories.staff(Role.ADMIN), player=wyatt, limit=1_000_000)
    marker = issue_marker(actor=world.pit_boss, table_id=world.faro.pk, player_id=wyatt.pk, amount=900_000)
    number = marker.slip.number
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    page.goto(f"/cage/?player={wyatt.pk}")

    # $9,000.00 in cash would make $11,000.00 today: refused, with the identification prompt.
    form = page.get_by_test_id("marker-pay")
    form.get_by_label("Payment ($)").fill("9,000")
    form.get_by_label("Cash").check()
    button = form.get_by_role("button", name=f"Take payment on {number}")
    button.scroll_into_view_if_needed()
    button.click()
    prompt = page.get_by_test_id("identify")
    prompt.wait_for()
    words = prompt.inner_text()
    assert "Identification needed" in words
    assert f"A cash payment of $9,000.00 for {wyatt.name} takes the day's cash past $10,000.00" in words
    assert f"the cash payment on marker {number} then goes through" in words
    assert f"{wyatt.name}'s cash in today would be $11,000.00" in receipt(page).inner_text()
    assert Marker.objects.get(pk=marker.pk).outstanding == 900_000
    assert CashRefusal.objects.filter(player=wyatt, amount=900_000, kind="marker_redemption").count() == 1
    prompt.scroll_into_view_if_needed()
    shot(page, f"cage-marker-identify-{viewport['width']}")

    page.get_by_label("Kind of ID").select_option(label="Passport")
    page.get_by_label("ID number").fill("P0001881")
    assert page.get_by_label("Name on the ID").input_value() == wyatt.name
    page.get_by_label("Date of birth").fill("1948-03-19")
    page.get_by_label("Address").fill("1 Allen Street, Tombstone AZ 85638")
    page.get_by_role("button", name="Record ID and pay $9,000.00 in cash").click()

    confirmed(page, f"$9,000.00 paid in cash on marker {number} by {wyatt.name}.")
    assert "Passport of Wyatt Earp recorded." in receipt(page).inner_text()
    assert "Still owed on it: $0.00" in receipt(page).inner_text()
    assert page.get_by_test_id("identify").count() == 0
    assert page.get_by_test_id("marker-pay").count() == 0
    assert "$11,000.00" in page.get_by_test_id("cash-today").inner_text()
    assert Marker.objects.get(pk=marker.pk).outstanding == 0
    assert Identification.objects.get(player=wyatt).recorded_by == world.cashier
    paid = CashTransaction.objects.get(player=wyatt, kind="marker_redemption")
    assert (paid.amount, paid.transfer is not None) == (900_000, True)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    shot(page, f"cage-marker-identified-{viewport['width']}")
