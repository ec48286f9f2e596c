"""Issue 48 on the dealer's console: a cash buy-in that would take the player's day past
$10,000.00 with no ID on file is refused with a prompt in words (whose, how much, who records the
ID), and once the ID is on file one tap on "Try again" sells the chips.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.cash.models import CashRefusal, CashTransaction
from tables.services import seat_player
from tests import factories
from tests.browser import PORTRAIT, TABLET, confirmed, no_sideways_scroll, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_big_cash_buy_in_asks_for_id_then_one_tap_sells_it(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro(inventory=2_000_000)
    kate = world.kate  # bought in $2,000.00 at the cage today
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=kate.pk)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")

    panel = page.get_by_test_id("cash-panel")
    panel.get_by_label("Another amount, dollars").fill("9,000")
    panel.get_by_test_id("cash-other").click()

    prompt = page.get_by_test_id("identify-needed")
    prompt.wait_for()
    text = prompt.inner_text()
    assert f"ID needed for {kate.name}" in text
    assert f"$9,000.00 more would take {kate.name}'s cash today past $10,000.00. Nothing moved." in text
    assert "Call a pit boss or send" in text
    assert f"{kate.name}'s cash in today would be $11,000.00" in receipt(page).inner_text()
    assert not CashTransaction.objects.filter(player=kate, kind="table_buy_in").exists()
    assert CashRefusal.objects.filter(player=kate, kind="table_buy_in", amount=900_000).count() == 1
    prompt.scroll_into_view_if_needed()
    no_sideways_scroll(page)
    shot(page, f"dealer-identify-{viewport['width']}")

    factories.identified(kate, by=world.cashier)  # the cage records her passport
    page.get_by_role("button", name=f"Try again: $9,000.00 for {kate.name}").click()

    confirmed(page, f"{kate.name} bought $9,000.00 of chips with cash")
    assert page.get_by_test_id("identify-needed").count() == 0
    line = CashTransaction.objects.get(player=kate, kind="table_buy_in")
    assert (line.amount, line.where, line.by) == (900_000, world.faro.name, world.dealer)
    assert line.transfer is not None
    no_sideways_scroll(page)
