"""The Faro layout: which sets of ranks one stack of chips may cover (GAMES.md "Layout").

The enamelled layout has two rows of six cards and the 7 at the end::

    K  Q  J  10  9  8
                       7
    A  2  3  4   5  6

A bet sits on one card, or between cards where chips can physically touch them all. The
placements are built from that geometry rather than listed, so the count (75) is a check
on the reading of GAMES.md, not an assumption.
"""

from __future__ import annotations

from itertools import combinations

from tables.games.cards import RANKS

TOP_ROW: tuple[str, ...] = ("K", "Q", "J", "10", "9", "8")
BOTTOM_ROW: tuple[str, ...] = ("A", "2", "3", "4", "5", "6")
SEVEN = "7"

Placement = frozenset[str]


def _row_placements(row: tuple[str, ...]) -> list[Placement]:
    """Side by side in a row, or with one card between (Q-10, A-3)."""
    beside = [frozenset(row[c : c + 2]) for c in range(len(row) - 1)]
    skip_one = [frozenset((row[c], row[c + 2])) for c in range(len(row) - 2)]
    return beside + skip_one


def _square_placements(column: int) -> list[Placement]:
    """The 2x2 square at ``column``: its two diagonals, four triples and the whole square."""
    top_left, top_right = TOP_ROW[column], TOP_ROW[column + 1]
    bottom_left, bottom_right = BOTTOM_ROW[column], BOTTOM_ROW[column + 1]
    square = (top_left, top_right, bottom_left, bottom_right)
    diagonals = [frozenset((top_left, bottom_right)), frozenset((top_right, bottom_left))]
    triples = [frozenset(three) for three in combinations(square, 3)]
    return [*diagonals, *triples, frozenset(square)]


def _build_placements() -> frozenset[Placement]:
    singles = [frozenset((rank,)) for rank in RANKS]
    rows = _row_placements(TOP_ROW) + _row_placements(BOTTOM_ROW)
    columns = [frozenset(pair) for pair in zip(TOP_ROW, BOTTOM_ROW, strict=True)]
    squares = [p for column in range(len(TOP_ROW) - 1) for p in _square_placements(column)]
    seven = [frozenset((SEVEN, "8")), frozenset((SEVEN, "6")), frozenset(("6", SEVEN, "8"))]
    return frozenset(singles + rows + columns + squares + seven)


PLACEMENTS: frozenset[Placement] = _build_placements()


def is_placement(ranks: frozenset[str]) -> bool:
    """True when one stack of chips can cover exactly these ranks on the layout."""
    return ranks in PLACEMENTS
