"""Issue 48: the cage asks for identification before a buy-in takes the day past $10,000.00.

The cashier sees the player's cash in and out today against the $3,000.00 MTL line and the
$10,000.00 CTR line. A buy-in that would pass the CTR line with no ID on file is refused with a
prompt in words and a form for the ID; recording it makes the buy-in in the same tap.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.cash.models import CashRefusal, CashTransaction, Identification
from tests.browser import PORTRAIT, TABLET, confirmed, no_sideways_scroll, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_big_buy_in_asks_for_id_then_goes_through(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    wyatt = world.wyatt  # bought in $2,000.00 today
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    page.goto(f"/cage/?player={wyatt.pk}")

    today = page.get_by_test_id("cash-today")
    text = today.inner_text()
    for words in ("Cash in", "$2,000.00", "MTL line $3,000.00", "CTR line $10,000.00", "Cash out", "$0.00"):
        assert words in text, words
    assert "No identification on file" in page.get_by_test_id("id-on-file").inner_text()

    # $12,000 more would make $14,000 today: refused, in words, with the form to record an ID.
    page.get_by_label("Buy in ($)").fill("12,000")
    page.get_by_role("button", name="Buy in", exact=True).click()
    prompt = page.get_by_test_id("identify")
    prompt.wait_for()
    assert "Identification needed" in prompt.inner_text()
    assert f"Buy-in of $12,000.00 for {wyatt.name}" in prompt.inner_text()
    refusal = receipt(page).inner_text()
    assert f"{wyatt.name}'s cash in today would be $14,000.00" in refusal
    assert "past the $10,000.00 reporting line" in refusal
    assert not CashTransaction.objects.filter(player=wyatt, amount=1_200_000).exists()
    assert CashRefusal.objects.filter(player=wyatt, amount=1_200_000).count() == 1
    prompt.scroll_into_view_if_needed()
    no_sideways_scroll(page)
    shot(page, f"cage-identify-{viewport['width']}")

    page.get_by_label("Kind of ID").select_option(label="Passport")
    page.get_by_label("ID number").fill("P0001881")
    page.get_by_label("Issued by (state or country)").fill("United States")
    assert page.get_by_label("Name on the ID").input_value() == wyatt.name
    page.get_by_label("Date of birth").fill("1948-03-19")
    page.get_by_label("Address").fill("1 Allen Street, Tombstone AZ 85638")
    page.get_by_role("button", name="Record ID and buy-in $12,000.00").click()

    confirmed(page, f"Buy-in of $12,000.00 for {wyatt.name}.")
    assert "Passport of Wyatt Earp recorded." in receipt(page).inner_text()
    assert page.get_by_test_id("identify").count() == 0
    assert "$14,000.00" in page.get_by_test_id("cash-today").inner_text()
    assert page.get_by_test_id("cash-1").inner_text().split() == [
        "Cash",
        "in",
        "$14,000.00",
        "logged",
        "CTR",
        "due",
    ]
    table = page.get_by_test_id("cash-today").locator("table").bounding_box()
    panel = page.get_by_test_id("cage-player").bounding_box()
    assert table is not None
    assert panel is not None
    assert table["x"] + table["width"] <= panel["x"] + panel["width"], (table, panel)
    assert "Identification on file." in page.get_by_test_id("id-on-file").inner_text()
    identification = Identification.objects.get(player=wyatt)
    assert (identification.kind, identification.number, identification.recorded_by) == (
        "passport", "P0001881", world.cashier,
    )  # fmt: skip
    line = CashTransaction.objects.get(player=wyatt, amount=1_200_000)
    assert line.mtl
    assert line.transfer is not None
    no_sideways_scroll(page)
    shot(page, f"cage-identified-{viewport['width']}")
