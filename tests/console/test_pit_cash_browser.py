"""Issue 48, item 3 on screen: a pit boss opens a table's markers page from its card and sees a
seated player's cash in today, $3,500.00, with the MTL mark beside it, at both tablet sizes."""

from __future__ import annotations

from typing import Any

import pytest

from casino.services import buy_in
from tables.services import seat_player
from tests.browser import PORTRAIT, TABLET, on_screen, open_page, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=lambda v: f"{v['width']}x{v['height']}")


@SIZES
def test_the_pit_sees_a_seated_player_s_cash_today_with_the_mtl_mark(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    # The floor's cage bought Wyatt's $2,000.00 in; $1,500.00 more takes him past the MTL line.
    buy_in(actor=world.cashier, player=world.wyatt, amount=150_000)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.wyatt.pk, seat=1)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk, seat=2)
    faro = world.faro
    pit = open_page(browser, live_server, viewport)
    sign_in(pit, world.pit_boss.username)
    pit.wait_for_url("**/pit/")
    pit.locator(f"#more-{faro.pk} summary").click()
    pit.get_by_role("link", name=f"Markers at {faro.name}").click()
    pit.wait_for_url(f"**/pit/tables/{faro.pk}/markers/")

    wyatt = pit.get_by_test_id("credit-row").filter(has_text="Wyatt Earp")
    cash = wyatt.get_by_test_id("cash-today")
    on_screen(cash)
    assert cash.inner_text() == "Cash in today $3,500.00 · cash out today $0.00"
    mark = wyatt.get_by_test_id("cash-mark")
    on_screen(mark)
    assert mark.all_inner_texts() == ["MTL"]

    kate = pit.get_by_test_id("credit-row").filter(has_text="Kate Elder")
    assert kate.get_by_test_id("cash-today").inner_text() == "Cash in today $2,000.00 · cash out today $0.00"
    assert kate.get_by_test_id("cash-mark").count() == 0
    shot(pit, f"pit-cash-today-{viewport['width']}x{viewport['height']}")
