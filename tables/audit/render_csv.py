"""``?format=csv``: a ZIP with one CSV file per section of the report.

Why a ZIP of files and not one CSV with a ``section`` column: the sections have different
columns (a table row has 20, a finding 10), and a spreadsheet or ``pandas.read_csv`` reads a
file with one header cleanly. Files (UTF-8, comma-separated, header row, percentages as numbers,
empty cell = no value). Every amount is two columns side by side: ``…_cents``, integer cents for
machines (so a program never reads them as dollars), then ``…_dollars``, the same amount as a
person reads it ("$1,234.50", a loss "−$5.00": ``casino.money.format_dollars``):

    summary.csv       one row: the day's totals
    findings.csv      most serious first; ``evidence`` is JSON
    variances.csv     every count against the ledger, per session and stage
    tables.csv        one row per table (theo band as low/high columns)
    dealers.csv, players.csv, cash_flow.csv (per hour), mtl.csv, ctr.csv
    checks.csv        integrity checks: checked / failed / passed
    trial_balance.csv one row per account purpose, then a TOTAL row
    corrections.csv   every correction: what it voided, reason, who asked, who decided, reversals
    slip_series.csv   each series of slips the day used: first, last, issued, void, missing numbers
    slip_voids.csv, slip_variances.csv (reportable first), slips_in_transit.csv
    cash_mtl.csv, cash_ctrs.csv, cash_refused.csv   "Cash reporting" (casino.cash): MTL lines with
                      where and by whom, CTRs due with the identification on file, refusals for want of it
    credit.csv        one row: markers issued (count and amount), redeemed (cash, chips), outstanding
    credit_aging.csv  what is owed at the day's end by age: 0-30, 31-60, 61-90, over 90 days
    credit_markers.csv every marker owed at the day's end, oldest first, with its age
    drop_boxes.csv    the day's drop boxes: seal, recorded, counted, variance, who counted
    win.csv           win and hold by table, game and shift, then the day, month and year to date
    win_lines.csv     each row's difference from the ledger's win, line by line
    hold_investigations.csv  month-to-date holds outside their band
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from casino.csv_safety import spreadsheet_safe
from casino.money import format_dollars
from tables.audit import report as shape


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


# The report's money fields (report.py: integer cents). Each is two CSV columns that carry
# their unit: ``cash_in`` reads ``cash_in_cents`` and ``cash_in_dollars``; counts (rounds, bets,
# accounts) and ids keep their names.
MONEY_FIELDS = frozenset({
    "amount", "amount_reversed", "balance", "cash_in", "cash_out", "closer", "counted", "credits",
    "day_total", "debits", "difference", "drop", "electronic_win", "expected", "fills", "handle",
    "house_win", "issued_total", "ledger", "ledger_win", "markers_amount", "opener", "outstanding", "rake",
    "recorded", "recorded_variance", "redeemed", "redeemed_cash", "redeemed_chips", "result",
    "theo", "variance", "win",
})  # fmt: skip


def header(column: str) -> list[str]:
    """A column's CSV headers: a money field is its cents, then its dollars."""
    return [f"{column}_cents", f"{column}_dollars"] if column in MONEY_FIELDS else [column]


def _cells(column: str, value: Any) -> list[Any]:
    """A column's CSV cells: an amount as cents and as dollars (none: both empty)."""
    if column not in MONEY_FIELDS:
        return [_cell(value)]
    return [_cell(value), "" if value is None else format_dollars(value)]


def _csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([name for column in columns for name in header(column)])
    for row in rows:
        writer.writerow([cell for column in columns for cell in _cells(column, row.get(column))])
    return buffer.getvalue().encode("utf-8")


def _flat_tables(tables: Iterable[Mapping[str, Any]]) -> Iterable[dict[str, Any]]:
    for table in tables:
        row = dict(table)
        band = row.pop("theo_band", None) or {}
        row["theo_band_low_pct"] = band.get("low_pct")
        row["theo_band_high_pct"] = band.get("high_pct")
        yield row


def _columns(typed: Any) -> list[str]:
    """A section's columns: its TypedDict's fields in report.py's order."""
    return list(typed.__annotations__)


def _table_columns() -> list[str]:
    """A table row's fields, the theo band as two columns in its place."""
    columns: list[str] = []
    for name in _columns(shape.TableData):
        columns += ["theo_band_low_pct", "theo_band_high_pct"] if name == "theo_band" else [name]
    return columns


# The two files whose columns differ from the JSON: severity first, and a correction's
# ``whole_round`` left out (``voided`` says it in words, before the action numbers).
FINDING_COLUMNS = ["severity", *(name for name in _columns(shape.FindingData) if name != "severity")]
CORRECTION_COLUMNS = (
    "id", "table", "table_name", "round", "round_number", "voided", "actions", "reason", "status",
    "requested_by", "requested_by_name", "requested_at", "decided_by", "decided_by_name", "decided_at",
    "note", "reversals", "amount_reversed",
)  # fmt: skip
TABLE_COLUMNS = _table_columns()
NO_SLIPS: dict[str, list[Any]] = {"series": [], "voids": [], "variances": [], "in_transit": []}
NO_CASH_REPORTING: dict[str, list[Any]] = {"mtl": [], "ctrs": [], "refused": []}
# The credit summary's one row: ``issued`` (cents) is ``issued_total`` here, since a slip series'
# ``issued`` is a count of slips.
CREDIT_COLUMNS = (
    "issued_count",
    "issued_total",
    "redeemed",
    "redeemed_cash",
    "redeemed_chips",
    "outstanding",
)


WIN_COLUMNS = ["grouping", *(name for name in _columns(shape.WinRowData) if name != "explanation")]
WIN_LINE_COLUMNS = ["grouping", "key", "label", *_columns(shape.WinLineData)]
# (grouping, the report's key): the day's rows, then the periods, in the order win.csv lists them.
WIN_GROUPS = (("table", "by_table"), ("game", "by_game"), ("shift", "by_shift"))
WIN_PERIODS = ("totals", "month_to_date", "year_to_date")


def _win_rows(win: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = [{"grouping": grouping, **row} for grouping, key in WIN_GROUPS for row in win.get(key, [])]
    rows += [{"grouping": "period", **win[key]} for key in WIN_PERIODS if key in win]
    return rows


def _win_lines(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"grouping": row["grouping"], "key": row["key"], "label": row["label"], **line}
        for row in rows
        for line in row.get("explanation", [])
    ]


def sections(report: Mapping[str, Any]) -> dict[str, bytes]:
    """File name → CSV bytes, in the order the ZIP lists them."""
    summary = {"gaming_day": report["gaming_day"], **report["summary"]}
    slips = report.get("slips") or NO_SLIPS
    cash = report.get("cash_reporting") or NO_CASH_REPORTING
    credit = report.get("credit") or {"issued": 0, "aging": [], "markers": []}
    trial = report["trial_balance"]
    win_rows = _win_rows(report.get("win") or {})
    total = {
        "purpose": "TOTAL",
        "accounts": sum(p["accounts"] for p in trial["by_purpose"]),
        "debits": trial["total_debits"],
        "credits": trial["total_credits"],
        "balance": trial["sum_of_balances"],
    }
    return {
        "summary.csv": _csv(["gaming_day", *_columns(shape.SummaryData)], [summary]),
        "findings.csv": _csv(FINDING_COLUMNS, report["findings"]),
        "variances.csv": _csv(_columns(shape.VarianceData), report["variances"]),
        "tables.csv": _csv(TABLE_COLUMNS, _flat_tables(report["tables"])),
        "dealers.csv": _csv(_columns(shape.DealerData), report["dealers"]),
        "players.csv": _csv(_columns(shape.PlayerData), report["players"]),
        "cash_flow.csv": _csv(_columns(shape.CashFlowHour), report["cash_flow"]),
        "mtl.csv": _csv(_columns(shape.MtlEntryData), report["cage"]["mtl"]),
        "ctr.csv": _csv(_columns(shape.CtrData), report["cage"]["ctr"]),
        "checks.csv": _csv(_columns(shape.CheckData), report["checks"]),
        "trial_balance.csv": _csv(_columns(shape.PurposeBalance), [*trial["by_purpose"], total]),
        "corrections.csv": _csv(CORRECTION_COLUMNS, report.get("corrections", [])),
        "slip_series.csv": _csv(_columns(shape.SlipSeriesData), slips["series"]),
        "slip_voids.csv": _csv(_columns(shape.SlipVoidData), slips["voids"]),
        "slip_variances.csv": _csv(_columns(shape.SlipVarianceData), slips["variances"]),
        "slips_in_transit.csv": _csv(_columns(shape.SlipTransitData), slips["in_transit"]),
        "cash_mtl.csv": _csv(_columns(shape.CashLineData), cash["mtl"]),
        "cash_ctrs.csv": _csv(_columns(shape.CashCtrData), cash["ctrs"]),
        "cash_refused.csv": _csv(_columns(shape.CashRefusalData), cash["refused"]),
        "credit.csv": _csv(CREDIT_COLUMNS, [{**credit, "issued_total": credit["issued"]}]),
        "credit_aging.csv": _csv(_columns(shape.CreditAgingData), credit["aging"]),
        "credit_markers.csv": _csv(_columns(shape.CreditMarkerData), credit["markers"]),
        "drop_boxes.csv": _csv(_columns(shape.DropBoxData), report.get("drop", [])),
        "win.csv": _csv(WIN_COLUMNS, win_rows),
        "win_lines.csv": _csv(WIN_LINE_COLUMNS, _win_lines(win_rows)),
        "hold_investigations.csv": _csv(_columns(shape.HoldCheckData), report.get("hold_investigations", [])),
    }


def render_csv_zip(report: Mapping[str, Any]) -> bytes:
    """The ZIP archive served for ``?format=csv`` (files under ``audit-<day>/``)."""
    buffer = io.BytesIO()
    folder = f"audit-{report['gaming_day']}"
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in sections(report).items():
            archive.writestr(f"{folder}/{name}", content)
    return buffer.getvalue()
