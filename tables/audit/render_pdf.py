"""``?format=pdf``: the report as a real PDF (WeasyPrint), charts drawn by matplotlib.

Summary page first, then findings and variances, the per-table table, the three charts,
dealers, players, the cage's MTL entries, the integrity checks and the trial balance.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.template.defaultfilters import pluralize
from django.template.loader import render_to_string

from casino.money import format_dollars
from tables.audit.charts import all_charts


def local_time(moment: dt.datetime) -> str:
    """A moment as the report writes it: casino-local "YYYY-MM-DD HH:MM" (a sentence may end
    after it with its own full stop, unlike after Django's "6 a.m.")."""
    return moment.astimezone(ZoneInfo(settings.CASINO_TIME_ZONE)).strftime("%Y-%m-%d %H:%M")


def _local(value: str | None) -> str | None:
    """An ISO timestamp from the report as casino-local "YYYY-MM-DD HH:MM"."""
    return local_time(dt.datetime.fromisoformat(value)) if value else None


def _counts(number: int, noun: str) -> str:
    """ "1 finding", "3 findings"."""
    return f"{number} {noun}{pluralize(number)}"


def verdict(report: Mapping[str, Any]) -> tuple[str, str]:
    """The headline above the figures, and its tone (good, warn, bad).

    It says the day reconciles only when nothing below it says otherwise: no finding, and no
    count that differs from the ledger (a difference within the threshold raises no finding,
    but it is shown, so the headline names it too).
    """
    summary = report["summary"]
    if summary["critical"]:
        return "bad", f"{_counts(summary['critical'], 'critical finding')}: the day does not reconcile."
    if summary["findings"]:
        return "warn", f"The ledger reconciles; {_counts(summary['findings'], 'finding')} to review."
    counts = [v["amount"] for v in report.get("variances", []) if v["amount"]]
    differences = counts or [t["variance"] for t in report.get("tables", []) if t.get("variance")]
    if differences:
        within = f"within the {format_dollars(report['thresholds']['variance'])} threshold"
        if len(differences) == 1:
            what = f"one count differs from the ledger by {format_dollars(differences[0])} ({within})"
        else:
            total = format_dollars(sum(differences))
            what = f"{len(differences)} counts differ from the ledger, by {total} in all (each {within})"
        return "warn", f"No findings, but {what}: see the counts below."
    return "good", "Everything reconciles: no findings, and every count matched the ledger."


PDF_PLAYERS = 60  # the busiest players; every flagged one is listed too, the rest are in the CSV


def _players_for_print(report: Mapping[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """A big night has a thousand players: print the busiest and every one due a CTR.

    Why: a 40-page player list makes the PDF slow to draw and no auditor reads it on paper;
    the JSON, the CSV and the HTML page keep every player.
    """
    players: list[dict[str, Any]] = list(report.get("players", []))
    if len(players) <= PDF_PLAYERS:
        return players, 0
    flagged = {entry["player"] for entry in report["cage"]["mtl"]} | {
        p["id"] for p in players if p["ctr_in"] or p["ctr_out"]
    }
    busiest = {p["id"] for p in sorted(players, key=lambda p: p["handle"], reverse=True)[:PDF_PLAYERS]}
    shown = [p for p in players if p["id"] in flagged | busiest]
    return shown, len(players) - len(shown)


def report_context(
    report: Mapping[str, Any],
    *,
    dpi: int = 160,
    for_print: bool = False,
    charts: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What both the PDF and the HTML page render: the report, its charts (drawn here unless
    given: the page keeps them cached), local times."""
    players, omitted = _players_for_print(report) if for_print else (list(report.get("players", [])), 0)
    variances = [v for v in report.get("variances", []) if v["amount"]]
    tone, headline = verdict(report)
    win = report.get("win") or {}
    periods = [win[k] for k in ("totals", "month_to_date", "year_to_date") if k in win]
    return {
        "win_tables": [
            (heading, rows, testid)
            for heading, rows, testid in (
                ("By table", win.get("by_table", []), "win-by-table"),
                ("By game", win.get("by_game", []), "win-by-game"),
                ("By shift", win.get("by_shift", []), "win-by-shift"),
                ("The day, the month and the year to date", periods, "win-periods"),
            )
            if rows
        ],
        "report": report,
        "verdict_tone": tone,
        "verdict": headline,
        "variances": variances,
        "exact_counts": len(report.get("variances", [])) - len(variances),
        "players": players,
        "players_omitted": omitted,
        "charts": charts if charts is not None else all_charts(report, dpi=dpi),
        "zone": settings.CASINO_TIME_ZONE,
        "bounds_start": _local(report["bounds"]["start"]),
        "bounds_end": _local(report["bounds"]["end"]),
        "closed_at": _local(report["closed"].get("at")),
        "generated_at": _local(report.get("generated_at")),
        "trial_as_of": _local(report["trial_balance"].get("as_of")),
    }


def render_pdf(report: Mapping[str, Any]) -> bytes:
    """The PDF's bytes. WeasyPrint is imported here: it needs Pango (deploy/scripts/setup)."""
    from weasyprint import HTML

    html = render_to_string("audit/report_pdf.html", report_context(report, dpi=200, for_print=True))
    pdf: bytes = HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()
    return pdf
