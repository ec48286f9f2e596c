"""``?format=csv``: a ZIP with one CSV file per section of the report.

Why a ZIP of files and not one CSV with a ``section`` column: the sections have different
columns (a table row has 20, a finding 10), and a spreadsheet or ``pandas.read_csv`` reads a
file with one header cleanly. Files (UTF-8, comma-separated, header row, amounts in integer
cents, percentages as numbers, empty cell = no value):

    summary.csv       one row: the day's totals
    findings.csv      most serious first; ``evidence`` is JSON
    variances.csv     every count against the ledger, per session and stage
    tables.csv        one row per table (theo band as low/high columns)
    dealers.csv, players.csv, cash_flow.csv (per hour), mtl.csv, ctr.csv
    checks.csv        integrity checks: checked / failed / passed
    trial_balance.csv one row per account purpose, then a TOTAL row
    corrections.csv   every correction: what it voided, reason, who asked, who decided, reversals
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from casino.csv_safety import spreadsheet_safe
from tables.audit.report import SummaryData


def _cell(value: Any) -> Any:
    """One CSV cell; text is made spreadsheet-safe (a name or memo can never be a formula)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return spreadsheet_safe(json.dumps(value, sort_keys=True))
    if isinstance(value, list):
        return spreadsheet_safe("; ".join(str(v) for v in value))
    return spreadsheet_safe(value)


def _csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(column)) for column in columns])
    return buffer.getvalue().encode("utf-8")


def _flat_tables(tables: Iterable[Mapping[str, Any]]) -> Iterable[dict[str, Any]]:
    for table in tables:
        row = dict(table)
        band = row.pop("theo_band", None) or {}
        row["theo_band_low_pct"] = band.get("low_pct")
        row["theo_band_high_pct"] = band.get("high_pct")
        yield row


TABLE_COLUMNS = (
    "id", "name", "game", "variant", "sessions", "open", "opener", "closer", "fills", "credits", "win",
    "ledger_win",
    "variance", "recorded_variance", "variance_flagged", "rake", "house_win", "handle", "hold_pct", "theo",
    "theo_hold_pct", "theo_band_low_pct", "theo_band_high_pct", "rounds", "bets",
)  # fmt: skip


CORRECTION_COLUMNS = (
    "id", "table", "table_name", "round", "round_number", "voided", "actions", "reason", "status",
    "requested_by", "requested_by_name", "requested_at", "decided_by", "decided_by_name", "decided_at",
    "note", "reversals", "amount_reversed",
)  # fmt: skip


def sections(report: Mapping[str, Any]) -> dict[str, bytes]:
    """File name → CSV bytes, in the order the ZIP lists them."""
    summary = {"gaming_day": report["gaming_day"], **report["summary"]}
    trial = report["trial_balance"]
    total = {
        "purpose": "TOTAL",
        "accounts": sum(p["accounts"] for p in trial["by_purpose"]),
        "debits": trial["total_debits"],
        "credits": trial["total_credits"],
        "balance": trial["sum_of_balances"],
    }
    return {
        "summary.csv": _csv(["gaming_day", *SummaryData.__annotations__], [summary]),
        "findings.csv": _csv(
            [
                "severity",
                "kind",
                "message",
                "table",
                "table_name",
                "round",
                "player",
                "transfer",
                "amount",
                "evidence",
            ],
            report["findings"],
        ),
        "variances.csv": _csv(
            ["table", "table_name", "session", "stage", "counted", "ledger", "amount", "flagged"],
            report["variances"],
        ),
        "tables.csv": _csv(TABLE_COLUMNS, _flat_tables(report["tables"])),
        "dealers.csv": _csv(
            ["id", "name", "tables", "minutes", "rounds", "handle", "win", "theo"], report["dealers"]
        ),
        "players.csv": _csv(
            [
                "id",
                "name",
                "tables",
                "minutes",
                "handle",
                "result",
                "theo",
                "cash_in",
                "cash_out",
                "ctr_in",
                "ctr_out",
            ],
            report["players"],
        ),
        "cash_flow.csv": _csv(
            ["hour", "start", "cash_in", "cash_out", "fills", "credits"], report["cash_flow"]
        ),
        "mtl.csv": _csv(["player", "name", "kind", "amount", "at", "transfer"], report["cage"]["mtl"]),
        "ctr.csv": _csv(["player", "name", "cash_in", "cash_out", "directions"], report["cage"]["ctr"]),
        "checks.csv": _csv(["name", "label", "checked", "failed", "passed"], report["checks"]),
        "trial_balance.csv": _csv(
            ["purpose", "accounts", "debits", "credits", "balance"], [*trial["by_purpose"], total]
        ),
        "corrections.csv": _csv(CORRECTION_COLUMNS, report.get("corrections", [])),
    }


def render_csv_zip(report: Mapping[str, Any]) -> bytes:
    """The ZIP archive served for ``?format=csv`` (files under ``audit-<day>/``)."""
    buffer = io.BytesIO()
    folder = f"audit-{report['gaming_day']}"
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in sections(report).items():
            archive.writestr(f"{folder}/{name}", content)
    return buffer.getvalue()
