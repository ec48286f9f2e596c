"""Issue 44 item 15 in Chromium: a pit boss swaps a relief dealer in at a table from the pit and
back again, and the table's card lists who dealt it when; a dealer has no such screen, a cashier
(who sees the floor) no such form."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from casino.models import Role
from tables.models import DealerShift, Table
from tests import factories
from tests.browser import PORTRAIT, TABLET, confirmed, no_sideways_scroll, open_page, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def clock(moment: Any) -> str:
    return f"{timezone.localtime(moment):%H:%M}"


def history_shown(table: Table) -> list[str]:
    """The lines the card should list, from the shifts the service wrote (newest first)."""
    lines = []
    for shift in DealerShift.objects.filter(table=table).select_related("dealer").order_by("-pk"):
        when = (
            f"since {clock(shift.started_at)}"
            if shift.ended_at is None
            else f"{clock(shift.started_at)} – {clock(shift.ended_at)}"
        )
        lines.append(f"{shift.dealer.name} {when}")
    return lines


def swap_in(page: Any, card: Any, table: Table, name: str) -> None:
    card.get_by_label("Relief dealer").select_option(label=name)
    card.get_by_role("button", name=f"Swap in a dealer at {table.name}").click()
    confirmed(page, f"{name} now deals {table.name}.")


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
def test_a_pit_boss_swaps_a_relief_dealer_in_and_back_and_the_card_says_who_dealt_when(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    factories.staff(Role.DEALER, username="brelief", name="Rita Relief")
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.pit_boss.username)
    page.wait_for_url("**/pit/")
    card = page.get_by_test_id("pit-table").filter(has=page.locator(f"#pit-table-{world.faro.pk}"))
    assert not card.get_by_test_id("pit-dealer-form").is_visible()  # behind "More"
    card.locator("summary").click()
    history = card.get_by_test_id("dealer-history")
    assert history.inner_text().splitlines() == history_shown(world.faro) == [
        f"Dana Dealer since {clock(DealerShift.objects.get(table=world.faro).started_at)}"
    ]

    swap_in(page, card, world.faro, "Rita Relief")
    world.faro.refresh_from_db()
    assert world.faro.dealer.name == "Rita Relief"
    assert "Before: Dana Dealer." in page.get_by_test_id("receipt").inner_text()
    assert history.is_visible()  # the answer keeps the card open
    assert history.inner_text().splitlines() == history_shown(world.faro)
    assert card.locator("dl.glance").inner_text().splitlines()[3] == "Rita Relief"

    swap_in(page, card, world.faro, "Dana Dealer")
    lines = history.inner_text().splitlines()
    assert lines == history_shown(world.faro)
    assert [" ".join(line.split()[:2]) for line in lines] == [
        "Dana Dealer",
        "Rita Relief",
        "Dana Dealer",
    ]
    assert card.locator("dl.glance").inner_text().splitlines()[3] == "Dana Dealer"
    no_sideways_scroll(page)
    shot(page, f"pit-dealer-swap-{viewport['width']}")
    page.context.close()

    # A cashier sees the floor but no dealer to swap in; a dealer has no pit at all.
    cashier = open_page(browser, live_server, viewport)
    sign_in(cashier, world.cashier.username)
    cashier.wait_for_url("**/cage/")
    cashier.goto("/pit/")
    cashier.get_by_test_id("pit-table").first.wait_for()
    assert cashier.get_by_test_id("pit-dealer-form").count() == 0
    cashier.context.close()
    dealer = open_page(browser, live_server, viewport)
    sign_in(dealer, world.dealer.username)
    dealer.wait_for_url("**/console/")
    dealer.goto("/pit/")
    assert dealer.get_by_role("heading", name="Not for this account").is_visible()
    assert dealer.get_by_test_id("pit-dealer-form").count() == 0
    dealer.context.close()
