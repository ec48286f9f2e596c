"""The engine interface shared by every game.

Parties (who pays whom) are plain strings so engines stay free of the ledger:

* ``wallet:<player_id>`` — the player's wallet (for pot games: taken from their reserve hold)
* ``layout:<player_id>`` — the player's chips on a house-banked layout (Faro)
* ``bank`` — the table's tray (the house)
* ``pot:<name>`` — a player pot (``pot:farm``, ``pot:main``, ``pot:AH`` …)
* ``rake`` — house rake revenue

The Django side maps parties to ledger accounts and posts the settlements.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

BANK = "bank"
RAKE = "rake"


def wallet(player: int) -> str:
    return f"wallet:{player}"


def layout(player: int) -> str:
    return f"layout:{player}"


def pot(name: str) -> str:
    return f"pot:{name}"


@dataclass(frozen=True, slots=True)
class Settlement:
    """One movement of chips caused by an action: ``amount`` cents from payer to payee."""

    kind: str  # bet, win, loss, ante, payout, pot, penalty, push_return, rake, ...
    payer: str
    payee: str
    amount: int
    player: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "from": self.payer,
            "to": self.payee,
            "amount": self.amount,
            "player": self.player,
        }


@dataclass(frozen=True, slots=True)
class TableContext:
    """What the table tells an engine when a round starts (all money in cents).

    ``seats`` maps seat number → player id for the players dealt in, in seat order.
    ``carry`` holds what carries between rounds (pots, who deals next) as plain data.
    ``deck`` is the electronic shoe's full order, or None for a manual shoe.
    ``extra_decks`` holds further committed decks (Farmer's 6♥ draw).
    """

    rules: Mapping[str, Any]
    seats: Mapping[int, int]
    min_bet: int
    max_bet: int
    ante: int
    deck: tuple[str, ...] | None = None
    extra_decks: tuple[tuple[str, ...], ...] = ()
    carry: Mapping[str, Any] = field(default_factory=dict)


def split_evenly(amount: int, players_in_order: list[int] | tuple[int, ...]) -> dict[int, int]:
    """Split cents evenly; the remainder goes one cent at a time in the order given.

    Callers pass players starting at the dealer's left (GAMES.md), so the odd cents land
    where the rules say. Nothing is rounded away: the shares always sum to ``amount``.
    """
    if not players_in_order:
        return {}
    share, remainder = divmod(amount, len(players_in_order))
    shares = {player: share for player in players_in_order}
    for player in players_in_order[:remainder]:
        shares[player] += 1
    return shares


def seats_from_left_of(seat: int, seats: Mapping[int, int]) -> list[int]:
    """Player ids in deal order: the next higher occupied seat after ``seat``, wrapping round."""
    order = sorted(seats)
    after = [s for s in order if s > seat] + [s for s in order if s <= seat]
    return [seats[s] for s in after]


class Engine(Protocol):
    """A game's rules. ``apply`` raises ``IllegalAction`` and changes nothing when refused."""

    game: str

    def default_rules(self) -> dict[str, Any]: ...

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]: ...

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """Cents to hold from each dealt-in player's wallet for the round, antes included.

        Empty for house-banked games. Every payment a player makes in the round is taken
        from this hold; an engine never asks a player for more than what is left of it.
        """
        ...

    def start(self, ctx: TableContext) -> tuple[Any, tuple[Settlement, ...]]: ...

    def apply(self, state: Any, action: Mapping[str, Any]) -> tuple[Any, tuple[Settlement, ...]]: ...

    def public_state(self, state: Any) -> dict[str, Any]: ...

    def is_over(self, state: Any) -> bool: ...

    def carry_out(self, state: Any) -> dict[str, Any]:
        """What the next round of this table inherits (pots, dealer position)."""
        ...

    def legal_actions(self, state: Any) -> list[dict[str, Any]]:
        """Every action ``apply`` would accept now, for consoles ("legal actions only") and bots.

        Open-ended choices (a Faro bet's placement and amount, a Newmarket bid's amount) are
        not enumerated: the engine lists the action types and fixed fields instead.
        """
        ...
