"""The Faro screen's tap targets, read from the engine's ``legal_actions``: the orders a call may
name (with their odds) and the spots between cards that make a placement in one tap."""

from __future__ import annotations

from typing import Any

from tables.console.dealer import faro as screen
from tables.games.base import TableContext
from tables.games.cards import FULL_DECK
from tables.games.faro import ENGINE


def _manual_deal(cards: list[str], rules: dict[str, Any] | None = None) -> Any:
    """A manual shoe keyed with ``cards`` (soda first, then two per turn)."""
    ctx = TableContext(rules=rules or {}, seats={1: 1}, min_bet=100, max_bet=10_000, ante=0, deck=None)
    state, _ = ENGINE.start(ctx)
    state, _ = ENGINE.apply(state, {"type": "soda", "card": cards[0]})
    for start in range(1, len(cards) - 1, 2):
        state, _ = ENGINE.apply(state, {"type": "turn", "cards": cards[start : start + 2]})
    return state


def _all_but(last: list[str]) -> list[str]:
    return [card for card in FULL_DECK if card not in last]


def test_a_call_offers_every_order_of_three_ranks_at_the_tables_odds() -> None:
    state = _manual_deal(_all_but(["9C", "JD", "4S"]), rules={"call_turn_pays": 3})
    orders = screen.call_orders(ENGINE.legal_actions(state), {"call_turn_pays": 3})
    assert [order["value"] for order in orders] == ["4,9,J", "4,J,9", "9,4,J", "9,J,4", "J,4,9", "J,9,4"]
    assert {order["pays"] for order in orders} == {3}
    assert orders[3]["label"] == "9 \u00b7 J \u00b7 4"


def test_a_pair_among_the_three_is_a_cat_hop_with_three_orders() -> None:
    state = _manual_deal(_all_but(["5S", "AC", "5H"]))
    orders = screen.call_orders(ENGINE.legal_actions(state), {})
    assert [(order["label"], order["pays"], order["cat_hop"]) for order in orders] == [
        ("A \u00b7 5 \u00b7 5", 2, True),
        ("5 \u00b7 A \u00b7 5", 2, True),
        ("5 \u00b7 5 \u00b7 A", 2, True),
    ]


def test_spots_sit_between_neighbours_and_where_four_meet_and_never_on_a_dead_rank() -> None:
    fresh = ENGINE.legal_actions(_manual_deal(["KS"]))
    made = {spot["label"]: spot for spot in screen.spots(fresh)}
    # 5 pairs in each row, 6 one above the other, the 7 with the 8 and the 6, and 5 squares.
    assert len(made) == 5 + 5 + 6 + 2 + 5
    assert made["Q\u2013K"]["y"] == made["J\u2013Q"]["y"] == 37.5  # low on the top row, under the ranks
    square = made["5\u20136\u20138\u20139"]  # 9 8 above 5 6: where the four corners meet
    assert (square["x"], square["y"]) == (made["8\u20139"]["x"], made["6\u20138"]["y"])
    assert made["6\u20138"]["y"] == 50.0
    assert "10\u20133" not in made  # a diagonal is made by tapping both cards
    gone = ["QS", "QH", "QD", "QC"]
    dead = ENGINE.legal_actions(_manual_deal(["KS", *gone]))
    assert not [spot for spot in screen.spots(dead) if "Q" in spot["ranks"]]
