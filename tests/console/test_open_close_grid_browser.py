"""Issue 46 item 2 on the dealer's screen: a table is opened and closed by counting its tray on
the chip grid, blind, in Chromium on a tablet held either way (1280x800, 810x1080).

What is on screen: every chip of the set as a big box with its colour and value, the running
total in dollars, the button, and nothing of the ledger's tray, all without scrolling either
way. What each tap does: a box typed shows its value and moves the total; "Open table" or
"Close table" writes the opener or closer slip and answers with its number, the ledger's tray,
the variance in words and who still signs. The pit boss then signs from the pit's list.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.models import Transfer
from tables.detection.models import Alert
from tables.models import TableSession
from tables.services import close_table
from tables.slips.models import Slip, SlipKind
from tests.browser import (
    PORTRAIT,
    TABLET,
    confirmed,
    no_sideways_scroll,
    on_screen,
    open_page,
    receipt,
    shot,
    sign_in,
    type_count,
)
from tests.console.conftest import PASSWORD, Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
CHIPS = 7  # the default chip set: 50¢ pink to $1,000 orange


def no_scrolling(page: Any) -> None:
    """The page fits its window both ways: nothing to scroll to, sideways or down."""
    no_sideways_scroll(page)
    assert page.evaluate("document.scrollingElement.scrollHeight") <= page.evaluate("innerHeight")


def the_grid_is_in_view(page: Any, scope: Any, button: str) -> None:
    """Every chip's box, big, and the button, on screen at once; no scrolling either way."""
    boxes = scope.locator("input.count-pieces")
    assert boxes.count() == CHIPS
    for index in range(CHIPS):
        assert on_screen(boxes.nth(index))["height"] >= 48
    on_screen(scope.get_by_role("button", name=button, exact=True))
    on_screen(scope.get_by_test_id("count-total"))
    no_scrolling(page)


def total_is(page: Any, dollars: str) -> None:
    page.wait_for_function(f"document.querySelector('[data-count-total]').textContent === '{dollars}'")


def sign_own(scope: Any, slip: Slip, password: str = PASSWORD) -> Any:
    """The dealer's "Sign" in the slip's row: their own password, then the row's button."""
    row = scope.locator(f"#slip-{slip.pk}")
    row.locator("summary").click()
    row.get_by_label("Your password, to sign").fill(password)
    row.get_by_role("button", name=f"Sign {slip.number}").click()
    row = scope.page.locator(f"#slip-{slip.pk}")
    row.get_by_test_id("slip-done").wait_for()
    return row


@SIZES
def test_the_dealer_opens_a_table_by_counting_the_tray_on_the_grid(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro(1_000_000)  # first opening: $10,000 issued from the cage
    close_table(actor=world.dealer, table_id=world.faro.pk, closing_inventory=995_000)  # closer $9,950
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.get_by_role("link", name=f"Open {world.faro.name}").click()

    panel = page.get_by_test_id("open-panel")
    panel.wait_for()
    # Blind: neither the last closer nor the tray's ledger balance is anywhere on the screen.
    assert "$9,950.00" not in page.locator("body").inner_text()
    assert "ledger's figure and any variance show once the table is open" in panel.inner_text()
    the_grid_is_in_view(page, panel, "Open table")
    assert panel.get_by_test_id("count-total").inner_text() == "$0.00"

    # Each box typed shows its chips' value, and the total runs in dollars.
    thousands = panel.get_by_label("$1,000 orange chips: pieces")
    thousands.fill("9")
    total_is(page, "$9,000.00")
    assert thousands.locator("xpath=..").locator("[data-chip-value]").inner_text() == "$9,000.00"
    panel.get_by_label("$100 black chips: pieces").fill("9")
    total_is(page, "$9,900.00")
    assert TableSession.objects.filter(closed_at__isnull=True).filter(table=world.faro).count() == 0
    shot(page, f"open-grid-{viewport['width']}x{viewport['height']}")

    panel.get_by_role("button", name="Open table").click()
    confirmed(page, f"{world.faro.name} is open with $9,900.00 in the tray.")
    assert "posted to over/short" in receipt(page).inner_text()
    opener = Slip.objects.get(kind=SlipKind.OPENER, table=world.faro, session__closed_at__isnull=True)
    assert opener.count == {"50": 0, "100": 0, "500": 0, "2500": 0, "10000": 9, "50000": 0, "100000": 9}
    assert (opener.amount, opener.expected, opener.variance) == (990_000, 995_000, -5_000)
    slip = page.get_by_test_id("count-slip")
    assert slip.get_by_test_id("slip-number").inner_text() == opener.number
    assert slip.get_by_test_id("slip-counted").inner_text() == "$9,900.00"
    assert slip.get_by_test_id("slip-expected").inner_text() == "$9,950.00"  # now, and only now
    assert slip.get_by_test_id("slip-variance").inner_text() == "$50.00 short"
    assert slip.get_by_test_id("slip-needs").inner_text() == "Still to sign: Dealer, Pit boss."
    for shown in ("slip-number", "slip-variance", "slip-needs"):
        on_screen(slip.get_by_test_id(shown))
    no_sideways_scroll(page)
    shot(page, f"open-slip-{viewport['width']}x{viewport['height']}")

    # The tray is the count: the difference went to over/short.
    session = TableSession.objects.get(table=world.faro, closed_at__isnull=True)
    assert (session.opening_inventory, session.opening_ledger, session.opening_variance) == (
        990_000,
        995_000,
        -5_000,
    )
    world.faro.tray.refresh_from_db()
    assert world.faro.tray.balance == 990_000
    variance = Transfer.objects.filter(kind="count_variance", meta__stage="opening").get()
    assert variance.entries.get(account=world.faro.tray).amount == -5_000

    # The dealer signs the opener with their own password; the pit boss is left.
    row = sign_own(slip, opener)
    assert row.get_by_test_id("slip-needs").inner_text() == "Still to sign: Pit boss."
    assert list(opener.signatures.values_list("user_id", flat=True)) == [world.dealer.pk]


def test_a_first_opening_counted_on_the_grid_has_the_cage_issue_the_bankroll(
    browser: Any, live_server: Any, world: Floor
) -> None:
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    panel = page.get_by_test_id("open-panel")
    assert "never been open" in panel.inner_text()

    # Nothing typed at all is a tap by mistake: refused under the grid, nothing opens.
    panel.get_by_role("button", name="Open table").click()
    error = page.get_by_test_id("open-panel").get_by_test_id("inline-error")
    error.wait_for()
    assert error.inner_text() == "Count the tray: type how many of each chip it holds (0 for an empty tray)."
    on_screen(error)
    assert not TableSession.objects.filter(table=world.faro).exists()

    type_count(page.get_by_test_id("open-panel"), {100_000: 5})
    total_is(page, "$5,000.00")
    page.get_by_role("button", name="Open table").click()
    confirmed(page, "is open with $5,000.00")
    assert "The cage issues $5,000.00 to the tray" in receipt(page).inner_text()
    assert Transfer.objects.filter(kind="table_issue", entries__amount=500_000).exists()
    slip = page.get_by_test_id("count-slip")
    assert slip.get_by_test_id("slip-variance").inner_text() == "None: the count matched the ledger"
    assert slip.get_by_test_id("slip-expected").inner_text() == "$5,000.00"


@SIZES
def test_the_dealer_closes_a_table_on_the_grid_and_the_pit_boss_signs_the_variance(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro(1_000_000)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    page.get_by_test_id("close-link").click()

    grid = page.get_by_test_id("close-grid")
    grid.wait_for()
    assert "$10,000.00" not in page.locator("body").inner_text()  # blind: no ledger figure
    the_grid_is_in_view(page, grid, "Close table")
    grid.get_by_label("$1,000 orange chips: pieces").fill("9")
    total_is(page, "$9,000.00")
    grid.get_by_label("$100 black chips: pieces").fill("9")
    total_is(page, "$9,900.00")
    assert TableSession.objects.get(table=world.faro).closed_at is None  # nothing moved yet
    shot(page, f"close-grid-{viewport['width']}x{viewport['height']}")

    grid.get_by_role("button", name="Close table").click()
    summary = page.get_by_test_id("summary")
    summary.wait_for()
    closer = Slip.objects.get(kind=SlipKind.CLOSER)
    assert (closer.amount, closer.expected, closer.variance) == (990_000, 1_000_000, -10_000)
    assert closer.count == {"50": 0, "100": 0, "500": 0, "2500": 0, "10000": 9, "50000": 0, "100000": 9}
    assert summary.get_by_test_id("variance").inner_text() == "$100.00 short"
    slip = summary.get_by_test_id("count-slip")
    assert slip.get_by_test_id("slip-number").inner_text() == closer.number
    assert slip.get_by_test_id("slip-expected").inner_text() == "$10,000.00"
    assert slip.get_by_test_id("slip-variance").inner_text() == "$100.00 short"
    assert slip.get_by_test_id("slip-needs").inner_text() == "Still to sign: Dealer, Pit boss."
    for shown in ("slip-number", "slip-variance", "slip-needs"):
        on_screen(slip.get_by_test_id(shown))
    no_sideways_scroll(page)
    shot(page, f"close-summary-{viewport['width']}x{viewport['height']}")
    assert Alert.objects.filter(kind="reportable_variance").count() == 1  # $100.00 or more

    row = sign_own(slip, closer)
    assert row.get_by_test_id("slip-needs").inner_text() == "Still to sign: Pit boss."

    # The pit boss signs it from the pit's list; a variance this size needs a note.
    boss = open_page(browser, live_server, viewport)
    sign_in(boss, world.pit_boss.username)
    boss.wait_for_url("**/pit/")
    boss.goto("/pit/slips/")
    waiting = boss.locator(f"#slip-{closer.pk}")
    assert "variance $100.00 short" in waiting.inner_text()
    waiting.locator("summary").click()
    waiting.get_by_label("Your password, to sign").fill(PASSWORD)
    waiting.locator("input[name=note]").fill("a $100 chip found under the float")
    waiting.get_by_role("button", name=f"Sign {closer.number}").click()
    done = boss.locator(f"#slip-{closer.pk}").get_by_test_id("slip-done")
    done.wait_for()
    assert done.inner_text() == f"You signed slip {closer.number} as pit boss."
    closer.refresh_from_db()
    assert closer.status == "final"
