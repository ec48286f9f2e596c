"""A settled round's figures, from its stored settlements and a replay of its actions.

Definitions (per round, per player):

* handle — chips the player put into play at the table: Faro bets and calls
  (wallet → layout); in pot and stakes games everything paid out of the wallet (antes,
  pass chips, penalties, payments to other players). Time rake is a fee, not handle.
* result — the player's wallet's net change over the round's settlements (wins − losses;
  a Faro layout is empty again when the deal ends, so the wallet's net is the result).
* bets — wagers placed (Faro bets and calls; one per deal in pot and stakes games), the
  divisor of the average bet.
* decisions — Faro: the turns dealt while the player had chips on the layout; pot and
  stakes games: the deal itself.
* theo — Faro: each bet's amount × its exact lifetime edge given the cards live when it
  was placed (``tables.games.faro_edge``); pot and stakes games: the rake taken from pots
  the player won (time rake is added per sitting from ``Seat.time_rake_paid``).

Per round for the table: handle is the players' total; win is the house's: the tray's net
from the round plus the rake it raised.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from tables.accounts import LAYOUT, POT, PartyMap, split_party
from tables.games.base import BANK, RAKE
from tables.games.faro_edge import action_edge
from tables.games.registry import engine_for
from tables.models import Round, RoundSettlement
from tables.round_state import fold

MILLI = 1000


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
    players: dict[int, PlayerFigures] = field(default_factory=dict)


def hour_of(moment: dt.datetime) -> dt.datetime:
    """The start of the casino-time hour a moment falls in."""
    local = moment.astimezone(ZoneInfo(settings.CASINO_TIME_ZONE))
    return local.replace(minute=0, second=0, microsecond=0)


def figures_for(round_: Round, settlements: list[RoundSettlement]) -> RoundFigures:
    figures = RoundFigures()
    # Every wallet the settlements touched, not just the seats at the start: a Faro punter may
    # sit down during the deal and bet.
    parties = PartyMap.of_codes(
        round_.table_id, [c for r in settlements for c in (r.from_account, r.to_account)]
    )
    players = figures.players

    def of(player: int) -> PlayerFigures:
        return players.setdefault(player, PlayerFigures())

    for player in round_.players or [int(p) for p in round_.context.get("seats", {}).values()]:
        if round_.game != "faro":
            of(player).decisions = 1
            of(player).bets = 1
    pot_winner: dict[tuple[int, str], int] = {}
    moves = [(row, parties.party(row.from_account), parties.party(row.to_account)) for row in settlements]
    for row, source, target in moves:
        payer, payee = parties.player_of(row.from_account), parties.player_of(row.to_account)
        if payer is not None:
            of(payer).result -= row.amount
            if round_.game != "faro" or split_party(target)[0] == LAYOUT:
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
    if round_.game == "faro":
        _faro_bets(round_, figures)
    else:
        figures.decisions = 1
    figures.handle = sum(p.handle for p in players.values())
    figures.theo_milli = sum(p.theo_milli for p in players.values())
    return figures


def _faro_bets(round_: Round, figures: RoundFigures) -> None:
    """Walk the deal: each bet's edge at placement, and who had chips on each turn.

    A bet taken down before any turn was dealt on it was never at risk: it earns no theo
    and counts in neither handle nor bets (otherwise place-and-withdraw would farm comps).
    """
    engine = engine_for("faro")
    placed: dict[str, tuple[int, int, int]] = {}  # bet id -> (player, amount, theo_milli)
    faced: set[str] = set()

    def step(_seq: int, payload: Mapping[str, Any] | None, before: Any, after: Any, _moved: Any) -> None:
        kind = payload.get("type") if payload is not None else None
        if payload is None or kind not in {"bet", "call_turn", "turn", "last_turn", "remove_bet"}:
            return
        if kind == "remove_bet":
            if payload.get("bet") in placed and payload.get("bet") not in faced:
                pid, amount, theo = placed[payload["bet"]]
                player = figures.players.setdefault(pid, PlayerFigures())
                player.theo_milli -= theo
                player.handle -= amount
                player.bets -= 1
            return
        public = engine.public_state(before)
        if kind in {"turn", "last_turn"}:
            figures.decisions += 1
            faced.update(bet["id"] for bet in public.get("bets", []))
            for pid in {int(bet["player"]) for bet in public.get("bets", [])}:
                figures.players.setdefault(pid, PlayerFigures()).decisions += 1
            return
        pid, amount = int(payload["player"]), int(payload["amount"])
        player = figures.players.setdefault(pid, PlayerFigures())
        edge = action_edge(payload, public, round_.rules)
        theo = round(amount * edge.edge * MILLI) if edge is not None else 0
        player.theo_milli += theo
        player.bets += 1
        existing = {bet["id"] for bet in public.get("bets", [])}
        for bet in engine.public_state(after).get("bets", []):
            if bet["id"] not in existing:
                placed[bet["id"]] = (pid, amount, theo)

    fold(round_, observer=step)
