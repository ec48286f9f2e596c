"""Issue 21 item 2: a Faro bet without scrolling, in few taps, on a tablet held either way.

At 1280×800 the players were at y≈244 and "Place bet" at y≈1003; upright (810×1080) the 7 and
"High card" were off-screen and "Deal turn" at y≈2425, and calling the turn took about twelve
taps over four dropdowns and a typed amount. Here the players, all thirteen ranks, even / odd /
high, the chips, "Place bet" and "Deal turn" must be inside the viewport together with a document
that does not scroll, and each kind of bet is made with real taps that are counted.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.console.dealer.games import legal_actions_of
from tables.games.cards import RANKS
from tables.models import Round
from tables.rounds import apply_round_action
from tables.services import seat_player
from tests.browser import (
    PHONE,
    PORTRAIT,
    TABLET,
    choose_chip,
    confirmed,
    dealer_at_faro,
    live_faro_deal,
    open_page,
    place_bet,
    shot,
)
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TABLETS = [TABLET, PORTRAIT]
SIZE = "{width}x{height}".format

# A rank bet with the chip already in hand, and a called turn, must take no more taps than this.
RANK_BET_TAPS = 3
CALLED_TURN_TAPS = 4
PLACEMENT_TAPS = 3  # a spot between two cards (K–Q) or where four meet (9 8 / 5 6)
COPPER_TAPS = 4

# The document's own scroll extent; an inner panel that scrolls (the side column) does not count.
PAGE = """() => ({height: document.scrollingElement.scrollHeight,
                  width: document.scrollingElement.scrollWidth,
                  innerHeight: innerHeight, innerWidth: innerWidth})"""
STICKING_OUT = """() => [...document.querySelectorAll('body *')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.width && (r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5); })
    .slice(0, 8).map(el => el.tagName + '.' + el.className + '#' + el.id)"""
# What a finger at the centre of the element would hit: the element itself, not something over it.
UNCOVERED = """el => { const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !!hit && (el === hit || el.contains(hit)); }"""


# Known electronic decks: the last three cards are 5 9 K (three ranks: six orders to call, 4 to 1)
# or 5 A 5 (a pair: three orders, cat-hop 2 to 1).
THREE_RANKS_LAST = f"{3:064x}"
CAT_HOP_LAST = f"{1:064x}"


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="fit")


def _deal(world: Floor, seed: str = THREE_RANKS_LAST) -> None:
    """A live electronic deal with Kate Elder and Wyatt Earp seated."""
    live_faro_deal(world, seed=seed)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.wyatt.pk)


class Taps:
    """Real clicks, counted: the dealer's taps for one bet."""

    def __init__(self) -> None:
        self.count = 0

    def tap(self, *locators: Any) -> None:
        """Click each in turn, counting every click."""
        for locator in locators:
            locator.click()
            self.count += 1


def _on_screen(page: Any, locator: Any, viewport: dict[str, int]) -> None:
    assert locator.count() > 0, locator
    for element in locator.all():
        box = element.bounding_box()
        assert box is not None, f"{element} is not laid out"
        assert box["x"] >= 0, (element, box)
        assert box["y"] >= 0, (element, box)
        assert box["x"] + box["width"] <= viewport["width"], (element, box)
        assert box["y"] + box["height"] <= viewport["height"], (element, box)
        assert element.evaluate(UNCOVERED), f"{element} is covered at its centre"


def _everything_at_hand(page: Any, viewport: dict[str, int]) -> None:
    """Players, 13 ranks, even / odd / high, the chips, "Place bet", "Deal turn": in view, no scroll."""
    form = page.locator("#bet-form")
    _on_screen(page, form.locator(".bet-players label.pick"), viewport)
    for rank in RANKS:
        _on_screen(page, form.locator(f'label.rank[data-rank="{rank}"]'), viewport)
    _on_screen(page, form.locator("label.target"), viewport)
    assert form.locator("label.target").filter(has_text="High card").count() == 1
    _on_screen(page, form.locator(".amount-picks label.pick"), viewport)
    _on_screen(page, form.locator(".copper-toggle"), viewport)
    _on_screen(page, form.locator("[data-confirm]"), viewport)
    _on_screen(page, page.get_by_test_id("deal-turn"), viewport)
    _no_page_scroll(page, vertical=True)


def _no_page_scroll(page: Any, *, vertical: bool) -> None:
    """The document is no wider (and, on a tablet, no taller) than the window; else say what sticks out."""
    extent = page.evaluate(PAGE)
    outside = page.evaluate(STICKING_OUT)
    assert extent["width"] <= extent["innerWidth"], (extent, outside)
    if vertical:
        assert extent["height"] <= extent["innerHeight"], (extent, outside)


def _bets(world: Floor) -> list[dict[str, Any]]:
    return list(Round.objects.get(table=world.faro).state["bets"])


@pytest.mark.parametrize("viewport", TABLETS, ids=lambda v: SIZE(**v))
def test_players_layout_chips_place_bet_and_deal_turn_are_in_view_and_each_bet_takes_few_taps(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    _deal(world)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    _everything_at_hand(page, viewport)
    shot(page, f"faro-fit-{SIZE(**viewport)}-ready")
    form = page.locator("#bet-form")
    kate, wyatt = (form.locator(".bet-players label.pick", has_text=name) for name in ("Kate", "Wyatt"))
    confirm = form.locator("[data-confirm]")

    # The chip is picked once and stays in hand from one bet to the next.
    choose_chip(page, "25")

    # A bet on one rank: player, rank, confirm.
    rank_bet = Taps()
    rank_bet.tap(kate, form.locator('label.rank[data-rank="Q"]'))
    assert confirm.inner_text() == "Bet $25.00 on Q for Kate Elder"
    rank_bet.tap(confirm)
    confirmed(page, "Kate Elder bet $25.00 on Q.")
    assert [(b["player"], b["ranks"], b["amount"]) for b in _bets(world)] == [(world.kate.pk, ["Q"], 2_500)]
    assert rank_bet.count <= RANK_BET_TAPS
    # With the receipt in the header, everything is still in view.
    _everything_at_hand(page, viewport)
    shot(page, f"faro-fit-{SIZE(**viewport)}-rank-bet")

    # A placement: one stack covering K and Q, by the spot between them; the chip still in hand.
    assert form.locator('.amount-picks input[value="2500"]').is_checked()
    placement = Taps()
    placement.tap(wyatt, form.locator('[data-spot="Q K"]'))
    assert confirm.inner_text() == "Bet $25.00 on Q\u2013K for Wyatt Earp"
    placement.tap(confirm)
    confirmed(page, "Wyatt Earp bet $25.00 on Q\u2013K.")
    # A square of four (9 8 above 5 6), by the spot where they meet.
    square = Taps()
    square.tap(wyatt, form.locator('[data-spot="5 6 8 9"]'), confirm)
    confirmed(page, "Wyatt Earp bet $25.00 on 5\u20136\u20138\u20139.")
    covered = [sorted(b["ranks"]) for b in _bets(world) if b["player"] == world.wyatt.pk]
    assert covered == [["K", "Q"], ["5", "6", "8", "9"]]
    # Without the spot, the cards are tapped one by one: player, three cards, confirm.
    tapped = Taps()
    tapped.tap(kate, *(form.locator(f'label.rank[data-rank="{rank}"]') for rank in ("10", "9", "4")), confirm)
    confirmed(page, "Kate Elder bet $25.00 on 4\u20139\u201310.")

    # A copper: player, rank, copper, confirm.
    copper = Taps()
    copper.tap(kate, form.locator('label.rank[data-rank="5"]'), form.locator(".copper-toggle"), confirm)
    confirmed(page, "Kate Elder bet $25.00 on 5 (coppered).")
    assert [b["coppered"] for b in _bets(world) if b["ranks"] == ["5"]] == [True]
    assert page.locator("[data-testid=chip].coppered").count() == 1
    _everything_at_hand(page, viewport)

    # "Deal turn" deals from where it is: no scrolling to reach it.
    page.get_by_test_id("deal-turn").click()
    confirmed(page, "Turn 1:")
    _everything_at_hand(page, viewport)
    shot(page, f"faro-fit-{SIZE(**viewport)}-after-turn")
    counts = (
        f"rank bet {rank_bet.count}, placement {placement.count} (square {square.count},"
        f" three cards tapped {tapped.count}), copper {copper.count}"
    )
    print(f"\ntaps at {SIZE(**viewport)}: {counts}")
    assert max(placement.count, square.count) <= PLACEMENT_TAPS
    assert copper.count <= COPPER_TAPS


@pytest.mark.parametrize(
    ("viewport", "seed", "count"),
    [(TABLET, THREE_RANKS_LAST, 6), (PORTRAIT, CAT_HOP_LAST, 3)],
    ids=["1280x800-three-ranks", "810x1080-cat-hop"],
)
def test_calling_the_turn_is_a_player_an_order_a_chip_and_a_confirm(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int], seed: str, count: int
) -> None:
    _deal(world, seed)
    deal = Round.objects.get(table=world.faro)
    while deal.state["next_action"] != "last_turn":
        deal = apply_round_action(actor=world.dealer, round_id=deal.pk, action={"type": "turn"})
    entry = next((e for e in legal_actions_of(deal) if e["type"] == "call_turn"), None)
    assert entry is not None, "three of a kind left: no call possible with this deck"
    orders = [" \u00b7 ".join(order) for order in entry["choices"]["order"]]
    assert len(orders) == count

    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    form = page.locator("#bet-form")
    picks = form.locator("#call-turn label.pick")
    assert [pick.inner_text().splitlines()[0] for pick in picks.all()] == orders
    _on_screen(page, picks, viewport)
    _everything_at_hand(page, viewport)

    called = Taps()
    called.tap(form.locator(".bet-players label.pick", has_text="Wyatt"))
    called.tap(picks.filter(has_text=orders[-1]))
    called.tap(form.locator(".amount-picks label.pick").filter(has_text="$25").first)
    assert form.locator("[data-confirm]").inner_text() == f"Call {orders[-1]} for $25.00 (Wyatt Earp)"
    shot(page, f"faro-fit-{SIZE(**viewport)}-call-turn")
    called.tap(form.locator("[data-confirm]"))
    confirmed(page, f"Wyatt Earp called the turn {orders[-1]} for $25.00.")
    calls = [b for b in _bets(world) if b["kind"] == "call"]
    assert [(c["player"], " \u00b7 ".join(c["order"]), c["amount"]) for c in calls] == [
        (world.wyatt.pk, orders[-1], 2_500)
    ]
    print(f"\ntaps at {SIZE(**viewport)}: called turn {called.count} ({len(orders)} orders)")
    assert called.count <= CALLED_TURN_TAPS

    page.get_by_test_id("deal-turn").click()
    confirmed(page, "The deal is over")


def test_on_a_phone_the_faro_screen_scrolls_but_never_sideways(
    browser: Any, live_server: Any, world: Floor
) -> None:
    _deal(world)
    page = open_page(browser, live_server, PHONE)
    dealer_at_faro(page, world)
    _no_page_scroll(page, vertical=False)
    place_bet(page, "Kate Elder", ["7"], "25")
    confirmed(page, "Kate Elder bet $25.00 on 7.")
    assert [b["ranks"] for b in _bets(world)] == [["7"]]
    page.get_by_test_id("deal-turn").click()
    confirmed(page, "Turn 1:")
    _no_page_scroll(page, vertical=False)
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "faro-fit-390x844")
