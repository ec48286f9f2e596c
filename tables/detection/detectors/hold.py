"""Hold anomalies: a Faro table's or dealer's win beyond what fair deals of its own bets give.

The figures are the ratings' rows (``RoundStat``, README "Handle, win, theo, decisions"):
handle, the house win (the tray's net from the rounds, not the count, so a short count is
the tray detector's business, not a hold anomaly) and theo. Faro bets ride, a multi-rank
stack is decided by several ranks and stakes are heavy-tailed, so a normal band around theo
with independent bets is too narrow (a clean table once showed 3.5 σ). The hold test is
therefore Monte Carlo (``tables.detection.faro_null``): each deal's recorded bets are
replayed through the engine on ``DETECTION["MC_DEALS"]`` fair re-deals of its unseen cards,
and the subject's win over the window is compared with sums of those simulated wins
(empirical two-sided p-value, ``(k + 1) / (B + 1)``).

A few very large bets make the hold noisy, so the hold alone is slow to show a dealer who
fixes the cards. The turns say it sooner, and exactly: swapping a turn's banker and player
cards is as likely as not in a fairly shuffled shoe (electronic or manual), whatever was
dealt before, so for every turn whose two orders would move the layout's money differently
(given every bet on it then: ranks, placements, coppers, even/odd/high), the order that
favours the house comes with probability exactly 1/2, independently of the turns before:
the house-favoured orders over at least ``DETECTION["HOLD_MIN_TURNS"]`` such turns are
Binomial(n, 1/2) (a cold deck, or a dealer paying a friend, moves them).

Evidence accumulates over ``DETECTION["WINDOW_DAYS"]`` gaming days per table and per dealer
(a dealer who dealt exactly one table's deals is that table's test, not a second one).
A subject's p-value is the smaller of the two tests' two-sided p-values, doubled
(Bonferroni); Benjamini–Hochberg over every table and dealer tested raises the alerts at
``DETECTION["FDR"]``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

from casino.money import format_dollars as dollars
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding, Window, multiple_testing, one_in, threshold, window_evidence
from tables.detection.faro_null import mc_rng, null_of_deal, sum_p_values
from tables.detection.stats import bh_discoveries, rounded, tail_at_least, tail_at_most, twice_smaller
from tables.games.cards import rank_of
from tables.games.faro import TARGETS, target_wins
from tables.games.registry import engine_for
from tables.models import Round, RoundStatus
from tables.ratings.models import MILLI, RoundStat
from tables.round_state import context_of, fold

KINDS = ("hold_anomaly",)
# evidence that is cents, read in dollars on screens
MONEY = frozenset({"handle", "win", "theo", "sigma", "null_mean_win"})
CACHE_DAYS = 9  # a deal's null is read by every run whose window holds it (7 days and the live runs)


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
    nulls: list[tuple[int, ...]] = field(default_factory=list)  # each round's fair-deal wins
    days: set[dt.date] = field(default_factory=set)

    def add(self, other: RoundMoments, *, table: int, dealer: int) -> None:
        self.handle += other.handle
        self.win += other.win
        self.theo += other.theo
        self.variance += other.variance
        self.turns += other.turns
        self.house_turns += other.house_turns
        self.rounds.append(other.round_id)
        self.nulls.append(other.null)
        if other.day is not None:
            self.days.add(other.day)
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
    null: tuple[int, ...] = ()  # the round's house win under fair re-deals
    day: dt.date | None = None


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
        if target not in TARGETS:
            return 0
        return -amount if target_wins(target, banker, player) else amount
    return 0  # a called turn is decided by all three last cards, not by this order


def _turn_order(bets: list[dict[str, Any]], banker: str, player: str) -> int | None:
    """+1 if the order dealt favoured the house over the swapped one, -1 if the players; None if equal."""
    if banker == player:
        return None
    dealt = sum(_bet_gain(bet, banker, player) for bet in bets)
    swapped = sum(_bet_gain(bet, player, banker) for bet in bets)
    return None if dealt == swapped else (1 if dealt > swapped else -1)


def turn_orders(round_: Round, actions: list[tuple[int, Mapping[str, Any]]] | None = None) -> tuple[int, int]:
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

    fold(round_, actions=actions, observer=step)
    return turns, house_turns


def null_wins(round_: Round, actions: list[tuple[int, Mapping[str, Any]]], observed: int) -> list[int]:
    """The round's house win under fair re-deals (``faro_null.null_of_deal``: ``MC_DEALS`` of them,
    up to ``MC_MAX_DEALS`` for a win beyond them), cached: the same round gives the same.

    Seeded from the round id and ``DETECTION["MC_SEED"]``; the cache key also carries the
    round's start time, so two databases that reuse an id (bench nights) never share samples.
    """
    n = int(threshold("MC_DEALS"))
    most = max(n, int(threshold("MC_MAX_DEALS")))
    seed = threshold("MC_SEED")
    # v2: bets on dead ranks are moved, not left out, and a far-out deal has more re-deals
    key = f"detect:faro-null:v2:{seed}:{n}:{most}:{round_.pk}:{round_.started_at.timestamp()}"
    known = cache.get(key) or []
    wins = null_of_deal(
        context_of(round_),
        [payload for _seq, payload in actions],
        observed=observed,
        first=n,
        most=most,
        rng_for=lambda done: mc_rng(round_.pk, seed, f"hold:{done}" if done else "hold"),
        known=known,
    )
    if len(wins) != len(known):
        cache.set(key, wins, timeout=CACHE_DAYS * 86_400)
    return wins


def round_moments(round_: Round, stat: RoundStat) -> RoundMoments:
    """One deal's figures from its rating row, its turn orders and its fair-deal null from replays."""
    actions = list(round_.actions.order_by("seq").values_list("seq", "payload"))
    turns, house_turns = turn_orders(round_, actions)
    return RoundMoments(
        round_id=round_.pk,
        handle=stat.handle,
        win=stat.win,
        theo=stat.theo_milli / MILLI,
        variance=float(stat.theo_variance),
        turns=turns,
        house_turns=house_turns,
        null=tuple(null_wins(round_, actions, stat.win)),
        day=gaming_day_for(stat.ended_at),
    )


def detect(window: Window) -> list[Finding]:
    """Tables and dealers whose Faro win or turn orders are beyond the fair deal over the window.

    Each subject's p-value is the smaller of two tests, Bonferroni-doubled: the Monte Carlo
    hold test (two-sided) and the exact turn-order test (two-sided). Benjamini–Hochberg over
    every table and dealer tested picks the alerts at ``DETECTION["FDR"]``.
    """
    span = window.widened(int(threshold("WINDOW_DAYS")))
    min_handle = int(threshold("HOLD_MIN_HANDLE"))
    min_rounds = int(threshold("HOLD_MIN_ROUNDS"))
    min_turns = int(threshold("HOLD_MIN_TURNS"))
    stats = {
        stat.round_id: stat
        for stat in RoundStat.objects.filter(game="faro", ended_at__gte=span.start, ended_at__lt=span.end)
    }
    by_table: dict[int, Book] = defaultdict(Book)
    by_dealer: dict[int, Book] = defaultdict(Book)
    rounds = Round.objects.filter(pk__in=list(stats), status=RoundStatus.SETTLED).order_by("pk")
    for round_ in rounds.iterator(chunk_size=100):
        moments = round_moments(round_, stats[round_.pk])
        by_table[round_.table_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
        by_dealer[round_.started_by_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
    tested: list[Tested] = []
    for scope, books in (("table", by_table), ("dealer", by_dealer_alone(by_dealer, by_table))):
        for subject_id, book in sorted(books.items()):
            if book.handle < min_handle or len(book.rounds) < min_rounds:
                continue
            tested.append(_test(scope, subject_id, book, min_turns))
    fdr = float(threshold("FDR"))
    return [_finding(tested[i], q, fdr, span) for i, q in bh_discoveries([t.p_value for t in tested], fdr)]


def by_dealer_alone(by_dealer: dict[int, Book], by_table: dict[int, Book]) -> dict[int, Book]:
    """The dealers whose deals are not exactly one table's deals.

    A dealer who dealt every deal of one table, and nothing else, is the same evidence as that
    table: testing both would count it twice in Benjamini–Hochberg and raise two alerts for one
    finding. The table's test stands for both (its alert names the dealer).
    """
    return {
        dealer: book
        for dealer, book in by_dealer.items()
        if len(book.tables) != 1 or by_table[next(iter(book.tables))].rounds != book.rounds
    }


@dataclass(frozen=True, slots=True)
class Tested:
    scope: str
    subject_id: int
    book: Book
    p_hold: float
    p_turns: float
    p_value: float
    draws: int


def _test(scope: str, subject_id: int, book: Book, min_turns: int) -> Tested:
    rng = mc_rng(subject_id, threshold("MC_SEED"), purpose=f"hold-window:{scope}")
    upper, lower, draws = sum_p_values(
        book.nulls,
        book.win,
        rng=rng,
        draws=int(threshold("MC_DRAWS")),
        max_draws=int(threshold("MC_MAX_DRAWS")),
    )
    p_hold = twice_smaller(upper, lower)
    fair = [0.5] * book.turns
    p_turns = 1.0
    if book.turns >= min_turns:
        p_turns = twice_smaller(tail_at_least(fair, book.house_turns), tail_at_most(fair, book.house_turns))
    return Tested(scope, subject_id, book, p_hold, p_turns, twice_smaller(p_hold, p_turns), draws)


def _finding(tested: Tested, q_value: float, fdr: float, span: Window) -> Finding:
    scope, subject_id, book = tested.scope, tested.subject_id, tested.book
    hold = book.win / book.handle
    theo_hold = book.theo / book.handle
    sigma = math.sqrt(book.variance) if book.variance > 0 else 0.0
    z = (book.win - book.theo) / sigma if sigma else 0.0
    spread = sigma / book.handle
    null_mean = sum(sum(s) / len(s) for s in book.nulls if s)
    direction = "above" if book.win > null_mean else "below"
    who = f"Table {subject_id}" if scope == "table" else f"Dealer {subject_id}"
    if scope == "table" and len(book.dealers) == 1:
        who += f" (dealer {min(book.dealers)} dealt every deal)"
    turns = f"; {book.house_turns} of {book.turns} turns went the house's way" if book.turns else ""
    first, last = min(book.days), max(book.days)
    days = f"{first:%b %-d}" if first == last else f"{first:%b %-d}–{last:%b %-d}"
    return Finding(
        kind="hold_anomaly",
        severity="high" if tested.p_value <= fdr / 100 else "medium",
        subject=f"{scope}:{subject_id}",
        summary=(
            f"{who}: Faro hold {hold:.1%} on {dollars(book.handle)} handle over {days}, {direction} "
            f"fair deals (theoretical {theo_hold:.1%}){turns}; the chance of this with fair deals is "
            f"{one_in(tested.p_value)}."
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
            "z": round(z, 2),
            "null_mean_win": round(null_mean),
            "p_value": rounded(tested.p_value),
            "p_value_hold": rounded(tested.p_hold),
            "p_value_method": "Monte Carlo: the recorded bets replayed on fair re-deals (faro_null)",
            "mc_deals_per_round": int(threshold("MC_DEALS")),
            "mc_window_draws": tested.draws,
            "mc_seed": threshold("MC_SEED"),
            "turns_decided": book.turns,
            "turns_for_house": book.house_turns,
            "turns_p_value": rounded(tested.p_turns),
            **multiple_testing(q_value, fdr),
            **window_evidence(span, book.days, book.rounds),
            "tables": sorted(book.tables),
            "dealers": sorted(book.dealers),
        },
        table_id=subject_id if scope == "table" else (min(book.tables) if len(book.tables) == 1 else None),
        dealer_id=subject_id
        if scope == "dealer"
        else (min(book.dealers) if len(book.dealers) == 1 else None),
    )
