"""``faro.decided_bets``: which bets a turn decided, the rule behind Faro's handle (README).

A bet is decided when a turn moves chips for it (won, lost or split); a turn that misses it, a
push and the hand-back after the hock decide nothing; every call is decided by the last turn.
"""

from __future__ import annotations

from typing import Any

from tables.games.base import TableContext
from tables.games.cards import FULL_DECK
from tables.games.faro import ENGINE, FaroState, decided_bets


def _deal(*actions: dict[str, Any]) -> FaroState:
    state, _ = ENGINE.start(
        TableContext(rules={}, seats={1: 1}, min_bet=100, max_bet=10_000, ante=0, deck=None)
    )
    state, _ = ENGINE.apply(state, {"type": "soda", "card": "3D"})
    for action in actions:
        state, _ = ENGINE.apply(state, action)
    return state


def _bet(amount: int = 300, **placement: Any) -> dict[str, Any]:
    return {"type": "bet", "player": 1, "amount": amount, **placement}


def _decided(before: FaroState, action: dict[str, Any]) -> frozenset[str]:
    after, _ = ENGINE.apply(before, action)
    return decided_bets(before, after)


def test_a_turn_decides_the_bets_it_wins_loses_or_splits_and_no_other() -> None:
    before = _deal(
        _bet(ranks=["9"]),  # b1: the banker's 9, lost
        _bet(ranks=["10"]),  # b2: the player's 10, won (and it rides)
        _bet(ranks=["5"]),  # b3: missed
        _bet(ranks=["9", "10"]),  # b4: covers both cards, a push
        _bet(target="high"),  # b5: even/odd/high are decided by the next turn
    )
    assert _decided(before, {"type": "turn", "cards": ["9S", "10H"]}) == {"b1", "b2", "b5"}
    split = _deal(_bet(ranks=["Q"]), _bet(ranks=["2"]))
    assert _decided(split, {"type": "turn", "cards": ["QS", "QH"]}) == {"b1"}


def test_betting_and_taking_down_decide_nothing() -> None:
    state = _deal(_bet(ranks=["5"]))
    assert _decided(state, _bet(ranks=["7"])) == frozenset()
    assert _decided(state, {"type": "remove_bet", "bet": "b1"}) == frozenset()


def test_the_last_turn_decides_every_call_and_hands_back_the_undecided() -> None:
    last = ["7C", "8D", "QS"]  # banker, player, hock
    dealt = {"3D", *last}
    rest = [card for card in FULL_DECK if card not in dealt]
    turns = [{"type": "turn", "cards": rest[i : i + 2]} for i in range(0, len(rest), 2)]
    before = _deal(
        *turns,
        _bet(ranks=["Q"]),  # b1: its one card left is the hock: handed back, never decided
        {"type": "call_turn", "player": 1, "order": ["8", "7", "Q"], "amount": 300},  # b2: wrong
        _bet(ranks=["8"]),  # b3: the player's 8 wins on the last turn
    )
    assert _decided(before, {"type": "last_turn", "cards": last}) == {"b2", "b3"}
