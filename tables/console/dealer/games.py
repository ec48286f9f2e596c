"""The pot and stakes games' action forms, drawn from the engine's ``legal_actions``.

The engine lists every action it would accept now (``Engine.legal_actions``): concrete
entries, and templates whose ``needs`` the dealer fills. This module knows no game rule. It
puts each entry into words (one table of labels per action type), gives each field a widget
(one mapping from a need to a widget), and turns a posted form back into the engine action.
A post names its entry by a key derived from the entry itself, found again among the legal
actions of the state it is applied to, so an entry that is no longer legal is refused.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from casino.errors import ValidationFailed
from casino.money import format_dollars, parse_dollars
from tables.console.dealer.cards import card_label, cards_label, picker_rows
from tables.console.dealer.keying import HandSlot, SlotView, hand_slots, hands_payload, keying_screen
from tables.games.base import without_hints
from tables.games.cards import FARMER_DECK, FULL_DECK, hand_points
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

KEYED_DEAL = "deal-keyed"  # a deal that keys every hand (a required ``hands`` need)
COUNT_ONLY = "deal-count"  # the other deal on offer beside it: hands not keyed
COUNT_ONLY_LABEL = "Cards dealt, hands not keyed (count-only)"

# Per kind of entry: its label formats, tried in order; the first whose fields the entry
# fixes is used ({player} a name, {card} 7♥, {spread} its cards, {amount} dollars …).
LABELS: dict[str, tuple[str, ...]] = {
    "deal": ("Deal the cards",),
    KEYED_DEAL: ("Key every hand",),
    COUNT_ONLY: (COUNT_ONLY_LABEL,),
    "farmer": ("{player} drew the 6♥: the farmer",),
    "hit": ("{player} puts {card} on {spread}", "{player} plays on {spread}", "Hit {player}"),
    "stay": ("{player} stays",),
    "play": ("{player} plays {card}", "{player} leads", "Play {card}"),
    "pass": ("{player} passes",),
    "pass-illegal": ("{player} passes holding a playable card: illegal pass",),
    "penalty": ("Illegal pass caught: {player}",),
    "penalty-earlier": ("Illegal earlier pass caught: {player}",),
    "keep": ("{player} keeps the hand",),
    "exchange": ("{player} takes the widow",),
    "bid": ("{player} bids for the widow",),
    "close_auction": ("Close the auction",),
    "draw": ("{player} draws from {from}",),
    "drop": ("{player} drops",),
    "slap": ("{player} slaps",),
    "spread": ("{player} spreads {cards}", "{player} spreads"),
    "discard": ("{player} discards {card}", "{player} discards"),
    "result": ("Record the result",),
}
GAME_LABELS: dict[tuple[str, str], tuple[str, ...]] = {  # where a game's words differ
    ("newmarket", "pass"): ("Nobody has {next}: stop", "{player} has no card to lead"),
}
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
DONE = {
    KEYED_DEAL: "Every hand keyed: the deal is recorded with full tracking.",
    COUNT_ONLY: "Cards dealt: count-only tracking, hands not keyed.",
}
# What happened, for the receipt: formats tried in order as for LABELS, with the filled action's
# words and what the action brought ({dealt} the cards it gave the player, {total} a Farmer
# hand's points, {buyer}/{bid} the widow's sale, {winner}/{loser}/{scores} a keyed result).
DONE_LABELS: dict[str, tuple[str, ...]] = {
    "deal": ("Cards dealt.",),
    "farmer": ("{player} drew the 6♥: the farmer.",),
    "hit": ("{player} hits: {dealt}, total {total}.", "{player} puts {card} on {spread}.", "{player} hits."),
    "stay": ("{player} stays at {total}.", "{player} stays."),
    "play": ("{player} plays {card}.", "{player} leads."),
    "pass": ("{player} passes and pays a chip to the pot.",),
    "pass-illegal": ("Illegal pass by {player}: the penalty is charged.",),
    "penalty": ("Illegal pass by {player}: the penalty is charged.",),
    "penalty-earlier": ("Illegal earlier pass by {player}: the penalty is charged.",),
    "keep": ("{player} keeps the hand: the widow goes to auction.",),
    "exchange": ("{player} takes the widow.",),
    "bid": ("{player} bids {amount} for the widow.",),
    "close_auction": ("The widow goes to {buyer} for {bid}.", "No bid: the widow stays dead."),
    "draw": ("{player} draws {dealt} from {from}.", "{player} draws from {from}."),
    "drop": ("{player} drops.",),
    "slap": ("{player} slaps and takes {dealt}.", "{player} slaps."),
    "spread": ("{player} spreads {cards}.", "{player} spreads."),
    "discard": ("{player} discards {card}.", "{player} discards."),
    "result": (
        "Result: {winner} went out first.",
        "Result: {loser} lost.",
        "Result: {scores}.",
        "Result recorded.",
    ),
}
GAME_DONE_LABELS: dict[tuple[str, str], tuple[str, ...]] = {
    ("newmarket", "pass"): (
        "Nobody has {next}: the run stops.",
        "{player} has no card to lead: the lead passes.",
    ),
}
FROM_WORDS = {"stock": "the stock", "discard": "the discard pile"}
# The engines' state values shown on a screen (phases, settle modes, outcomes), in words.
STATE_WORDS = {
    "first_out": "the first player out wins",
    "loser_pays": "the loser pays everyone",
    "high_score": "the highest score wins",
    "points": "the top scorer is paid by points",
    "count_only": "count-only",
    "full": "every hand keyed",
    "electronic": "electronic shoe",
    "deal_tonk": "a tonk on the deal",
    "drawn_deal": "two tonks on the deal: a new deal",
    "tonk_out": "a tonk out",
    "run_out": "ran out of cards",
    "stock_out": "the stock ran out: lowest hand wins",
    "stock_out_draw": "the stock ran out: a tie, nothing paid",
    "drop": "a drop, lowest hand",
    "caught_drop": "a drop, caught",
}


def player_words(names: Mapping[int, str], player: Any) -> str:
    """A player as every screen names them: by name, "Player 12" if not read, "" for no one."""
    return names.get(int(player), f"Player {player}") if player is not None else ""


def state_words(value: Any) -> str:
    """An engine's state value as words: ``high_score`` → "the highest score wins"."""
    text = str(value)
    return STATE_WORDS.get(text, text.replace("_", " "))


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


def _words(entry: Mapping[str, Any], names: Mapping[int, str], public: Mapping[str, Any]) -> dict[str, str]:
    """The entry's fixed fields in words, for the label formats."""
    words: dict[str, str] = {}
    if "player" in entry and entry["player"] is not None:
        words["player"] = player_words(names, entry["player"])
    if isinstance(entry.get("card"), str):
        words["card"] = card_label(entry["card"])
    if isinstance(entry.get("cards"), list):
        words["cards"] = cards_label(entry["cards"])
    if "spread" in entry:
        spreads = {s.get("id"): s.get("cards", []) for s in public.get("spreads", [])}
        words["spread"] = "the spread " + cards_label(spreads.get(entry["spread"], []))
    if "from" in entry:
        words["from"] = FROM_WORDS.get(str(entry["from"]), str(entry["from"]))
    if isinstance(entry.get("amount"), int):
        words["amount"] = format_dollars(entry["amount"])
    if public.get("stage") == "run" and public.get("next_card"):
        words["next"] = card_label(public["next_card"])
    return words


def label_of(game: str, kind: str, words: Mapping[str, str], *, done: bool = False) -> str:
    """The first format of the kind's (the game's own first) whose fields ``words`` has."""
    formats = (GAME_DONE_LABELS.get((game, kind)) or DONE_LABELS.get(kind, ())) if done else ()
    for fmt in formats or GAME_LABELS.get((game, kind)) or LABELS.get(kind, ()):
        wanted = {name for _, name, _, _ in string.Formatter().parse(fmt) if name}
        if wanted <= set(words):
            return fmt.format(**words)
    return kind.replace("_", " ").replace("-", " ").capitalize()  # an action type not in the table yet


def done_words(
    game: str,
    offer: Offer,
    payload: Mapping[str, Any],
    *,
    names: Mapping[int, str],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    hands_before: Mapping[int, Sequence[str]],
    hands_after: Mapping[int, Sequence[str]],
) -> str:
    """The receipt's headline: what the action did, in words (the card, the total, who won what).

    ``before``/``after`` are the public states around it; the hands are ``known_hands`` (the
    dealer's eyes), so a card the shoe gave out is named.
    """
    if offer.kind in DONE:
        return DONE[offer.kind]
    words = _words(payload, names, before)
    player = payload.get("player")
    if player is not None:
        new = [c for c in hands_after.get(int(player), []) if c not in hands_before.get(int(player), [])]
        if new:
            words["dealt"] = cards_label(new)
        if game == "farmer" and hands_after.get(int(player)):
            words["total"] = str(hand_points(hands_after[int(player)]))
    widow, auction = after.get("widow") or {}, before.get("auction") or {}
    if widow.get("buyer") is not None and auction.get("bid"):
        words["buyer"] = player_words(names, widow["buyer"])
        words["bid"] = format_dollars(auction["bid"])
    for need in ("winner", "loser"):
        if payload.get(need) is not None:
            words[need] = player_words(names, payload[need])
    if isinstance(payload.get("scores"), Mapping):
        words["scores"] = ", ".join(f"{player_words(names, p)} {n}" for p, n in payload["scores"].items())
    return label_of(game, offer.kind, words, done=True)


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
                label=label_of(game, kind, _words(entry, names, public)),
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
