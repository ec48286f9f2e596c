"""The pot and stakes games' action forms, drawn from the engine's ``legal_actions``.

The engine lists every action it would accept now (``Engine.legal_actions``): concrete
entries, and templates whose ``needs`` the dealer fills. This module knows no game rule. It
puts each entry into words (``tables.console.words``), gives each field a widget
(one mapping from a need to a widget), and turns a posted form back into the engine action.
A post names its entry by a key derived from the entry itself, found again among the legal
actions of the state it is applied to, so an entry that is no longer legal is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from casino.errors import ValidationFailed
from casino.money import format_dollars, parse_dollars
from tables.console.dealer.cards import picker_rows
from tables.console.dealer.keying import HandSlot, SlotView, hand_slots, hands_payload, keying_screen
from tables.console.words import COUNT_ONLY, KEYED_DEAL, entry_words, label_of, player_words
from tables.games.base import without_hints
from tables.games.cards import FARMER_DECK, FULL_DECK
from tables.games.registry import engine_for
from tables.models import Round
from tables.round_state import engine_state

GAME_TITLES = {
    "faro": "Faro",
    "farmer": "Farmer",
    "fan_tan": "Fan Tan",
    "newmarket": "Newmarket",
    "tonk": "Tonk",
    "stakes": "Card room",
}

# --------------------------------------------------------------------------- words

PENALTIES = frozenset({"pass-illegal", "penalty", "penalty-earlier"})  # kept apart from the plays
STYLES = {"deal": "primary", KEYED_DEAL: "primary", COUNT_ONLY: "primary", "result": "primary"}
STYLES |= {"drop": "danger", "penalty": "danger", "penalty-earlier": "danger", "pass-illegal": "danger"}
_PENALTY_HELP = "Three chips to the pot; with a seven they held, five chips to each holder of its 6 and 8."
HELP = {  # a rule of the game in words, beside the form that applies it (the engine applies it)
    ("fan_tan", "pass-illegal"): "Charged at once: the pass chip, three chips more, and five to each "
    "holder of a held 7's 6 and 8.",
    ("fan_tan", "penalty"): _PENALTY_HELP,
    ("fan_tan", "penalty-earlier"): _PENALTY_HELP,
}


# Per need: the legend of its widget ((type, need) first, then the need alone).
FIELD_LABELS: dict[tuple[str, str] | str, str] = {
    ("hit", "card"): "Card dealt",
    ("play", "card"): "Card played",
    ("play", "player"): "Who plays it?",
    ("draw", "card"): "Card drawn",
    ("discard", "card"): "Card discarded",
    ("spread", "cards"): "Cards spread",
    ("deal", "cards"): "Each player's face-down card",
    "hands": "Every hand as dealt",
    "tonks": "Hands shown as a tonk on the deal",
    "upcard": "The upcard",
    "amount": "Amount",
    "winner": "Who went out first?",
    "loser": "Who lost?",
    "scores": "Scores",
    "totals": "Every hand's total",
    "stop": "Who called Stop?",
    "pass": "Which pass?",
    "seven": "A seven they held",
    "six_holder": "Holder of that 6",
    "eight_holder": "Holder of that 8",
    "player": "Player",
    "card": "Card",
    "cards": "Cards",
}
VALUE_WORDS: dict[str, Callable[[Any], str]] = {"pass": lambda index: f"Their pass #{int(index) + 1}"}
DECKS = {"farmer": FARMER_DECK}  # the deck a game's card picker lays out (greyed where not allowed)

# --------------------------------------------------------------------------- need → widget

PLAYER_NEEDS = frozenset({"player", "winner", "loser", "stop", "six_holder", "eight_holder"})
NUMBER_NEEDS = frozenset({"scores", "totals"})  # an object of whole numbers keyed by player


def widget_of(entry: Mapping[str, Any], need: str) -> str:
    """The one mapping from a need (with the entry's hints) to the widget that fills it.

    * ``amount``: dollars within ``min_amount``/``max_amount``, whole ``chip``s;
    * ``count`` an object: ``card_map`` (one card each, Farmer's ``one_card_each``) or
      ``hands`` (the keyed-hands grid, one pile per key);
    * ``scores``/``totals``: ``numbers``, one whole number per player within ``bounds``;
    * cards among ``choices``: ``cards`` (a list, ``count`` of them when given) or ``card``;
    * players among ``choices``: ``player`` (their names); any other choice: ``choice``.
    """
    choices = entry.get("choices", {}).get(need) or []
    count = entry.get("count", {}).get(need)
    if need == "amount":
        return "amount"
    if isinstance(count, Mapping):
        return "card_map" if entry.get("one_card_each") else "hands"
    if need in NUMBER_NEEDS:
        return "numbers"
    if choices and all(isinstance(c, str) and c in FULL_DECK for c in choices):
        return "cards" if need == "cards" or isinstance(count, int) else "card"
    if need in PLAYER_NEEDS:
        return "player"
    return "choice"


@dataclass(frozen=True, slots=True)
class Field:
    """One input of an action form; ``kind`` (from ``widget_of``) picks the widget and parser."""

    name: str
    kind: str
    label: str
    required: bool = True
    choices: tuple[tuple[Any, str], ...] = ()  # player, choice: (value, words)
    keys: tuple[tuple[str, str], ...] = ()  # numbers, card_map: (key, words)
    picker: Sequence[dict[str, Any]] = ()  # card, cards, card_map
    count: int | None = None  # cards: exactly this many
    bounds: Mapping[str, Sequence[int]] = field(default_factory=dict)  # numbers: per key
    amount: tuple[int, int, int] | None = None  # amount: low, high, chip (cents)
    slots: tuple[HandSlot, ...] = ()  # hands: the piles

    @property
    def hint(self) -> str:
        """The amount's limits in words: from $1.00 to $25.00, in $1.00 chips."""
        if self.amount is None:
            return ""
        low, high, chip = (format_dollars(value) for value in self.amount)
        return f"from {low} to {high}, in {chip} chips"

    @property
    def rows(self) -> list[dict[str, Any]]:
        """numbers: one input per key, with its bounds when the engine gives them."""
        rows = []
        for key, name in self.keys:
            low, high = self.bounds.get(key) or (None, None)
            rows.append({"key": key, "name": name, "low": low, "high": high})
        return rows

    @property
    def views(self) -> list[SlotView]:
        return keying_screen(self.name, self.slots, {})


@dataclass(frozen=True, slots=True)
class Offer:
    """One entry of ``legal_actions`` as the console offers it: a button, or a form to fill."""

    key: str
    kind: str
    entry: Mapping[str, Any]
    label: str
    fields: tuple[Field, ...] = ()
    style: str = ""
    help: str = ""

    @property
    def one_tap(self) -> bool:
        return not self.fields

    @property
    def secondary(self) -> bool:
        """A penalty: kept apart from the plays, behind its own control, never a peer button."""
        return self.kind in PENALTIES


def entry_key(entry: Mapping[str, Any]) -> str:
    """A stable name for an entry: its action fields and needs, hashed (hints left out)."""
    identity = without_hints(entry) | {"needs": list(entry.get("needs", []))}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _kind(entry: Mapping[str, Any], keyed_on_offer: bool) -> str:
    kind, needs = str(entry["type"]), entry.get("needs", [])
    if kind == "deal" and "hands" in needs:
        return KEYED_DEAL
    if kind == "deal" and keyed_on_offer:
        return COUNT_ONLY
    if kind == "pass" and entry.get("illegal"):
        return "pass-illegal"
    if kind == "penalty" and "pass" in needs:
        return "penalty-earlier"
    return kind


def field_of(
    entry: Mapping[str, Any], need: str, *, game: str, names: Mapping[int, str], required: bool = True
) -> Field:
    """The widget for one need of ``entry``, with its choices in words."""
    kind = widget_of(entry, need)
    label = FIELD_LABELS.get((str(entry["type"]), need)) or FIELD_LABELS.get(need, need.replace("_", " "))
    choices = list(entry.get("choices", {}).get(need) or [])
    deck = DECKS.get(game, FULL_DECK)
    if kind == "amount":
        amount = (int(entry["min_amount"]), int(entry["max_amount"]), int(entry["chip"]))
        return Field(need, kind, label, required, amount=amount)
    if kind == "hands":
        # A required grid keys the entry's single cards too (Tonk's upcard): one card, one pile.
        needs = entry.get("needs", []) if required else []
        alone = [n for n in needs if n != need and widget_of(entry, n) == "card"]
        return Field(need, kind, label, required, slots=hand_slots(entry, need, names, alone=alone))
    if kind == "card_map":
        keys = tuple((key, player_words(names, key)) for key in entry["count"][need])
        return Field(need, kind, label, required, keys=keys, picker=picker_rows(choices, deck))
    if kind == "numbers":
        keys = tuple((str(player), player_words(names, player)) for player in choices)
        return Field(need, kind, label, required, keys=keys, bounds=entry.get("bounds", {}).get(need, {}))
    if kind in ("card", "cards"):
        count = entry.get("count", {}).get(need)
        return Field(need, kind, label, required, picker=picker_rows(choices, deck), count=count)
    if kind == "player":
        return Field(need, kind, label, required, choices=tuple((p, player_words(names, p)) for p in choices))
    words = VALUE_WORDS.get(need, str)
    return Field(need, kind, label, required, choices=tuple((c, words(c)) for c in choices))


def offers(
    game: str, legal: Sequence[Mapping[str, Any]], names: Mapping[int, str], public: Mapping[str, Any]
) -> list[Offer]:
    """Every entry of ``legal_actions`` as a button (concrete) or a form (needs to fill)."""
    keyed_on_offer = any(_kind(entry, False) == KEYED_DEAL for entry in legal)
    made = []
    for entry in legal:
        kind = _kind(entry, keyed_on_offer)
        needs = list(entry.get("needs", []))
        absorbed: set[str] = set()
        fields: list[Field] = []
        for need in needs:
            if need in absorbed:
                continue
            spec = field_of(entry, need, game=game, names=names)
            absorbed.update(slot.key for slot in spec.slots if slot.alone)
            fields.append(spec)
        fields += [
            field_of(entry, name, game=game, names=names, required=False)
            for name in entry.get("optional", [])
        ]
        made.append(
            Offer(
                key=f"{kind}-{entry_key(entry)}",
                kind=kind,
                entry=entry,
                label=label_of(game, kind, entry_words(entry, names, public)),
                fields=tuple(fields),
                style=STYLES.get(kind, ""),
                help=HELP.get((game, kind), ""),
            )
        )
    return made


def legal_actions_of(round_: Round) -> list[dict[str, Any]]:
    """What the round's engine accepts now, from its state at ``round_.version``."""
    return engine_for(round_.game).legal_actions(engine_state(round_))


def known_hands_of(round_: Round) -> dict[int, list[str]]:
    """The hands the engine knows (``Engine.known_hands``), for the dealer's eyes only."""
    return engine_for(round_.game).known_hands(engine_state(round_))


def round_offers(round_: Round, names: Mapping[int, str]) -> list[Offer]:
    return offers(round_.game, legal_actions_of(round_), names, round_.state)


def keying_offer(made: Sequence[Offer]) -> Offer | None:
    """The keyed deal among the offers, if the round is at a manual deal."""
    return next((offer for offer in made if offer.kind == KEYED_DEAL), None)


def find_offer(made: Sequence[Offer], key: str) -> Offer:
    for offer in made:
        if offer.key == key:
            return offer
    raise ValidationFailed(
        "That action is not possible now; the screen has been refreshed.", code="not_legal_now"
    )


# --------------------------------------------------------------------------- a posted form


def _int(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError as error:
        raise ValidationFailed(f"Enter a whole number for {what}.") from error


def _value(spec: Field, data: QueryDict) -> Any:
    """One field's value as the engine takes it, or None when an optional one is left empty."""
    text = data.get(spec.name, "")
    if spec.kind in ("player", "choice"):
        allowed = {str(value): value for value, _ in spec.choices}
        if text == "" and not spec.required:
            return None
        if text not in allowed:
            raise ValidationFailed(f"Choose one of the options: {spec.label}")
        return allowed[text]
    if spec.kind == "card":
        if not text and not spec.required:
            return None
        if not text:
            raise ValidationFailed(f"Pick a card: {spec.label}")
        return text
    if spec.kind == "cards":
        cards = [card for card in data.getlist(spec.name) if card]
        if spec.count is not None and len(cards) != spec.count:
            raise ValidationFailed(f"Pick {spec.count} cards: {spec.label}")
        if not cards:
            raise ValidationFailed(f"Pick the cards: {spec.label}")
        return cards
    if spec.kind == "amount":
        return parse_dollars(text, field=spec.label.lower())
    if spec.kind == "numbers":
        return {key: _int(data.get(f"{spec.name}_{key}", ""), name) for key, name in spec.keys}
    if spec.kind == "card_map":
        chosen = {key: data.get(f"{spec.name}_{key}", "") for key, _ in spec.keys}
        missing = [name for key, name in spec.keys if not chosen[key]]
        if missing:
            raise ValidationFailed(f"Pick a card for {', '.join(missing)}.")
        return chosen
    raise ValueError(f"no parser for widget {spec.kind!r}")


def payload_from(offer: Offer, data: QueryDict) -> dict[str, Any]:
    """The engine action a posted form asks for: the entry's fixed fields, then each field typed."""
    payload = without_hints(offer.entry)
    for spec in offer.fields:
        if spec.kind == "hands":
            payload.update(hands_payload(spec.name, spec.slots, data, required=spec.required))
            continue
        value = _value(spec, data)
        if value is not None:
            payload[spec.name] = value
    return payload
