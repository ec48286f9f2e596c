"""Issue 44 item 13, in Chromium at 1280×800 and 810×1080: a table dealt last night opens on tonight.

Farmer, Fan Tan, Newmarket, Tonk and the card room used to open on last night's settled deal with
"Start deal" below the fold, stay scrolled away after it was tapped, and offer to void last
night's deal in a correction the service then refused. Now "Start deal" is in view without
scrolling, the new deal is in view once it is tapped (wherever the dealer had scrolled to), and
the correction panel offers only tonight's deal.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import HTMX_SETTLED, PORTRAIT, TABLET, on_screen, open_page, shot, sign_in
from tests.console.conftest import Floor
from tests.console.test_tonight import GAMES, dealt_last_night

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The first control of a new deal: a one-tap button ("Deal the cards") or a form's submit
# button (the card room's "Record the result").
FIRST_CONTROL = "#game .action-taps button, #game form.action-form button[type=submit]"


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_table_dealt_last_night_opens_on_start_deal_and_the_new_deal_is_in_view(
    browser: Any, live_server: Any, world: Floor, game: str, viewport: dict[str, int]
) -> None:
    table = dealt_last_night(world, game)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table.pk}/")
    size = f"{viewport['width']}x{viewport['height']}"
    shot(page, f"tonight-{game}-{size}-opened")

    on_screen(page.get_by_role("button", name="Start deal"))
    assert page.locator("#start-title").inner_text() == "First deal"
    assert page.get_by_test_id("correction-panel").count() == 0  # last night's deal is not offered

    # The dealer had scrolled down to the seats; "Start deal" is tapped from there.
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    page.wait_for_function("() => scrollY > 0")
    page.get_by_role("button", name="Start deal").click()
    page.locator("#game-title").filter(has_text="deal #2").wait_for()
    page.wait_for_function(HTMX_SETTLED)
    shot(page, f"tonight-{game}-{size}-started")

    on_screen(page.locator("#game-title"))
    on_screen(page.locator(FIRST_CONTROL).first)
    panel = page.get_by_test_id("correction-panel")
    assert "The whole deal #2" in panel.inner_text()
    assert "#1" not in panel.inner_text()
