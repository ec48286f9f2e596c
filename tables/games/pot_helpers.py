"""Checks and money helpers shared by the player-pot engines (Farmer, Fan Tan).

Everything here refuses bad input with ``IllegalAction`` only, so an engine built on it
can promise that no other exception escapes, whatever JSON a client sends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tables.games.base import TableContext
from tables.games.errors import IllegalAction

DEFAULT_CHIP = 100
_PLAYER_KEY = re.compile(r"-?[0-9]{1,18}")


def is_int(value: object) -> bool:
    """JSON booleans are ints to Python; chips and player ids never are."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_int(value: object, *, what: str, minimum: int = 0, code: str = "illegal_action") -> int:
    if not is_int(value):
        raise IllegalAction(code, f"{what} must be a whole number, not {value!r}.")
    assert isinstance(value, int)
    if value < minimum:
        raise IllegalAction(code, f"{what} must be at least {minimum}, not {value}.")
    return value


# --- rules -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PercentRake:
    """The house's cut of a pot as it is won: floor to the cent, capped."""

    percent: int
    cap: int | None

    def take(self, amount: int) -> int:
        cut = amount * self.percent // 100
        return cut if self.cap is None else min(cut, self.cap)


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


def percent_rake(rules: Mapping[str, Any]) -> PercentRake | None:
    rake = rules.get("rake")
    if rake is None or rake.get("kind") != "percent":
        return None
    return PercentRake(percent=rake["percent"], cap=rake["cap"])


# --- the table context ---------------------------------------------------------------------


def check_seats(seats: object, *, game: str, fewest: int, most: int) -> tuple[tuple[int, int], ...]:
    """(seat, player) pairs in seat order, after refusing anything a table could not hold."""
    if not isinstance(seats, Mapping):
        raise IllegalAction("illegal_action", "The seats must map seat numbers to player ids.")
    pairs = []
    for seat, player in seats.items():
        if not is_int(seat) or not is_int(player):
            raise IllegalAction("illegal_action", "Seat numbers and player ids must be whole numbers.")
        pairs.append((seat, player))
    if len({player for _, player in pairs}) != len(pairs):
        raise IllegalAction("illegal_action", "A player cannot sit in two seats.")
    if not fewest <= len(pairs) <= most:
        raise IllegalAction(
            "illegal_action", f"{game} needs {fewest} to {most} players; {len(pairs)} are dealt in."
        )
    return tuple(sorted(pairs))


def seats_after(seat: int, seat_numbers: Sequence[int]) -> list[int]:
    """Seat numbers from the left of ``seat``: next higher first, wrapping round."""
    ordered = sorted(seat_numbers)
    return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]


def table_ante(ctx: TableContext, chip: int) -> int:
    """The round's ante: the table's, or one chip when the table set none (GAMES.md Fan Tan).

    Pot-game antes must be whole chips and lie within the table limits (GAMES.md).
    """
    ante = check_int(ctx.ante, what="The table's ante")
    ante = ante or chip
    if ante % chip:
        raise IllegalAction("illegal_action", f"The ante ({ante}) must be a whole number of chips ({chip}).")
    if is_int(ctx.min_bet) and ante < ctx.min_bet:
        raise IllegalAction("below_minimum", f"The ante ({ante}) is below the table minimum ({ctx.min_bet}).")
    if is_int(ctx.max_bet) and ante > ctx.max_bet:
        raise IllegalAction(
            "limit_exceeded", f"The ante ({ante}) is above the table maximum ({ctx.max_bet})."
        )
    return ante


def check_carry(carry: object) -> Mapping[str, Any]:
    if not isinstance(carry, Mapping):
        raise IllegalAction("illegal_action", "The carry from the last round must be a JSON object.")
    return carry


def carried_pot(carry: Mapping[str, Any], name: str) -> int:
    """A pot's balance left by the table's previous round (0 at a first round)."""
    pots = carry.get("pots", {})
    if pots is None:
        return 0
    if not isinstance(pots, Mapping):
        raise IllegalAction("illegal_action", "The carried pots must be a JSON object.")
    return check_int(pots.get(name, 0), what=f"The carried pot '{name}'")


def carried_int(carry: Mapping[str, Any], key: str) -> int | None:
    value = carry.get(key)
    if value is None:
        return None
    if not is_int(value):
        raise IllegalAction("illegal_action", f"The carried '{key}' must be a whole number.")
    assert isinstance(value, int)
    return value


def check_deck(deck: object, full: Sequence[str], *, what: str = "The shoe") -> tuple[str, ...]:
    """An electronic deck must be exactly the game's cards in some order."""
    if not isinstance(deck, tuple | list) or sorted(map(str, deck)) != sorted(full) or len(deck) != len(full):
        raise IllegalAction(
            "bad_card", f"{what} is not a shuffled copy of this game's {len(full)}-card deck."
        )
    return tuple(deck)


# --- actions -------------------------------------------------------------------------------


def check_action(action: object) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(action, Mapping):
        raise IllegalAction("illegal_action", "An action must be a JSON object with a 'type'.")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise IllegalAction("illegal_action", "An action needs a 'type' string.")
    return kind, action


def action_player(action: Mapping[str, Any], players: Sequence[int], *, field: str = "player") -> int:
    """A player id from an action: an int (not a bool or string) of a dealt-in player."""
    value = action.get(field)
    if not is_int(value):
        raise IllegalAction("illegal_action", f"'{field}' must be a player id (a whole number).")
    assert isinstance(value, int)
    if value not in players:
        raise IllegalAction("illegal_action", f"Player {value} is not dealt into this round.")
    return value


def player_key(key: object, players: Sequence[int]) -> int:
    """A player id used as a JSON object key, where it arrives as a string ("12")."""
    player: int | None = None
    if is_int(key):
        assert isinstance(key, int)
        player = key
    elif isinstance(key, str) and _PLAYER_KEY.fullmatch(key.strip()):
        player = int(key.strip())
    if player is None:
        raise IllegalAction("illegal_action", f"{key!r} is not a player id.")
    if player not in players:
        raise IllegalAction("illegal_action", f"Player {player} is not dealt into this round.")
    return player


def by_player(value: object, players: Sequence[int], *, field: str) -> dict[int, Any]:
    """A ``{player: ...}`` object covering every dealt-in player exactly once."""
    if not isinstance(value, Mapping):
        raise IllegalAction("illegal_action", f"'{field}' must be an object keyed by player id.")
    keyed: dict[int, Any] = {}
    for key, item in value.items():
        player = player_key(key, players)
        if player in keyed:
            raise IllegalAction("illegal_action", f"'{field}' names player {player} twice.")
        keyed[player] = item
    missing = [p for p in players if p not in keyed]
    if missing:
        raise IllegalAction(
            "illegal_action", f"'{field}' is missing player(s) {', '.join(map(str, missing))}."
        )
    return keyed


def forbid_cards(action: Mapping[str, Any], field: str) -> None:
    if action.get(field) is not None:
        raise IllegalAction(
            "illegal_action", f"With an electronic shoe the cards come from the shoe; do not send '{field}'."
        )


# --- money ----------------------------------------------------------------------------------


def capped(amount: int, left: int) -> int:
    """A payment larger than what is left of a reserve is paid in part (GAMES.md "Reserve")."""
    return max(0, min(amount, left))
