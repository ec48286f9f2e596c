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
from django.template.loader import render_to_string

from tables.audit.charts import all_charts


def _local(value: str | None, zone: ZoneInfo) -> str | None:
    """An ISO timestamp from the report as casino-local "YYYY-MM-DD HH:MM"."""
    if not value:
        return None
    return dt.datetime.fromisoformat(value).astimezone(zone).strftime("%Y-%m-%d %H:%M")


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


def report_context(report: Mapping[str, Any], *, dpi: int = 160, for_print: bool = False) -> dict[str, Any]:
    """What both the PDF and the HTML page render: the report, its charts, local times."""
    zone = ZoneInfo(settings.CASINO_TIME_ZONE)
    players, omitted = _players_for_print(report) if for_print else (list(report.get("players", [])), 0)
    variances = [v for v in report.get("variances", []) if v["amount"]]
    return {
        "report": report,
        "variances": variances,
        "exact_counts": len(report.get("variances", [])) - len(variances),
        "players": players,
        "players_omitted": omitted,
        "charts": all_charts(report, dpi=dpi),
        "zone": str(zone),
        "bounds_start": _local(report["bounds"]["start"], zone),
        "bounds_end": _local(report["bounds"]["end"], zone),
        "closed_at": _local(report["closed"].get("at"), zone),
        "generated_at": _local(report.get("generated_at"), zone),
        "trial_as_of": _local(report["trial_balance"].get("as_of"), zone),
    }


def render_pdf(report: Mapping[str, Any]) -> bytes:
    """The PDF's bytes. WeasyPrint is imported here: it needs Pango (deploy/scripts/setup)."""
    from weasyprint import HTML

    html = render_to_string("audit/report_pdf.html", report_context(report, dpi=200, for_print=True))
    pdf: bytes = HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()
    return pdf
