"""Screens for the pot and stakes games, driven by each engine's public state.

For each state the console offers the legal actions only: ``legal_actions`` reads the
public state (phase, whose turn, stage, tracking) and returns the action forms that make
sense now. The engine still decides: anything it refuses is shown in place with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console.cards import deck_by_suit
from tables.console.keying import HandSlot, deal_slots, hands_payload
from tables.console.money import parse_dollars
from tables.games.cards import FARMER_DECK, FULL_DECK, RANKS, SUITS
from tables.models import Round
from tables.rounds import engine_state

GAME_TITLES = {
    "faro": "Faro",
    "farmer": "Farmer",
    "fan_tan": "Fan Tan",
    "newmarket": "Newmarket",
    "tonk": "Tonk",
    "stakes": "Card room",
}


@dataclass(frozen=True, slots=True)
class Field:
    """One input of an action form. ``kind`` picks the widget and how the value is parsed."""

    name: str
    kind: str  # player | card | cards | money | scores | card_map | hands
    label: str
    choices: tuple[tuple[Any, str], ...] = ()
    picker: tuple[dict[str, Any], ...] = ()
    players: tuple[tuple[int, str], ...] = ()
    required: bool = True
    slots: tuple[HandSlot, ...] = ()  # kind "hands": the piles of a keyed deal


@dataclass(frozen=True, slots=True)
class Action:
    """One legal action as a form: a button, fixed payload values and the fields to fill in."""

    key: str
    type: str
    label: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    fields: tuple[Field, ...] = ()
    primary: bool = False
    danger: bool = False
    help: str = ""
    done: str = ""  # the receipt's headline when it went through; "<label>: done." if empty


@dataclass(frozen=True, slots=True)
class Board:
    """What the dealer needs in view: who acts, the players, and the cards the engine knows."""

    names: Mapping[int, str]
    shoe: str
    hands: Mapping[int, list[str]]


def picker(allowed: Sequence[str], deck: Sequence[str] = FULL_DECK) -> tuple[dict[str, Any], ...]:
    """A card picker by suit; cards not allowed now are shown greyed and cannot be picked."""
    ok = set(allowed)
    return tuple(
        {"suit": suit, "cards": [{"code": code, "out": code not in ok} for code in row]}
        for suit, row in deck_by_suit(tuple(deck))
    )


def _name(board: Board, player: Any) -> str:
    if player is None:
        return "—"
    return board.names.get(int(player), f"Player {player}")


def _choices(board: Board, players: Sequence[int]) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), _name(board, p)) for p in players)


KEYED_DEAL = "deal_keyed"
COUNT_ONLY_LABEL = "Cards dealt, hands not keyed (count-only)"


def manual_deal(game: str, public: Mapping[str, Any], board: Board, count_only: Action) -> list[Action]:
    """A manual shoe offers two ways to record the deal: key every hand, or only that it happened.

    Keying every hand is full tracking (GAMES.md "Shoes" and each game's rules for known
    hands); count-only keeps the hands secret and leaves penalties to the dealer's word.
    """
    keyed = Action(
        KEYED_DEAL,
        "deal",
        "Key every hand",
        fields=(Field("hands", "hands", "Every hand as dealt", slots=deal_slots(game, public, board.names)),),
        primary=True,
        help="Full tracking: the engine knows every hand, offers only cards a player holds "
        "and applies the rules that need known hands at once.",
        done="Every hand keyed: the deal is recorded with full tracking.",
    )
    counted = replace(count_only, primary=True, done="Cards dealt: count-only tracking, hands not keyed.")
    return [keyed, counted]


def keyed_deal(actions: Sequence[Action]) -> Action | None:
    """The keyed-deal form among the actions offered now, if the round is at a manual deal."""
    return next((action for action in actions if action.key == KEYED_DEAL), None)


def known_hands(round_: Round) -> dict[int, list[str]]:
    """The hands the engine knows (electronic shoe, or keyed hands), for the dealer's eyes only.

    Public state hides hands until the showdown; the dealer keys plays and needs them to
    offer only cards a player holds. Count-only tracking knows none, so this is empty.
    """
    try:
        return _hands_from(round_.game, engine_state(round_))
    except Exception:  # a screen must render even if a replay or an engine's internals change
        return {}


def _hands_from(game: str, state: Any) -> dict[int, list[str]]:
    hands: dict[int, list[str]] = {}
    if game == "farmer":
        hands = {hand.player: list(hand.cards) for hand in state.hands}
    elif game == "fan_tan":
        hands = {p.player: list(p.hand) for p in state.players if p.hand is not None}
    elif game == "newmarket":
        from tables.games.newmarket import hand_of

        for player in state.order:
            held = hand_of(state, player)
            if held is not None:
                hands[player] = held
    elif game == "tonk" and state.tracking in ("electronic", "full"):
        hands = {p: list(h) for p, h in zip(state.players, state.hands, strict=True)}
    return hands


# --------------------------------------------------------------------------- per game


def _farmer(public: Mapping[str, Any], board: Board) -> list[Action]:
    phase = public.get("phase")
    players = public.get("players", [])
    ids = [p["player"] for p in players]
    out = {card for hand in board.hands.values() for card in hand}
    left = [card for card in FARMER_DECK if card not in out]
    if phase == "draw":
        return [
            Action(
                "farmer",
                "farmer",
                "Set the farmer",
                fields=(Field("player", "player", "Who drew the 6♥?", choices=_choices(board, ids)),),
                primary=True,
            )
        ]
    if phase == "deal":
        if board.shoe == "electronic":
            return [Action("deal", "deal", "Deal the face-down cards", primary=True)]
        return [
            Action(
                "deal",
                "deal",
                "Deal the face-down cards",
                fields=(
                    Field(
                        "cards",
                        "card_map",
                        "Each player's face-down card",
                        players=_choices(board, ids),
                        picker=picker(left, FARMER_DECK),
                    ),
                ),
                primary=True,
            )
        ]
    if phase != "play" or public.get("turn") is None:
        return []
    turn = int(public["turn"])
    name = _name(board, turn)
    hand: Mapping[str, Any] = next((p for p in players if p["player"] == turn), {})
    hit_fields: tuple[Field, ...] = ()
    if board.shoe == "manual":
        hit_fields = (Field("card", "card", "Card dealt", picker=picker(left, FARMER_DECK)),)
    actions = [Action("hit", "hit", f"Hit {name}", fixed={"player": turn}, fields=hit_fields, primary=True)]
    if hand.get("cards", 0) >= 2:
        actions.append(Action("stay", "stay", f"{name} stays", fixed={"player": turn}))
    return actions


def fan_tan_playable(layout: Mapping[str, Any]) -> list[str]:
    """Cards the layout takes now: a 7 of an empty suit, or one beyond either end of a suit."""
    cards = []
    for suit in SUITS:
        span = layout.get(suit)
        if span is None:
            cards.append("7" + suit)
            continue
        low, high = RANKS.index(span["low"]), RANKS.index(span["high"])
        if low > 0:
            cards.append(RANKS[low - 1] + suit)
        if high < len(RANKS) - 1:
            cards.append(RANKS[high + 1] + suit)
    return cards


def _fan_tan(public: Mapping[str, Any], board: Board) -> list[Action]:
    phase = public.get("phase")
    players = public.get("players", [])
    if phase == "deal":
        if board.shoe == "electronic":
            return [Action("deal", "deal", "Deal the whole deck", primary=True)]
        return manual_deal("fan_tan", public, board, Action("deal", "deal", COUNT_ONLY_LABEL))
    if phase != "play" or public.get("turn") is None:
        return []
    turn = int(public["turn"])
    name = _name(board, turn)
    playable = fan_tan_playable(public.get("layout", {}))
    if turn in board.hands:
        playable = [card for card in playable if card in board.hands[turn]]
    actions = []
    if playable or turn not in board.hands:
        actions.append(
            Action(
                "play",
                "play",
                f"Play for {name}",
                fixed={"player": turn},
                fields=(Field("card", "card", "Card played", picker=picker(playable)),),
                primary=True,
            )
        )
    if playable and turn in board.hands:
        # Known hands: a pass by a player who can play is an illegal pass, charged at once.
        actions.append(
            Action(
                "pass",
                "pass",
                f"{name} passes (illegal: holds a playable card)",
                fixed={"player": turn},
                danger=True,
                help="The pass chip, three chips more, and five to each holder of a held 7's 6 and 8.",
            )
        )
    else:
        actions.append(Action("pass", "pass", f"{name} passes", fixed={"player": turn}, primary=not actions))
    passers = [p["player"] for p in players if p.get("passes", 0) > 0]
    if public.get("tracking") == "count" and passers:
        everyone = _choices(board, [p["player"] for p in players])
        actions.append(
            Action(
                "penalty",
                "penalty",
                "Illegal pass caught",
                fields=(
                    Field("player", "player", "Who passed illegally?", choices=_choices(board, passers)),
                    Field(
                        "seven",
                        "choice",
                        "A seven they held (if any)",
                        choices=tuple(("7" + s, "7" + s) for s in SUITS),
                        required=False,
                    ),
                    Field("six_holder", "player", "Holder of that 6", choices=everyone, required=False),
                    Field("eight_holder", "player", "Holder of that 8", choices=everyone, required=False),
                ),
                danger=True,
                help="Three chips to the pot; with a seven, five chips to each holder of its 6 and 8.",
            )
        )
    return actions


def _newmarket(public: Mapping[str, Any], board: Board) -> list[Action]:
    phase = public.get("phase")
    ids = [p["player"] for p in public.get("players", [])]
    played = [entry["card"] for entry in public.get("played", [])]
    if phase == "deal":
        if board.shoe == "electronic":
            return [Action("deal", "deal", "Deal", primary=True)]
        return manual_deal("newmarket", public, board, Action("deal", "deal", COUNT_ONLY_LABEL))
    if phase == "widow":
        dealer = _name(board, public.get("dealer"))
        return [
            Action("keep", "keep", f"{dealer} keeps the hand", primary=True),
            Action("exchange", "exchange", f"{dealer} takes the widow"),
        ]
    if phase == "auction":
        bidders = [p for p in ids if p != public.get("dealer")]
        return [
            Action(
                "bid",
                "bid",
                "Bid for the widow",
                fields=(
                    Field("player", "player", "Bidder", choices=_choices(board, bidders)),
                    Field("amount", "money", "Bid"),
                ),
            ),
            Action("close_auction", "close_auction", "Close the auction", primary=True),
        ]
    if phase != "play":
        return []
    turn = public.get("turn")
    next_card = public.get("next_card")
    if public.get("stage") == "lead" and turn is not None:
        turn = int(turn)
        colour = public.get("lead_colour")
        colour = colour if colour in ("red", "black") else None
        held = board.hands.get(turn)
        cards = _lowest_leads(held, colour) if held is not None else [c for c in FULL_DECK if c not in played]
        name = _name(board, turn)
        hint = f"Lead the lowest card of a {colour} suit" if colour else "Lead the lowest card of any suit"
        actions = []
        if cards:
            actions.append(
                Action(
                    "play",
                    "play",
                    f"{name} leads",
                    fixed={"player": turn},
                    fields=(Field("card", "card", hint, picker=picker(cards)),),
                    primary=True,
                )
            )
        if colour and (held is None or not cards):
            actions.append(
                Action(
                    "pass",
                    "pass",
                    f"{name} has no {colour} card to lead",
                    fixed={"player": turn},
                    primary=not cards,
                )
            )
        return actions
    if next_card is None:
        return []
    if turn is not None:
        return [
            Action(
                "play",
                "play",
                f"{_name(board, turn)} plays {next_card}",
                fixed={"player": int(turn), "card": next_card},
                primary=True,
            )
        ]
    last = public["played"][-1]["player"] if public.get("played") else None
    actions = [
        Action(
            "play",
            "play",
            f"Play {next_card}",
            fixed={"card": next_card},
            fields=(Field("player", "player", f"Who plays {next_card}?", choices=_choices(board, ids)),),
            primary=True,
        )
    ]
    if last is not None:
        actions.append(Action("pass", "pass", f"Nobody has {next_card}: stop", fixed={"player": int(last)}))
    return actions


def _lowest_leads(hand: Sequence[str], colour: str | None) -> list[str]:
    """Newmarket leads: the lowest card (aces high) of each suit held, of the colour due if any."""
    from tables.games.newmarket import colour_of, high_index

    lowest: dict[str, str] = {}
    for card in hand:
        suit = card[-1]
        if colour and colour_of(card) != colour:
            continue
        if suit not in lowest or high_index(card) < high_index(lowest[suit]):
            lowest[suit] = card
    return list(lowest.values())


def _tonk(public: Mapping[str, Any], board: Board) -> list[Action]:
    phase = public.get("phase")
    ids = [int(p) for p in public.get("players", [])]
    seen = set(public.get("discard_pile", []))
    for spread in public.get("spreads", []):
        seen.update(spread["cards"])
    if phase == "deal":
        if board.shoe == "electronic":
            return [Action("deal", "deal", "Deal five each", primary=True)]
        count_only = Action(
            "deal",
            "deal",
            COUNT_ONLY_LABEL,
            fields=(Field("upcard", "card", "The upcard", picker=picker(FULL_DECK)),),
        )
        return manual_deal("tonk", public, board, count_only)
    turn = public.get("turn")
    if turn is None or phase not in ("draw", "play"):
        return []
    turn = int(turn)
    name = _name(board, turn)
    tracking = public.get("tracking")
    hand = board.hands.get(turn)
    unseen = [card for card in FULL_DECK if card not in seen]
    actions: list[Action] = []
    totals = Field("totals", "scores", "Every hand's total", players=_choices(board, ids))
    if phase == "draw":
        stock_fields: tuple[Field, ...] = ()
        if tracking == "full":
            known = {c for h in board.hands.values() for c in h} | seen
            stock_fields = (
                Field("card", "card", "Card drawn", picker=picker([c for c in FULL_DECK if c not in known])),
            )
        if public.get("stock_count", 0) > 0:
            actions.append(
                Action(
                    "draw_stock",
                    "draw",
                    f"{name} draws from the stock",
                    fixed={"player": turn, "from": "stock"},
                    fields=stock_fields,
                    primary=True,
                )
            )
        if public.get("discard_top"):
            actions.append(
                Action(
                    "draw_discard",
                    "draw",
                    f"{name} takes {public['discard_top']}",
                    fixed={"player": turn, "from": "discard"},
                )
            )
        drop_fields = (totals,) if tracking == "count_only" else ()
        actions.append(
            Action("drop", "drop", f"{name} drops", fixed={"player": turn}, fields=drop_fields, danger=True)
        )
    else:
        cards = hand if hand is not None else unseen
        must_play = public.get("must_play")
        barred = turn in public.get("barred", [])
        if not barred:
            actions.append(
                Action(
                    "spread",
                    "spread",
                    f"{name} spreads",
                    fixed={"player": turn},
                    fields=(Field("cards", "cards", "Cards spread", picker=picker(cards)),),
                )
            )
            spreads = tuple((s["id"], " ".join(s["cards"])) for s in public.get("spreads", []))
            if spreads:
                actions.append(
                    Action(
                        "hit",
                        "hit",
                        f"{name} hits a spread",
                        fixed={"player": turn},
                        fields=(
                            Field("card", "card", "Card played", picker=picker(cards)),
                            Field("spread", "choice", "On spread", choices=spreads),
                        ),
                    )
                )
        discardable = [c for c in cards if c != public.get("taken_from_discard")]
        discard_fields: tuple[Field, ...] = (
            Field("card", "card", "Card discarded", picker=picker(discardable)),
        )
        if tracking == "count_only" and public.get("stock_count", 1) == 0:
            discard_fields = (*discard_fields, totals)
        if not must_play:
            actions.append(
                Action(
                    "discard",
                    "discard",
                    f"{name} discards",
                    fixed={"player": turn},
                    fields=discard_fields,
                    primary=True,
                )
            )
    if public.get("slap_open") and public.get("rules", {}).get("slap"):
        actions.append(
            Action(
                "slap",
                "slap",
                "Slap!",
                fields=(Field("player", "player", "Who slapped?", choices=_choices(board, ids)),),
            )
        )
    return actions


def _stakes(public: Mapping[str, Any], board: Board) -> list[Action]:
    if public.get("over"):
        return []
    ids = [int(p) for p in public.get("players", [])]
    settle = public.get("settle")
    if settle == "first_out":
        fields: tuple[Field, ...] = (
            Field("winner", "player", "Who went out first?", choices=_choices(board, ids)),
        )
    elif settle == "loser_pays":
        fields = (Field("loser", "player", "Who lost?", choices=_choices(board, ids)),)
    else:
        fields = (Field("scores", "scores", "Scores", players=_choices(board, ids)),)
        if public.get("variant") == "fifty_one":
            fields = (
                *fields,
                Field("stop", "player", "Who called Stop?", choices=_choices(board, ids), required=False),
            )
    return [Action("result", "result", "Record the result", fields=fields, primary=True)]


_BUILDERS = {
    "farmer": _farmer,
    "fan_tan": _fan_tan,
    "newmarket": _newmarket,
    "tonk": _tonk,
    "stakes": _stakes,
}


def legal_actions(game: str, public: Mapping[str, Any], board: Board) -> list[Action]:
    builder = _BUILDERS.get(game)
    return builder(public, board) if builder else []


# --------------------------------------------------------------------------- parsing a submitted form


def _int(value: str | None, label: str) -> int:
    try:
        return int(value or "")
    except (TypeError, ValueError) as error:
        raise ValidationFailed(f"Choose {label.lower()}.") from error


def payload_from(action: Action, data: QueryDict) -> dict[str, Any]:
    """The engine action a submitted form asks for: fixed values plus the fields as typed."""
    payload: dict[str, Any] = {"type": action.type, **action.fixed}
    for spec in action.fields:
        value = data.get(spec.name, "")
        if spec.kind in ("player", "choice"):
            if value == "":
                if spec.required:
                    raise ValidationFailed(f"Choose: {spec.label}")
                continue
            allowed = {str(choice): choice for choice, _ in spec.choices}
            if value not in allowed:
                raise ValidationFailed(f"Choose one of the options: {spec.label}")
            payload[spec.name] = allowed[value]
        elif spec.kind == "card":
            if not value:
                raise ValidationFailed(f"Pick a card: {spec.label}")
            payload[spec.name] = value
        elif spec.kind == "cards":
            cards = data.getlist(spec.name)
            if not cards:
                raise ValidationFailed(f"Pick the cards: {spec.label}")
            payload[spec.name] = cards
        elif spec.kind == "money":
            payload[spec.name] = parse_dollars(value, field=spec.label.lower())
        elif spec.kind == "scores":
            payload[spec.name] = {
                str(pid): _int(data.get(f"{spec.name}_{pid}", ""), f"a number for {name}")
                for pid, name in spec.players
            }
        elif spec.kind == "card_map":
            chosen = {str(pid): data.get(f"{spec.name}_{pid}", "") for pid, _ in spec.players}
            missing = [name for pid, name in spec.players if not chosen[str(pid)]]
            if missing:
                raise ValidationFailed(f"Pick a card for {', '.join(missing)}.")
            payload[spec.name] = chosen
        elif spec.kind == "hands":
            payload.update(hands_payload(spec.name, spec.slots, data))
    return payload


def find_action(actions: Sequence[Action], key: str) -> Action:
    for action in actions:
        if action.key == key:
            return action
    raise ValidationFailed(
        "That action is not possible now; the screen has been refreshed.", code="not_legal_now"
    )
