"""The floor's guards in Chromium, on a tablet (1280x800) and an iPad held upright (810x1080).

A pit boss finds a dealer's locked-out sign-in in the admin and unlocks it with the list's
action; the dealer then signs in. A NUL in the cage's search or the console's seat search shows
a page in words, on screen, instead of a server error.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from casino.models import Role
from tests import factories
from tests.browser import (
    HTMX_SETTLED,
    PORTRAIT,
    TABLET,
    no_sideways_scroll,
    on_screen,
    open_page,
    shot,
    sign_in,
)
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
NUL_WORDS = "What was sent holds a NUL character"


@pytest.fixture
def floor(transactional_db: None, reset_login_failures: None) -> Floor:
    return build_floor(prefix="i44")


def _lock_out(username: str) -> None:
    for n in range(5):
        Client().post("/console/login/", {"username": username, "password": f"guess-{n}"})
    refused = Client().post("/console/login/", {"username": username, "password": factories.PASSWORD})
    assert refused.status_code == 429


def _admin_sign_in(page: Any, username: str) -> None:
    page.goto("/admin/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(factories.PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Site administration").wait_for()


@SIZES
def test_a_pit_boss_unlocks_a_dealer_in_the_admin(
    browser: Any, live_server: Any, floor: Floor, viewport: dict[str, int]
) -> None:
    _lock_out(floor.dealer.username)
    factories.staff(Role.PIT_BOSS, username="i44boss", name="Pia Boss", is_staff=True)
    page = open_page(browser, live_server, viewport)
    _admin_sign_in(page, "i44boss")

    page.get_by_role("link", name="Users").first.click()
    page.get_by_role("link", name="Locked out").click()
    row = page.locator("#result_list tbody tr", has_text=floor.dealer.username)
    row.wait_for()
    assert page.locator("#result_list tbody tr").count() == 1  # only the locked-out account
    status = row.locator("td.field-sign_in")
    assert status.inner_text() == "Locked out (6 failures)"
    status.scroll_into_view_if_needed()
    on_screen(status)
    no_sideways_scroll(page)
    shot(page, f"admin-unlock-{viewport['width']}x{viewport['height']}")

    row.locator("input.action-select").check()
    page.locator("select[name=action]").select_option(label="Unlock sign-in for the selected people")
    page.get_by_role("button", name="Run", exact=True).click()

    done = page.locator(".messagelist", has_text="Unlocked sign-in for Dana Dealer.")
    done.wait_for()
    on_screen(done)
    assert page.locator("#result_list tbody tr", has_text=floor.dealer.username).count() == 0

    dealer = open_page(browser, live_server, viewport)
    sign_in(dealer, floor.dealer.username)
    dealer.wait_for_url("**/console/**")
    assert "/login/" not in dealer.url
    page.context.close()
    dealer.context.close()


@SIZES
def test_a_nul_in_the_cage_search_is_a_page_in_words(
    browser: Any, live_server: Any, floor: Floor, viewport: dict[str, int]
) -> None:
    page = open_page(browser, live_server, viewport)
    sign_in(page, floor.cashier.username)
    page.wait_for_url("**/cage/**")

    response = page.goto("/cage/?q=%00")

    assert response is not None
    assert response.status == 400
    heading = page.get_by_role("heading", name="Text Casekeeper cannot read")
    on_screen(heading)
    on_screen(page.get_by_text(NUL_WORDS))
    no_sideways_scroll(page)
    shot(page, f"nul-cage-{viewport['width']}x{viewport['height']}")
    page.get_by_role("link", name="Back to the start").click()
    page.get_by_role("heading", name="Text Casekeeper cannot read").wait_for(state="detached")
    page.context.close()


@SIZES
def test_a_nul_in_the_seat_search_shows_the_page_in_place_of_the_screen(
    browser: Any, live_server: Any, floor: Floor, viewport: dict[str, int]
) -> None:
    floor.open_faro()
    page = open_page(browser, live_server, viewport)
    sign_in(page, floor.dealer.username)
    page.goto(f"/console/tables/{floor.faro.pk}/")
    page.wait_for_function(HTMX_SETTLED)

    # A scanner or a paste left a NUL in the seat search box; htmx sends it as the dealer types.
    page.locator("#player-search").fill("ka\x00te")

    heading = page.get_by_role("heading", name="Text Casekeeper cannot read")
    heading.wait_for()
    on_screen(heading)
    on_screen(page.get_by_text(NUL_WORDS))
    no_sideways_scroll(page)
    shot(page, f"nul-seat-search-{viewport['width']}x{viewport['height']}")
    page.context.close()
