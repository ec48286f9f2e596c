"""The console and the pit view driven in Chromium, as a dealer and a pit boss use them on a tablet.

Debian's Chromium (``/usr/bin/chromium``, installed by deploy/scripts/setup) is required: a
missing browser fails these tests, it does not skip them. Screenshots of the main screens
go to artifacts/screenshots/ (git-ignored); the two used in the README are copied to
deploy/docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tables.games.cards import FULL_DECK
from tables.models import RefusedAction, Round
from tables.slips.models import Slip
from tables.slips.services import sign_slip
from tests.browser import (
    README_SHOTS,
    SHOTS,
    call_turn,
    check_accessibility,
    chips_for,
    confirmed,
    key_cards,
    open_on_grid,
    open_page,
    place_bet,
    receipt,
    shot,
    sign_in,
    type_count,
)
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The manual shoe for the full deal: the soda, a split on the first turn, Kate's queen wins on
# the second, and three different ranks last so the turn can be called.
SODA = "KS"
SPLIT = ("5S", "5H")
QUEEN_WINS = ("2C", "QD")
LAST_THREE = ("9C", "JD", "4S")


def cents(shown: str) -> int:
    """ "$12,345.50" as the screen shows it → 1234550."""
    whole, _, part = shown.replace("$", "").replace(",", "").partition(".")
    return int(whole) * 100 + int(part or 0)


def _shoe() -> list[str]:
    first = [SODA, *SPLIT, *QUEEN_WINS]
    middle = [card for card in FULL_DECK if card not in first and card not in LAST_THREE]
    return first + middle + list(LAST_THREE)


def test_dealer_runs_a_full_faro_deal_and_the_cage_issues_a_fill(
    browser: Any, live_server: Any, world: Floor
) -> None:
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.get_by_role("heading", name="Your tables").wait_for()
    shot(page, "01-dealer-tables")

    # Open the table with the tray counted on the chip grid: ten $1,000 chips.
    page.get_by_role("link", name=f"Open {world.faro.name}").click()
    type_count(page.get_by_test_id("open-panel"), {100_000: 10})
    shot(page, "02-open-table")
    page.get_by_role("button", name="Open table").click()
    confirmed(page, "is open with $10,000.00")
    opener = Slip.objects.get(kind="opener", table=world.faro)
    assert page.get_by_test_id("slip-number").inner_text() == opener.number

    # Seat two players by searching their names; each shows their available balance.
    for name in ("Kate", "Wyatt"):
        page.get_by_label("Seat a player: search by name").fill(name)
        page.get_by_role(
            "button", name=f"Seat {world.kate.name if name == 'Kate' else world.wyatt.name}"
        ).click()
        confirmed(page, f"Seated {name}")
    assert page.locator("#seats .seat-list li").count() == 2
    assert "$2,000.00" in page.locator("#seats").inner_text()
    shot(page, "03-seats")

    # A dealer asks for a fill; a double tap on the form posts it once.
    fill_form = page.locator("#tray form").first
    fill_form.get_by_label("Fill (cage → tray), dollars").fill("2,000")
    statuses = page.evaluate(
        """async () => {
            const form = document.querySelector('#tray form');
            const data = new FormData(form);
            const headers = {'HX-Request': 'true'};
            const send = () => fetch(form.action, {method: 'POST', body: data, headers: headers});
            const replies = await Promise.all([send(), send()]);
            return Promise.all(replies.map(async r => [r.status, await r.text()]));
        }"""
    )
    assert [status for status, _ in statuses] == [200, 200]
    assert sum("already done" in body for _, body in statuses) == 1
    assert Slip.objects.filter(table=world.faro, kind="fill").count() == 1

    # Start a manual-shoe deal and burn the soda on the card picker.
    page.reload()
    page.locator("label.pick", has_text="Manual").click()
    page.get_by_role("button", name="Start deal").click()
    confirmed(page, "deal #1 started")
    key_cards(page, [SODA], "Soda K♠ burned")

    # Tap-to-bet: player → placement → amount → confirm. A split coming on the 5s.
    place_bet(page, "Kate Elder", ["Q"], "$25")
    confirmed(page, "Kate Elder bet $25.00 on Q")
    place_bet(page, "Wyatt Earp", ["5"], "$10")
    confirmed(page, "Wyatt Earp bet $10.00 on 5")
    place_bet(page, "Wyatt Earp", ["10", "9", "4"], "$5", coppered=True)
    confirmed(page, "on 4\u20139\u201310 (coppered)")

    # A bet over the limit is refused in place, with the reason; nothing moves.
    place_bet(page, "Kate Elder", ["K"], "$600")
    page.locator("#bet-form").get_by_test_id("inline-error").filter(
        has_text="The table maximum is $500.00"
    ).wait_for()
    assert page.get_by_test_id("bet-row").count() == 3
    assert RefusedAction.objects.filter(code="limit_exceeded").count() == 1
    shot(page, "04-bet-refused")
    page.locator("#bet-form button[type=reset]").click()

    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "05-faro-layout")
    check_accessibility(page)
    key_cards(page, SPLIT, "Split!")
    assert "Split: bank took $5.00 from Wyatt Earp" in receipt(page).inner_text()
    key_cards(page, QUEEN_WINS, "Turn 2: 2♣ loses, Q♦ wins")
    assert "Paid $25.00 to Kate Elder" in receipt(page).inner_text()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "06-faro-mid-deal")
    shutil.copyfile(SHOTS / "06-faro-mid-deal.png", _readme_shot("faro-layout.png"))

    # Mid-deal, a pit boss sees the floor live and approves the fill.
    boss = open_page(browser, live_server)
    sign_in(boss, world.pit_boss.username)
    boss.get_by_role("heading", name="The pit").wait_for()
    assert boss.get_by_test_id("pit-table").count() == 3
    assert (
        "#1 · betting · turn 2/25"
        in boss.get_by_test_id("pit-table").filter(has_text=world.faro.name).inner_text()
    )
    shot(boss, "08-pit-view")
    shutil.copyfile(SHOTS / "08-pit-view.png", _readme_shot("pit-view.png"))
    # The cage issues the fill (a cashier, not the pit boss); the pit sees it in transit, and the
    # dealer and the pit boss sign for it (the books' screens have their own tests).
    cage = open_page(browser, live_server)
    sign_in(cage, world.cashier.username)
    cage.goto("/cage/")
    cage.get_by_role("button", name=f"Approve fill of $2,000.00 for {world.faro.name}").click()
    confirmed(cage, "$2,000.00 in transit (cage → transit → tray)")
    fill = Slip.objects.get(table=world.faro, kind="fill")
    assert fill.status == "issued"
    boss.reload()
    boss.get_by_test_id("approvals-count").click()  # the count opens the list (issue 44)
    boss.get_by_test_id("transit-slip").filter(has_text=f"{fill.number} — issued, in transit").wait_for()
    for signer in (world.dealer, world.pit_boss):
        sign_slip(actor=signer, slip_id=fill.pk)

    # Deal on to three cards left, then call the turn.
    shoe = _shoe()
    for turn in range(3, 25):
        start = 1 + 2 * (turn - 1)
        key_cards(page, shoe[start : start + 2], f"Turn {turn}:")
    call_turn(page, "Kate Elder", "9 · J · 4", "$10")
    confirmed(page, "Kate Elder called the turn 9 · J · 4 for $10.00")
    page.locator("#call-turn").scroll_into_view_if_needed()
    shot(page, "07-call-the-turn")
    key_cards(page, list(LAST_THREE), "The deal is over")
    assert "Paid $40.00 to Kate Elder" in receipt(page).inner_text()
    assert Round.objects.get(table=world.faro).status == "settled"

    # Close the table with the tray counted exactly on the chip grid: the summary shows no variance.
    page.reload()
    tray = page.get_by_test_id("tray").inner_text()
    page.get_by_test_id("close-link").click()
    type_count(page.get_by_test_id("close-grid"), chips_for(cents(tray)))
    page.get_by_role("button", name="Close table").click()
    summary = page.get_by_test_id("summary")
    summary.wait_for()
    assert page.get_by_test_id("variance").inner_text() == "None: the count matched the ledger"
    closer = Slip.objects.get(kind="closer", table=world.faro)
    assert page.get_by_test_id("slip-number").inner_text() == closer.number
    assert page.get_by_test_id("fills").inner_text() == "$2,000.00"
    shot(page, "09-close-summary")


def _readme_shot(name: str) -> Path:
    """The README's screenshots are refreshed only on request (UPDATE_README_SCREENSHOTS=1),
    so a test run never dirties a tracked file; otherwise they go with the other artifacts."""
    folder = README_SHOTS if os.environ.get("UPDATE_README_SCREENSHOTS") == "1" else SHOTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def test_other_roles_get_a_polite_refusal(browser: Any, live_server: Any, world: Floor) -> None:
    page = open_page(browser, live_server)
    sign_in(page, world.auditor.username)
    page.wait_for_url("**/audit/")  # the auditor's home (issue 21 item 6), not a refusal
    page.goto("/pit/")
    page.get_by_role("heading", name="Not for this account").wait_for()
    assert "The pit view is for pit bosses and cashiers." in page.inner_text("main")
    shot(page, "10-forbidden")


def test_a_card_room_result_is_keyed_on_its_screen(browser: Any, live_server: Any, world: Floor) -> None:
    from tables.models import Table
    from tables.rounds import start_round
    from tables.services import seat_player

    room = Table.objects.get(name="Card room b")
    for player in (world.kate, world.wyatt):
        seat_player(actor=world.other_dealer, table_id=room.pk, player_id=player.pk)
    start_round(actor=world.other_dealer, table_id=room.pk, shoe="electronic")
    page = open_page(browser, live_server)
    sign_in(page, world.other_dealer.username)
    page.get_by_role("link", name="Go to Card room b").click()
    page.get_by_role("heading", name="Next").wait_for()
    form = page.locator("form.action-form")
    form.get_by_label("Kate Elder").fill("12")
    form.get_by_label("Wyatt Earp").fill("7")
    shot(page, "11-card-room-result")
    form.get_by_role("button", name="Record the result").click()
    confirmed(page, "Wyatt Earp paid $2.00 to Kate Elder")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "12-card-room-settled")


def test_a_correction_the_dealer_asks_the_pit_approves_and_the_table_plays_on(
    browser: Any, live_server: Any, world: Floor
) -> None:
    """Issue 20 item 9 end to end: a bet keyed by mistake is voided with two people."""
    from tables.models import Correction

    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.get_by_role("link", name=f"Open {world.faro.name}").click()
    open_on_grid(page, {100_000: 10}, "is open with $10,000.00")
    page.get_by_label("Seat a player: search by name").fill("Kate")
    page.get_by_role("button", name=f"Seat {world.kate.name}").click()
    confirmed(page, "Seated Kate")
    page.locator("label.pick", has_text="Manual").click()
    page.get_by_role("button", name="Start deal").click()
    confirmed(page, "deal #1 started")
    key_cards(page, [SODA], "Soda K♠ burned")
    place_bet(page, "Kate Elder", ["Q"], "$25")
    confirmed(page, "Kate Elder bet $25.00 on Q")
    world.kate.wallet.refresh_from_db()
    assert world.kate.wallet.available == 200_000 - 2_500

    # The dealer asks: the form says what "the last action" is, in words.
    panel = page.get_by_test_id("correction-panel")
    assert "Bet $25.00 by Kate Elder on Q" in panel.inner_text()
    panel.get_by_label("Why").fill("the bet was Wyatt's")
    panel.get_by_role("button", name="Ask the pit to approve").click()
    confirmed(page, "Correction asked: void the last action")
    page.get_by_test_id("correction-pending").wait_for()
    assert Correction.objects.get().status == "pending"

    # The pit boss sees what would be voided and approves.
    boss = open_page(browser, live_server)
    sign_in(boss, world.pit_boss.username)
    boss.get_by_test_id("corrections-count").click()  # the count opens the list (issue 44)
    row = boss.get_by_test_id("pending-correction")
    assert "Would void: #2 Bet $25.00 by Kate Elder on Q" in row.inner_text()
    assert "the bet was Wyatt's" in row.inner_text()
    boss.get_by_role("button", name=f"Approve the correction of {world.faro.name} deal #1").click()
    confirmed(boss, f"Approved: the correction of {world.faro.name} deal #1")
    assert boss.get_by_test_id("pending-correction").count() == 0

    # The dealer's table plays on as if the bet had never been made.
    page.reload()
    assert page.get_by_test_id("bet-row").count() == 0
    world.kate.wallet.refresh_from_db()
    assert world.kate.wallet.available == 200_000
    place_bet(page, "Kate Elder", ["5"], "$10")
    confirmed(page, "Kate Elder bet $10.00 on 5")
    assert page.get_by_test_id("bet-row").count() == 1
    shot(page, "09-after-correction")


def test_a_limit_change_in_the_pit_reaches_the_dealers_open_bet_form(
    browser: Any, live_server: Any, world: Floor
) -> None:
    """Issue 20 item 11: the chips offered follow the pit's change without a reload."""
    from tables.services import change_limits, open_table, seat_player

    open_table(actor=world.dealer, table_id=world.faro.pk, opening_inventory=1_000_000)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    from tables.rounds import start_round

    start_round(actor=world.dealer, table_id=world.faro.pk, shoe="electronic")
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{world.faro.pk}/")
    amounts = page.get_by_test_id("bet-amounts")
    assert "(limits $5.00 – $500.00)" in amounts.inner_text()
    assert amounts.locator('input[value="500"]').count() == 1

    change_limits(actor=world.pit_boss, table_id=world.faro.pk, min_bet=2_500, max_bet=100_000)
    # The form polls every 5 s: the new chips and the header arrive without a reload.
    page.get_by_test_id("bet-amounts").filter(has_text="(limits $25.00 – $1,000.00)").wait_for()
    assert page.get_by_test_id("limits").inner_text() == "Limits $25.00 – $1,000.00"
    assert page.get_by_test_id("bet-amounts").locator('input[value="500"]').count() == 0
    place_bet(page, "Kate Elder", ["Q"], "$25")
    confirmed(page, "Kate Elder bet $25.00 on Q")
