"""The audit report's JSON shape, in one place: the API, CSV, PDF and HTML all read this.

Money is integer cents everywhere (API.md). Percentages (``*_pct``) are floats rounded to
two decimals: they are ratios, not amounts. ``theo`` is an expectation and is rounded to
the cent. A player's ``result`` is the player's side (positive: the player won); every other
``win`` is the house's side. Nothing in a finished report is ever missing: a section that
could not be computed is an empty list plus an ``audit_section_failed`` finding.
"""

from __future__ import annotations

import math
from typing import Any, NotRequired, TypedDict

SCHEMA_VERSION = 1
CONFIDENCE_Z = 1.96  # the hold-vs-theoretical band is a 95 % normal interval

SEVERITY_ORDER = {"critical": 0, "warning": 1, "compliance": 2, "info": 3}
# Choice sets, named in the OpenAPI schema through SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].
SEVERITIES = ("critical", "warning", "compliance", "info")
COUNT_STAGES = ("opening", "closing")
CASH_KINDS = ("buy_in", "cash_out")
CASH_DIRECTIONS = ("cash_in", "cash_out")
CORRECTION_STATUSES = ("pending", "approved", "refused")


class FindingData(TypedDict):
    kind: str
    severity: str  # critical | warning | compliance | info
    message: str
    table: int | None
    table_name: str | None
    round: int | None
    player: int | None
    transfer: int | None
    amount: int | None
    evidence: dict[str, Any]


class VarianceData(TypedDict):
    table: int
    table_name: str
    session: int
    stage: str  # opening | closing
    counted: int | None
    ledger: int | None
    amount: int
    flagged: bool


class BandData(TypedDict):
    low_pct: float | None
    high_pct: float | None


class TableData(TypedDict):
    id: int
    name: str
    game: str
    variant: str | None  # the card-room game a stakes table deals (display name)
    sessions: int
    open: bool
    opener: int | None
    closer: int | None
    fills: int
    credits: int
    win: int | None  # closer + credits - opener - fills (the count)
    ledger_win: int  # the tray's own house-win postings (round settlements)
    variance: int | None  # win - ledger_win
    recorded_variance: int  # what the sessions posted to over/short
    variance_flagged: bool
    rake: int
    house_win: int  # win (or ledger_win when uncounted) + rake
    handle: int
    hold_pct: float | None
    theo: int | None
    theo_hold_pct: float | None
    theo_band: BandData
    rounds: int
    bets: int


class DealerData(TypedDict):
    id: int
    name: str
    tables: list[str]
    minutes: int
    rounds: int
    handle: int
    win: int
    theo: int


class PlayerData(TypedDict):
    id: int
    name: str
    tables: list[str]
    minutes: int
    handle: int
    result: int
    theo: int
    cash_in: int
    cash_out: int
    ctr_in: bool
    ctr_out: bool


class MtlEntryData(TypedDict):
    player: int
    name: str
    kind: str  # buy_in | cash_out
    amount: int
    at: str
    transfer: int


class CtrData(TypedDict):
    player: int
    name: str
    cash_in: int
    cash_out: int
    directions: list[str]


class CageData(TypedDict):
    cash_in: int
    cash_out: int
    transactions: int
    ctr: list[CtrData]
    mtl: list[MtlEntryData]


class CashFlowHour(TypedDict):
    hour: str  # local "HH:00" in the casino's zone
    start: str
    cash_in: int
    cash_out: int
    fills: int
    credits: int


class PurposeBalance(TypedDict):
    purpose: str
    accounts: int
    debits: int
    credits: int
    balance: int


class TrialBalanceData(TypedDict):
    as_of: str | None
    total_debits: int
    total_credits: int
    sum_of_balances: int
    balanced: bool
    by_purpose: list[PurposeBalance]


class CheckData(TypedDict):
    name: str
    label: str
    checked: int
    failed: int
    passed: bool


class CorrectionData(TypedDict):
    """One correction (tables.corrections): what it voided, who asked, who decided, and why."""

    id: int
    table: int
    table_name: str
    round: int  # the round's id
    round_number: int  # the table's round counter
    whole_round: bool  # a misdeal: the whole round voided
    actions: list[int]  # the action numbers voided (pending: the ones it would void)
    voided: str  # "whole round", "action 4", "actions 4, 5"
    reason: str
    status: str  # pending | approved | refused
    requested_by: int
    requested_by_name: str
    requested_at: str
    decided_by: int | None
    decided_by_name: str | None
    decided_at: str | None
    note: str  # the decider's note (a refusal's why)
    reversals: list[int]  # the reversing transfers' ids
    amount_reversed: int  # cents moved back by those transfers


class SummaryData(TypedDict):
    tables: int
    open_tables: int
    rounds: int
    bets: int
    handle: int
    win: int
    ledger_win: int
    rake: int
    house_win: int
    hold_pct: float | None
    theo: int
    theo_hold_pct: float | None
    fills: int
    credits: int
    cash_in: int
    cash_out: int
    players: int
    dealers: int
    findings: int
    critical: int
    variances_flagged: int
    checks_passed: int
    checks_failed: int
    rounds_voided: int  # misdeals voided whole (not in ``rounds``)
    corrections: int
    corrections_pending: int


class ReportData(TypedDict):
    schema_version: int
    gaming_day: str
    bounds: dict[str, str]
    closed: dict[str, Any]
    thresholds: dict[str, int]
    generated_at: str
    seconds: float
    summary: SummaryData
    findings: list[FindingData]
    variances: list[VarianceData]
    tables: list[TableData]
    dealers: list[DealerData]
    players: list[PlayerData]
    cage: CageData
    cash_flow: list[CashFlowHour]
    trial_balance: TrialBalanceData
    checks: list[CheckData]
    corrections: NotRequired[list[CorrectionData]]  # absent from reports stored before it existed
    notes: NotRequired[list[str]]


def pct(part: float | None, whole: int) -> float | None:
    """``part / whole`` as a percentage with two decimals; None when there is no handle."""
    if part is None or not whole:
        return None
    return round(100.0 * part / whole, 2)


def band(theo: float, variance: float, handle: int) -> BandData:
    """95 % interval for hold % given the bets' theo and variance (normal approximation)."""
    if not handle:
        return {"low_pct": None, "high_pct": None}
    spread = CONFIDENCE_Z * math.sqrt(max(variance, 0.0))
    return {"low_pct": pct(theo - spread, handle), "high_pct": pct(theo + spread, handle)}


def finding(
    kind: str,
    severity: str,
    message: str,
    *,
    table: int | None = None,
    table_name: str | None = None,
    round: int | None = None,
    player: int | None = None,
    transfer: int | None = None,
    amount: int | None = None,
    evidence: dict[str, Any] | None = None,
) -> FindingData:
    return {
        "kind": kind,
        "severity": severity,
        "message": message,
        "table": table,
        "table_name": table_name,
        "round": round,
        "player": player,
        "transfer": transfer,
        "amount": amount,
        "evidence": evidence or {},
    }


def sort_findings(findings: list[FindingData]) -> list[FindingData]:
    """Most serious first, then by table and round, so the auditor reads what matters first."""
    return sorted(
        findings,
        key=lambda f: (
            SEVERITY_ORDER.get(f["severity"], 9),
            f["kind"],
            f["table_name"] or "",
            f["round"] or 0,
            f["transfer"] or 0,
        ),
    )


def voided_text(*, whole: bool, actions: list[int]) -> str:
    """What a correction voids, in words: "whole round", "action 4", "actions 4, 5"."""
    if whole:
        return "whole round"
    if len(actions) == 1:
        return f"action {actions[0]}"
    return "actions " + ", ".join(str(seq) for seq in actions) if actions else "no action"


def dollars(cents: int | float | None) -> str:
    """$1,234.56 for templates and the PDF (dollars exist only in presentation)."""
    if cents is None:
        return "—"
    value = round(cents)
    sign = "-" if value < 0 else ""
    whole, rest = divmod(abs(value), 100)
    return f"{sign}${whole:,}.{rest:02d}"


def _ordered(item: Any, typed: Any) -> Any:
    keys = list(typed.__annotations__)
    if not isinstance(item, dict):
        return item
    known = {key: item[key] for key in keys if key in item}
    return {**known, **{key: value for key, value in item.items() if key not in known}}


_SECTIONS: dict[str, Any] = {
    "summary": SummaryData,
    "findings": FindingData,
    "variances": VarianceData,
    "tables": TableData,
    "dealers": DealerData,
    "players": PlayerData,
    "cage": CageData,
    "cash_flow": CashFlowHour,
    "trial_balance": TrialBalanceData,
    "checks": CheckData,
    "corrections": CorrectionData,
}


def in_schema_order(data: dict[str, Any]) -> dict[str, Any]:
    """The stored report's keys back in this module's order (jsonb keeps keys sorted its own way)."""
    out = _ordered(data, ReportData)
    for name, typed in _SECTIONS.items():
        value = out.get(name)
        if isinstance(value, list):
            out[name] = [_ordered(row, typed) for row in value]
        elif isinstance(value, dict):
            out[name] = _ordered(value, typed)
    cage = out.get("cage")
    if isinstance(cage, dict):
        cage["ctr"] = [_ordered(row, CtrData) for row in cage.get("ctr", [])]
        cage["mtl"] = [_ordered(row, MtlEntryData) for row in cage.get("mtl", [])]
    for row in out.get("tables") or []:
        if isinstance(row, dict) and isinstance(row.get("theo_band"), dict):
            row["theo_band"] = _ordered(row["theo_band"], BandData)
    trial = out.get("trial_balance")
    if isinstance(trial, dict):
        trial["by_purpose"] = [_ordered(row, PurposeBalance) for row in trial.get("by_purpose", [])]
    return out
