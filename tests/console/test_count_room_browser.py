"""Issue 47 in Chromium, on a tablet held either way: the count room. A count team member lands
on /count/, removes a table's drop box under a seal number (the next box is at the table at
once), counts it blind (bills by value, a running total in dollars, its marker ticked), and sees
what was recorded and the variance only then; a second member signs the drop slip with their
password, and a cashier signs it on the cage's list, which takes the cash into the cage."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from casino.models import Role
from ledger.models import Account
from tables.accounts import CAGE
from tables.drop.models import DropBox
from tables.drop.services import cash_buy_in
from tables.services import seat_player
from tables.slips.models import Slip
from tables.slips.services import issue_slip
from tests import factories
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, receipt, shot, sign_in
from tests.console.conftest import PASSWORD, Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])


def _sign(page: Any, slip: Slip) -> Any:
    row = page.locator(f"#slip-{slip.pk}")
    row.locator("summary").click()
    row.get_by_label("Your password, to sign").fill(PASSWORD)
    row.get_by_role("button", name=f"Sign {slip.number}").click()
    return page.locator(f"#slip-{slip.pk}")


@SIZES
def test_remove_count_and_sign_a_drop_box(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    size = f"{viewport['width']}x{viewport['height']}"
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, seat=1)
    cash_buy_in(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, amount=50_000)
    box = cash_buy_in(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, amount=12_000).box
    with transaction.atomic():
        marker = issue_slip(kind="marker", requested_by=world.pit_boss, table=world.faro, amount=100_000)
        marker.drop_box = box
        marker.save(update_fields=["drop_box"])
    counter = factories.staff(Role.COUNT_TEAM, username="bcounter", name="Cora Count")
    second = factories.staff(Role.COUNT_TEAM, username="bcounter2", name="Sam Second")

    page = open_page(browser, live_server, viewport)
    sign_in(page, counter.username)
    page.wait_for_url("**/count/")
    at_table = page.get_by_test_id("box-at-table").filter(has_text=box.number)
    assert world.faro.name in at_table.inner_text()
    at_table.get_by_label("Seal number").fill("S-4411")
    at_table.get_by_role("button", name="Remove").click()
    receipt(page).filter(has_text="removed").wait_for()
    words = receipt(page).inner_text()
    assert f"Drop box {box.number} removed from {world.faro.name} under seal S-4411." in words
    following = DropBox.objects.get(table=world.faro, status="at_table")
    assert f"Drop box {following.number} is at {world.faro.name} now" in words

    card = page.get_by_test_id("box-to-count").filter(has_text=box.number)
    card.wait_for()
    assert "$620.00" not in page.locator("body").inner_text()  # blind: what was recorded is not shown
    bills = card.locator("input.count-pieces")
    assert bills.count() == 7
    for index in range(7):
        assert bills.nth(index).bounding_box()["height"] >= 48
    no_sideways_scroll(page)
    card.get_by_label("$100 bills: pieces").fill("6")
    card.get_by_label("$10 bills: pieces").fill("1")
    page.wait_for_function(
        f"document.querySelector('#box-{box.pk} [data-count-total]').textContent === '$610.00'"
    )
    card.locator("label.pick", has_text=marker.number).click()
    done = card.get_by_role("button", name="Count done")
    done.scroll_into_view_if_needed()
    on_screen(done)
    shot(page, f"count-room-{size}")
    done.click()

    answer = page.get_by_test_id("count-receipt")
    answer.wait_for()
    slip = Slip.objects.get(kind="drop")
    assert page.get_by_test_id("counted").inner_text() == "$610.00"
    assert page.get_by_test_id("recorded").inner_text() == "$620.00"  # now, and only now
    assert page.get_by_test_id("variance").inner_text() == "$10.00 short"
    assert answer.get_by_test_id("slip-needs").inner_text() == "Still to sign: Count team."
    assert answer.locator("summary").count() == 0  # the counter does not sign their own count
    assert marker.number in slip.reason
    on_screen(page.get_by_test_id("variance"))
    shot(page, f"count-room-counted-{size}")
    page.context.close()

    page = open_page(browser, live_server, viewport)
    sign_in(page, second.username)
    page.wait_for_url("**/count/")
    row = _sign(page, slip)
    row.get_by_test_id("slip-done").wait_for()
    assert row.get_by_test_id("slip-done").inner_text() == f"You signed slip {slip.number} as count team."
    assert row.get_by_test_id("slip-needs").inner_text() == "Still to sign: Cashier."
    page.context.close()

    cage = Account.objects.get(code=CAGE).balance
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    page.goto("/cage/slips/waiting/")
    row = _sign(page, slip)
    row.get_by_test_id("slip-done").wait_for()
    assert row.get_by_test_id("slip-done").inner_text() == f"You signed slip {slip.number} as cashier."
    assert Account.objects.get(code=CAGE).balance - cage == 61_000
    page.context.close()


@SIZES
def test_a_count_with_a_bad_number_is_refused_on_its_card_as_typed(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    from tables.drop.services import remove_box

    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, seat=1)
    box = cash_buy_in(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, amount=5_000).box
    counter = factories.staff(Role.COUNT_TEAM, username="ccounter", name="Cora Count")
    remove_box(actor=counter, box_id=box.pk, seal="S-1")
    page = open_page(browser, live_server, viewport)
    sign_in(page, counter.username)
    page.wait_for_url("**/count/")

    card = page.get_by_test_id("box-to-count").filter(has_text=box.number)
    card.get_by_label("$20 bills: pieces").fill("2")
    card.get_by_label("$5 bills: pieces").evaluate("(el) => { el.type = 'text'; el.value = '1.5'; }")
    card.get_by_role("button", name="Count done").click()

    error = page.get_by_test_id("count-error")
    error.wait_for()
    assert error.inner_text() == "The number of $5 bills must be a whole number from 0 to 1,000,000."
    assert (
        page.get_by_test_id("box-to-count")
        .filter(has_text=box.number)
        .get_by_label("$20 bills: pieces")
        .input_value()
        == "2"
    )
    assert not Slip.objects.filter(kind="drop").exists()
    assert DropBox.objects.get(pk=box.pk).status == "removed"
    page.context.close()
