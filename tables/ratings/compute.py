"""A settled round's figures, from its stored settlements and a replay of its actions.

The one producer of handle, win, theo, decisions and average bet (README "Handle, win, theo,
decisions"): ``rate_round`` writes what this returns as ``RoundStat``/``RoundPlayerStat``,
and the pit, hourly results, ratings, the audit and the detectors read those rows.

Per round, per player:

* handle — chips the player put at risk on bets that were decided. Faro: the stake of every
  bet and call a turn decided (won, lost or split), counted once however often it rides; a
  bet taken down undecided, or handed back after the hock undecided, is not handle. Pot and
  stakes games: every chip paid out of the wallet during the round (antes, pass chips,
  penalties, payments to other players). Time rake is a seat fee, not handle.
* result — the player's wallet's net change over the round's settlements (wins − losses).
* bets — Faro: the decided bets and calls; pot and stakes games: one per deal. The divisor
  of the average bet (handle / bets).
* decisions — Faro: the turns dealt while the player had chips on the layout; pot and
  stakes games: the deal itself.
* theo — Faro: each decided bet's amount × its exact lifetime edge given the cards live when
  it was placed (``tables.games.faro_edge``); pot and stakes games: the rake taken from pots
  the player won (time rake is added per sitting from ``Seat.time_rake_paid``).

Per round for the table: handle, bets and theo are the players' totals; decisions are the
turns dealt (Faro) or 1; win is the house's: the tray's net from the round's settlements
plus the rake they raised; ``theo_variance`` is Σ stake² × each decided Faro bet's variance
per unit (cents²), the spread of win about theo that the audit's band and the hold detector use.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from tables.accounts import POT, PartyMap, split_party
from tables.games.base import BANK, RAKE
from tables.games.faro import bets_on_layout, casekeeper_counts, decided_bets
from tables.games.faro_edge import bet_edge
from tables.models import Round, RoundSettlement
from tables.ratings.models import MILLI
from tables.round_state import fold


@dataclass
class PlayerFigures:
    handle: int = 0
    result: int = 0
    bets: int = 0
    decisions: int = 0
    theo_milli: int = 0


@dataclass
class RoundFigures:
    handle: int = 0
    win: int = 0
    decisions: int = 0
    theo_milli: int = 0
    theo_variance: int = 0
    players: dict[int, PlayerFigures] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _FaroBet:
    player: int
    amount: int
    theo_milli: int
    variance: float  # amount² x the edge's variance per unit


def hour_of(moment: dt.datetime) -> dt.datetime:
    """The start of the casino-time hour a moment falls in."""
    local = moment.astimezone(ZoneInfo(settings.CASINO_TIME_ZONE))
    return local.replace(minute=0, second=0, microsecond=0)


def figures_for(round_: Round, settlements: list[RoundSettlement]) -> RoundFigures:
    figures = RoundFigures()
    faro = round_.game == "faro"
    # Every wallet the settlements touched, not just the seats at the start: a Faro punter may
    # sit down during the deal and bet.
    parties = PartyMap.of_codes(
        round_.table_id, [c for r in settlements for c in (r.from_account, r.to_account)]
    )
    players = figures.players

    def of(player: int) -> PlayerFigures:
        return players.setdefault(player, PlayerFigures())

    if not faro:
        for player in round_.players or [int(p) for p in round_.context.get("seats", {}).values()]:
            of(player).decisions = 1
            of(player).bets = 1
    pot_winner: dict[tuple[int, str], int] = {}
    moves = [(row, parties.party(row.from_account), parties.party(row.to_account)) for row in settlements]
    for row, source, target in moves:
        payer, payee = parties.player_of(row.from_account), parties.player_of(row.to_account)
        if payer is not None:
            of(payer).result -= row.amount
            if not faro:  # Faro's handle is its decided bets (_faro_bets), not wallet → layout
                of(payer).handle += row.amount
        if payee is not None:
            of(payee).result += row.amount
            if split_party(source)[0] == POT:
                pot_winner[(row.action.seq if row.action else 0, source)] = payee
        if target in (BANK, RAKE):
            figures.win += row.amount
        if source == BANK:
            figures.win -= row.amount
    for row, source, target in moves:
        if target == RAKE and split_party(source)[0] == POT:
            winner = row.player_id or pot_winner.get((row.action.seq if row.action else 0, source))
            if winner is not None:
                of(winner).theo_milli += row.amount * MILLI
    if faro:
        _faro_bets(round_, figures)
    else:
        figures.decisions = 1
    figures.handle = sum(p.handle for p in players.values())
    figures.theo_milli = sum(p.theo_milli for p in players.values())
    return figures


def _faro_bets(round_: Round, figures: RoundFigures) -> None:
    """Walk the deal: each bet's edge at placement, which bets a turn decided, who had chips down.

    A bet counts (handle, a bet, theo, variance) once a turn decides it. One taken down
    undecided, or handed back after the hock undecided, never had chips won or lost on it:
    counting it would let place-and-withdraw farm comps and would make handle depend on
    chips that only visited the layout.
    """
    placed: dict[str, _FaroBet] = {}
    decided: set[str] = set()

    def step(_seq: int, payload: Mapping[str, Any] | None, before: Any, after: Any, _moved: Any) -> None:
        # Read the engine's own counts, never its public view: this runs on every bet of a deal.
        kind = payload.get("type") if payload is not None else None
        if payload is None or kind not in {"bet", "call_turn", "turn", "last_turn"}:
            return
        on_layout = bets_on_layout(before)
        if kind in {"turn", "last_turn"}:
            figures.decisions += 1
            for pid in set(on_layout.values()):
                figures.players.setdefault(pid, PlayerFigures()).decisions += 1
            decided.update(decided_bets(before, after))
            return
        pid, amount = int(payload["player"]), int(payload["amount"])
        figures.players.setdefault(pid, PlayerFigures())
        left, remaining = casekeeper_counts(before)
        edge = bet_edge(payload, left, remaining, round_.rules)
        theo = round(amount * edge.edge * MILLI) if edge is not None else 0
        variance = amount * amount * edge.variance if edge is not None else 0.0
        for bet_id in bets_on_layout(after).keys() - on_layout.keys():
            placed[bet_id] = _FaroBet(pid, amount, theo, variance)

    fold(round_, observer=step)
    variance = 0.0
    for bet_id, bet in placed.items():
        if bet_id in decided:
            player = figures.players[bet.player]
            player.handle += bet.amount
            player.bets += 1
            player.theo_milli += bet.theo_milli
            variance += bet.variance
    figures.theo_variance = round(variance)
