"""The audit report's JSON shape, written once: everything else reads or derives from here.

The compute package builds these dicts (mypy checks each literal against its TypedDict), the
API's serializers and so the OpenAPI schema are generated from them (tables/audit/schema.py),
and the CSV, PDF, HTML page and charts read the stored dict by these keys. ``Doc`` on a field
says how the schema shows it (help text, choices, a timestamp) and changes nothing at run time.

Money is integer cents everywhere (API.md). Percentages (``*_pct``) are floats rounded to
two decimals: they are ratios, not amounts. ``theo`` is an expectation and is rounded to
the cent. A player's ``result`` is the player's side (positive: the player won); every other
``win`` is the house's side. Nothing in a finished report is ever missing: a section that
could not be computed is an empty list plus an ``audit_section_failed`` finding.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from types import UnionType
from typing import (
    Annotated,
    Any,
    NotRequired,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from tables.audit.models import AuditStatus
from tables.models import CorrectionStatus
from tables.slips.models import SlipKind, SlipStatus

SCHEMA_VERSION = 1
CONFIDENCE_Z = 1.96  # the hold-vs-theoretical band is a 95 % normal interval

SEVERITY_ORDER = {"critical": 0, "warning": 1, "compliance": 2, "info": 3}
# Choice sets, named in the OpenAPI schema through SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].
SEVERITIES = ("critical", "warning", "compliance", "info")
COUNT_STAGES = ("opening", "closing")
CASH_KINDS = ("buy_in", "cash_out")
CASH_DIRECTIONS = ("cash_in", "cash_out")
CASH_LINE_KINDS = ("cage_buy_in", "table_buy_in", "marker_redemption", "cage_cash_out")  # casino.cash
CORRECTION_STATUSES = tuple(CorrectionStatus.values)
SLIP_KINDS = tuple(SlipKind.values)
SLIP_STATUSES = tuple(SlipStatus.values)


@dataclass(frozen=True, slots=True)
class Doc:
    """How a field reads in the OpenAPI schema: its help text, its choices, or that its text is a
    timestamp (``moment``) or a day (``day``). Metadata only (``Annotated``)."""

    help: str = ""
    choices: Sequence[Any] = ()
    moment: bool = False
    day: bool = False


Moment = Annotated[str, Doc(moment=True)]  # an ISO 8601 timestamp


class FindingData(TypedDict):
    kind: Annotated[str, Doc("e.g. count_variance, round_replay_mismatch, transfer_not_zero_sum")]
    severity: Annotated[str, Doc(choices=SEVERITIES)]
    message: str
    table: int | None
    table_name: str | None
    round: int | None
    player: int | None
    transfer: int | None
    amount: Annotated[int | None, Doc("cents")]
    evidence: dict[str, Any]


class VarianceData(TypedDict):
    table: int
    table_name: str
    session: int
    stage: Annotated[str, Doc(choices=COUNT_STAGES)]
    counted: int | None
    ledger: int | None
    amount: Annotated[int, Doc("counted - ledger, cents")]
    flagged: bool


class BandData(TypedDict):
    low_pct: float | None
    high_pct: float | None


class TableData(TypedDict):
    id: int
    name: str
    game: str
    variant: Annotated[str | None, Doc("the card-room game a stakes table deals (display name)")]
    sessions: int
    open: bool
    opener: int | None
    closer: int | None
    fills: int
    credits: int
    win: Annotated[int | None, Doc("closer + credits - opener - fills")]  # the count
    ledger_win: Annotated[int, Doc("the tray's round postings (house win in the ledger)")]
    variance: Annotated[int | None, Doc("win - ledger_win")]
    recorded_variance: int  # what the sessions posted to over/short
    variance_flagged: bool
    rake: int
    house_win: Annotated[int, Doc("the rounds' house win (RoundStat.win): tray net + their rake")]
    handle: Annotated[int, Doc("chips on decided bets (RoundStat.handle; README)")]
    hold_pct: float | None
    theo: Annotated[int | None, Doc("Faro only: Σ decided bet x edge when placed")]
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
    win: Annotated[int, Doc("house side")]
    theo: int


class PlayerData(TypedDict):
    id: int
    name: str
    tables: list[str]
    minutes: int
    handle: int
    result: Annotated[int, Doc("player side: positive = the player won")]
    theo: int
    cash_in: int
    cash_out: int
    ctr_in: bool
    ctr_out: bool


class MtlEntryData(TypedDict):
    player: int
    name: str
    kind: Annotated[str, Doc(choices=CASH_KINDS)]
    amount: int
    at: Moment
    transfer: int


class CtrData(TypedDict):
    player: int
    name: str
    cash_in: int
    cash_out: int
    directions: list[Annotated[str, Doc(choices=CASH_DIRECTIONS)]]


class CageData(TypedDict):
    cash_in: int
    cash_out: int
    transactions: int
    ctr: list[CtrData]
    mtl: list[MtlEntryData]


class CashLineData(TypedDict):
    """One cash transaction with a player (casino.cash), as the MTL lists it."""

    player: int
    name: str
    kind: Annotated[str, Doc(choices=CASH_LINE_KINDS)]
    direction: Annotated[str, Doc(choices=("in", "out"))]
    amount: int
    where: Annotated[str, Doc('"Cage" or the table\'s name')]
    by: Annotated[str, Doc("the staff member's name")]
    at: Moment
    transfer: int | None


class CashCtrData(TypedDict):
    """A currency transaction report due: FinCEN form 112's person (part I) and amounts (part II)."""

    player: int
    name: str
    cash_in: int
    cash_out: int
    directions: list[Annotated[str, Doc(choices=CASH_DIRECTIONS)]]
    transactions: Annotated[int, Doc("the cash transactions in the directions past the line")]
    id_kind: Annotated[str, Doc("the identification on file; empty if none")]
    id_number: str
    id_issued_by: str
    id_name: str
    birth_date: Annotated[str, Doc("YYYY-MM-DD, empty if no identification is on file")]
    address: str


class CashRefusalData(TypedDict):
    """A cash transaction refused for want of identification (it moved nothing)."""

    player: int
    name: str
    kind: Annotated[str, Doc(choices=CASH_LINE_KINDS)]
    amount: int
    day_total: Annotated[int, Doc("the player's total in that direction before it")]
    where: str
    by: str
    at: Moment


class CashReportingData(TypedDict):
    """Title 31 (31 CFR 1021.313): the day's MTL lines, the CTRs due and the refusals."""

    mtl: list[CashLineData]
    ctrs: list[CashCtrData]
    refused: list[CashRefusalData]


class CashFlowHour(TypedDict):
    hour: str  # local "HH:00" in the casino's zone
    start: Moment
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
    as_of: Moment | None
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
    round: Annotated[int, Doc("the round's id")]
    round_number: Annotated[int, Doc("the table's round counter")]
    whole_round: Annotated[bool, Doc("a misdeal: the whole round voided")]
    actions: Annotated[list[int], Doc("action numbers voided (pending: to be voided)")]
    voided: Annotated[str, Doc('"whole round", "action 4", "actions 4, 5"')]
    reason: str
    status: Annotated[str, Doc(choices=CORRECTION_STATUSES)]
    requested_by: int
    requested_by_name: str
    requested_at: Moment
    decided_by: int | None
    decided_by_name: str | None
    decided_at: Moment | None
    note: str  # the decider's note (a refusal's why)
    reversals: Annotated[list[int], Doc("reversing transfer ids")]
    amount_reversed: Annotated[int, Doc("cents moved back by the reversals")]


class SlipSeriesData(TypedDict):
    """One series (a kind of slip in a calendar year) as the day's slips account for it."""

    kind: Annotated[str, Doc(choices=SLIP_KINDS)]
    year: int
    first: Annotated[str | None, Doc("the day's first number in the series")]
    last: Annotated[str | None, Doc("the day's last number in the series")]
    issued: Annotated[int, Doc("slips of the day in the series, void ones included")]
    void: int
    missing: Annotated[
        list[str],
        Doc("numbers after the previous day's last and before the next day's first that no slip carries"),
    ]


class SlipVoidData(TypedDict):
    number: str
    kind: Annotated[str, Doc(choices=SLIP_KINDS)]
    table: int | None
    table_name: str | None
    amount: Annotated[int, Doc("cents")]
    reason: str
    voided_by: int
    voided_by_name: str
    voided_at: Moment


class SlipVarianceData(TypedDict):
    """A count (opener, closer or count slip) off the ledger's tray by more than COUNT_VARIANCE_NOTE."""

    number: str
    kind: Annotated[str, Doc(choices=SLIP_KINDS)]
    status: Annotated[str, Doc(choices=SLIP_STATUSES)]
    table: int | None
    table_name: str | None
    counted: Annotated[int, Doc("the slip's amount, cents")]
    expected: Annotated[int, Doc("the ledger's tray when counted, cents")]
    variance: Annotated[int, Doc("counted - expected, cents")]
    reportable: Annotated[bool, Doc("REPORTABLE_VARIANCE or more")]


class SlipTransitData(TypedDict):
    """A fill or credit still in transit (issued, not yet received) when the audit ran."""

    number: str
    kind: Annotated[str, Doc(choices=SLIP_KINDS)]
    table: int | None
    table_name: str | None
    amount: Annotated[int, Doc("cents")]
    gaming_day: Annotated[str, Doc(day=True)]
    at: Annotated[str, Doc("when the slip was written", moment=True)]


class SlipsData(TypedDict):
    """The pit's books for the day: every series accounted for, voids, variances, chips in transit."""

    series: list[SlipSeriesData]
    voids: list[SlipVoidData]
    variances: Annotated[list[SlipVarianceData], Doc("reportable first, then the largest")]
    in_transit: list[SlipTransitData]


CREDIT_BUCKETS = ("0-30", "31-60", "61-90", "over 90")


class CreditMarkerData(TypedDict):
    """A marker still owed when the day ended, with its age."""

    number: str
    player: int
    player_name: str
    table: int | None
    table_name: str | None
    gaming_day: Annotated[str, Doc("the day it was issued", day=True)]
    amount: Annotated[int, Doc("cents, as issued")]
    outstanding: Annotated[int, Doc("cents still owed at the end of the day")]
    days: Annotated[int, Doc("days outstanding: the audited day less its gaming day")]
    bucket: Annotated[str, Doc(choices=CREDIT_BUCKETS)]
    past_deadline: Annotated[bool, Doc("still owed after MARKER_COLLECTION_DAYS")]


class CreditAgingData(TypedDict):
    bucket: Annotated[str, Doc("days outstanding", choices=CREDIT_BUCKETS)]
    markers: int
    outstanding: Annotated[int, Doc("cents")]


class CreditData(TypedDict):
    """Credit play: markers issued and redeemed in the day, and what players owe at its end."""

    issued: Annotated[int, Doc("cents of markers issued in the day")]
    issued_count: int
    redeemed: Annotated[int, Doc("cents paid on markers in the day, cash and chips")]
    redeemed_cash: Annotated[int, Doc("cents of that paid in cash (cash in for Title 31)")]
    redeemed_chips: Annotated[int, Doc("cents of that paid in chips")]
    outstanding: Annotated[int, Doc("cents owed on markers at the end of the day: the ledger's receivables")]
    aging: list[CreditAgingData]
    markers: Annotated[list[CreditMarkerData], Doc("markers owed at the end of the day, oldest first")]


WIN_GROUPINGS = ("table", "game", "shift")
WIN_LINE_CODES = (
    "tray_count_variance",
    "drop_count_variance",
    "cash_not_in_counted_drop",
    "markers_outstanding",
    "unexplained",
)
HOLD_SCOPES = ("table", "game")
HOLD_BASES = ("theo", "ledger")
DROP_BOX_STATUSES = ("at_table", "removed", "counted")


class WinLineData(TypedDict):
    """One part of ``difference`` (win − electronic_win), in words."""

    code: Annotated[str, Doc(choices=WIN_LINE_CODES)]
    words: str
    amount: Annotated[int, Doc("cents")]


class WinRowData(TypedDict):
    """Win as the regulator reads it for one table, game, shift or period (cents)."""

    key: Annotated[str, Doc("the table's id, the game, the shift's name, or the period")]
    label: Annotated[str, Doc("the same in words: the table's name, the game's, the shift's hours")]
    drop: Annotated[int, Doc("cash counted in the boxes plus markers found in them")]
    fills: int
    credits: int
    opener: Annotated[int, Doc("the opener's count (over days: the days' openers added)")]
    closer: Annotated[int, Doc("the closer's count (a table still open: its tray now)")]
    win: Annotated[int, Doc("drop - fills + credits + (closer - opener)")]
    hold: Annotated[float | None, Doc("win / drop as a ratio (4 places); null with no drop")]
    electronic_win: Annotated[int, Doc("the ledger's win from play: the tray's postings of the rounds")]
    difference: Annotated[int, Doc("win - electronic_win, explained line by line in explanation")]
    counted: Annotated[bool, Doc("false while a box of the period with cash in it is not yet counted")]
    explanation: list[WinLineData]


class WinData(TypedDict):
    """``GET /gaming-days/{date}/win``."""

    gaming_day: Annotated[str, Doc(day=True)]
    by: Annotated[str, Doc(choices=WIN_GROUPINGS)]
    rows: list[WinRowData]
    totals: WinRowData
    month_to_date: WinRowData
    year_to_date: WinRowData


class WinSectionData(TypedDict):
    """The report's win and hold: the day by table, game and shift, and the periods to date."""

    by_table: list[WinRowData]
    by_game: list[WinRowData]
    by_shift: list[WinRowData]
    totals: WinRowData
    month_to_date: WinRowData
    year_to_date: WinRowData


class HoldCheckData(TypedDict):
    """A table's or a game's month-to-date hold against its 95 % band (docs/ledger.md)."""

    scope: Annotated[str, Doc(choices=HOLD_SCOPES)]
    key: str
    label: str
    table: int | None
    drop: Annotated[int, Doc("month to date, cents")]
    win: Annotated[int, Doc("month to date, cents")]
    hold: float | None
    expected_hold: float | None
    low: float | None
    high: float | None
    basis: Annotated[
        str,
        Doc(
            "theo: the bets' theoretical win and variance; ledger: the rounds' win and spread",
            choices=HOLD_BASES,
        ),
    ]
    outside: Annotated[bool, Doc("the hold left the band: a hold_investigation alert is open for it")]


class DropBoxData(TypedDict):
    """A drop box of the day: where it is, its seal, what was recorded into it and what the count found."""

    number: str
    table: int
    table_name: str
    status: Annotated[str, Doc(choices=DROP_BOX_STATUSES)]
    seal: str
    recorded: Annotated[int, Doc("cash recorded into it at the table, cents")]
    counted: Annotated[int | None, Doc("cash the count found, cents")]
    variance: Annotated[int | None, Doc("counted - recorded, cents")]
    markers_amount: Annotated[int, Doc("markers found in it, cents")]
    removed_by: str
    removed_at: Annotated[str | None, Doc(moment=True)]
    counted_by: Annotated[list[str], Doc("the count team members who signed the drop slip")]
    counted_at: Annotated[str | None, Doc(moment=True)]
    slip: Annotated[str | None, Doc("the drop slip's number")]


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
    # Absent from reports stored before voided rounds and corrections existed.
    rounds_voided: NotRequired[Annotated[int, Doc("misdeals voided whole")]]
    corrections: NotRequired[int]
    corrections_pending: NotRequired[int]


class ReportData(TypedDict):
    """What a finished audit stores on its ``AuditReport.data``."""

    schema_version: int
    gaming_day: Annotated[str, Doc(day=True)]
    bounds: dict[str, Moment]  # start, end
    closed: Annotated[dict[str, Any], Doc("{at, by, forced}")]
    thresholds: dict[str, int]  # variance, ctr, mtl
    generated_at: Moment
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
    # Absent from reports stored before corrections existed.
    corrections: NotRequired[
        Annotated[
            list[CorrectionData], Doc("every correction of the day's rounds: who asked, who decided, why")
        ]
    ]
    notes: NotRequired[list[str]]
    # Absent from reports stored before slips existed.
    slips: NotRequired[
        Annotated[SlipsData, Doc("the pit's books: slips by series, voids, variances, in transit")]
    ]
    # Absent from reports stored before cash compliance (casino.cash) existed.
    cash_reporting: NotRequired[
        Annotated[CashReportingData, Doc("MTL lines, CTRs due with the identification on file, refusals")]
    ]
    # Absent from reports stored before credit play existed.
    credit: NotRequired[
        Annotated[CreditData, Doc("markers issued, redeemed and outstanding, with their aging")]
    ]
    # Absent from reports stored before drop boxes existed.
    drop: NotRequired[Annotated[list[DropBoxData], Doc("the day's drop boxes and their count")]]
    win: NotRequired[Annotated[WinSectionData, Doc("win and hold as the regulator reads them")]]
    hold_investigations: NotRequired[
        Annotated[list[HoldCheckData], Doc("month-to-date holds outside their band, tables and games")]
    ]


class ProgressData(TypedDict):
    done: int
    total: int


class StatusData(TypedDict):
    """The status envelope is always there; the report's sections once ``status`` is ``done``."""

    gaming_day: Annotated[str, Doc(day=True)]
    status: Annotated[str, Doc(choices=AuditStatus.choices)]
    task_id: Annotated[str, Doc("the last run's Celery task")]
    runs: int
    progress: ProgressData
    heartbeat_at: Annotated[str | None, Doc("the last sign of life of the (last) run's worker", moment=True)]
    seconds_since_heartbeat: Annotated[
        float | None, Doc("while running: seconds since heartbeat_at (or since the start)")
    ]
    stale: Annotated[
        bool,
        Doc(
            "running, but silent for AUDIT_STALE_SECONDS: its worker is presumed dead and the "
            "sweep restarts the run"
        ),
    ]
    error: NotRequired[Annotated[str, Doc("why the last run failed")]]


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


@dataclass(frozen=True, slots=True)
class FieldType:
    """One field of a shape as the schema and the key order read it."""

    hint: Any  # the type with its Annotated, NotRequired and None stripped: int, list[str], a TypedDict …
    doc: Doc
    nullable: bool
    required: bool


def describe(hint: Any) -> tuple[Any, Doc, bool]:
    """A type with its ``NotRequired``, ``Annotated`` and ``| None`` taken off: (type, Doc, nullable)."""
    doc, nullable = Doc(), False
    while True:
        origin = get_origin(hint)
        if origin is NotRequired:
            hint = get_args(hint)[0]
        elif origin is Annotated:
            hint, *extras = get_args(hint)
            doc = next((extra for extra in extras if isinstance(extra, Doc)), doc)
        elif origin in (UnionType, Union) and type(None) in get_args(hint):
            nullable = True
            (hint,) = [arm for arm in get_args(hint) if arm is not type(None)]
        else:
            return hint, doc, nullable


def fields_of(typed: Any) -> dict[str, FieldType]:
    """A TypedDict's fields, in order, with their ``Doc`` and whether they may be null or absent."""
    out: dict[str, FieldType] = {}
    for name, hint in get_type_hints(typed, include_extras=True).items():
        # Not ``__required_keys__``: with postponed annotations it cannot see NotRequired.
        required = get_origin(hint) is not NotRequired
        base, doc, nullable = describe(hint)
        out[name] = FieldType(hint=base, doc=doc, nullable=nullable, required=required)
    return out


def row_type(hint: Any) -> Any:
    """The TypedDict a field holds, itself or as a list of them (else None)."""
    if get_origin(hint) is list:
        hint = get_args(hint)[0]
    return hint if is_typeddict(hint) else None


def _ordered(item: Any, typed: Any) -> Any:
    """``item`` with its keys in ``typed``'s order (unknown keys last), nested rows too."""
    if isinstance(item, list):
        return [_ordered(row, typed) for row in item]
    if not isinstance(item, dict):
        return item
    fields = fields_of(typed)
    out = {key: item[key] for key in fields if key in item}
    out.update((key, value) for key, value in item.items() if key not in out)
    for key, field in fields.items():
        rows = row_type(field.hint)
        if rows is not None and key in out:
            out[key] = _ordered(out[key], rows)
    return out


def in_schema_order(data: dict[str, Any]) -> dict[str, Any]:
    """The stored report's keys back in this module's order (jsonb keeps keys sorted its own way)."""
    ordered: dict[str, Any] = _ordered(data, ReportData)
    return ordered
