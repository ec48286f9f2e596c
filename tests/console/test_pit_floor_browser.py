"""Issue 44 item 14: every table at a glance, on a tablet's first screen, in Chromium.

The pit used to stack the fills and credits to approve, the corrections and the alerts above the
tables (about 3,300 px of page on the demo), so no table card was in view without scrolling.
Now what waits for the pit is a count each, above the cards; a tap on a count opens its list,
whose forms work as before and which stays open through the 5 s polls.

At 1280x800 and at 810x1080 (an iPad held upright), with 13 tables on the floor: the first 12
cards lie wholly inside the viewport at scroll 0, no card's text spills out of it, and the page
does not scroll sideways. The grid has 4 columns at 1280 and 3 at 810, each card at least 240 px
wide, so a card is read, not squeezed.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from ledger.gaming_day import gaming_day_for
from tables import services
from tables.detection.base import Finding
from tables.detection.models import Alert, AlertStatus
from tables.detection.services import save_findings
from tables.models import Table
from tables.slips.models import Slip
from tests import factories
from tests.browser import (
    HTMX_SETTLED,
    PORTRAIT,
    TABLET,
    confirmed,
    live_faro_deal,
    no_sideways_scroll,
    on_screen,
    open_page,
    shot,
    sign_in,
)
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAMES = ["faro", "fan_tan", "newmarket", "tonk", "farmer"]
COLUMNS = {1280: 4, 810: 3}


def busy_floor(world: Floor) -> None:
    """The browser floor and ten more tables, each with a dealer of its own, most of them open:
    13 tables, a Faro deal under way, a fill and a credit waiting, three open alerts."""
    live_faro_deal(world)  # the longest glance line: "#1 · betting · turn 1/25 · 0 bets"
    made = []
    for number in range(10):
        game = GAMES[number % len(GAMES)]
        dealer = factories.staff(Role.DEALER, name=f"Dealer Number {number + 1}")
        table = services.create_table(
            actor=world.pit_boss,
            name=f"{game.replace('_', ' ').title()} {number + 10}",
            game=game,
            min_bet=500,
            max_bet=50_000,
            ante=500 if game in ("farmer", "tonk") else 0,
        )
        services.assign_dealer(actor=world.pit_boss, table_id=table.pk, dealer_id=dealer.pk)
        if number % 3:
            services.open_table(actor=dealer, table_id=table.pk, opening_inventory=250_000)
        made.append(table)
    open_ones = [table for table in made if Table.objects.get(pk=table.pk).status == "open"]
    for table, kind, amount in zip(open_ones[:2], ("fill", "credit"), (150_000, 2_500), strict=True):
        dealer = Table.objects.get(pk=table.pk).dealer
        services.request_tray_change(actor=dealer, table_id=table.pk, kind=kind, amount=amount)
    findings = [
        Finding(
            kind="short_count",
            severity="high",
            subject=f"session:{n}",
            summary=f"{made[n].name} closed $200.00 short of the ledger (threshold $25.00).",
            evidence={"variance": -20_000},
            table_id=made[n].pk,
        )
        for n in range(3)
    ]
    save_findings(detector="trays", day=gaming_day_for(), findings=findings)


def pit_boss_at_a_busy_floor(browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]) -> Any:
    """A page signed in as the pit boss, on the pit of ``busy_floor``."""
    busy_floor(world)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.pit_boss.username)
    page.wait_for_url("**/pit/")
    return page


def cards_at_a_glance(page: Any, viewport: dict[str, int]) -> None:
    """The first 12 cards wholly on screen at scroll 0, in the expected columns, none spilling."""
    assert page.evaluate("scrollY") == 0
    cards = page.get_by_test_id("pit-table")
    assert cards.count() == Table.objects.count() == 13
    boxes = [on_screen(cards.nth(index)) for index in range(12)]
    assert len({round(box["x"]) for box in boxes}) == COLUMNS[viewport["width"]]
    assert min(box["width"] for box in boxes) >= 240
    spilled = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=pit-table]')]
            .filter(card => card.scrollWidth > card.clientWidth + 1)
            .map(card => card.querySelector('h2').textContent)"""
    )
    assert spilled == []
    no_sideways_scroll(page)


def count_says(page: Any, test_id: str, words: str) -> None:
    count = page.get_by_test_id(test_id)
    on_screen(count)
    assert " ".join(count.inner_text().split()) == words


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
def test_twelve_tables_at_a_glance_and_the_counts_open_their_lists(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    page = pit_boss_at_a_busy_floor(browser, live_server, world, viewport)
    page.get_by_role("heading", name="The pit").wait_for()

    cards_at_a_glance(page, viewport)
    count_says(page, "approvals-count", "Approvals 2")
    count_says(page, "corrections-count", "Corrections 0")
    count_says(page, "alerts-count", "Alerts 3")
    assert not page.get_by_test_id("approvals-panel").is_visible()
    assert not page.get_by_test_id("alerts-panel").is_visible()
    shot(page, f"pit-glance-{viewport['width']}")

    # A tap on the approvals count opens the list; its buttons work as they did.
    page.get_by_test_id("approvals-count").click()
    rows = page.get_by_test_id("pending-request")
    assert rows.count() == 2
    on_screen(rows.first)
    # A pit boss releases the credit; the fill is the cage's to issue.
    credit = Slip.objects.get(kind="credit", amount=2_500)
    page.get_by_role("button", name=f"Approve credit of $25.00 for {credit.table.name}").click()
    confirmed(page, "$25.00 in transit (tray → transit → cage)")
    credit.refresh_from_db()
    assert credit.status == "issued"
    assert page.get_by_test_id("approvals-panel").is_visible()  # the answer keeps the list open
    count_says(page, "approvals-count", "Approvals 1")
    shot(page, f"pit-approvals-{viewport['width']}")

    # The alerts count opens its list instead (one list at a time); resolving works in place.
    page.get_by_test_id("alerts-count").click()
    assert not page.get_by_test_id("approvals-panel").is_visible()
    alerts = page.get_by_test_id("alert")
    assert alerts.count() == 3
    on_screen(alerts.first)
    alerts.first.get_by_label("Note").fill("Recounted: a chip under the float.")
    alerts.first.get_by_role("button", name="Resolve").click()
    confirmed(page, "Resolved:")
    assert Alert.objects.filter(status=AlertStatus.RESOLVED).count() == 1
    count_says(page, "alerts-count", "Alerts 2")

    # The next poll replaces the pit's part of the page: the list stays open.
    with page.expect_response(lambda response: "/pit/live/" in response.url, timeout=15_000):
        pass
    page.wait_for_function(HTMX_SETTLED)
    assert page.get_by_test_id("alerts-panel").is_visible()
    assert page.get_by_test_id("alert").count() == 2

    # Closed again, the cards are back at a glance.
    page.get_by_test_id("alerts-count").click()
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_test_id("receipt").get_by_role("button", name="Dismiss").click()
    cards_at_a_glance(page, viewport)
    page.context.close()


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
def test_the_nav_opens_the_list_it_names(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    page = pit_boss_at_a_busy_floor(browser, live_server, world, viewport)
    nav = page.get_by_test_id("role-nav")
    for label, panel in (("Alerts", "alerts-panel"), ("Approvals", "approvals-panel")):
        nav.get_by_role("link", name=label).click()
        page.get_by_test_id(panel).wait_for()
        on_screen(page.get_by_test_id(panel).get_by_role("heading").first)
    page.context.close()


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
def test_a_pit_boss_reads_the_alerts_page_and_goes_to_the_pit_to_resolve_them(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    """Item 20: the pit boss's /pit/alerts/ was a 403 page; it is the read-only list, linked to the pit's."""
    page = pit_boss_at_a_busy_floor(browser, live_server, world, viewport)
    with page.expect_response(lambda response: response.url.endswith("/pit/alerts/")) as answer:
        page.goto("/pit/alerts/")
    assert answer.value.status == 200
    assert page.get_by_role("heading", name="Open alerts").is_visible()
    assert page.get_by_test_id("alert").count() == 3
    on_screen(page.get_by_test_id("alert").first)
    assert page.get_by_role("button", name="Resolve").count() == 0
    no_sideways_scroll(page)

    page.get_by_role("link", name="the pit view").click()
    page.wait_for_url("**/pit/#alerts-title")
    page.get_by_test_id("alerts-panel").wait_for()
    on_screen(page.get_by_test_id("alerts-panel").get_by_role("heading").first)
    assert page.get_by_test_id("alerts-panel").get_by_role("button", name="Resolve").count() == 3
    page.context.close()
