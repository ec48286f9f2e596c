"""``tables.games.faro_edge`` against exact combinatorics (tests/ratings/exact.py).

Small shoes are enumerated order by order: every permutation of the cards for up to seven
cards, every placement of the covered cards for up to nine. Each expectation is an exact
fraction; the edge table must agree with it to float precision. The soda (an even shoe)
and the hock are part of the enumeration, as are splits, pushes and a bet riding after a win.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from tables.games.faro_edge import call_edge, first_decision_edge, rank_bet_edge, target_bet_edge
from tests.ratings.exact import (
    average,
    call_exact,
    every_permutation,
    every_placement,
    first_decision_split,
    placements,
    rank_bet_gain,
    single_rank_lifetime,
    target_bet_exact,
)

TOLERANCE = 1e-12


def close(value: float, exact: Fraction) -> bool:
    return abs(value - float(exact)) < TOLERANCE


@pytest.mark.parametrize("n", [5, 6, 7])
@pytest.mark.parametrize("c", [1, 2, 3, 4])
def test_one_rank_every_permutation(n: int, c: int) -> None:
    """All n! orders of n distinct cards (c of the rank): mean and second moment of the gain."""
    if c > n:
        pytest.skip("more cards of the rank than the shoe holds")
    m1, m2 = average(rank_bet_gain(order, n) for order in every_permutation([c], n))
    edge = rank_bet_edge([c], n)
    assert close(edge.edge, m1), (edge.edge, m1)
    assert close(edge.second_moment, m2), (edge.second_moment, m2)
    splits, _ = average((first_decision_split(order, n), Fraction(0)) for order in every_permutation([c], n))
    assert close(first_decision_edge([c], n), splits / 2)


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9])
@pytest.mark.parametrize("c", [1, 2, 3, 4])
def test_one_rank_every_placement(n: int, c: int) -> None:
    orders = list(every_placement([c], n))
    assert len(orders) == placements([c], n)
    m1, m2 = average(rank_bet_gain(order, n) for order in orders)
    edge = rank_bet_edge([c], n)
    assert close(edge.edge, m1), (n, c, edge.edge, m1)
    assert close(edge.second_moment, m2)
    assert close(edge.edge, single_rank_lifetime(c, n))
    splits, _ = average((first_decision_split(order, n), Fraction(0)) for order in orders)
    assert close(first_decision_edge([c], n), splits / 2)


def test_single_rank_by_hand() -> None:
    """Worked by hand: one card of the rank cannot split, so a lone card is a fair bet."""
    for n in range(3, 12):
        assert rank_bet_edge([1], n).edge == 0.0
    # Two of the rank among three cards (the last turn): split with probability 1/3
    # (both in the turn), lose 1/3, win 1/3 (the other is the hock in those two) → 1/6.
    assert close(rank_bet_edge([2], 3).edge, Fraction(1, 6))
    assert close(first_decision_edge([2], 3), Fraction(1, 6))
    assert rank_bet_edge([2], 2).edge == 0.0  # fewer than three cards: no turn left
    assert rank_bet_edge([], 9).edge == 0.0


@pytest.mark.parametrize(
    "counts",
    [(1, 1), (2, 1), (2, 2), (3, 1), (1, 1, 1), (2, 1, 1), (2, 2, 1), (1, 1, 1, 1), (3, 2), (4, 1)],
)
@pytest.mark.parametrize("n", [5, 6, 7, 8, 9])
def test_placements_of_two_to_four_ranks(counts: tuple[int, ...], n: int) -> None:
    """A placement bet: a split on any covered rank, a push when two covered ranks meet."""
    if sum(counts) > n:
        pytest.skip("more covered cards than the shoe holds")
    orders = list(every_placement(counts, n))
    m1, m2 = average(rank_bet_gain(order, n) for order in orders)
    edge = rank_bet_edge(list(counts), n)
    assert close(edge.edge, m1), (counts, n, edge.edge, m1)
    assert close(edge.second_moment, m2)
    splits, _ = average((first_decision_split(order, n), Fraction(0)) for order in orders)
    assert close(first_decision_edge(list(counts), n), splits / 2)
    # Covered ranks are interchangeable: only the multiset of counts matters.
    for shuffled in itertools.permutations(counts):
        assert rank_bet_edge(list(shuffled), n) == edge


def test_placements_match_permutations_for_seven_cards() -> None:
    """The cheaper enumeration is the same average as every permutation."""
    for counts in [(2, 1), (2, 2), (1, 1, 1)]:
        by_placement = average(rank_bet_gain(order, 7) for order in every_placement(counts, 7))
        by_permutation = average(rank_bet_gain(order, 7) for order in every_permutation(counts, 7))
        assert by_placement == by_permutation


@pytest.mark.parametrize(
    "left",
    [
        {"2": 2, "3": 2, "K": 1},  # 5 cards
        {"A": 1, "4": 2, "7": 1, "Q": 2},  # 6 cards: the soda first
        {"2": 1, "5": 2, "8": 2, "J": 1, "K": 1},  # 7
        {"A": 2, "6": 2, "9": 2, "10": 1, "Q": 1, "K": 1},  # 9
    ],
)
@pytest.mark.parametrize("target", ["even", "odd", "high"])
def test_targets_on_the_next_turn(left: dict[str, int], target: str) -> None:
    n = sum(left.values())
    assert close(target_bet_edge(target, left, n).edge, target_bet_exact(target, left))


def test_a_fresh_deck_even_and_odd() -> None:
    """52 cards, 24 even and 28 odd: the count makes even a house bet and odd a player's bet."""
    left = {rank: 4 for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")}
    # P(split) = 13·4·3/(51·50)... after the soda: average over it. Worked exactly below.
    for target in ("even", "odd", "high"):
        exact = target_bet_exact(target, left)
        assert close(target_bet_edge(target, left, 52).edge, exact)
    assert target_bet_edge("even", left, 52).edge > 0 > target_bet_edge("odd", left, 52).edge


@pytest.mark.parametrize("pays", [4, 5])
def test_calling_three_different_ranks(pays: int) -> None:
    last = ["7C", "8D", "JS"]
    left = {"7": 1, "8": 1, "J": 1}
    for order in itertools.permutations(["7", "8", "J"]):
        exact = call_exact(order, last, pays)
        assert exact == 1 - Fraction(pays + 1, 6)
        assert close(call_edge(list(order), left, call_turn_pays=pays).edge, exact)
    assert close(call_edge(["7", "8", "J"], left).edge, Fraction(1, 6))  # 4 to 1 by default


def test_a_cat_hop_is_a_fair_bet_at_two_to_one() -> None:
    last = ["9H", "7C", "9D"]
    left = {"9": 2, "7": 1}
    for order in (["9", "7", "9"], ["7", "9", "9"], ["9", "9", "7"]):
        exact = call_exact(order, last, 2)
        assert exact == 0
        assert call_edge(order, left).edge == 0.0
    assert close(call_edge(["9", "7", "9"], left, cat_hop_pays=1).edge, call_exact(["9", "7", "9"], last, 1))
    # An order that cannot come loses for sure; three of a kind takes no call.
    assert call_edge(["7", "7", "9"], left).edge == 1.0
    with pytest.raises(ValueError):
        call_edge(["9", "9", "9"], {"9": 3})
