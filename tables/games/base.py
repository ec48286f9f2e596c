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

from collections.abc import Iterable, Mapping, Sequence
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


def split_evenly(amount: int, players_in_order: Sequence[int]) -> dict[int, int]:
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


def seats_after(seat: int, seat_numbers: Iterable[int]) -> list[int]:
    """Seat numbers from the left of ``seat``: the next higher first, wrapping round.

    The first of them is where the deal (or the dealer button) moves next, so every game
    passes the deal round the table the same way.
    """
    ordered = sorted(seat_numbers)
    return [s for s in ordered if s > seat] + [s for s in ordered if s <= seat]


def seats_from_left_of(seat: int, seats: Mapping[int, int]) -> list[int]:
    """Player ids in deal order: the next higher occupied seat after ``seat``, wrapping round."""
    return [seats[s] for s in seats_after(seat, seats)]


def replaced_at[T](values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy with one item replaced: engine states are frozen, so they are never edited."""
    return (*values[:index], value, *values[index + 1 :])


# The keys of a ``legal_actions`` entry that are hints, not action fields (see
# ``Engine.legal_actions``): the shared ones, then those engines document of their own.
HINT_KEYS = frozenset(
    {"needs", "optional", "choices", "count", "bounds", "min_amount", "max_amount", "chip"}
    | {"max_player_action"}  # Faro
    | {"one_card_each"}  # Farmer
    | {"illegal"}  # Fan Tan
    | {"held", "unseen", "with"}  # Tonk
)


def without_hints(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A ``legal_actions`` entry's action fields: what to fill and pass to ``apply``."""
    return {key: value for key, value in entry.items() if key not in HINT_KEYS}


class NoHandsToShow:
    """``known_hands`` and ``last_from_shoe`` of an engine that shows the dealer no hands (Faro,
    the card-room games) or hands out no cards (Fan Tan, Newmarket: the hands are open).

    An engine that knows more overrides them (``Engine.known_hands``, ``Engine.last_from_shoe``).
    """

    def known_hands(self, state: Any) -> dict[int, list[str]]:
        return {}

    def last_from_shoe(self, state: Any) -> list[tuple[int, str]]:
        return []


class Engine[S](Protocol):
    """A game's rules over its own frozen state type ``S``.

    ``apply`` raises ``IllegalAction`` and changes nothing when refused. Callers outside
    ``tables/games`` treat ``S`` as opaque: they read it only through these methods.
    """

    game: str

    def default_rules(self) -> dict[str, Any]: ...

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]: ...

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """Cents to hold from each dealt-in player's wallet for the round, antes included.

        Empty for house-banked games. Every payment a player makes in the round is taken
        from this hold; an engine never asks a player for more than what is left of it.
        """
        ...

    def start(self, ctx: TableContext) -> tuple[S, tuple[Settlement, ...]]:
        """The round's first state and its opening settlements (antes).

        ``reserve`` and ``start`` both check the context first with
        ``input_checks.check_context``, so a malformed one is an ``IllegalAction`` in every game.
        """
        ...

    def apply(self, state: S, action: Mapping[str, Any]) -> tuple[S, tuple[Settlement, ...]]: ...

    def public_state(self, state: S) -> dict[str, Any]: ...

    def is_over(self, state: S) -> bool: ...

    def carry_out(self, state: S) -> dict[str, Any]:
        """What the next round of this table inherits (pots, dealer position)."""
        ...

    def legal_actions(self, state: S) -> list[dict[str, Any]]:
        """Every action ``apply`` would accept now, for consoles ("legal actions only") and bots.

        Each entry is a plain JSON-able dict with a ``type``. An entry without ``needs`` is
        *concrete*: pass it to ``apply`` as it is and it is accepted. An entry with ``needs``
        is a *template* for an open-ended choice the engine cannot or should not enumerate (a
        Faro bet's placement and amount, a Newmarket bid's amount, a card keyed from a manual
        shoe, a card the engine cannot see, a keyed result). Its other fields are fixed; the
        caller fills every field named in ``needs`` before applying it. The list is empty once
        the round is over, and never empty before.

        The "needs" convention (hint keys; only ``needs`` marks a template):

        * ``needs``: the fields to fill, every one required. ``"a|b"`` means exactly one of
          ``a`` and ``b`` (a Faro bet names ``ranks`` or a ``target``).
        * ``optional``: fields that may be filled too (a Faro bet's ``coppered``, Fifty-One's
          ``stop``, Tonk's count-only ``tonks``).
        * ``choices``: ``{field: [values]}``, the values the engine knows a field may take. A
          plain field takes one of them (``player``, ``winner``, ``card``, a Faro ``ranks``
          list or called ``order``); a list of cards (``cards``) and an object of card lists
          (``hands``, ``tonks``) are made of them; an object of numbers keyed by player
          (``scores``, ``totals``) has them as keys, every one of them when it is needed.
        * ``count``: ``{field: n}`` cards in a list, or ``{field: {key: n}}`` for an object of
          card lists, whose keys these are (all of them when needed).
        * ``bounds``: ``{field: {key: [low, high]}}``, inclusive bounds of the whole numbers in
          an object keyed by player (count-only Tonk totals).
        * ``min_amount``, ``max_amount``, ``chip``: an ``amount`` in cents is a multiple of
          ``chip`` within these bounds. ``max_player_action`` (Faro) also caps one player's
          total on the layout, so a player already betting may have less room.
        * An engine may add hints of its own and documents them on its ``legal_actions``.

        A template is listed only when some filling of it is legal now. A filling that keeps
        to the hints and names no card twice is accepted, save for the rules of play an engine
        documents on its ``legal_actions`` (a count-only Tonk spread must still be a spread).
        Before applying a filled template drop the hint keys (``HINT_KEYS``, with every
        engine's own; ``without_hints`` does it): engines ignore keys they do not read, but
        callers should not rely on it.
        """
        ...

    def known_hands(self, state: S) -> dict[int, list[str]]:
        """Player id → the cards the engine knows they hold now, for the dealer's eyes only.

        The public state hides hands until the showdown; a dealer keying plays needs them. Only
        what the engine knows: an electronic shoe's or a keyed deal's hands; empty with
        count-only tracking and in games without hands (Faro, the card-room games).
        """
        ...

    def last_from_shoe(self, state: S) -> list[tuple[int, str]]:
        """(player id, card) the electronic shoe gave out last, for the dealer to hand out now.

        Empty with a manual shoe (the dealer keyed the card), in games that deal no cards to
        hands (Faro, the card-room games) and where the open hands say it (Fan Tan, Newmarket).
        """
        ...
