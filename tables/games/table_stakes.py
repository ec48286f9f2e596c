"""Shared pieces of the wallet-to-wallet stakes games (Tonk and the result-keyed games).

These games have no pot: every payment goes from one player's reserve hold straight to
another player's wallet. The helpers here validate the table's common rule keys, parse
the players an action names, place the dealer, and pay in part when a reserve runs dry
(GAMES.md "Reserve (table stakes)").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tables.games.base import Settlement, TableContext, wallet
from tables.games.errors import IllegalAction

DEFAULT_CHIP = 100
_DIGITS = re.compile(r"[0-9]{1,18}")


def bad_rules(message: str) -> IllegalAction:
    return IllegalAction("bad_rules", message)


def is_int(value: object) -> bool:
    """JSON integers only: ``True`` is an int to Python but never a count or an id here."""
    return isinstance(value, int) and not isinstance(value, bool)


def rules_int(rules: Mapping[str, Any], key: str, *, low: int, high: int | None = None) -> int:
    value = rules[key]
    if not is_int(value) or value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise bad_rules(f"rules.{key} must be a whole number {bound}, not {value!r}.")
    return int(value)


def check_rule_keys(rules: object, allowed: Sequence[str]) -> dict[str, Any]:
    """A copy of the rules as a plain dict, refusing keys this game does not know."""
    if not isinstance(rules, Mapping):
        raise bad_rules("rules must be an object.")
    unknown = sorted(str(key) for key in rules if key not in allowed)
    if unknown:
        raise bad_rules(f"Unknown rule(s) for this game: {', '.join(unknown)}.")
    return dict(rules)


def check_rake(rake: object) -> dict[str, Any] | None:
    """Only the time rake fits a game with no pot; the Django side charges it.

    A percent rake is taken "from each pot as it is won" (GAMES.md); these games move
    stakes wallet to wallet and never have a pot, so a percent rake would silently never be
    charged. We refuse it rather than accept a setting that does nothing.
    """
    if rake is None:
        return None
    if not isinstance(rake, Mapping):
        raise bad_rules("rules.rake must be null or an object.")
    if rake.get("kind") == "percent":
        raise bad_rules("A percent rake needs a pot; this game has none. Use a time rake.")
    if rake.get("kind") != "time" or set(rake) != {"kind", "amount", "minutes"}:
        raise bad_rules('rules.rake must be {"kind": "time", "amount": cents, "minutes": n}.')
    amount, minutes = rake["amount"], rake["minutes"]
    if not (is_int(amount) and amount > 0 and is_int(minutes) and minutes > 0):
        raise bad_rules("A time rake needs a positive amount in cents and positive minutes.")
    return {"kind": "time", "amount": amount, "minutes": minutes}


def check_stake(ctx: TableContext, chip: int) -> int:
    """The table's ante is the stake: a positive multiple of the chip within the limits."""
    stake = ctx.ante
    if not is_int(stake) or stake <= 0:
        raise IllegalAction("illegal_action", "The table's stake (ante) must be a positive amount.")
    if stake % chip:
        raise IllegalAction("illegal_action", f"The stake {stake} is not a multiple of the chip ({chip}).")
    if stake < ctx.min_bet:
        raise IllegalAction("below_minimum", f"The stake {stake} is below the table minimum {ctx.min_bet}.")
    if stake > ctx.max_bet:
        raise IllegalAction("limit_exceeded", f"The stake {stake} is above the table maximum {ctx.max_bet}.")
    return stake


def check_seats(ctx: TableContext, *, low: int, high: int | None) -> None:
    seats = ctx.seats
    if not all(is_int(seat) and is_int(player) for seat, player in seats.items()):
        raise IllegalAction("illegal_action", "Seats and players must be whole numbers.")
    if len(set(seats.values())) != len(seats):
        raise IllegalAction("illegal_action", "A player cannot sit in two seats.")
    if len(seats) < low or (high is not None and len(seats) > high):
        wanted = f"{low} to {high}" if high is not None else f"at least {low}"
        raise IllegalAction("illegal_action", f"This game needs {wanted} players, not {len(seats)}.")


def dealer_seat_for(seats: Mapping[int, int], carry: Mapping[str, Any]) -> int:
    """Lowest seat at a table's first round, else one to the left of the last dealer.

    ``carry["same_dealer"]`` (a redeal after a drawn deal) keeps the last dealer when
    they are still seated.
    """
    previous = carry.get("dealer_seat")
    if previous is None:
        return min(seats)
    if not is_int(previous):
        raise IllegalAction("illegal_action", "The carried dealer seat is not a seat number.")
    if carry.get("same_dealer") is True and previous in seats:
        return int(previous)
    later = [seat for seat in sorted(seats) if seat > previous]
    return later[0] if later else min(seats)


def order_from_left(seats: Mapping[int, int], dealer_seat: int) -> tuple[int, ...]:
    """Players from the dealer's left round to the dealer, who comes last."""
    ordered = sorted(seats)
    after = [s for s in ordered if s > dealer_seat] + [s for s in ordered if s <= dealer_seat]
    return tuple(seats[s] for s in after)


def player_field(action: Mapping[str, Any], key: str, players: Sequence[int]) -> int:
    """The seated player an action names; ids are JSON integers, not strings or booleans."""
    if key not in action:
        raise IllegalAction("illegal_action", f"The action needs '{key}' (a player id).")
    value = action[key]
    if not is_int(value):
        raise IllegalAction("illegal_action", f"'{key}' must be a player id (a whole number), not {value!r}.")
    if value not in players:
        raise IllegalAction("illegal_action", f"Player {value} is not dealt into this round.")
    return int(value)


def player_key(key: object, players: Sequence[int], field: str) -> int:
    """A player id used as an object key: JSON keys arrive as strings, so digits are accepted."""
    if isinstance(key, int) and not isinstance(key, bool):
        player = key
    elif isinstance(key, str) and _DIGITS.fullmatch(key):
        player = int(key)
    else:
        raise IllegalAction("illegal_action", f"'{field}' is keyed by player ids, not {key!r}.")
    if player not in players:
        raise IllegalAction("illegal_action", f"'{field}' names player {player}, who is not in this round.")
    return player


def player_map(value: object, players: Sequence[int], field: str) -> dict[int, Any]:
    """An object keyed by player id, each player once."""
    if not isinstance(value, Mapping):
        raise IllegalAction("illegal_action", f"'{field}' must be an object keyed by player id.")
    result: dict[int, Any] = {}
    for key, item in value.items():
        player = player_key(key, players, field)
        if player in result:
            raise IllegalAction("illegal_action", f"'{field}' names player {player} twice.")
        result[player] = item
    return result


def int_map_for_all(value: object, players: Sequence[int], field: str) -> dict[int, int]:
    """Whole numbers for every player in the round, no more and no fewer."""
    mapping = player_map(value, players, field)
    missing = [p for p in players if p not in mapping]
    if missing:
        raise IllegalAction("illegal_action", f"'{field}' is missing player(s) {missing}.")
    for player, number in mapping.items():
        if not is_int(number):
            raise IllegalAction("illegal_action", f"'{field}' for player {player} must be a whole number.")
    return {p: int(mapping[p]) for p in players}


class Purse:
    """What is left of each reserve while one action settles; never lets a payer go below 0."""

    def __init__(self, players: Sequence[int], left: Sequence[int]) -> None:
        self.players = tuple(players)
        self.left = dict(zip(players, left, strict=True))
        self.settlements: list[Settlement] = []

    def pay(self, payer: int, payee: int, amount: int, kind: str) -> int:
        """Pay in part when the reserve cannot cover it; the receiver gets what there is."""
        paid = min(amount, self.left[payer])
        if paid > 0:
            self.left[payer] -= paid
            self.settlements.append(Settlement(kind, wallet(payer), wallet(payee), paid, payer))
        return max(paid, 0)

    def take(self, payer: int, amount: int) -> int:
        """Take up to ``amount`` from a reserve without saying where it goes yet."""
        taken = max(min(amount, self.left[payer]), 0)
        self.left[payer] -= taken
        return taken

    def remaining(self) -> tuple[int, ...]:
        return tuple(self.left[p] for p in self.players)


def share_among(purse: Purse, dues: Sequence[tuple[int, int]], winners: Sequence[int], kind: str) -> None:
    """Collect each payer's due (in part if need be) and split the total evenly among winners.

    The total collected is split with the odd cent one at a time in ``winners`` order (the
    caller passes them from the dealer's left); payers' money is then matched to winners'
    shares in order, so every cent collected reaches a winner and shares differ by at most
    one cent.
    """
    collected = [(payer, purse.take(payer, due)) for payer, due in dues]
    total = sum(amount for _, amount in collected)
    if total == 0 or not winners:
        return
    base, odd = divmod(total, len(winners))
    shares = [[winner, base + (1 if i < odd else 0)] for i, winner in enumerate(winners)]
    index = 0
    for payer, amount in collected:
        while amount > 0:
            winner, owed = shares[index]
            part = min(amount, owed)
            if part > 0:
                purse.settlements.append(Settlement(kind, wallet(payer), wallet(winner), part, payer))
            amount -= part
            shares[index][1] = owed - part
            if shares[index][1] == 0:
                index += 1
