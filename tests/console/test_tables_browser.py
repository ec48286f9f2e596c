"""Issue 21 item 3: the pot games' tables drawn as the dealer sees them, in Chromium.

Fan Tan's suit rows from the 7s, Newmarket's pay cards and run, Tonk's spreads and piles,
Farmer's hands with hits face up: each checked against the round's own state after known
moves, on screen at a tablet (1280×800) and an upright iPad (810×1080), with no sideways
scroll on a phone (390×844). The card the electronic shoe just gave out is beside the buttons,
and Fan Tan's buttons are the legal plays only: a penalty sits behind its own control.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from tables.console.dealer.games import known_hands_of, legal_actions_of
from tables.games.base import without_hints
from tables.games.cards import RANKS, card_label
from tables.games.newmarket import run_in_play
from tables.models import Round, Table
from tables.rounds import apply_round_action, start_round
from tests.browser import PHONE, PORTRAIT, TABLET, open_page, shot, sign_in
from tests.console.conftest import Floor
from tests.console.test_games import make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = [TABLET, PORTRAIT, PHONE]
SIZE = "{width}x{height}".format
WIDE = "() => document.scrollingElement.scrollWidth - innerWidth"


def _play(
    world: Floor, round_: Round, pick: Callable[[list[dict[str, Any]]], dict[str, Any] | None]
) -> Round:
    """Apply the concrete legal action ``pick`` chooses, as the console would post it."""
    legal = [entry for entry in legal_actions_of(round_) if not entry.get("needs")]
    entry = pick(legal)
    assert entry is not None, legal
    return apply_round_action(
        actor=world.dealer, round_id=round_.pk, action=without_hints(entry), version=round_.version
    )


def _first(*kinds: str) -> Callable[[list[dict[str, Any]]], dict[str, Any] | None]:
    def pick(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        for kind in kinds:
            for entry in legal:
                if entry["type"] == kind and not entry.get("illegal"):
                    return entry
        return None

    return pick


def _deal(world: Floor, game: str, players: int, **spec: Any) -> tuple[Table, Round]:
    table, _ = make_table(world, game, players, **spec)
    round_ = start_round(
        actor=world.dealer,
        table_id=table.pk,
        shoe="electronic",
        seed=hashlib.sha256(game.encode()).hexdigest(),
    )
    return table, round_


def _inside(page: Any, selector: str, viewport: dict[str, int]) -> None:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not laid out"
    assert box["x"] >= 0, (selector, box)
    assert box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
    assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box)


def _look(page: Any, table: Table, viewport: dict[str, int], name: str, *on_screen: str) -> None:
    """Open the table at this size: no sideways scroll; at tablet sizes, these within the screen."""
    page.set_viewport_size(viewport)
    page.goto(f"/console/tables/{table.pk}/")
    page.get_by_test_id("drawing").wait_for()
    assert page.evaluate(WIDE) <= 0, f"{name} scrolls sideways at {SIZE(**viewport)}"
    if viewport is not PHONE:
        for selector in on_screen:
            _inside(page, selector, viewport)
    shot(page, f"table-{name}-{SIZE(**viewport)}")


def _cards(page: Any, selector: str) -> list[str]:
    return page.locator(f"{selector} .card-face").evaluate_all("els => els.map(e => e.dataset.card)")


def test_fan_tan_draws_suit_rows_from_the_sevens_and_offers_only_legal_plays(
    browser: Any, live_server: Any, world: Floor
) -> None:
    table, round_ = _deal(world, "fan_tan", 4)
    round_ = _play(world, round_, _first("deal"))
    for _ in range(14):  # plays when there is one, else the (legal) pass
        round_ = _play(world, round_, _first("play", "pass"))
    played = round_.state["played"]
    assert played, "no card reached the layout"
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    for viewport in VIEWPORTS:
        _look(page, table, viewport, "fan-tan", "[data-testid=fan-tan-layout]", "form.action-tap button")
    page.set_viewport_size(TABLET)
    for suit in "SHDC":
        row = _cards(page, f'.suit-row[data-suit="{suit}"]')
        expected = sorted((c for c in played if c.endswith(suit)), key=lambda c: RANKS.index(c[:-1]))
        assert row == expected, (suit, row, expected)
        if row:  # one unbroken stretch through the 7
            assert f"7{suit}" in row
    assert page.get_by_test_id("pot").inner_text().endswith(f"${round_.state['pot'] / 100:,.2f}")
    buttons = page.locator(".action-taps form.action-tap button").all_inner_texts()
    legal = [e for e in legal_actions_of(round_) if not e.get("illegal")]
    assert len(buttons) == len(legal), (buttons, legal)
    assert not [text for text in buttons if "illegal" in text.lower()], buttons
    # The engine also lists the illegal pass now: it is behind its own control, closed.
    assert [e for e in legal_actions_of(round_) if e.get("illegal")]
    control = page.get_by_test_id("penalty-control")
    assert control.locator("summary").inner_text() == "Record a penalty…"
    assert not control.locator("button").first.is_visible()
    control.locator("summary").click()
    assert "illegal" in control.locator("button").first.inner_text().lower()
    hands = page.get_by_test_id("dealer-hands")
    assert hands.is_visible()  # the dealer's hands are open, beside the buttons
    _inside(page, "[data-testid=dealer-hands] li", TABLET)


def test_newmarket_draws_the_pay_cards_with_their_pots_and_the_run(
    browser: Any, live_server: Any, world: Floor
) -> None:
    table, round_ = _deal(world, "newmarket", 4)
    round_ = _play(world, round_, _first("deal"))
    round_ = _play(world, round_, _first("exchange"))
    for _ in range(3):
        round_ = _play(world, round_, _first("play", "pass"))
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    for viewport in VIEWPORTS:
        _look(page, table, viewport, "newmarket", "[data-testid=boodle]", "[data-testid=run]")
    page.set_viewport_size(TABLET)
    pays = page.locator("[data-pay]")
    assert pays.evaluate_all("els => els.map(e => e.dataset.pay)") == ["AH", "KC", "QD", "JS"]
    for code, amount in round_.state["pots"].items():
        assert pays.filter(has=page.locator(f'[data-card="{code}"]')).locator(".pay-pot").inner_text() == (
            f"${amount / 100:,.2f}"
        )
    run = [entry["card"] for entry in run_in_play(round_.state["played"])]
    assert run, round_.state["played"]
    assert _cards(page, "[data-testid=run]") == run


def test_tonk_draws_spreads_the_stock_and_the_discard_pile(
    browser: Any, live_server: Any, world: Floor
) -> None:
    """A keyed deal (manual shoe) so the first player holds three sevens: they spread them."""
    table, _ = make_table(world, "tonk", 3, ante=500)
    round_ = start_round(actor=world.dealer, table_id=table.pk, shoe="manual")
    first, second, third = round_.state["players"]
    (keyed,) = [e for e in legal_actions_of(round_) if e["type"] == "deal" and "hands" in e["needs"]]
    hands = {
        str(first): ["7S", "7H", "7D", "KC", "2C"],
        str(second): ["2D", "3D", "9H", "10H", "QS"],
        str(third): ["KD", "KH", "9D", "10D", "JH"],
    }
    round_ = apply_round_action(
        actor=world.dealer,
        round_id=round_.pk,
        action=without_hints(keyed) | {"hands": hands, "upcard": "5C"},
        version=round_.version,
    )
    draw = {"type": "draw", "player": first, "from": "stock", "card": "4S"}
    round_ = apply_round_action(actor=world.dealer, round_id=round_.pk, action=draw, version=round_.version)
    round_ = _play(world, round_, _first("spread"))
    round_ = _play(world, round_, _first("discard"))
    state = round_.state
    assert [s["cards"] for s in state["spreads"]] == [["7S", "7H", "7D"]]
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    for viewport in VIEWPORTS:
        _look(page, table, viewport, "tonk", "[data-testid=stock]", "[data-testid=discard]", ".tonk-players")
    page.set_viewport_size(TABLET)
    assert page.get_by_test_id("stock").inner_text() == f"Stock: {state['stock_count']} cards"
    assert _cards(page, "[data-testid=discard]") == [state["discard_top"]]
    assert (
        page.get_by_test_id("discard")
        .inner_text()
        .endswith(f"Discard pile: {len(state['discard_pile'])} cards")
    )
    spreads = page.locator(f'[data-testid=tonk-player][data-player="{first}"] [data-testid=spread]')
    assert spreads.count() == 1
    assert spreads.locator("[data-card]").evaluate_all("els => els.map(c => c.dataset.card)") == [
        "7S",
        "7H",
        "7D",
    ]
    assert spreads.inner_text().split() == ["7", "♠", "7", "♥", "7", "♦"]
    for other in (second, third):
        assert (
            page.locator(f'[data-testid=tonk-player][data-player="{other}"] [data-testid=spread]').count()
            == 0
        )


def test_farmer_draws_each_hand_with_the_hits_face_up_and_the_card_to_hand_out(
    browser: Any, live_server: Any, world: Floor
) -> None:
    table, round_ = _deal(world, "farmer", 4, ante=500)
    round_ = _play(world, round_, _first("deal"))
    round_ = _play(world, round_, _first("hit"))
    round_ = _play(world, round_, _first("hit"))
    hands = known_hands_of(round_)
    hitter = round_.state["turn"]
    page = open_page(browser, live_server)
    sign_in(page, world.dealer.username)
    for viewport in VIEWPORTS:
        _look(
            page, table, viewport, "farmer", ".felt-game.farmer", "[data-testid=hand-out]", "form.action-tap"
        )
    page.set_viewport_size(TABLET)
    for player, cards in hands.items():
        hand = page.locator(f'[data-testid=farmer-hand][data-player="{player}"]')
        assert hand.locator(".card-back").count() == 1  # the first card stays face down
        assert _cards(page, f'[data-testid=farmer-hand][data-player="{player}"]') == cards[1:]
    # The last card the shoe gave out, to whom, where the dealer looks: beside the buttons.
    newest = hands[hitter][-1]
    out = page.get_by_test_id("hand-out")
    assert out.is_visible()
    name = page.locator(f'[data-testid=farmer-hand][data-player="{hitter}"] .seat-name').inner_text()
    assert name.split(" farmer")[0].strip() in out.inner_text()
    assert out.locator(".pcard-face").inner_text() == card_label(newest)
    _inside(page, "[data-testid=hand-out]", TABLET)
