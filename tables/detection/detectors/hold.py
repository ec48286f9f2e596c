"""Hold anomalies: a Faro table's or dealer's win far outside what the bets' edges allow.

For every bet of the window the exact lifetime edge and variance per unit staked come from
``tables.games.faro_edge`` (the casekeeper's counts when it was placed), so the theoretical
win is ``Σ amount x edge`` and its variance ``Σ amount² x variance`` (bets treated as
independent, as the audit's band does). The house win is the ledger's: the tray's net from
the rounds (``RoundStat.win``), not the count, so a short count is the tray detector's
business, not a hold anomaly. A table or dealer is flagged when
``|win - theo| / σ >= DETECT_HOLD_Z`` (3.29: the 99.9 % band; the audit draws the 95 % band,
``1.96 σ``, which a fair night leaves one time in twenty per table, too often to page a pit
boss) once its handle reaches ``DETECT_HOLD_MIN_HANDLE``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from tables.detection.base import Finding, Window, dollars, threshold
from tables.detection.data import ensure_ratings
from tables.detection.stats import normal_two_sided, rounded
from tables.games.faro_edge import action_edge
from tables.games.registry import engine_for
from tables.models import Round, RoundStat, RoundStatus
from tables.rounds import context_of

KINDS = ("hold_anomaly",)


@dataclass
class Book:
    handle: int = 0
    win: int = 0
    theo: float = 0.0
    variance: float = 0.0
    rounds: list[int] = field(default_factory=list)
    tables: set[int] = field(default_factory=set)
    dealers: set[int] = field(default_factory=set)

    def add(self, other: RoundMoments, *, table: int, dealer: int) -> None:
        self.handle += other.handle
        self.win += other.win
        self.theo += other.theo
        self.variance += other.variance
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


def round_moments(round_: Round, win: int) -> RoundMoments:
    """Replay one deal: each bet's edge and variance given the cards live when it was placed."""
    engine = engine_for("faro")
    state, _ = engine.start(context_of(round_))
    handle, theo, variance = 0, 0.0, 0.0
    for payload in round_.actions.order_by("seq").values_list("payload", flat=True):
        if payload.get("type") in {"bet", "call_turn"}:
            edge = action_edge(payload, engine.public_state(state), round_.rules)
            amount = int(payload.get("amount", 0))
            handle += amount
            if edge is not None:
                theo += amount * edge.edge
                variance += amount * amount * edge.variance
        state, _ = engine.apply(state, payload)
    return RoundMoments(round_id=round_.pk, handle=handle, win=win, theo=theo, variance=variance)


def detect(window: Window) -> list[Finding]:
    ensure_ratings(window)
    z_min = float(threshold("HOLD_Z"))
    min_handle = int(threshold("HOLD_MIN_HANDLE"))
    min_rounds = int(threshold("HOLD_MIN_ROUNDS"))
    wins = dict(
        RoundStat.objects.filter(
            game="faro", ended_at__gte=window.start, ended_at__lt=window.end
        ).values_list("round_id", "win")
    )
    by_table: dict[int, Book] = defaultdict(Book)
    by_dealer: dict[int, Book] = defaultdict(Book)
    rounds = Round.objects.filter(pk__in=list(wins), status=RoundStatus.SETTLED).order_by("pk")
    for round_ in rounds.iterator(chunk_size=100):
        moments = round_moments(round_, wins[round_.pk])
        by_table[round_.table_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
        by_dealer[round_.started_by_id].add(moments, table=round_.table_id, dealer=round_.started_by_id)
    findings = []
    for scope, books in (("table", by_table), ("dealer", by_dealer)):
        for subject_id, book in books.items():
            if book.handle < min_handle or len(book.rounds) < min_rounds or book.variance <= 0:
                continue
            sigma = math.sqrt(book.variance)
            z = (book.win - book.theo) / sigma
            if abs(z) < z_min:
                continue
            findings.append(_finding(scope, subject_id, book, sigma, z, z_min))
    return findings


def _finding(scope: str, subject_id: int, book: Book, sigma: float, z: float, z_min: float) -> Finding:
    hold = book.win / book.handle
    theo_hold = book.theo / book.handle
    spread = sigma / book.handle
    direction = "above" if z > 0 else "below"
    who = f"Table {subject_id}" if scope == "table" else f"Dealer {subject_id}"
    return Finding(
        kind="hold_anomaly",
        severity="high" if abs(z) >= z_min + 1.5 else "medium",
        subject=f"{scope}:{subject_id}",
        summary=(
            f"{who}: Faro hold {hold:.1%} on {dollars(book.handle)} handle, {direction} the "
            f"theoretical {theo_hold:.1%} by {abs(z):.1f} σ."
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
            "rounds": book.rounds[:200],
            "tables": sorted(book.tables),
            "dealers": sorted(book.dealers),
        },
        table_id=subject_id if scope == "table" else (min(book.tables) if len(book.tables) == 1 else None),
        dealer_id=subject_id
        if scope == "dealer"
        else (min(book.dealers) if len(book.dealers) == 1 else None),
    )
