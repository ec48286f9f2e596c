"""The Faro screen's drawing data: the real layout, the chips on it, the casekeeper and the card picker.

Everything here is read from the round's public state (``tables/games/faro.py``), so the
screen shows exactly what the engine holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tables.console.dealer.cards import card_label, card_name, picker_rows
from tables.console.words import TARGET_LABELS, placement_words, player_words
from tables.games.cards import RANKS
from tables.games.faro import DEFAULT_RULES
from tables.games.faro_layout import BOTTOM_ROW, SEVEN, TOP_ROW

COLUMNS = len(TOP_ROW) + 1  # six cards and the 7 at the end
CHIP_VALUES = (100, 500, 2500, 10000, 50000, 100000, 500000)
BEAD_MARKS = {"soda": "S", "losers": "L", "winners": "W", "hock": "H"}
BEAD_NAMES = {"soda": "soda", "losers": "lost", "winners": "won", "hock": "hock"}


def _position(rank: str) -> tuple[float, float]:
    """(column, row) of a rank's centre on the layout; the 7 sits between the rows."""
    if rank in TOP_ROW:
        return TOP_ROW.index(rank) + 0.5, 0.5
    if rank in BOTTOM_ROW:
        return BOTTOM_ROW.index(rank) + 0.5, 1.5
    return len(TOP_ROW) + 0.5, 1.0


# The band between the two rows where chips sit (in rows from the layout's top): the top row's
# ranks and counts are along its top edge, the bottom row's along its bottom edge (console.css).
BAND_TOP, BAND_BOTTOM = 0.75, 1.25


def anchor(ranks: Sequence[str]) -> tuple[float, float]:
    """Where a stack covering ``ranks`` sits, in percent of the layout: the ranks' centroid, moved
    into the band between the rows, so no chip covers a rank or its cards-left count.

    A stack on cards of one row sits low on the top row or high on the bottom row; a stack across
    the rows (and one on the 7, which stands beside both) is already between them.
    """
    points = [_position(rank) for rank in ranks]
    column = sum(p[0] for p in points) / len(points)
    row = min(max(sum(p[1] for p in points) / len(points), BAND_TOP), BAND_BOTTOM)
    return round(column / COLUMNS * 100, 2), round(row / 2 * 100, 2)


@dataclass(frozen=True, slots=True)
class Colour:
    background: str
    text: str


# Chip colours per seat: strong, distinct on green felt, each with a readable label colour.
PALETTE: tuple[Colour, ...] = (
    Colour("#c62828", "#ffffff"),
    Colour("#1565c0", "#ffffff"),
    Colour("#f9a825", "#111111"),
    Colour("#6a1b9a", "#ffffff"),
    Colour("#111111", "#ffffff"),
    Colour("#ad1457", "#ffffff"),
    Colour("#e65100", "#ffffff"),
    Colour("#eceff1", "#111111"),
    Colour("#4e342e", "#ffffff"),
    Colour("#00838f", "#ffffff"),
    Colour("#558b2f", "#ffffff"),
    Colour("#37474f", "#ffffff"),
)


def colour_for_seat(seat: int) -> Colour:
    return PALETTE[(seat - 1) % len(PALETTE)]


def layout_cells(public: Mapping[str, Any], selected: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The thirteen cards as the layout shows them: grid place, cards left, dead or not."""
    keeper = public.get("casekeeper", {})
    dead = set(public.get("dead_ranks", []))
    cells: list[dict[str, Any]] = []
    for row_number, row in ((1, TOP_ROW), (2, BOTTOM_ROW)):
        for column, rank in enumerate(row, start=1):
            cells.append({"rank": rank, "grid_column": column, "grid_row": row_number})
    cells.append({"rank": SEVEN, "grid_column": COLUMNS, "grid_row": 0})
    for cell in cells:
        rank = cell["rank"]
        cell["left"] = keeper.get(rank, {}).get("left", 4)
        cell["dead"] = rank in dead
        cell["selected"] = rank in selected
    return cells


def layout_chips(
    public: Mapping[str, Any], seats: Mapping[int, int], names: Mapping[int, str]
) -> list[dict[str, Any]]:
    """Every rank bet as a chip at its place on the layout, stacked when several share a place."""
    stacks: dict[tuple[str, ...], int] = {}
    chips = []
    for bet in public.get("bets", []):
        if bet.get("kind") != "rank":
            continue
        ranks = tuple(bet["ranks"])
        stacks[ranks] = stacks.get(ranks, 0) + 1
        chips.append(_chip(bet, stacks[ranks] - 1, seats, names))
    return chips


def newest_chip(
    public: Mapping[str, Any], seats: Mapping[int, int], names: Mapping[int, str]
) -> dict[str, Any]:
    """The newest bet's chip (a rank bet), on top of the bets already on its place."""
    *before, bet = public["bets"]
    under = sum(1 for b in before if b.get("kind") == "rank" and b["ranks"] == bet["ranks"])
    return _chip(bet, under, seats, names)


def _chip(
    bet: Mapping[str, Any], stack: int, seats: Mapping[int, int], names: Mapping[int, str]
) -> dict[str, Any]:
    x, y = anchor(bet["ranks"])
    return {**bet_row(bet, seats, names), "x": x, "y": y, "stack": stack}


def target_boxes(
    public: Mapping[str, Any], seats: Mapping[int, int], names: Mapping[int, str], selected: str | None = None
) -> list[dict[str, Any]]:
    """Even, odd and high: decided on the next turn, drawn beside the layout with their bets."""
    boxes = []
    for target, label in TARGET_LABELS.items():
        bets = [
            {
                **bet,
                "colour": colour_for_seat(seats.get(bet["player"], 1)),
                "name": names.get(bet["player"], ""),
            }
            for bet in public.get("bets", [])
            if bet.get("kind") == "target" and bet.get("target") == target
        ]
        boxes.append({"target": target, "label": label, "bets": bets, "selected": target == selected})
    return boxes


def bet_row(bet: Mapping[str, Any], seats: Mapping[int, int], names: Mapping[int, str]) -> dict[str, Any]:
    """A bet as the screen draws it: its place in words, its player's name and seat colour."""
    return {
        **bet,
        "placement": placement_words(bet),
        "name": player_words(names, bet["player"]),
        "colour": colour_for_seat(seats.get(bet["player"], 1)),
    }


def casekeeper_rows(public: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The wire-and-bead frame: a wire per rank, four beads; a bead slides across as its card goes."""
    keeper = public.get("casekeeper", {})
    rows = []
    for rank in RANKS:
        entry = keeper.get(rank, {"left": 4})
        gone = [
            {
                "card": card,
                "label": card_label(card),
                "name": card_name(card),
                "mark": mark,
                "how": BEAD_NAMES[column],
                "kind": column,
            }
            for column, mark in BEAD_MARKS.items()  # soda, losers, winners, hock
            for card in entry.get(column, [])
        ]
        left = entry.get("left", 4)
        rows.append({"rank": rank, "left": left, "gone": gone, "remaining": range(left)})
    return rows


DEALING = ("soda", "turn", "last_turn")


def entry_of(legal: Sequence[Mapping[str, Any]], *types: str) -> Mapping[str, Any] | None:
    """The first entry of ``legal_actions`` of one of ``types`` (the dealing step due, a bet …)."""
    return next((entry for entry in legal if entry.get("type") in types), None)


def card_picker(legal: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """52 cards by suit; only the cards the engine lets the manual shoe's next step key are live."""
    dealing = entry_of(legal, *DEALING) or {}
    choices = dealing.get("choices", {})
    return picker_rows([*choices.get("card", []), *choices.get("cards", [])])


def cards_to_key(legal: Sequence[Mapping[str, Any]], kind: str) -> int | None:
    """How many cards the manual shoe's ``kind`` step keys (the engine's ``count``), None if not due."""
    dealing = entry_of(legal, kind)
    if dealing is None or not dealing.get("needs"):
        return None
    return int(dealing.get("count", {}).get("cards", 1))


def chip_amounts(min_bet: int, max_bet: int, chip: int) -> list[int]:
    """Up to six chip buttons within the limits: the minimum, common chips, the maximum."""
    values = {min_bet, max_bet}
    values.update(v for v in CHIP_VALUES if min_bet < v < max_bet and v % chip == 0)
    ordered = sorted(values)
    if len(ordered) > 6:
        ordered = [*ordered[:5], ordered[-1]]
    return ordered


def call_orders(legal: Sequence[Mapping[str, Any]], rules: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The orders a call of the turn may name (the engine's ``call_turn`` choices), each with its odds.

    Three different ranks pay ``call_turn_pays`` to 1; a pair and one other (cat-hop) pay
    ``cat_hop_pays`` to 1 (GAMES.md). ``value`` is what the call form posts.
    """
    call = entry_of(legal, "call_turn") or {}
    merged = {**DEFAULT_RULES, **rules}
    orders = []
    for order in call.get("choices", {}).get("order", []):
        cat_hop = len(set(order)) == 2
        orders.append(
            {
                "value": ",".join(order),
                "ranks": list(order),
                "label": " \u00b7 ".join(order),
                "pays": merged["cat_hop_pays" if cat_hop else "call_turn_pays"],
                "cat_hop": cat_hop,
            }
        )
    return orders


def _neighbours(ranks: Sequence[str]) -> bool:
    """Two cards side by side or one above the other, or the 7 with the 8 or the 6 beside it."""
    if SEVEN in ranks:
        return True
    (c1, r1), (c2, r2) = (_position(rank) for rank in ranks)
    return abs(c1 - c2) + abs(r1 - r2) == 1


def spots(legal: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Where a chip goes between cards: one tap for a stack on two neighbours or on a 2×2 square.

    Only live placements (the engine's ``bet`` choices) get a spot; the others are made by
    tapping each card.
    """
    made = []
    for ranks in placements(legal):
        if (len(ranks) == 2 and _neighbours(ranks)) or len(ranks) == 4:
            x, y = anchor(ranks)
            made.append({"ranks": ranks, "x": x, "y": y, "label": "\u2013".join(ranks)})
    return made


def placements(legal: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Every card or stack of cards the engine takes a bet on now, for the tap-to-bet hint."""
    bet = entry_of(legal, "bet") or {}
    return sorted(sorted(ranks, key=RANKS.index) for ranks in bet.get("choices", {}).get("ranks", []))
