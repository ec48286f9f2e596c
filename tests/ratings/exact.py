"""Exact Faro expectations by brute force, from GAMES.md "Faro" alone (no ``faro_edge``).

A shoe of ``n`` undealt cards is dealt as GAMES.md says: with an even count the soda is
still in it (the first card burns and settles nothing), then turns of two cards (the
banker's, which loses, then the player's, which wins); the last turn is dealt with three
cards left and its third card, the hock, settles nothing. Every order of the cards is
equally likely, so an expectation is an average over orders: either every permutation of
``n`` distinct cards, or (the same average, fewer terms) every placement of the covered
cards among the ``n`` positions. Gains are the house's, per unit staked, as exact fractions.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from math import comb

EVEN = frozenset({"2", "4", "6", "8", "10", "Q"})
RANK_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def turn_slots(n: int) -> tuple[int, int]:
    """(first turn position, number of turns) for a shoe of ``n`` cards."""
    offset = 1 if n % 2 == 0 else 0  # an even shoe still holds the soda
    turns = (n - offset - 1) // 2 if n >= 3 else 0
    return offset, turns


def rank_bet_gain(labels: Sequence[int | None], n: int) -> tuple[Fraction, Fraction]:
    """House gain (and its square) of a unit bet on the covered ranks over its whole life.

    ``labels[i]`` is the covered rank (any int) of the card at position ``i``, or None. A split
    takes half and the other half rides; a push rides; a win is paid 1:1 and the stake rides;
    a loss ends the bet; whatever is left after the hock goes back to the player.
    """
    offset, turns = turn_slots(n)
    stake, gain = Fraction(1), Fraction(0)
    for t in range(turns):
        banker, player = labels[offset + 2 * t], labels[offset + 2 * t + 1]
        if banker is not None and banker == player:
            gain += stake / 2
            stake /= 2
        elif banker is not None and player is not None:
            continue  # two different covered ranks: a push
        elif banker is not None:
            gain += stake
            return gain, gain * gain
        elif player is not None:
            gain -= stake
    return gain, gain * gain


def first_decision_split(labels: Sequence[int | None], n: int) -> Fraction:
    """1 if the first turn that decides the bet (pushes and blank turns wait) is a split."""
    offset, turns = turn_slots(n)
    for t in range(turns):
        banker, player = labels[offset + 2 * t], labels[offset + 2 * t + 1]
        if banker is None and player is None:
            continue
        if banker is not None and player is not None and banker != player:
            continue
        return Fraction(1) if banker == player else Fraction(0)
    return Fraction(0)


def every_permutation(counts: Sequence[int], n: int) -> Iterable[list[int | None]]:
    """Every order of ``n`` distinct cards, ``counts[k]`` of them of covered rank ``k``."""
    cards: list[int | None] = [k for k, c in enumerate(counts) for _ in range(c)]
    cards += [None] * (n - len(cards))
    ids = range(n)
    for order in itertools.permutations(ids):
        yield [cards[i] for i in order]


def every_placement(counts: Sequence[int], n: int) -> Iterable[list[int | None]]:
    """Every distinct placement of the covered cards (each as likely as the next)."""

    def place(k: int, free: tuple[int, ...], labels: list[int | None]) -> Iterable[list[int | None]]:
        if k == len(counts):
            yield labels
            return
        for chosen in itertools.combinations(free, counts[k]):
            taken = set(chosen)
            placed = list(labels)
            for position in chosen:
                placed[position] = k
            yield from place(k + 1, tuple(p for p in free if p not in taken), placed)

    yield from place(0, tuple(range(n)), [None] * n)


def placements(counts: Sequence[int], n: int) -> int:
    total, left = 1, n
    for c in counts:
        total *= comb(left, c)
        left -= c
    return total


def average(values: Iterable[tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction]:
    m1 = m2 = Fraction(0)
    count = 0
    for first, second in values:
        m1 += first
        m2 += second
        count += 1
    return m1 / count, m2 / count


def single_rank_lifetime(c: int, n: int) -> Fraction:
    """A one-rank bet with ``c`` of its rank among ``n`` cards, over all C(n, c) placements.

    Integer arithmetic scaled by 4 (at most two splits with four cards) keeps the 270 725
    placements of a fresh deck fast enough for a test.
    """
    offset, turns = turn_slots(n)
    end = offset + 2 * turns
    total = 0
    for chosen in itertools.combinations(range(n), c):
        stake, gain = 4, 0
        by_turn: dict[int, list[int]] = {}
        for position in chosen:
            if offset <= position < end:
                by_turn.setdefault((position - offset) // 2, []).append((position - offset) % 2)
        for t in sorted(by_turn):
            roles = by_turn[t]
            if len(roles) == 2:  # both cards of the turn: a split
                gain += stake // 2
                stake //= 2
            elif roles[0] == 0:  # the banker's card: the bet loses and leaves
                gain += stake
                break
            else:  # the player's card: paid, and the stake rides
                gain -= stake
        total += gain
    return Fraction(total, 4 * comb(n, c))


def target_turn_gain(target: str, banker: str, player: str) -> Fraction:
    if banker == player:
        return Fraction(1, 2)  # a split: half lost, half returned
    if target == "even":
        won = player in EVEN
    elif target == "odd":
        won = player not in EVEN
    else:
        won = RANK_ORDER.index(player) > RANK_ORDER.index(banker)
    return Fraction(-1) if won else Fraction(1)


def target_bet_exact(target: str, left: dict[str, int]) -> Fraction:
    """even/odd/high, decided by the next turn: every (banker, player) pair of live cards."""
    cards = [rank for rank, count in left.items() for _ in range(count)]
    n = len(cards)
    total = Fraction(0)
    pairs = 0
    if n % 2 == 0:  # the soda first: average over it
        for soda in range(n):
            rest = cards[:soda] + cards[soda + 1 :]
            for b, p in itertools.permutations(range(len(rest)), 2):
                total += target_turn_gain(target, rest[b], rest[p])
                pairs += 1
    else:
        for b, p in itertools.permutations(range(n), 2):
            total += target_turn_gain(target, cards[b], cards[p])
            pairs += 1
    return total / pairs


def call_exact(order: Sequence[str], last_three: Sequence[str], pays: int) -> Fraction:
    """Every order of the last three (distinct) cards: the call is right in some of them."""
    right = sum(1 for perm in itertools.permutations(last_three) if [c[:-1] for c in perm] == list(order))
    p = Fraction(right, 6)
    return 1 - p * (pays + 1)
