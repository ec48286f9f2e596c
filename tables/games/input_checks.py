"""Refusing what clients send the pot and stakes engines: rules, the table's context, actions.

Each check refuses with ``IllegalAction`` and a message for the dealer. Farmer and Fan Tan
("pot games" below) and Tonk and the result-keyed games ("stakes games") word some
refusals differently, and Newmarket words its own; where they check the same thing, each
wording keeps its own check (named for the games it serves), so the codes and messages
clients already see do not change. The checks at the top are the same for every game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeGuard

from tables.games.base import Engine, TableContext, seats_after
from tables.games.errors import IllegalAction, refuse
from tables.games.payments import dollars

DEFAULT_CHIP = 100
# 18 digits keep a player id keyed as a string within a bigint.
_DIGITS = re.compile(r"[0-9]{1,18}")
_SIGNED_DIGITS = re.compile(r"-?[0-9]{1,18}")


# --- every game ----------------------------------------------------------------------------


def is_int(value: object) -> TypeGuard[int]:
    """JSON booleans are ints to Python; chips, counts and player ids never are."""
    return isinstance(value, int) and not isinstance(value, bool)


def present(action: Mapping[str, Any], key: str) -> bool:
    """A JSON null counts as absent: consoles often send every field."""
    return action.get(key) is not None


def id_from_key(key: object, *, signed: bool = False) -> int | None:
    """A player id used as a JSON object key, where it arrives as a string ("12"); else None.

    ``signed`` is the pot games' reading: a minus sign and blanks around the digits pass.
    """
    if is_int(key):
        return key
    if not isinstance(key, str):
        return None
    text = key.strip() if signed else key
    if not (_SIGNED_DIGITS if signed else _DIGITS).fullmatch(text):
        return None
    return int(text)


def check_dealt_in(player: int, players: Sequence[int]) -> int:
    if player not in players:
        raise refuse(f"Player {player} is not dealt into this round.")
    return player


def check_turn(player: int, due: int) -> None:
    if player != due:
        raise IllegalAction("not_your_turn", f"It is player {due}'s turn, not player {player}'s.")


def check_phase(phase: str, wanted: str, doing: str) -> None:
    if phase != wanted:
        raise refuse(f"Cannot {doing} now: the round is at '{phase}'.")


def action_type(action: object) -> object:
    """The action's ``type``, unchecked, once the action is an object (stakes games, Newmarket)."""
    if not isinstance(action, Mapping):
        raise refuse("An action must be an object with a 'type'.")
    return action.get("type")


def check_context(ctx: object) -> TableContext:
    """The table's context, refused when a field has the wrong shape; every engine calls it first.

    The table service builds contexts from the database, but a replay tool, a bad carry or a
    future caller may not. This checks only the shapes every engine relies on (seat and
    player ids are whole numbers, each player in one seat, money is whole cents, cards are
    strings); each game still checks its own counts, rules and decks.
    """
    if not isinstance(ctx, TableContext):
        raise refuse("The table's context is missing.")
    if not isinstance(ctx.rules, Mapping):
        raise IllegalAction("bad_rules", "The rules must be a JSON object.")
    if not isinstance(ctx.seats, Mapping):
        raise refuse("The seats must map seat numbers to player ids.")
    if not all(is_int(seat) and is_int(player) for seat, player in ctx.seats.items()):
        raise refuse("Seat numbers and player ids must be whole numbers.")
    if len(set(ctx.seats.values())) != len(ctx.seats):
        raise refuse("A player cannot sit in two seats.")
    for name in ("min_bet", "max_bet", "ante"):
        value = getattr(ctx, name)
        if not is_int(value) or value < 0:
            raise refuse(f"The table's {name} must be whole cents, not {value!r}.")
    if ctx.deck is not None:
        _check_card_strings(ctx.deck, "The shoe")
    if not isinstance(ctx.extra_decks, tuple | list):
        raise refuse("The extra decks must be a list of decks.")
    for deck in ctx.extra_decks:
        _check_card_strings(deck, "An extra deck")
    if not isinstance(ctx.carry, Mapping):
        raise refuse("The carry from the last round must be a JSON object.")
    return ctx


def dealer_seat_for(
    seats: Collection[int],
    carry: Mapping[str, Any],
    *,
    bad_seat: str = "The carried dealer seat is not a seat number.",
    redeal: bool = True,
) -> int:
    """Lowest seat at a table's first round, else one to the left of the last dealer: every game
    passes the deal this way, and words a malformed carried seat its own way (``bad_seat``).

    With ``redeal`` (the stakes games), ``carry["same_dealer"]`` (a redeal after a drawn deal)
    keeps the last dealer when they are still seated.
    """
    previous = carry.get("dealer_seat")
    if previous is None:
        return min(seats)
    if not is_int(previous):
        raise refuse(bad_seat)
    if redeal and carry.get("same_dealer") is True and previous in seats:
        return int(previous)
    return seats_after(previous, seats)[0]


def _check_card_strings(deck: object, what: str) -> None:
    if not isinstance(deck, tuple | list) or not all(isinstance(card, str) for card in deck):
        raise IllegalAction("bad_card", f"{what} must be a list of cards (strings such as '10H').")


# --- pot games: rules ----------------------------------------------------------------------


def check_int(value: object, *, what: str, minimum: int = 0, code: str = "illegal_action") -> int:
    if not is_int(value):
        raise IllegalAction(code, f"{what} must be a whole number, not {value!r}.")
    if value < minimum:
        raise IllegalAction(code, f"{what} must be at least {minimum}, not {value}.")
    return value


def check_rules(rules: object, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and refuse unknown keys, so a typo in a table's rules is caught early."""
    if not isinstance(rules, Mapping):
        raise IllegalAction("bad_rules", "The rules must be a JSON object.")
    unknown = sorted(str(key) for key in rules if key not in defaults)
    if unknown:
        raise IllegalAction("bad_rules", f"Unknown rule(s): {', '.join(unknown)}.", {"rules": unknown})
    filled = dict(defaults)
    filled.update(rules)
    filled["chip"] = check_int(filled["chip"], what="The chip", minimum=1, code="bad_rules")
    filled["rake"] = check_rake(filled["rake"])
    return filled


def check_rake(value: object) -> dict[str, Any] | None:
    """Percent rake is the engine's business; time rake is charged by the table service."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise IllegalAction("bad_rules", "The rake must be null or a JSON object.")
    kind = value.get("kind")
    if kind == "percent":
        return _check_rake_fields(value, {"percent": 0, "cap": None}, kind)
    if kind == "time":
        return _check_rake_fields(value, {"amount": 1, "minutes": 1}, kind)
    raise IllegalAction("bad_rules", "The rake's kind must be 'percent' or 'time'.")


def _check_rake_fields(
    value: Mapping[str, Any], fields: Mapping[str, int | None], kind: str
) -> dict[str, Any]:
    unknown = sorted(str(key) for key in value if key != "kind" and key not in fields)
    if unknown:
        raise IllegalAction("bad_rules", f"Unknown {kind} rake field(s): {', '.join(unknown)}.")
    checked: dict[str, Any] = {"kind": kind}
    for name, minimum in fields.items():
        if minimum is None:  # optional (the cap)
            raw = value.get(name)
            checked[name] = None if raw is None else check_int(raw, what=f"rake.{name}", code="bad_rules")
            continue
        checked[name] = check_int(value.get(name), what=f"rake.{name}", minimum=minimum, code="bad_rules")
    if kind == "percent" and checked["percent"] > 100:
        raise IllegalAction("bad_rules", "rake.percent cannot exceed 100.")
    return checked


# --- pot games: the table's context --------------------------------------------------------


def pot_table(
    engine: Engine[Any], ctx: TableContext, *, game: str, fewest: int, most: int
) -> tuple[dict[str, Any], int, tuple[tuple[int, int], ...]]:
    """A pot game's checked rules, ante and (seat, player) pairs in seat order: what ``reserve``
    and ``start`` both read first, refused in this order (``check_context`` has already
    refused seats of the wrong shape, so only their number is left to check)."""
    check_context(ctx)
    rules = engine.validate_rules(ctx.rules)
    ante = table_ante(ctx, rules["chip"])
    if not fewest <= len(ctx.seats) <= most:
        raise refuse(f"{game} needs {fewest} to {most} players; {len(ctx.seats)} are dealt in.")
    return rules, ante, tuple(sorted(ctx.seats.items()))


def table_ante(ctx: TableContext, chip: int) -> int:
    """The round's ante: the table's, or one chip when the table set none (GAMES.md Fan Tan).

    Pot-game antes must be whole chips and lie within the table limits (GAMES.md).
    """
    ante = ctx.ante or chip
    if ante % chip:
        raise refuse(f"The ante ({dollars(ante)}) must be a whole number of chips ({dollars(chip)}).")
    if ante < ctx.min_bet:
        raise IllegalAction(
            "below_minimum",
            f"The ante ({dollars(ante)}) is below the table minimum ({dollars(ctx.min_bet)}).",
        )
    if ante > ctx.max_bet:
        raise IllegalAction(
            "limit_exceeded",
            f"The ante ({dollars(ante)}) is above the table maximum ({dollars(ctx.max_bet)}).",
        )
    return ante


def carried_pot(carry: Mapping[str, Any], name: str) -> int:
    """A pot's balance left by the table's previous round (0 at a first round)."""
    pots = carry.get("pots", {})
    if pots is None:
        return 0
    if not isinstance(pots, Mapping):
        raise refuse("The carried pots must be a JSON object.")
    return check_int(pots.get(name, 0), what=f"The carried pot '{name}'")


def carried_int(carry: Mapping[str, Any], key: str) -> int | None:
    value = carry.get(key)
    if value is None:
        return None
    if not is_int(value):
        raise refuse(f"The carried '{key}' must be a whole number.")
    return value


def check_deck(deck: Sequence[str], full: Sequence[str], *, what: str = "The shoe") -> tuple[str, ...]:
    """An electronic deck must be exactly the game's cards in some order (``check_context`` has
    already refused a deck that is not a list of strings)."""
    if sorted(deck) != sorted(full):
        raise IllegalAction(
            "bad_card", f"{what} is not a shuffled copy of this game's {len(full)}-card deck."
        )
    return tuple(deck)


# --- pot games: actions --------------------------------------------------------------------


def handler_for[H](action: object, handlers: Mapping[str, H], *, game: str) -> tuple[H, Mapping[str, Any]]:
    """The handler of the action's ``type``, refused when ``game`` has no such action."""
    if not isinstance(action, Mapping):
        raise refuse("An action must be a JSON object with a 'type'.")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise refuse("An action needs a 'type' string.")
    handler = handlers.get(kind)
    if handler is None:
        raise refuse(f"{game} has no action '{kind}' ({', '.join(handlers)}).")
    return handler, action


def action_player(action: Mapping[str, Any], players: Sequence[int], *, field: str = "player") -> int:
    """A player id from an action: an int (not a bool or string) of a dealt-in player."""
    value = action.get(field)
    if not is_int(value):
        raise refuse(f"'{field}' must be a player id (a whole number).")
    return check_dealt_in(value, players)


def _pot_key_player(key: object, players: Sequence[int], field: str) -> int:
    player = id_from_key(key, signed=True)
    if player is None:
        raise refuse(f"{key!r} is not a player id.")
    return check_dealt_in(player, players)


def by_player(value: object, players: Sequence[int], *, field: str) -> dict[int, Any]:
    """A ``{player: ...}`` object covering every dealt-in player exactly once."""
    keyed = player_map(value, players, field, key_player=_pot_key_player)
    missing = [p for p in players if p not in keyed]
    if missing:
        raise refuse(f"'{field}' is missing player(s) {', '.join(map(str, missing))}.")
    return keyed


def forbid_cards(action: Mapping[str, Any], field: str) -> None:
    if action.get(field) is not None:
        raise refuse(f"With an electronic shoe the cards come from the shoe; do not send '{field}'.")


# --- stakes games: rules -------------------------------------------------------------------


def check_rule_keys(rules: object, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The rules over the game's defaults as a plain dict, refusing keys the defaults lack."""
    if not isinstance(rules, Mapping):
        raise IllegalAction("bad_rules", "rules must be an object.")
    unknown = sorted(str(key) for key in rules if key not in defaults)
    if unknown:
        raise IllegalAction("bad_rules", f"Unknown rule(s) for this game: {', '.join(unknown)}.")
    return {**defaults, **rules}


def rules_int(rules: Mapping[str, Any], key: str, *, low: int, high: int | None = None) -> int:
    value = rules[key]
    if not is_int(value) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise IllegalAction("bad_rules", f"rules.{key} must be a whole number {bound}, not {value!r}.")
    return int(value)


def check_time_rake(rake: object) -> dict[str, Any] | None:
    """Only the time rake fits a game with no pot; the Django side charges it.

    A percent rake is taken "from each pot as it is won" (GAMES.md); these games move
    stakes wallet to wallet and never have a pot, so a percent rake would silently never be
    charged. We refuse it rather than accept a setting that does nothing.
    """
    if rake is None:
        return None
    if not isinstance(rake, Mapping):
        raise IllegalAction("bad_rules", "rules.rake must be null or an object.")
    if rake.get("kind") == "percent":
        raise IllegalAction("bad_rules", "A percent rake needs a pot; this game has none. Use a time rake.")
    if rake.get("kind") != "time" or set(rake) != {"kind", "amount", "minutes"}:
        raise IllegalAction(
            "bad_rules", 'rules.rake must be {"kind": "time", "amount": cents, "minutes": n}.'
        )
    amount, minutes = rake["amount"], rake["minutes"]
    if not (is_int(amount) and amount > 0 and is_int(minutes) and minutes > 0):
        raise IllegalAction("bad_rules", "A time rake needs a positive amount in cents and positive minutes.")
    return {"kind": "time", "amount": amount, "minutes": minutes}


# --- stakes games: the table's context -----------------------------------------------------


def check_stake(ctx: TableContext, chip: int) -> int:
    """The table's ante is the stake: a positive multiple of the chip within the limits."""
    stake = ctx.ante
    if stake <= 0:
        raise refuse("The table's stake (ante) must be a positive amount.")
    if stake % chip:
        raise refuse(f"The stake {dollars(stake)} is not a multiple of the chip ({dollars(chip)}).")
    if stake < ctx.min_bet:
        raise IllegalAction(
            "below_minimum", f"The stake {dollars(stake)} is below the table minimum {dollars(ctx.min_bet)}."
        )
    if stake > ctx.max_bet:
        raise IllegalAction(
            "limit_exceeded", f"The stake {dollars(stake)} is above the table maximum {dollars(ctx.max_bet)}."
        )
    return stake


def stakes_table(engine: Engine[Any], ctx: TableContext, *, most: int | None) -> tuple[dict[str, Any], int]:
    """A stakes game's checked rules and stake, its seats checked for 2 to ``most`` players:
    what ``reserve`` and ``start`` both read first, refused in this order (``check_context``
    has already refused seats of the wrong shape, so only their number is left to check)."""
    check_context(ctx)
    rules = engine.validate_rules(ctx.rules)
    stake = check_stake(ctx, rules["chip"])
    if len(ctx.seats) < 2 or (most is not None and len(ctx.seats) > most):
        wanted = f"2 to {most}" if most is not None else "at least 2"
        raise refuse(f"This game needs {wanted} players, not {len(ctx.seats)}.")
    return rules, stake


# --- stakes games: actions -----------------------------------------------------------------


def player_field(action: Mapping[str, Any], key: str, players: Sequence[int]) -> int:
    """The seated player an action names; ids are JSON integers, not strings or booleans."""
    if key not in action:
        raise refuse(f"The action needs '{key}' (a player id).")
    value = action[key]
    if not is_int(value):
        raise refuse(f"'{key}' must be a player id (a whole number), not {value!r}.")
    return check_dealt_in(int(value), players)


def _stakes_key_player(key: object, players: Sequence[int], field: str) -> int:
    player = id_from_key(key)
    if player is None:
        raise refuse(f"'{field}' is keyed by player ids, not {key!r}.")
    if player not in players:
        raise refuse(f"'{field}' names player {player}, who is not in this round.")
    return player


def player_map(
    value: object,
    players: Sequence[int],
    field: str,
    *,
    key_player: Callable[[object, Sequence[int], str], int] = _stakes_key_player,
) -> dict[int, Any]:
    """An object keyed by player id, each player once; ``key_player`` reads (or refuses) a key."""
    if not isinstance(value, Mapping):
        raise refuse(f"'{field}' must be an object keyed by player id.")
    result: dict[int, Any] = {}
    for key, item in value.items():
        player = key_player(key, players, field)
        if player in result:
            raise refuse(f"'{field}' names player {player} twice.")
        result[player] = item
    return result


def player_map_for_all(value: object, players: Sequence[int], field: str) -> dict[int, Any]:
    """An object keyed by player id naming every player in the round, no more and no fewer."""
    mapping = player_map(value, players, field)
    missing = [p for p in players if p not in mapping]
    if missing:
        raise refuse(f"'{field}' is missing player(s) {missing}.")
    return mapping


def int_map_for_all(value: object, players: Sequence[int], field: str) -> dict[int, int]:
    """Whole numbers for every player in the round, no more and no fewer."""
    mapping = player_map_for_all(value, players, field)
    for player, number in mapping.items():
        if not is_int(number):
            raise refuse(f"'{field}' for player {player} must be a whole number.")
    return {p: int(mapping[p]) for p in players}
