"""Assemble: the computed state as the report dict (tables.audit.report.ReportData).

Dealers' and players' rows, the day's summary summed from the table rows, findings sorted
most serious first.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.utils import timezone

from casino.money import format_dollars
from casino.selectors import staff_names
from tables.audit import report as shape
from tables.audit.compute.credit import NO_CREDIT
from tables.audit.compute.state import AuditState
from tables.models import CorrectionStatus, RoundStatus


def assemble(audit: AuditState, *, began: float, closed_at: dt.datetime | None) -> dict[str, Any]:
    """The report, with the summary summed from the rows so that it cannot disagree with them."""
    tables = audit.table_rows
    dealer_names = staff_names(set(audit.dealers))
    dealers: list[shape.DealerData] = [
        {
            "id": pk,
            "name": dealer_names.get(pk, str(pk)),
            "tables": sorted(d.tables),
            "minutes": round(d.minutes),
            "rounds": d.rounds,
            "handle": d.handle,
            "win": d.win,
            "theo": round(d.theo),
        }
        for pk, d in sorted(audit.dealers.items(), key=lambda item: dealer_names.get(item[0], ""))
    ]
    players: list[shape.PlayerData] = [
        {
            "id": pk,
            "name": audit.player_names.get(pk, str(pk)),
            "tables": sorted(p.tables),
            "minutes": round(p.minutes),
            "handle": p.handle,
            "result": p.win,
            "theo": round(p.theo),
            "cash_in": p.cash_in,
            "cash_out": p.cash_out,
            "ctr_in": p.cash_in > audit.ctr_threshold,
            "ctr_out": p.cash_out > audit.ctr_threshold,
        }
        for pk, p in sorted(audit.players.items(), key=lambda item: audit.player_names.get(item[0], ""))
    ]
    for variance in audit.variances:
        if variance["flagged"] and variance["stage"] == "opening":
            audit.add(
                shape.finding(
                    "opening_variance",
                    "warning",
                    f"{variance['table_name']}: the opening count differs from the tray's ledger balance by "
                    f"{format_dollars(variance['amount'])}.",
                    table=variance["table"],
                    table_name=variance["table_name"],
                    amount=variance["amount"],
                    evidence={"session": variance["session"]},
                )
            )
    findings = shape.sort_findings(audit.findings)
    cage = audit.cage or {"cash_in": 0, "cash_out": 0, "transactions": 0, "ctr": [], "mtl": []}
    trial = audit.trial_balance or {
        "as_of": None,
        "total_debits": 0,
        "total_credits": 0,
        "sum_of_balances": 0,
        "balanced": False,
        "by_purpose": [],
    }
    handle = sum(t["handle"] for t in tables)
    house_win = sum(t["house_win"] for t in tables)
    faro_handle = sum(t["handle"] for t in tables if t["theo"] is not None)
    theo = sum(t["theo"] or 0 for t in tables)
    summary: shape.SummaryData = {
        "tables": len(tables),
        "open_tables": sum(1 for t in tables if t["open"]),
        "rounds": sum(1 for r in audit.rounds if r.status != RoundStatus.VOID),
        "bets": sum(t["bets"] for t in tables),
        "handle": handle,
        "win": sum((t["win"] if t["win"] is not None else t["ledger_win"]) for t in tables),
        "ledger_win": sum(t["ledger_win"] for t in tables),
        "rake": sum(t["rake"] for t in tables),
        "house_win": house_win,
        "hold_pct": shape.pct(house_win, handle),
        "theo": theo,
        "theo_hold_pct": shape.pct(theo, faro_handle),
        "fills": sum(t["fills"] for t in tables),
        "credits": sum(t["credits"] for t in tables),
        "cash_in": cage["cash_in"],
        "cash_out": cage["cash_out"],
        "players": len(players),
        "dealers": len(dealers),
        "findings": len(findings),
        "critical": sum(1 for f in findings if f["severity"] == "critical"),
        "variances_flagged": sum(1 for t in tables if t["variance_flagged"]),
        "checks_passed": sum(1 for c in audit.checks if c["passed"]),
        "checks_failed": sum(1 for c in audit.checks if not c["passed"]),
        "rounds_voided": sum(1 for r in audit.rounds if r.status == RoundStatus.VOID),
        "corrections": len(audit.corrections),
        "corrections_pending": sum(1 for c in audit.corrections if c["status"] == CorrectionStatus.PENDING),
    }
    data: shape.ReportData = {
        "schema_version": shape.SCHEMA_VERSION,
        "gaming_day": audit.day.isoformat(),
        "bounds": {"start": audit.start.isoformat(), "end": audit.end.isoformat()},
        "closed": {"at": closed_at.isoformat() if closed_at else None, "by": "", "forced": False},
        "thresholds": {
            "variance": audit.variance_threshold,
            "ctr": audit.ctr_threshold,
            "mtl": audit.mtl_threshold,
        },
        "generated_at": timezone.now().isoformat(),
        "seconds": round(time.monotonic() - began, 3),
        "summary": summary,
        "findings": findings,
        "variances": audit.variances,
        "tables": tables,
        "dealers": dealers,
        "players": players,
        "cage": cage,
        "cash_flow": audit.cash_flow,
        "trial_balance": trial,
        "checks": audit.checks,
        "corrections": audit.corrections,
        "notes": audit.notes,
        "slips": audit.slips or {"series": [], "voids": [], "variances": [], "in_transit": []},
        "cash_reporting": audit.cash_reporting or {"mtl": [], "ctrs": [], "refused": []},
        "credit": audit.credit or NO_CREDIT,
        "drop": audit.drop,
        "hold_investigations": audit.hold_investigations,
    }
    if audit.win is not None:
        data["win"] = audit.win
    return dict(data)
