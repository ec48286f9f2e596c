"""tables.games.faro_edge against the real Faro engine, exhaustively.

With seven cards left every order of them is equally likely, so the exact expectation of a
bet is the average over all 5040 orders. Each order is dealt by ``FaroEngine`` itself (the
shoe's tail swapped in), so the edge formulas are checked against the rules as implemented,
riding bets, splits and the hock included, not against a second reading of GAMES.md.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any

import pytest

from tables.games.base import TableContext
from tables.games.cards import FULL_DECK, rank_of
from tables.games.faro import ENGINE
from tables.games.faro_edge import (
    action_edge,
    call_edge,
    first_decision_edge,
    rank_bet_edge,
    target_bet_edge,
)

STAKE = 1024 * 100  # halves stay whole cents through every split


def _state_with(tail: tuple[str, ...]) -> Any:
    """A deal 22 turns in (7 cards left) whose last seven cards are ``tail``, in that order."""
    rest = [card for card in FULL_DECK if card not in tail]
    random.Random(5).shuffle(rest)
    deck = tuple(rest) + tail
    ctx = TableContext(rules={}, seats={}, min_bet=100, max_bet=10**9, ante=0, deck=deck)
    state, _ = ENGINE.start(ctx)
    for _ in range(22):
        state, _ = ENGINE.apply(state, {"type": "turn"})
    return state


def _house_gain_by_player(state: Any, bets: list[dict[str, Any]], tail: tuple[str, ...]) -> dict[int, int]:
    """Deal the rest of the shoe in the order ``tail``; the house's gain from each player."""
    prefix = state.deck[: len(FULL_DECK) - len(tail)]
    state = replace(state, deck=prefix + tail)
    gain: Counter[int] = Counter()
    moves: list[Any] = []
    for bet in bets:
        state, moved = ENGINE.apply(state, bet)
        moves += moved
    for kind in ("turn", "turn", "last_turn"):
        state, moved = ENGINE.apply(state, {"type": kind})
        moves += moved
    assert state.over
    for move in moves:
        if move.payer.startswith("wallet:"):
            gain[int(move.payer.split(":")[1])] += move.amount
        if move.payee.startswith("wallet:"):
            gain[int(move.payee.split(":")[1])] -= move.amount
    return dict(gain)


TAIL = ("KS", "KH", "KD", "5S", "5H", "QC", "2D")
BETS: dict[int, dict[str, Any]] = {
    1: {"type": "bet", "player": 1, "ranks": ["K"], "amount": STAKE},
    2: {"type": "bet", "player": 2, "ranks": ["K", "Q"], "amount": STAKE},
    3: {"type": "bet", "player": 3, "ranks": ["5"], "amount": STAKE, "coppered": True},
    4: {"type": "bet", "player": 4, "target": "high", "amount": STAKE},
    5: {"type": "bet", "player": 5, "target": "even", "amount": STAKE},
    6: {"type": "bet", "player": 6, "ranks": ["Q", "2"], "amount": STAKE},
}


@pytest.fixture(scope="module")
def exhaustive() -> dict[int, tuple[float, float]]:
    """(mean house gain, mean squared gain) per player over every order of the last seven cards."""
    state = _state_with(TAIL)
    first: dict[int, float] = defaultdict(float)
    second: dict[int, float] = defaultdict(float)
    orders = list(itertools.permutations(TAIL))
    for order in orders:
        gains = _house_gain_by_player(state, list(BETS.values()), order)
        for player in BETS:
            value = gains.get(player, 0) / STAKE
            first[player] += value
            second[player] += value * value
    return {p: (first[p] / len(orders), second[p] / len(orders)) for p in BETS}


def _public_before_bets() -> dict[str, Any]:
    return ENGINE.public_state(_state_with(TAIL))


@pytest.mark.parametrize("player", sorted(BETS))
def test_each_bet_edge_equals_the_engine_average(
    exhaustive: dict[int, tuple[float, float]], player: int
) -> None:
    public = _public_before_bets()
    assert public["cards_remaining"] == 7
    edge = action_edge(BETS[player], public, {})
    assert edge is not None
    mean, mean_square = exhaustive[player]
    assert edge.edge == pytest.approx(mean, abs=1e-12)
    assert edge.second_moment == pytest.approx(mean_square, abs=1e-12)


def test_counts_come_from_the_casekeeper() -> None:
    left = {rank: row["left"] for rank, row in _public_before_bets()["casekeeper"].items()}
    assert left == {**{rank: 0 for rank in left}, **Counter(rank_of(card) for card in TAIL)}


def test_first_decision_is_the_split_formula_and_riding_adds_to_it() -> None:
    # Fresh deal, four of the rank live: the classic ~2 % for one decision.
    assert first_decision_edge([4], 51) == pytest.approx(0.020208, abs=1e-6)
    # One card of the rank left: no split is possible, the bet is a fair coin.
    assert first_decision_edge([1], 51) == 0 == rank_bet_edge([1], 51).edge
    # With two left, a win leaves one: riding adds nothing.
    assert rank_bet_edge([2], 51).edge == pytest.approx(first_decision_edge([2], 51))
    for n in (3, 4):
        assert rank_bet_edge([n], 51).edge > first_decision_edge([n], 51) > 0
    # Three cards left, two of the rank: a split happens iff they are banker and player (1/3).
    assert first_decision_edge([2], 3) == pytest.approx((2 * 1 / (3 * 2)) / 2)
    assert rank_bet_edge([], 51).edge == 0


def test_soda_still_in_the_shoe_is_averaged_over() -> None:
    after = rank_bet_edge([4], 51).edge
    assert rank_bet_edge([4], 52).edge == pytest.approx(
        (4 / 52) * rank_bet_edge([3], 51).edge + (48 / 52) * after
    )
    full = {rank: 4 for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")}
    high = target_bet_edge("high", full, 52)
    assert high.edge == pytest.approx(3 / 51 / 2)  # the next two cards pair up: 3 in 51


def test_calling_the_turn() -> None:
    three = {"4": 1, "9": 1, "K": 1}
    assert call_edge(["4", "9", "K"], three).edge == pytest.approx(1 / 6)  # 4:1 on a 1-in-6 chance
    cat_hop = {"4": 2, "K": 1}
    assert call_edge(["4", "K", "4"], cat_hop).edge == pytest.approx(0)  # 2:1 on a 1-in-3 chance
    assert call_edge(["4", "K", "4"], cat_hop, cat_hop_pays=1).edge == pytest.approx(1 / 3)
    assert call_edge(["4", "9", "K"], three).second_moment == pytest.approx(5 / 6 + 16 / 6)
    with pytest.raises(ValueError, match="three cards"):
        call_edge(["4", "9", "K"], {"4": 2, "9": 1, "K": 1})


def test_even_is_a_house_bet_and_odd_a_players_bet_on_a_fresh_deal() -> None:
    full = {rank: 4 for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")}
    full["5"] = 3  # the soda was a 5
    even, odd = target_bet_edge("even", full, 51), target_bet_edge("odd", full, 51)
    assert even.edge > 0.05
    assert odd.edge < 0
    split = sum(n * (n - 1) for n in full.values()) / (51 * 50)
    assert (even.edge + odd.edge) / 2 == pytest.approx(split / 2)  # parity cancels out, splits stay


def test_non_bets_have_no_edge() -> None:
    assert action_edge({"type": "turn"}, _public_before_bets(), {}) is None
