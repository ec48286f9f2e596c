"""Issue 48: markers on screen. The pit issues a marker from a table's markers page with the
player's credit available in view, the table's dealer signs it on the console, and the cage takes
payments on it from the player's panel, in chips and in cash; every refusal in dollars, in place.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from ledger.models import Account, Transfer
from tables.accounts import receivable_code
from tables.credit.models import Marker
from tables.credit.services import issue_marker, set_credit_line
from tables.services import seat_player
from tables.slips.models import Slip
from tests import factories
from tests.browser import PORTRAIT, TABLET, confirmed, on_screen, open_page, receipt, shot, sign_in
from tests.console.conftest import PASSWORD, Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=lambda v: f"{v['width']}x{v['height']}")


def _owed(world: Floor) -> int:
    return int(Account.objects.get(code=receivable_code(world.wyatt.pk)).balance)


def _on_credit(world: Floor) -> None:
    """Faro open with Wyatt seated, and a $5,000.00 line an admin set for him."""
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.wyatt.pk, seat=1)
    set_credit_line(actor=factories.staff(Role.ADMIN), player=world.wyatt, limit=500_000)


@SIZES
def test_the_pit_issues_a_marker_and_the_dealer_signs_it(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    _on_credit(world)
    faro = world.faro
    pit = open_page(browser, live_server, viewport)
    sign_in(pit, world.pit_boss.username)
    pit.wait_for_url("**/pit/")
    pit.locator(f"#more-{faro.pk} summary").click()
    pit.get_by_role("link", name=f"Markers at {faro.name}").click()
    pit.wait_for_url(f"**/pit/tables/{faro.pk}/markers/")

    # The player's credit is on the page before the marker is issued.
    row = pit.get_by_test_id("credit-row").filter(has_text="Wyatt Earp")
    assert "$5,000.00" in row.inner_text()
    assert row.get_by_test_id("credit-available").inner_text() == "$5,000.00"

    # Over what is available: refused in dollars, in place; nothing moves.
    transfers = Transfer.objects.count()
    pit.locator("#marker-player").select_option(label="Wyatt Earp — $5,000.00 available")
    pit.get_by_label("Amount ($)").fill("6,000")
    pit.get_by_role("button", name="Issue marker").click()
    refusal = pit.get_by_test_id("inline-error")
    refusal.wait_for()
    assert "Wyatt Earp has $5,000.00 of credit available" in refusal.inner_text()
    assert "over it by $1,000.00" in refusal.inner_text()
    assert Transfer.objects.count() == transfers

    # $500.00: the receipt says who, how much, who signs, and the credit left.
    pit.locator("#marker-player").select_option(label="Wyatt Earp — $5,000.00 available")
    pit.get_by_label("Amount ($)").fill("500")
    button = pit.get_by_role("button", name="Issue marker")
    button.scroll_into_view_if_needed()
    on_screen(button)
    button.click()
    confirmed(pit, "in chips to Wyatt Earp")
    marker = Marker.objects.get()
    words = receipt(pit).inner_text()
    assert f"Marker {marker.slip.number}: $500.00 in chips to Wyatt Earp at {faro.name}." in words
    assert "Dana Dealer signs the marker at the table" in words
    assert "Wyatt Earp has $4,500.00 of credit left." in words
    assert pit.get_by_test_id("credit-available").inner_text() == "$4,500.00"
    assert marker.slip.number in pit.get_by_test_id("marker-row").inner_text()
    assert "cents" not in pit.inner_text("body")
    assert pit.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert _owed(world) == 50_000
    shot(pit, f"marker-issued-{viewport['width']}")

    # The dealer signs it on the console, with their own password.
    dealer = open_page(browser, live_server, viewport)
    sign_in(dealer, world.dealer.username)
    dealer.goto(f"/console/tables/{faro.pk}/")
    dealer.get_by_test_id("dealer-slips-link").click()
    dealer.wait_for_url(f"**/console/tables/{faro.pk}/slips/")
    slip_row = dealer.get_by_test_id("slip-row").filter(has_text=marker.slip.number)
    assert "Marker: credit given to Wyatt Earp" in slip_row.inner_text()
    assert "$500.00" in slip_row.inner_text()
    slip_row.locator("summary", has_text="Sign").click()
    slip_row.get_by_label("Your password, to sign").fill(PASSWORD)
    slip_row.get_by_role("button", name=f"Sign {marker.slip.number}").click()
    dealer.get_by_test_id("slip-done").filter(has_text=f"You signed slip {marker.slip.number}").wait_for()
    assert Slip.objects.get(pk=marker.slip_id).status == "final"
    shot(dealer, f"marker-signed-{viewport['width']}")


@SIZES
def test_the_cage_takes_payments_on_a_marker(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    _on_credit(world)
    marker = issue_marker(
        actor=world.pit_boss, table_id=world.faro.pk, player_id=world.wyatt.pk, amount=50_000
    )
    number = marker.slip.number
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    page.goto(f"/cage/?player={world.wyatt.pk}")
    panel = page.get_by_test_id("cage-markers")
    assert panel.get_by_test_id("credit-owed").inner_text() == "$500.00"
    assert panel.get_by_test_id("credit-available").inner_text() == "$4,500.00"
    form = panel.get_by_test_id("marker-pay")
    assert number in form.inner_text()
    assert form.get_by_label("Payment ($)").input_value() == "500"

    # $200.00 in chips from his wallet.
    wallet = Account.objects.get(pk=world.wyatt.wallet_id).balance
    form.get_by_label("Payment ($)").fill("200")
    form.get_by_label("Chips").check()
    button = form.get_by_role("button", name=f"Take payment on {number}")
    button.scroll_into_view_if_needed()
    button.click()
    confirmed(page, f"$200.00 paid in chips from the wallet on marker {number} by Wyatt Earp")
    assert "Still owed on it: $300.00" in receipt(page).inner_text()
    assert page.get_by_test_id("credit-owed").inner_text() == "$300.00"
    assert Account.objects.get(pk=world.wyatt.wallet_id).balance == wallet - 20_000
    assert _owed(world) == 30_000

    # More than is owed: refused in dollars, under the form.
    form = page.get_by_test_id("marker-pay")
    form.get_by_label("Payment ($)").fill("400")
    form.get_by_label("Cash").check()
    form.get_by_role("button", name=f"Take payment on {number}").click()
    refusal = page.get_by_test_id("inline-error")
    refusal.wait_for()
    assert f"Marker {number} has $300.00 outstanding" in refusal.inner_text()
    assert _owed(world) == 30_000

    # The rest in cash: the marker is paid, and leaves the list.
    form = page.get_by_test_id("marker-pay")
    form.get_by_label("Payment ($)").fill("300")
    form.get_by_label("Cash").check()
    form.get_by_role("button", name=f"Take payment on {number}").click()
    confirmed(page, f"$300.00 paid in cash on marker {number}")
    assert page.get_by_test_id("credit-owed").inner_text() == "$0.00"
    assert page.get_by_test_id("marker-pay").count() == 0
    assert _owed(world) == 0
    assert "cents" not in page.inner_text("body")
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    shot(page, f"marker-paid-{viewport['width']}")
