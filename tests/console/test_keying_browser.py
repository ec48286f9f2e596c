"""Keying a manual Fan Tan deal in Chromium, as a dealer does on a tablet: one picker per hand,
cards given to one hand greyed on the others, the deal button waiting for the last card; then
a play from a keyed hand. Uses the shared browser (tests/browser.py) and floor (Chromium required)."""

from __future__ import annotations

from typing import Any

import pytest

from casino.services import buy_in, create_player
from tables.models import Round, RoundAction, Table
from tables.services import assign_dealer, create_table, open_table, seat_player
from tests.browser import check_accessibility, confirmed, open_page, shot, sign_in
from tests.console.conftest import PASSWORD, Floor
from tests.console.test_keying import fan_tan_deck

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _fan_tan_table(world: Floor) -> tuple[Table, list[int]]:
    """An open Fan Tan table with three players; returns it and the deal order (dealer's left first)."""
    table = create_table(actor=world.pit_boss, name="Fan Tan b", game="fan_tan", min_bet=100, max_bet=5_000)
    assign_dealer(actor=world.pit_boss, table_id=table.pk, dealer_id=world.dealer.pk)
    open_table(actor=world.dealer, table_id=table.pk, opening_inventory=0)
    doc = create_player(actor=world.cashier, username="bdoc.holliday", password=PASSWORD, name="Doc Holliday")
    buy_in(actor=world.cashier, player=doc, amount=200_000)
    for player in (world.kate, world.wyatt, doc):
        seat_player(actor=world.dealer, table_id=table.pk, player_id=player.pk)
    # Seats 1-3; seat 1 deals first, so Wyatt (seat 2) gets the first card, then Doc, then Kate.
    return table, [world.wyatt.pk, doc.pk, world.kate.pk]


def test_a_dealer_keys_every_hand_of_a_manual_fan_tan_deal_and_plays_from_one(
    browser: Any, live_server: Any, world: Floor
) -> None:
    table, order = _fan_tan_table(world)
    deck = fan_tan_deck()
    hands = {order[0]: deck[:18], order[1]: deck[18:35], order[2]: deck[35:]}
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table.pk}/")
    page.locator("label.pick", has_text="Manual").click()
    page.get_by_role("button", name="Start deal").click()
    confirmed(page, "deal #1 started")

    # Two clear choices; the dealer takes "Key every hand".
    page.get_by_text("Cards dealt, hands not keyed", exact=True).wait_for()
    page.locator("[data-close-receipt]").click()
    shot(page, "13-fan-tan-deal-choice")
    check_accessibility(page)  # every picker card and hand tab has a name; Tab starts at the skip link
    page.get_by_text("Key every hand", exact=True).click()
    form = page.locator("form[data-keying]")
    deal_button = form.get_by_test_id("deal-keyed")
    assert deal_button.is_disabled()

    def key(player: int, cards: list[str]) -> None:
        for card in cards:
            form.locator(f'[data-hand-panel="{player}"] label[data-card="{card}"]').click()

    key(order[0], hands[order[0]])
    # The first hand is complete and hands over to the next; its cards are greyed there.
    assert form.locator(f'[data-hand-tab="{order[0]}"] [data-left]').inner_text() == "complete \u2713"
    assert form.locator(f'[data-hand-panel="{order[1]}"]').is_visible()
    assert form.locator(f'[data-hand-panel="{order[1]}"] input[value="7S"]').is_disabled()
    key(order[1], hands[order[1]][:9])
    assert form.locator(f'[data-hand-tab="{order[1]}"] [data-left]').inner_text() == "8 of 17 to key"
    assert deal_button.is_disabled()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "14-fan-tan-keying")

    key(order[1], hands[order[1]][9:])
    key(order[2], hands[order[2]])
    assert "Every hand is keyed" in form.locator("[data-status]").inner_text()
    deal_button.click()
    confirmed(page, "Every hand keyed")
    round_ = Round.objects.get(table=table)
    assert round_.state["tracking"] == "full"

    # Wyatt, first to play, holds one card the layout takes: the one play offered is that card,
    # a single tap (the engine lists it concretely).
    plays = page.locator("form.action-tap button", has_text="Wyatt Earp plays")
    assert plays.all_inner_texts() == ["Wyatt Earp plays 7♠"]
    # His pass would be an illegal one: it is kept apart, behind "Record a penalty…", and says so.
    penalty = page.get_by_test_id("penalty-control")
    assert not penalty.locator("button.btn-danger").is_visible()
    penalty.locator("summary").click()
    assert "illegal pass" in penalty.locator("button.btn-danger").inner_text()
    plays.click()
    confirmed(page, "Wyatt Earp plays 7♠.")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "15-fan-tan-keyed-play")
    assert RoundAction.objects.filter(round=round_).count() == 2
    round_.refresh_from_db()
    assert round_.state["played"] == ["7S"]
