"""Cards as canonical strings (``10H``, ``QS``, ``JK``) so they serialise without help."""

from __future__ import annotations

from collections.abc import Iterable

from tables.games.errors import IllegalAction

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER = "JK"
RED_SUITS = frozenset({"H", "D"})
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_label(code: str) -> str:
    """A card as people read it: 10H → 10♥, JK → Joker (the console, the admin, messages)."""
    if code == JOKER:
        return "Joker"
    rank, suit = code[:-1], code[-1:]
    return f"{rank}{SUIT_SYMBOLS.get(suit, suit)}"


def cards_label(cards: Iterable[str]) -> str:
    """Cards as people read them, in order: ["AH", "AD"] → "A♥ A♦"."""
    return " ".join(card_label(card) for card in cards)


def parse_card(text: object) -> str:
    """Canonicalise user input: upper-case, ``T`` for 10 accepted; anything else is refused."""
    if not isinstance(text, str):
        raise IllegalAction("bad_card", f"A card must be a string like '10H', not {text!r}.")
    raw = text.strip().upper()
    if raw == JOKER:
        return JOKER
    if len(raw) < 2:
        raise IllegalAction("bad_card", f"'{text}' is not a card.")
    rank, suit = raw[:-1], raw[-1]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise IllegalAction("bad_card", f"'{text}' is not a card (ranks A 2-10 J Q K, suits S H D C).")
    return rank + suit


def parse_cards(texts: object, *, field: str = "cards") -> tuple[str, ...]:
    if not isinstance(texts, list | tuple):
        raise IllegalAction("bad_card", f"'{field}' must be a list of cards.")
    cards = tuple(parse_card(t) for t in texts)
    if len(set(cards)) != len(cards):
        raise IllegalAction("bad_card", f"'{field}' names the same card twice.")
    return cards


def parse_rank(text: object) -> str:
    """A rank alone (``Q``, ``10`` or ``T``), as Faro bets name them."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(text, str(text))
    if not isinstance(text, str):
        raise IllegalAction("bad_rank", f"{text!r} is not a rank.")
    raw = text.strip().upper()
    if raw == "T":
        raw = "10"
    if raw not in RANKS:
        raise IllegalAction("bad_rank", f"'{text}' is not a rank (A 2-10 J Q K).")
    return raw


def rank_of(card: str) -> str:
    return card[:-1]


def suit_of(card: str) -> str:
    return card[-1]


def rank_index(rank: str) -> int:
    """A=1 … K=13: the order used for "higher" in every game but Newmarket."""
    return RANKS.index(rank) + 1


def points(card: str) -> int:
    """A=1, 2–10 face value, J/Q/K=10."""
    return min(rank_index(rank_of(card)), 10)


def hand_points(cards: Iterable[str]) -> int:
    return sum(points(card) for card in cards)


FULL_DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
# Farmer: no 8s, and of the 6s only the six of hearts (GAMES.md).
FARMER_DECK: tuple[str, ...] = tuple(
    card for card in FULL_DECK if rank_of(card) != "8" and (rank_of(card) != "6" or card == "6H")
)
