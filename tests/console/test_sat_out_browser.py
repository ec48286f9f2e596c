"""Issue 44 item 19, in Chromium at 1280×800 and 810×1080: a player not dealt in is named at once.

Newmarket skipped a seated player with $0.00 in silence: the reason was the last line of the
start receipt, behind "more", and the receipt faded. Now its headline says who was not dealt in
and why, in full view, and the receipt stays until dismissed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from casino.services import create_player
from tables.models import Table
from tables.services import seat_player
from tests.browser import PORTRAIT, TABLET, on_screen, open_page, receipt, shot, sign_in
from tests.console.conftest import PASSWORD, Floor
from tests.console.test_games import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_the_start_headline_names_who_was_not_dealt_in_and_why(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    table, _ = make_table(world, "newmarket", 3)
    Table.objects.filter(pk=table.pk).update(name="Newmarket 4")
    belle = create_player(actor=world.cashier, username="bbelle", password=PASSWORD, name="Belle Starr")
    seat_player(actor=world.dealer, table_id=table.pk, player_id=belle.pk)  # never bought in: $0.00

    page = open_page(browser, live_server, viewport)
    page.clock.install()  # the receipt's fade runs on this clock
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table.pk}/")
    page.get_by_role("button", name="Start deal").click()
    receipt(page).filter(has_text="started").wait_for()
    size = f"{viewport['width']}x{viewport['height']}"
    shot(page, f"sat-out-{size}")

    headline = receipt(page).locator("p").first
    said = headline.inner_text()
    assert re.fullmatch(
        r"Newmarket deal #1 started \(electronic shoe\)\. Not dealt in: Belle Starr, who has \$0\.00"
        r" available for a \$\d+\.\d\d reserve\.",
        said,
    ), said
    # Read in full without "more": the headline is not cut by the receipt's two-line body.
    body = receipt(page).locator("[data-receipt-body]").bounding_box()
    box = on_screen(headline)
    assert body is not None
    assert box["y"] + box["height"] <= body["y"] + body["height"] + 0.5, (box, body)
    # A success fades after 6 s; this one stays until the dealer dismisses it.
    page.clock.run_for(10_000)
    assert receipt(page).is_visible()
    assert "Belle Starr" not in page.locator("#game .seats-strip").inner_text()
