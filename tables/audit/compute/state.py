"""One computation's working state, which every section fills in, and the helpers they share."""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from django.conf import settings

from casino.replica import read_connection
from tables.audit import report as shape
from tables.models import Round, Table, TableSession

MAX_FINDINGS_PER_KIND = 200


class ProgressSink(Protocol):
    """Where the computation counts its steps (``tables.audit.runner.Progress``)."""

    def set_total(self, total: int) -> None: ...

    def step(self, n: int = 1) -> None: ...


def sql_rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """The rows of one of the audit's statements: on the replica while it keeps up (casino.replica)."""
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


@dataclass
class TableAcc:
    """Everything gathered about one table before it becomes a report row."""

    table: Table
    sessions: list[TableSession] = field(default_factory=list)
    tray_by_kind: dict[str, int] = field(default_factory=dict)
    slip_fills: int = 0
    slip_credits: int = 0
    rake: int = 0
    rounds: int = 0
    # The ratings' figures of the rounds that ended in the day (people.section_figures).
    handle: int = 0
    win: int = 0
    bets: int = 0
    theo: float = 0.0
    theo_var: float = 0.0


@dataclass
class PersonAcc:
    """A dealer's or a player's figures before they become a report row."""

    tables: set[str] = field(default_factory=set)
    minutes: float = 0.0
    rounds: int = 0
    handle: int = 0
    win: int = 0
    theo: float = 0.0
    cash_in: int = 0
    cash_out: int = 0


@dataclass
class AuditState:
    """The state of one computation; the sections fill it in, ``assemble`` turns it into the report."""

    day: dt.date
    start: dt.datetime
    end: dt.datetime
    as_of: dt.datetime | None
    zone: ZoneInfo
    progress: ProgressSink | None
    variance_threshold: int = field(default_factory=lambda: int(settings.AUDIT_VARIANCE_THRESHOLD))
    ctr_threshold: int = field(default_factory=lambda: int(settings.CTR_THRESHOLD))
    mtl_threshold: int = field(default_factory=lambda: int(settings.MTL_THRESHOLD))
    findings: list[shape.FindingData] = field(default_factory=list)
    checks: list[shape.CheckData] = field(default_factory=list)
    tables: dict[int, TableAcc] = field(default_factory=dict)
    dealers: dict[int, PersonAcc] = field(default_factory=lambda: defaultdict(PersonAcc))
    players: dict[int, PersonAcc] = field(default_factory=lambda: defaultdict(PersonAcc))
    wallet_player: dict[int, int] = field(default_factory=dict)  # wallet account id -> player id
    wallet_code_player: dict[str, int] = field(default_factory=dict)
    player_names: dict[int, str] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    variances: list[shape.VarianceData] = field(default_factory=list)
    cage: shape.CageData | None = None
    cash_flow: list[shape.CashFlowHour] = field(default_factory=list)
    trial_balance: shape.TrialBalanceData | None = None
    table_rows: list[shape.TableData] = field(default_factory=list)
    corrections: list[shape.CorrectionData] = field(default_factory=list)
    slips: shape.SlipsData | None = None
    cash_reporting: shape.CashReportingData | None = None
    credit: shape.CreditData | None = None
    drop: list[shape.DropBoxData] = field(default_factory=list)
    win: shape.WinSectionData | None = None
    hold_investigations: list[shape.HoldCheckData] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _counted: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, item: shape.FindingData) -> None:
        """Findings of one kind are capped so a broken night still renders; the cap is noted."""
        with self._lock:
            self._counted[item["kind"]] += 1
            count = self._counted[item["kind"]]
            if count <= MAX_FINDINGS_PER_KIND:
                self.findings.append(item)
            elif count == MAX_FINDINGS_PER_KIND + 1:
                self.notes.append(
                    f"More than {MAX_FINDINGS_PER_KIND} '{item['kind']}' findings; the rest are counted only."
                )

    def check(self, name: str, label: str, checked: int, failed: int) -> None:
        with self._lock:
            self.checks.append(
                {"name": name, "label": label, "checked": checked, "failed": failed, "passed": failed == 0}
            )

    def table_name(self, table_id: int | None) -> str | None:
        """The name of a table the day's sections gathered (None: no table, or not one of them)."""
        acc = self.tables.get(table_id) if table_id else None
        return acc.table.name if acc else None

    def step(self, n: int = 1) -> None:
        if self.progress is not None:
            self.progress.step(n)


def add_tables(audit: AuditState, table_ids: set[int]) -> None:
    """Make sure each table has its accumulator (created before the threads share the dict)."""
    missing = table_ids - audit.tables.keys()
    if missing:
        for table in Table.objects.filter(pk__in=missing).select_related("tray"):
            audit.tables[table.pk] = TableAcc(table=table)
