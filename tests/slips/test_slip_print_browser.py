"""The slip's print page in Chromium, on a tablet held either way: the slip reads whole and the PDF
is a tap away.

The number, the amount in words and figures and the signatures are drawn inside the screen's
width, the page never scrolls sideways, each chip is drawn in its colour, and the PDF link
answers with the slip as a PDF for the signed-in pit boss.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from tables.slips.counts import take_count
from tables.slips.services import sign_slip
from tests import factories
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, shot, sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("system_accounts"),
]


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_the_print_page_shows_the_whole_slip_and_its_pdf(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    boss = factories.staff(Role.PIT_BOSS, username=f"printboss{viewport['width']}")
    dealer = factories.staff(Role.DEALER)
    table = factories.TableFactory(actor=boss, dealer=dealer, name="Faro High Limit")
    factories.open_table_for(table, inventory=134_550)
    slip = take_count(
        actor=dealer,
        table_id=table.pk,
        count={"100000": 1, "10000": 2, "2500": 1, "500": 4, "50": 1},  # $1,245.50: $100.00 short
        reason="shift_change",
    )
    sign_slip(actor=dealer, slip_id=slip.pk)
    sign_slip(actor=boss, slip_id=slip.pk, note="one $100 chip under the rack")

    page = open_page(browser, live_server, viewport)
    sign_in(page, boss.username)
    page.goto(f"/slips/{slip.pk}/print")

    number = page.get_by_test_id("slip-number")
    assert number.inner_text() == slip.number
    on_screen(number)
    no_sideways_scroll(page)
    amount = page.get_by_test_id("slip-amount")
    assert amount.inner_text() == "One thousand two hundred forty-five dollars and 50 cents — $1,245.50"
    assert page.get_by_test_id("slip-variance").inner_text() == "$100.00 short"
    signatures = page.get_by_test_id("slip-signatures")
    assert "one $100 chip under the rack" in signatures.inner_text()
    width = viewport["width"]
    for part in (amount, signatures, page.get_by_test_id("slip-chips")):
        box = part.bounding_box()
        assert box is not None
        assert box["x"] >= 0, box
        assert box["x"] + box["width"] <= width, box
    dots = page.locator(".chip-dot").evaluate_all(
        "dots => dots.map(d => getComputedStyle(d).backgroundColor)"
    )
    assert "rgb(0, 0, 0)" in dots  # the $100 chip, black
    assert len(set(dots)) == len(dots) == 7  # every chip of the set, each its own colour
    shot(page, f"slip-print-{width}x{viewport['height']}")

    pdf_link = page.get_by_role("link", name="PDF")
    on_screen(pdf_link)
    answer = page.request.get(pdf_link.get_attribute("href"))
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.body().startswith(b"%PDF-")
    page.context.close()
