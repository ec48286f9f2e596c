"""Issue 46 item 7 in Chromium, on a tablet held either way: the dealer's blind count on the chip
grid, the pit boss signing from the pit's list (a wrong password, then the right one, and the
note a large variance needs), the cage issuing a fill, and a slip's history.

What is on screen and what a tap does: the grid shows no expected figure until the count is
sent, its total runs in dollars as pieces are typed, and every box and the button are in view
without scrolling; each signature is answered in its own row, in words.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.slips.counts import take_count
from tables.slips.models import Slip, SlipKind
from tables.slips.services import issue_slip, sign_slip
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, shot, sign_in
from tests.console.conftest import PASSWORD, Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
TRAY = "$10,000.00"  # what the floor's Faro opens with


def short_count(world: Floor) -> Slip:
    """A shift-change count $50.00 short, signed by the dealer: it waits for a pit boss."""
    slip = take_count(
        actor=world.dealer,
        table_id=world.faro.pk,
        count={"100000": 9, "10000": 9, "2500": 2},
        reason="shift_change",
    )
    sign_slip(actor=world.dealer, slip_id=slip.pk)
    return slip


def sign_row(page: Any, slip: Slip, password: str, note: str | None = None) -> Any:
    """Open the row's prompt if it is closed, type, and tap the row's own sign button."""
    row = page.locator(f"#slip-{slip.pk}")
    prompt = row.locator("details.slip-sign")
    if prompt.get_attribute("open") is None:
        row.locator("summary").click()
    row.get_by_label("Your password, to sign").fill(password)
    if note is not None:
        row.locator("input[name=note]").fill(note)
    row.get_by_role("button", name=f"{row.locator('summary').inner_text()} {slip.number}").click()
    return page.locator(f"#slip-{slip.pk}")


@SIZES
def test_the_dealer_counts_blind_on_the_chip_grid(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    page.get_by_test_id("count-link").click()

    grid = page.get_by_test_id("count-grid")
    grid.wait_for()
    assert TRAY not in page.locator("body").inner_text()  # blind: the ledger's figure is not shown
    boxes = grid.locator("input.count-pieces")
    assert boxes.count() == 7
    for index in range(7):
        box = on_screen(boxes.nth(index))  # no scrolling to reach any chip
        assert box["height"] >= 48  # a big target
    done = page.get_by_role("button", name="Count done")
    on_screen(done)
    no_sideways_scroll(page)
    total = page.get_by_test_id("count-total")
    assert total.inner_text() == "$0.00"

    page.get_by_label("$1,000 orange chips: pieces").fill("9")
    page.get_by_label("$100 black chips: pieces").fill("9")
    page.get_by_label("$25 green chips: pieces").fill("2")
    page.wait_for_function("document.querySelector('[data-count-total]').textContent === '$9,950.00'")
    assert TRAY not in page.locator("body").inner_text()
    shot(page, f"count-grid-{viewport['width']}x{viewport['height']}")
    done.click()

    answer = page.get_by_test_id("count-receipt")
    answer.wait_for()
    slip = Slip.objects.get(kind=SlipKind.COUNT)
    assert slip.number in answer.inner_text()
    assert page.get_by_test_id("counted").inner_text() == "$9,950.00"
    assert page.get_by_test_id("expected").inner_text() == TRAY  # now, and only now
    assert page.get_by_test_id("variance").inner_text() == "$50.00 short"
    assert answer.get_by_test_id("slip-needs").inner_text() == "Still to sign: Dealer, Pit boss."
    on_screen(page.get_by_test_id("variance"))
    shot(page, f"count-receipt-{viewport['width']}x{viewport['height']}")

    row = sign_row(page, slip, PASSWORD)
    row.get_by_test_id("slip-done").wait_for()
    assert row.get_by_test_id("slip-done").inner_text() == f"You signed slip {slip.number} as dealer."
    assert row.get_by_test_id("slip-needs").inner_text() == "Still to sign: Pit boss."
    page.context.close()


@SIZES
def test_the_pit_boss_signs_with_a_wrong_then_the_right_password_and_a_note(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    slip = short_count(world)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.pit_boss.username)
    page.wait_for_url("**/pit/")
    link = page.get_by_test_id("slips-link")
    # The count, and the openers of the two open tables (Faro's, the card room's): each waits for a pit boss.
    assert link.locator(".n").inner_text() == "3"
    link.click()

    row = page.locator(f"#slip-{slip.pk}")
    row.wait_for()
    listed = row.inner_text()
    for words in (slip.number, "Faro b", "$9,950.00", "variance $50.00 short", "Still to sign: Pit boss."):
        assert words in listed
    note = row.get_by_label("Note: The count is $50.00 short: a note is required.")
    assert not note.is_visible()  # the prompt opens on "Sign"
    row.locator("summary").click()
    note.scroll_into_view_if_needed()
    on_screen(note)
    on_screen(row.locator("summary"))
    no_sideways_scroll(page)

    row = sign_row(page, slip, "not-my-password")
    row.get_by_test_id("sign-error").filter(has_text="That is not your password").wait_for()
    assert row.locator("details.slip-sign").get_attribute("open") is not None  # the prompt stays
    assert not slip.signatures.filter(user=world.pit_boss).exists()

    row = sign_row(page, slip, PASSWORD)
    row.get_by_test_id("sign-error").filter(has_text="say why in a note").wait_for()
    assert row.get_by_test_id("sign-error").inner_text() == (
        "The count is $50.00 short: say why in a note before signing."
    )
    row.get_by_test_id("sign-error").scroll_into_view_if_needed()
    on_screen(row.get_by_test_id("sign-error"))
    shot(page, f"pit-sign-note-{viewport['width']}x{viewport['height']}")

    row = sign_row(page, slip, PASSWORD, note="a $50 chip in the float")
    row.get_by_test_id("slip-done").wait_for()
    assert row.get_by_test_id("slip-done").inner_text() == f"You signed slip {slip.number} as pit boss."
    assert row.get_by_test_id("slip-needs").inner_text() == "Signed by everyone it needs."
    assert row.locator("details.slip-sign").count() == 0  # nothing left to sign here

    row.get_by_role("link", name=slip.number).click()
    history = page.get_by_test_id("slip-history")
    history.wait_for()
    events = page.get_by_test_id("slip-event")
    assert events.count() == 3
    assert "Wrote the slip" in events.nth(0).inner_text()
    assert "Dana Dealer" in events.nth(1).inner_text()
    assert "Signed as dealer" in events.nth(1).inner_text()
    last = events.nth(2).inner_text()
    for words in (
        "Pat Pitboss",
        "Signed as pit boss",
        "a $50 chip in the float",
        "Signed by everyone it needs",
    ):
        assert words in last
    assert page.get_by_test_id("slip-status").inner_text() == "Signed by everyone it needs"
    no_sideways_scroll(page)
    shot(page, f"slip-history-{viewport['width']}x{viewport['height']}")
    page.context.close()


@SIZES
def test_the_cage_issues_a_fill_with_the_cashiers_password(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    world.open_faro()
    fill = issue_slip(kind=SlipKind.FILL, requested_by=world.dealer, table=world.faro, amount=200_000)
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.cashier.username)
    page.wait_for_url("**/cage/")
    link = page.get_by_test_id("slips-link")
    assert link.locator(".n").inner_text() == "1"
    link.click()

    row = page.locator(f"#slip-{fill.pk}")
    row.wait_for()
    assert "$2,000.00" in row.inner_text()
    assert "Fill: chips from the cage to the table" in row.inner_text()
    assert row.locator("summary").inner_text() == "Issue"
    on_screen(row.locator("summary"))

    row = sign_row(page, fill, PASSWORD)
    row.get_by_test_id("slip-done").wait_for()
    assert row.get_by_test_id("slip-done").inner_text() == f"You signed slip {fill.number} as cashier."
    assert row.get_by_test_id("slip-needs").inner_text() == "Still to sign: Dealer, Pit boss."
    fill.refresh_from_db()
    assert fill.status == "issued"
    page.goto("/cage/slips/waiting/")
    assert page.get_by_test_id("nothing-waiting").inner_text() == "Nothing waits for your signature."
    page.context.close()
