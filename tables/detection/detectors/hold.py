"""Hold anomalies: a Faro table's or dealer's win far outside what the bets' edges allow.

The figures are the ratings' rows (``RoundStat``, README "Handle, win, theo, decisions"):
handle, the house win (the tray's net from the rounds, not the count, so a short count is
the tray detector's business, not a hold anomaly), theo (Σ decided bet x its exact lifetime
edge, ``tables.games.faro_edge``) and ``theo_variance`` (Σ stake² x variance, bets treated
as independent, as the audit's band does). A table or dealer is flagged when
``|win - theo| / σ >= DETECTION["HOLD_Z"]`` (3.29: the 99.9 % band; the audit draws the 95 %
band, ``1.96 σ``, which a fair night leaves one time in twenty per table, too often to page a
pit boss) once its handle reaches ``DETECTION["HOLD_MIN_HANDLE"]``.

A few very large bets make σ wide, so the hold alone is slow to show a dealer who fixes the
cards. The turns say it sooner, and exactly: swapping a turn's banker and player cards is
as likely as not in a fairly shuffled shoe (electronic or manual), whatever was dealt before,
so for every turn whose two orders would move the layout's money differently (given every
bet on it then: ranks, placements, coppers, even/odd/high), the order that favours the house
comes with probability exactly 1/2, independently of the turns before. A table or dealer is
also flagged when the house-favoured orders over at least ``DETECTION["HOLD_MIN_TURNS"]`` such
turns are beyond chance either way (binomial, P <= ``DETECTION["HOLD_TURNS_P"]`` per side): a
cold deck, or a dealer paying a friend.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casino.money import format_dollars as dollars
from tables.detection.base import Finding, Window, threshold
from tables.detection.stats import normal_two_sided, rounded, tail_at_least, tail_at_most
from tables.games.cards import rank_index, rank_of
from tables.games.faro_edge import EVEN_RANKS
from tables.games.registry import engine_for
from tables.models import Round, RoundStat, RoundStatus
from tables.round_state import fold

KINDS = ("hold_anomaly",)
MILLI = 1000  # RoundStat.theo_milli is in thousandths of a cent


@dataclass
class Book:
    handle: int = 0
    win: int = 0
    theo: float = 0.0
    variance: float = 0.0
    rounds: list[int] = field(default_factory=list)
    tables: set[int] = field(default_factory=set)
    dealers: set[int] = field(default_factory=set)
    turns: int = 0  # turns whose order mattered to the layout
    house_turns: int = 0  # ... and fell the house's way

    def add(self, other: RoundMoments, *, table: int, dealer: int) -> None:
        self.handle += other.handle
        self.win += other.win
        self.theo += other.theo
        self.variance += other.variance
        self.turns += other.turns
        self.house_turns += other.house_turns
        self.rounds.append(other.round_id)
        self.tables.add(table)
        self.dealers.add(dealer)


@dataclass(frozen=True, slots=True)
class RoundMoments:
    round_id: int
    handle: int
    win: int
    theo: float
    variance: float
    turns: int = 0
    house_turns: int = 0


def _bet_gain(bet: dict[str, Any], banker: str, player: str) -> int:
    """What the house wins (+) or pays (-) on one bet if a turn deals ``banker`` then ``player``."""
    amount = int(bet.get("amount", 0))
    kind = bet.get("kind")
    if kind == "rank":
        ranks = set(bet.get("ranks") or ())
        loses, wins = banker in ranks and player not in ranks, player in ranks and banker not in ranks
        sign = -1 if bet.get("coppered") else 1
        return sign * amount * (int(loses) - int(wins))
    if kind == "target":
        target = bet.get("target")
        if target == "high":
            won = rank_index(player) > rank_index(banker)
        elif target in {"even", "odd"}:
            won = (player in EVEN_RANKS) == (target == "even")
        else:
            return 0
        return -amount if won else amount
    return 0  # a called turn is decided by all three last cards, not by this order


def _turn_order(bets: list[dict[str, Any]], banker: str, player: str) -> int | None:
    """+1 if the order dealt favoured the house over the swapped one, -1 if the players; None if equal."""
    if banker == player:
        return None
    dealt = sum(_bet_gain(bet, banker, player) for bet in bets)
    swapped = sum(_bet_gain(bet, player, banker) for bet in bets)
    return None if dealt == swapped else (1 if dealt > swapped else -1)


def turn_orders(round_: Round) -> tuple[int, int]:
    """Replay one deal for the order of every turn against the money on the layout.

    Returns (turns whose order mattered, those that fell the house's way). The money figures
    are not recomputed here: they are the round's ``RoundStat``.
    """
    engine = engine_for("faro")
    turns = house_turns = 0

    def step(_seq: int, payload: Mapping[str, Any] | None, before: Any, after: Any, _moved: Any) -> None:
        nonlocal turns, house_turns
        if payload is None or payload.get("type") not in {"turn", "last_turn"}:
            return
        bets = list(engine.public_state(before).get("bets") or ())
        latest = engine.public_state(after).get("latest_turn") or {}
        order = _turn_order(bets, rank_of(latest["banker"]), rank_of(latest["player"]))
        if order is not None:
            turns += 1
            house_turns += order > 0

    fold(round_, observer=step)
    return turns, house_turns


def round_moments(round_: Round, stat: RoundStat) -> RoundMoments:
    """One deal's figures from its rating row, and the order of its turns from a replay."""
    turns, house_turns = turn_orders(round_)
    return RoundMoments(
        round_id=round_.pk,
        handle=stat.handle,
        win=stat.win,
        theo=stat.theo_milli / MILLI,
        variance=float(stat.theo_variance),
        turns=turns,
        house_turns=house_turns,
    )


def detect(window: Window) -> list[Finding]:
    z_min = float(threshold("HOLD_Z"))
    min_handle = int(threshold("HOLD_MIN_HANDLE"))
    min_rounds = int(threshold("HOLD_MIN_ROUNDS"))
    min_turns = int(threshold("HOLD_MIN_TURNS"))
    turns_p = float(threshold("HOLD_TURNS_P"))
    stats = {
        stat.round_id: stat
        for stat in RoundStat.objects.filter(game="faro", ended_at__gte=window.start, ended_at__lt=window.end)
    }
    by_table: dict[int, Book] = defaultdict(Book)
    by_dealer: dict[int, Book] = defaultdict(Book)
    rounds = Round.objects.filter(pk__in=list(stats), status=RoundStatus.SETTLED).order_by("pk")
    for round_ in rounds.iterator(chunk_size=100):
        moments = round_moments(round_, stats[round_.pk])
        by_table[round_.table_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
        by_dealer[round_.started_by_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
    findings = []
    for scope, books in (("table", by_table), ("dealer", by_dealer)):
        for subject_id, book in books.items():
            if book.handle < min_handle or len(book.rounds) < min_rounds or book.variance <= 0:
                continue
            sigma = math.sqrt(book.variance)
            z = (book.win - book.theo) / sigma
            fair = [0.5] * book.turns
            p_house = tail_at_least(fair, book.house_turns)
            p_players = tail_at_most(fair, book.house_turns)
            by_turns = book.turns >= min_turns and min(p_house, p_players) <= turns_p
            if abs(z) < z_min and not by_turns:
                continue
            findings.append(
                _finding(scope, subject_id, book, sigma, z, z_min, p_turns=min(p_house, p_players))
            )
    return findings


def _finding(
    scope: str, subject_id: int, book: Book, sigma: float, z: float, z_min: float, *, p_turns: float
) -> Finding:
    hold = book.win / book.handle
    theo_hold = book.theo / book.handle
    spread = sigma / book.handle
    direction = "above" if z > 0 else "below"
    who = f"Table {subject_id}" if scope == "table" else f"Dealer {subject_id}"
    turns = f"; {book.house_turns} of {book.turns} turns went the house's way" if book.turns else ""
    return Finding(
        kind="hold_anomaly",
        severity="high" if abs(z) >= z_min + 1.5 or (abs(z) >= z_min and p_turns <= 1e-6) else "medium",
        subject=f"{scope}:{subject_id}",
        summary=(
            f"{who}: Faro hold {hold:.1%} on {dollars(book.handle)} handle, {direction} the "
            f"theoretical {theo_hold:.1%} by {abs(z):.1f} σ{turns}."
        ),
        evidence={
            "scope": scope,
            "handle": book.handle,
            "win": book.win,
            "theo": round(book.theo),
            "sigma": round(sigma),
            "hold_pct": round(hold * 100, 2),
            "theo_hold_pct": round(theo_hold * 100, 2),
            "band_95_pct": [
                round((theo_hold - 1.96 * spread) * 100, 2),
                round((theo_hold + 1.96 * spread) * 100, 2),
            ],
            "band_alert_pct": [
                round((theo_hold - z_min * spread) * 100, 2),
                round((theo_hold + z_min * spread) * 100, 2),
            ],
            "z": round(z, 2),
            "p_value": rounded(normal_two_sided(z)),
            "threshold_z": z_min,
            "by_hold": abs(z) >= z_min,
            "turns_decided": book.turns,
            "turns_for_house": book.house_turns,
            "turns_p_value": rounded(p_turns),
            "threshold_turns_p": float(threshold("HOLD_TURNS_P")),
            "rounds": book.rounds[:200],
            "tables": sorted(book.tables),
            "dealers": sorted(book.dealers),
        },
        table_id=subject_id if scope == "table" else (min(book.tables) if len(book.tables) == 1 else None),
        dealer_id=subject_id
        if scope == "dealer"
        else (min(book.dealers) if len(book.dealers) == 1 else None),
    )
