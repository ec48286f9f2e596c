"""Keying a manual deal hand by hand, so the engine knows every hand (full tracking).

GAMES.md lets a manual deal of Fan Tan, Newmarket or Tonk key every player's hand; the engine
then applies the rules that need known hands (Fan Tan's illegal pass at once, Newmarket's
run holders, Tonk's stock draws checked). The engine's ``legal_actions`` says which piles a
deal has and how many cards each takes (``count``); this module lays them out as the keying
screen and turns the posted form back into the ``deal`` fields. The engine checks every card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console.dealer.cards import card_label, card_name, deck_by_suit
from tables.games.cards import FULL_DECK

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


SLOT_WORDS = {WIDOW: ("The widow", "W"), UPCARD: ("The upcard", "Up")}


def hand_slots(
    entry: Mapping[str, Any], field: str, names: Mapping[int, str], *, alone: Sequence[str] = ()
) -> tuple[HandSlot, ...]:
    """The piles of ``entry``'s ``field`` as the engine counts them (``count``), in its order.

    The engine lists the piles in the order they are dealt (from the dealer's left, then the
    widow). ``alone`` are single-card needs of the same entry (Tonk's upcard) keyed on the same
    screen, so a card is never given to two piles.
    """
    piles = [(key, int(size), False) for key, size in entry["count"][field].items()]
    slots = []
    for key, size, single in piles + [(key, 1, True) for key in alone]:
        if key.isdigit():  # a player's hand
            label = names.get(int(key), f"Player {key}")
            short = initials(label)
        else:
            label, short = SLOT_WORDS.get(key, (key.capitalize(), key[:2].capitalize()))
        slots.append(HandSlot(key, label, size, alone=single, short=short))
    return tuple(slots)


def initials(name: str) -> str:
    """Kate Elder → KE: short enough to print on a greyed card of another hand."""
    return "".join(word[:1].upper() for word in name.split()[:3]) or "?"


def hands_payload(
    field: str, slots: Sequence[HandSlot], data: QueryDict, *, required: bool = True
) -> dict[str, Any]:
    """The fields the form keys: ``field`` per pile (player or widow), single cards alone.

    Every pile must be complete before anything is sent; a card keyed twice is left for the
    engine to refuse, so the dealer sees the engine's own reason. An optional field (Tonk's
    count-only ``tonks``) takes only the piles keyed, each complete, and is left out if none is.
    """
    payload: dict[str, Any] = {}
    hands: dict[str, list[str]] = {}
    short = []
    for slot in slots:
        cards = [card for card in data.getlist(input_name(field, slot.key)) if card]
        if not required and not cards:
            continue
        if len(cards) != slot.size:
            short.append(f"{slot.label} {len(cards)} of {slot.size}")
            continue
        if slot.alone:
            payload[slot.key] = cards[0]
        else:
            hands[slot.key] = cards
    if short:
        raise ValidationFailed(f"Key every card before dealing: {'; '.join(short)}.", code="deal_incomplete")
    if hands or required:
        payload[field] = hands
    return payload


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
