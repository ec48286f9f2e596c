"""Issue 44 item 16: a typed bet reads with a thousands separator, as every other amount does.

The Faro bet form spells the bet out on its confirm button before the dealer taps it; a typed
amount went there as typed: "Bet $1500 on K for Kate Elder". It is now spelled as the chips'
labels and the server spell dollars (ledger/dollars.py): "Bet $1,500.00 on K for Kate Elder".
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import PORTRAIT, TABLET, dealer_at_faro, live_faro_deal, open_page
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="ta")


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
@pytest.mark.parametrize(
    ("typed", "spelled"),
    [("1500", "$1,500.00"), ("$1,250.5", "$1,250.50")],
)
def test_a_typed_amount_is_spelled_in_dollars_on_the_confirm_button(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int], typed: str, spelled: str
) -> None:
    live_faro_deal(world)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    form = page.locator("#bet-form")
    form.locator(".bet-players label.pick", has_text="Kate Elder").click()
    form.locator('label.rank[data-rank="K"]').click()
    form.locator("#custom-amount").fill(typed)
    confirm = form.locator("[data-confirm]")
    confirm.scroll_into_view_if_needed()
    assert confirm.is_visible()
    assert confirm.inner_text() == f"Bet {spelled} on K for Kate Elder"
    page.context.close()
