"""Keying a manual deal hand by hand, so the engine knows every hand (full tracking).

GAMES.md lets a manual deal of Fan Tan, Newmarket or Tonk key every player's hand; the engine
then applies the rules that need known hands (Fan Tan's illegal pass at once, Newmarket's
run holders, Tonk's stock draws checked). This module says which piles a deal has and how
many cards each takes, turns the posted form into the engine's ``deal`` payload, and lays
out the keying screen. The engine still checks every card; this only helps the dealer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console.cards import card_label, card_name, deck_by_suit
from tables.games.cards import FULL_DECK

TONK_HAND = 5  # GAMES.md "Tonk": five cards each, then one upcard
WIDOW = "widow"
UPCARD = "upcard"


@dataclass(frozen=True, slots=True)
class HandSlot:
    """One pile the dealer keys: a player's hand, Newmarket's widow, or Tonk's upcard."""

    key: str  # a player id, "widow" or "upcard"
    label: str
    size: int
    alone: bool = False  # one card sent as its own payload field (the upcard), not in "hands"
    short: str = ""  # marks a card given to this pile on the other pickers: initials, "W", "Up"


@dataclass(frozen=True, slots=True)
class SlotView:
    """A pile on the keying screen: its picker with the cards keyed to it so far."""

    slot: HandSlot
    input: str
    rows: tuple[dict[str, Any], ...]
    keyed: tuple[str, ...]

    @property
    def left(self) -> int:
        return self.slot.size - len(self.keyed)


def input_name(field: str, key: str) -> str:
    return f"{field}_{key}"


def even_deal(cards: int, hands: int) -> list[int]:
    """Sizes when ``cards`` are dealt one at a time round ``hands`` piles: the first get one more."""
    share, extra = divmod(cards, hands)
    return [share + (1 if index < extra else 0) for index in range(hands)]


def _player_order(public: Mapping[str, Any]) -> list[int]:
    """The players from the dealer's left, as every pot game's public state lists them."""
    return [int(p["player"]) if isinstance(p, Mapping) else int(p) for p in public.get("players", [])]


def deal_slots(game: str, public: Mapping[str, Any], names: Mapping[int, str]) -> tuple[HandSlot, ...]:
    """The piles of a full manual deal, in the order they are dealt (GAMES.md per game)."""
    order = _player_order(public)

    def hand(player: int, size: int) -> HandSlot:
        name = names.get(player, f"Player {player}")
        return HandSlot(str(player), name, size, short=initials(name))

    if game == "fan_tan":
        sizes = even_deal(len(FULL_DECK), len(order))
        return tuple(hand(p, n) for p, n in zip(order, sizes, strict=True))
    if game == "newmarket":
        *sizes, widow = even_deal(len(FULL_DECK), len(order) + 1)
        hands = tuple(hand(p, n) for p, n in zip(order, sizes, strict=True))
        return (*hands, HandSlot(WIDOW, "The widow", widow, short="W"))
    if game == "tonk":
        hands = tuple(hand(p, TONK_HAND) for p in order)
        return (*hands, HandSlot(UPCARD, "The upcard", 1, alone=True, short="Up"))
    return ()


def initials(name: str) -> str:
    """Kate Elder → KE: short enough to print on a greyed card of another hand."""
    return "".join(word[:1].upper() for word in name.split()[:3]) or "?"


def hands_payload(field: str, slots: Sequence[HandSlot], data: QueryDict) -> dict[str, Any]:
    """The ``deal`` fields the form keys: ``hands`` per player (and widow), the upcard alone.

    Every pile must be complete before anything is sent; a card keyed twice is left for the
    engine to refuse, so the dealer sees the engine's own reason.
    """
    payload: dict[str, Any] = {}
    hands: dict[str, list[str]] = {}
    short = []
    for slot in slots:
        cards = [card for card in data.getlist(input_name(field, slot.key)) if card]
        if len(cards) != slot.size:
            short.append(f"{slot.label} {len(cards)} of {slot.size}")
            continue
        if slot.alone:
            payload[slot.key] = cards[0]
        else:
            hands[slot.key] = cards
    if short:
        raise ValidationFailed(f"Key every card before dealing: {'; '.join(short)}.", code="deal_incomplete")
    payload[field] = hands
    return payload


def keyed_so_far(field: str, slots: Sequence[HandSlot], data: QueryDict) -> dict[str, list[str]]:
    """What a refused keying form held, so the dealer fixes one card instead of keying 52 again."""
    return {slot.key: data.getlist(input_name(field, slot.key)) for slot in slots}


def keying_screen(
    field: str, slots: Sequence[HandSlot], keyed: Mapping[str, Sequence[str]]
) -> list[SlotView]:
    """One picker per pile (the same card picker as Faro's manual turn), cards keyed ticked."""
    views = []
    for slot in slots:
        mine = tuple(card for card in keyed.get(slot.key, ()) if card in FULL_DECK)
        rows = tuple(
            {
                "suit": suit,
                "cards": [
                    {
                        "code": code,
                        "checked": code in mine,
                        "label": card_label(code),
                        "name": f"{card_name(code)} to {slot.label}",
                    }
                    for code in row
                ],
            }
            for suit, row in deck_by_suit(FULL_DECK)
        )
        views.append(SlotView(slot=slot, input=input_name(field, slot.key), rows=rows, keyed=mine))
    return views
