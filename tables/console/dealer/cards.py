"""How cards look on the console: 10H → 10♥, red suits in red, names for screen readers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tables.games.cards import FULL_DECK, RANKS, SUITS, card_label, cards_label

__all__ = [
    "card_label",
    "card_name",
    "cards_label",
    "deck_by_suit",
    "picker_rows",
    "shown_card",
    "shown_suit",
    "suit_class",
]

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def card_name(code: str) -> str:
    if code == "JK":
        return "joker"
    rank, suit = code[:-1], code[-1:]
    return f"{RANK_NAMES.get(rank, rank)} of {SUIT_NAMES.get(suit, suit)}"


def suit_class(code: str) -> str:
    return "red" if code[-1:] in {"H", "D"} else "black"


def shown_card(code: object) -> str:
    """A card as a screen shows it (10H → 10♥); a dash where there is none yet."""
    return card_label(str(code)) if code else "—"


def shown_suit(code: object) -> str:
    """The colour class of a card a screen shows; none where there is no card."""
    return suit_class(str(code)) if code else ""


def deck_by_suit(deck: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """The deck laid out as the card picker shows it: one row per suit, A to K."""
    rows = []
    for suit in SUITS:
        row = [rank + suit for rank in RANKS if rank + suit in deck]
        if row:
            rows.append((suit, row))
    return rows


def picker_rows(allowed: Iterable[str], deck: tuple[str, ...] = FULL_DECK) -> list[dict[str, Any]]:
    """A card picker by suit (Faro's manual turn, an action form's cards): the cards not
    ``allowed`` now are greyed (``out``) and cannot be picked. Each card comes with its words
    (``label`` 10♥, ``name`` ten of hearts, ``suit_class``), so a template only places them."""
    live = set(allowed)
    return [
        {"suit": suit, "cards": [_picked(code, out=code not in live) for code in row]}
        for suit, row in deck_by_suit(deck)
    ]


def _picked(code: str, *, out: bool) -> dict[str, Any]:
    return {
        "code": code,
        "out": out,
        "label": card_label(code),
        "name": card_name(code),
        "suit_class": suit_class(code),
    }
