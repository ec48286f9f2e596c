"""Faro's odds: exact values derived and enumerated, then measured through the engine.

Decks come from ``shoe.shuffle`` with seeds derived from a counter, so every run sees the
same deals. Tolerances are four standard errors of the simulated estimate.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations
from math import comb

import pytest

from tables.games.base import TableContext
from tables.games.cards import FULL_DECK, RANKS, rank_of
from tables.games.errors import IllegalAction
from tables.games.faro import ENGINE, FaroState
from tables.games.shoe import shuffle

DEALS = 2000
EDGE_DECKS = 5000
Z = 4.0


def seeded_deck(salt: str, n: int) -> tuple[str, ...]:
    seed = hashlib.sha256(f"faro-{salt}-{n}".encode()).hexdigest()
    return shuffle(FULL_DECK, seed)


def start(deck: tuple[str, ...]) -> FaroState:
    ctx = TableContext(rules={}, seats={1: 1}, min_bet=100, max_bet=10_000, ante=0, deck=deck)
    return ENGINE.start(ctx)[0]


def mean_and_se(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def pattern(ranks: list[str]) -> str:
    return {3: "different", 2: "cat_hop", 1: "trips"}[len(set(ranks))]


@dataclass(frozen=True)
class Deal:
    splits: int  # over all 25 banker/player pairs
    last_three: str  # rank pattern of the last three cards, read off the casekeeper
    can_call: bool


@cache
def simulated_deals() -> tuple[Deal, ...]:
    """Whole deals through the engine with no bets: what the casekeeper shows."""
    deals = []
    for n in range(DEALS):
        state = start(seeded_deck("deal", n))
        for _ in range(24):
            state, _ = ENGINE.apply(state, {"type": "turn"})
        view = ENGINE.public_state(state)
        left = [rank for rank, column in view["casekeeper"].items() for _ in range(column["left"])]
        can_call = view["can_call_turn"]
        state, _ = ENGINE.apply(state, {"type": "last_turn"})
        splits = sum(t["split"] for t in ENGINE.public_state(state)["turns"])
        deals.append(Deal(splits, pattern(left), can_call))
    return tuple(deals)


# --------------------------------------------------------------------------- splits


def test_split_exact_probability_per_turn_is_one_in_seventeen() -> None:
    """A turn's two cards are two distinct positions of a uniform shuffle, so they are a
    uniform ordered pair of distinct cards: P(same rank) = 3/51 = 1/17 on every turn."""
    pairs = list(permutations(FULL_DECK, 2))
    same = sum(rank_of(a) == rank_of(b) for a, b in pairs)
    assert Fraction(same, len(pairs)) == Fraction(3, 51) == Fraction(1, 17)


def test_split_probability_per_turn_measured_through_the_engine_is_one_in_seventeen() -> None:
    """Splits over all 25 banker/player pairs of a deal (24 turns + the last turn, the hock
    excluded), per turn; the standard error is taken from per-deal counts, because splits
    within one deal are not independent."""
    per_turn = [deal.splits / 25 for deal in simulated_deals()]
    measured, se = mean_and_se(per_turn)
    assert abs(measured - 1 / 17) < Z * se
    assert se < 0.002  # the sample is big enough to mean something


# --------------------------------------------------------------------------- the bank's edge


def test_edge_exact_split_before_a_four_live_rank_is_decided_is_101_over_2499() -> None:
    """After the soda 51 cards remain: 25 banker/player pairs then the hock. A flat bet on a
    rank with four live cards is decided by the first pair holding one of them (the hock
    cannot hold all four). It is a split when that pair holds two. Counting position sets:
    pair k first with two of the four means the other two lie among the 51 - 2k later
    positions, so P(split) = sum_k C(51-2k, 2) / C(51, 4) = 10100 / 249900 = 101/2499.
    Wins and losses are symmetric, a split costs half: edge = P(split)/2 = 101/4998 ≈ 2.02%."""
    split_first = 0
    for positions in combinations(range(51), 4):
        first = positions[0] // 2
        split_first += positions[1] // 2 == first
    closed_form = sum(comb(51 - 2 * k, 2) for k in range(1, 26))
    assert closed_form == split_first == 10100
    assert Fraction(split_first, comb(51, 4)) == Fraction(101, 2499)
    assert float(Fraction(101, 4998)) == pytest.approx(0.0202, abs=0.0001)


def first_decision(deck: tuple[str, ...], rank: str, stake: int) -> int:
    """Player's net on a flat bet on ``rank`` at its first decision, read from settlements."""
    state, _ = ENGINE.apply(start(deck), {"type": "bet", "player": 1, "ranks": [rank], "amount": stake})
    while True:
        state, moves = ENGINE.apply(state, {"type": "turn"})
        if moves:
            won = sum(m.amount for m in moves if m.kind == "win")
            lost = sum(m.amount for m in moves if m.kind in ("loss", "split"))
            return won - lost


def mirrored(deck: tuple[str, ...]) -> tuple[str, ...]:
    """Swap banker and player card of every pair. A bijection of deck orders, so the mirror
    of a uniform deck is uniform: using both halves the variance (antithetic sampling)."""
    cards = list(deck)
    for banker in range(1, 51, 2):
        cards[banker], cards[banker + 1] = cards[banker + 1], cards[banker]
    return tuple(cards)


def test_edge_of_the_bank_on_a_flat_single_rank_bet_with_four_live_is_about_two_percent() -> None:
    """Measured through the engine against the exact 101/4998 (previous test): each seeded
    deck and its mirror are played with a 200-cent bet on a rank the soda did not touch."""
    stake = 200
    outcomes: Counter[int] = Counter()
    per_pair: list[float] = []
    for n in range(EDGE_DECKS):
        deck = seeded_deck("edge", n)
        rank = RANKS[(RANKS.index(rank_of(deck[0])) + 1) % len(RANKS)]
        net = first_decision(deck, rank, stake)
        outcomes[net] += 1
        per_pair.append(-(net + first_decision(mirrored(deck), rank, stake)) / (2 * stake))
    edge, se = mean_and_se(per_pair)
    assert abs(edge - 101 / 4998) < Z * se
    assert se < 0.002
    assert set(outcomes) == {stake, -stake, -stake // 2}
    p_split = outcomes[-stake // 2] / EDGE_DECKS
    p_win = outcomes[stake] / EDGE_DECKS
    expected_win = (1 - 101 / 2499) / 2
    assert abs(p_win - expected_win) < Z * math.sqrt(expected_win * (1 - expected_win) / EDGE_DECKS)
    assert abs(p_split - 101 / 2499) < Z * math.sqrt(p_split * (1 - p_split) / EDGE_DECKS)


# --------------------------------------------------------------------------- calling the turn


def test_call_turn_exact_last_three_patterns_352_72_1_over_425() -> None:
    """The last three cards are a uniform 3-card subset of the deck: enumerate all C(52, 3)."""
    counts = Counter(pattern([rank_of(c) for c in three]) for three in combinations(FULL_DECK, 3))
    total = comb(52, 3)
    assert sum(counts.values()) == total
    assert Fraction(counts["different"], total) == Fraction(352, 425)
    assert Fraction(counts["cat_hop"], total) == Fraction(72, 425)
    assert Fraction(counts["trips"], total) == Fraction(1, 425)


@pytest.mark.parametrize(
    ("kind", "exact"),
    [("different", Fraction(352, 425)), ("cat_hop", Fraction(72, 425)), ("trips", Fraction(1, 425))],
)
def test_call_turn_patterns_measured_through_the_engine(kind: str, exact: Fraction) -> None:
    deals = simulated_deals()
    measured = sum(d.last_three == kind for d in deals) / len(deals)
    se = math.sqrt(float(exact) * (1 - float(exact)) / len(deals))
    assert abs(measured - float(exact)) < Z * se + 1 / len(deals)


def test_call_turn_is_offered_exactly_when_the_last_three_are_not_trips() -> None:
    deals = simulated_deals()
    assert all(d.can_call == (d.last_three != "trips") for d in deals)
    assert any(d.last_three == "trips" for d in deals)  # the seeds do reach the rare case


def test_call_turn_refused_on_trips_in_a_real_shuffle() -> None:
    for n in range(DEALS):
        deck = seeded_deck("deal", n)
        if len({rank_of(c) for c in deck[-3:]}) == 1:
            break
    else:
        pytest.fail("no trips among the seeded deals")
    state = start(deck)
    for _ in range(24):
        state, _ = ENGINE.apply(state, {"type": "turn"})
    rank = rank_of(deck[-1])
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "call_turn", "player": 1, "order": [rank] * 3, "amount": 100})
