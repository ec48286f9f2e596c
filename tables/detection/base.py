"""What every detector shares: the window it reads, the finding it returns, its thresholds.

A detector is a function ``(window) -> list[Finding]`` that only reads. The service
(``tables.detection.services.run_detectors``) turns findings into ``Alert`` rows; a finding's
``subject`` (with its kind and the gaming day) is the alert's dedup key, so the same finding
found again updates one row.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.template.defaultfilters import pluralize

from ledger.gaming_day import gaming_day_bounds


@dataclass(frozen=True, slots=True)
class Window:
    """The gaming day ``day`` (``[start, end)``), widened back to ``first_day`` for rolling rules."""

    day: dt.date
    first_day: dt.date
    start: dt.datetime
    end: dt.datetime
    live: bool = False  # the day is still in progress: end-of-day rules wait

    @classmethod
    def for_day(cls, day: dt.date, *, days: int = 1, live: bool = False) -> Window:
        first = day - dt.timedelta(days=max(days, 1) - 1)
        return cls(
            day=day,
            first_day=first,
            start=gaming_day_bounds(first)[0],
            end=gaming_day_bounds(day)[1],
            live=live,
        )

    def widened(self, days: int) -> Window:
        """The same closing day, reaching ``days`` gaming days back."""
        return Window.for_day(self.day, days=days, live=self.live)


@dataclass(slots=True)
class Finding:
    """One suspicious pattern, with the numbers, rounds and transfers that support it."""

    kind: str
    severity: str  # AlertSeverity: low, medium, high
    subject: str  # what the finding is about, e.g. "dealer:12" or "pair:4:9"; part of the dedup key
    summary: str  # one sentence for the pit view
    evidence: dict[str, Any] = field(default_factory=dict)
    table_id: int | None = None
    dealer_id: int | None = None
    player_id: int | None = None


def threshold(name: str) -> Any:
    """``settings.DETECTION[name]`` (env ``DETECT_<name>``): thresholds are tuned there, never here."""
    return settings.DETECTION[name]


def round_links(round_ids: Iterable[int], *, limit: int = 200) -> list[str]:
    """API paths of the rounds behind a finding (``GET /api/v1/rounds/{id}``), oldest first."""
    return [f"/api/v1/rounds/{pk}" for pk in sorted(round_ids)[:limit]]


def window_evidence(span: Window, days: Iterable[dt.date], round_ids: Iterable[int]) -> dict[str, Any]:
    """What every statistical alert cites: the window read, the days with evidence, the rounds."""
    seen = sorted(days)
    rounds = sorted(round_ids)
    return {
        "window": {
            "first_day": span.first_day.isoformat(),
            "last_day": span.day.isoformat(),
            "days": (span.day - span.first_day).days + 1,
            "first_day_with_rounds": seen[0].isoformat() if seen else None,
            "last_day_with_rounds": seen[-1].isoformat() if seen else None,
        },
        "rounds": rounds[:200],
        "rounds_total": len(rounds),
        "round_links": round_links(rounds),
    }


def multiple_testing(q_value: float, fdr: float) -> dict[str, Any]:
    """The Benjamini–Hochberg figures of an alert: the rate it was judged at and its q-value."""
    return {
        "fdr": fdr,
        "q_value": float(f"{q_value:.4g}"),
        "multiple_testing": "Benjamini-Hochberg over every subject the rule tested in the window",
    }


def counted(number: int, noun: str) -> str:
    """ "1 fill", "6 fills": a summary's counts in words, never "fill(s)"."""
    return f"{number} {noun}{pluralize(number)}"


SCALES = ((1e9, " billion"), (1e6, " million"), (1.0, ""))


def one_in(chance: float) -> str:
    """A small probability as people say it: 0.00032 → "1 in 3,100" (two significant figures),
    4.5e-07 → "1 in 2.2 million", not "3.2e-04"."""
    if chance >= 1:
        return "certain"
    times = 1 / chance if chance > 0 else math.inf
    if times >= 1e12:
        return "less than 1 in a trillion"
    size, name = next((size, name) for size, name in SCALES if times >= size)
    return f"1 in {_two_figures(times / size)}{name}"


def _two_figures(value: float) -> str:
    """3141.6 → "3,100", 2.24 → "2.2", 5.0 → "5"."""
    rounded_value = float(f"{value:.2g}")
    return f"{rounded_value:,.0f}" if rounded_value >= 10 else f"{rounded_value:.2g}"


def minutes_words(seconds: float) -> str:
    """A short span as a person says it: "under a minute", "1 minute", "12 minutes"."""
    minutes = round(seconds / 60)
    return "under a minute" if seconds < 60 else counted(minutes, "minute")
