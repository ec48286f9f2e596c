"""The end-of-night audit: close the gaming day, recompute it from the ledger, check everything.

``request_audit`` (the API and the beat) creates or reuses the day's ``AuditReport`` and
sends ``run_audit_task`` after commit; the task calls ``run_audit``, which closes the day in
the ledger (no transfer can be dated into it afterwards), computes the report with
``compute_audit`` and stores it on the same row. A rerun rewrites that row and nothing
else: closing is ``get_or_create`` and the audit itself only reads.

Where the numbers come from (tables/audit/README.md has the long form):

* the count: ``TableSession`` opening and closing inventories of sessions opened in the day,
  fills and credits from approved ``TrayRequest`` rows whose transfer is dated in the day;
* the ledger: ``Entry`` sums of the day's transfers (tray, rake, wallets, cage);
* the rounds: ``RoundSettlement`` rows (handle, dealer and player attribution) and a replay
  of every round's actions through its engine (integrity and Faro's theoretical win).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from casino.audit import record_audit
from casino.errors import Conflict
from casino.models import Player, Role, User
from casino.permissions import require_role
from casino.task_sending import send_task
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import ClosedGamingDay, Transfer
from ledger.selectors import get_trial_balance
from ledger.services import close_gaming_day
from tables.audit import report as shape
from tables.audit.selectors import get_liveness, list_open_tables
from tables.games import faro_edge
from tables.games.cards import RANKS, rank_of
from tables.games.faro_edge import DECK_SIZE
from tables.games.registry import engine_for
from tables.games.shoe import commitment_for
from tables.models import (
    LIVE_ROUND_STATUSES,
    AuditReport,
    AuditStatus,
    Correction,
    CorrectionStatus,
    DealerShift,
    Round,
    RoundAction,
    RoundSettlement,
    RoundStatus,
    Seat,
    ShoeKind,
    Table,
    TableSession,
    TrayRequest,
    TrayRequestKind,
    TrayRequestStatus,
)
from tables.rounds import context_of

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]

# Tray postings that are not play: the rest (bets lost, wins paid, splits …) is the house's win.
NON_PLAY_TRAY_KINDS = frozenset({"fill", "credit", "table_issue", "count_variance"})
LOCK_CLASS = 0x41554454  # "AUDT": advisory-lock namespace for one audit run per report
REQUEUE_QUEUED_AFTER = dt.timedelta(minutes=10)
UNSENT_GRACE = dt.timedelta(seconds=5)  # the close's own send happens right after its commit
MAX_FINDINGS_PER_KIND = 200
SECTIONS = 11  # progress steps besides one per replayed round


# --------------------------------------------------------------------------- requesting


@contextlib.contextmanager
def _audit_lock(report_id: int) -> Iterator[bool]:
    """A PostgreSQL session lock: one run per report at a time, released if the worker dies."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, report_id])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, report_id])


def _in_flight(report: AuditReport, now: dt.datetime) -> bool:
    """A queued task that may still arrive, or a run some worker is doing right now."""
    if report.status == AuditStatus.QUEUED:
        return now - report.requested_at < REQUEUE_QUEUED_AFTER
    if report.status == AuditStatus.RUNNING:
        with _audit_lock(report.pk) as free:
            return not free  # running but unlocked: its worker died, so it may be requeued
    return False


def _send_audit(report_id: int, task_id: str) -> bool:
    """Hand the run to the broker (bounded: an outage costs ~0.2 s, never an error) and record
    that it went; a report left unsent is sent again by ``sweep_audits``."""
    from tables.audit.tasks import run_audit_task

    options: dict[str, Any] = {"task_id": task_id}
    if settings.AUDIT_QUEUE:
        options["queue"] = settings.AUDIT_QUEUE
    if send_task(run_audit_task, args=[report_id], **options) is None:
        return False
    AuditReport.objects.filter(pk=report_id, task_id=task_id).update(sent_at=timezone.now())
    return True


def refuse_early_close_with_open_tables(*, day: dt.date, lock: bool = False) -> None:
    """409 ``tables_open`` while any table is open, for a close before the day's end.

    Why: after an early close the ledger refuses every transfer dated into the day until
    the rollover, so an open table (a deal live, players seated) would freeze with chips on
    it and no next step for its dealer. A day already closed in the ledger (a rerun of its
    audit) freezes nothing new and is let through. ``lock`` (the run's own close): every
    table row is locked in pk order first (the write path locks a table before anything
    else), so no table opens between this check and the close's commit.
    """
    if ClosedGamingDay.objects.filter(day=day).exists():
        return
    if lock:
        list(Table.objects.order_by("pk").select_for_update().values_list("pk", flat=True))
    tables = list_open_tables()
    if tables:
        names = ", ".join(t.name for t in tables)
        raise Conflict(
            f"Close {names} first: gaming day {day} cannot close early while "
            f"{'a table is' if len(tables) == 1 else f'{len(tables)} tables are'} open, "
            "or they would be frozen until the rollover.",
            code="tables_open",
            fields={"tables": [{"id": t.pk, "name": t.name} for t in tables]},
        )


@transaction.atomic
def request_audit(*, day: dt.date, actor: User | None, force: bool = False) -> AuditReport:
    """Queue the close-and-audit of ``day``; the report row is created once and reused.

    A day whose end has not come yet is refused (409 ``gaming_day_open``) unless ``force``:
    an early end-of-night close, after which the ledger refuses every transfer dated into
    the day, i.e. until the rollover; and even then only once every table is closed (409
    ``tables_open``, listing them). The close at or after the rollover never waits for
    tables. A request while a run is queued or running returns that run instead of
    starting a second one.
    """
    if actor is not None:
        require_role(actor, Role.PIT_BOSS, Role.AUDITOR)
    start, end = gaming_day_bounds(day)
    now = timezone.now()
    if start > now:
        raise Conflict(f"Gaming day {day} has not started yet.", code="gaming_day_not_started")
    if end > now and not force:
        raise Conflict(
            f'Gaming day {day} runs until {end.isoformat()}; send {{"force": true}} to close it early.',
            code="gaming_day_open",
            fields={"ends_at": end.isoformat()},
        )
    if end > now:
        refuse_early_close_with_open_tables(day=day)
    AuditReport.objects.get_or_create(gaming_day=day, defaults={"requested_at": now, "requested_by": actor})
    report = AuditReport.objects.select_for_update().get(gaming_day=day)
    if report.task_id and _in_flight(report, now):
        return report
    report.status = AuditStatus.QUEUED
    report.task_id = str(uuid.uuid4())
    report.requested_by = actor
    report.requested_at = now
    report.forced = end > now
    report.sent_at = report.heartbeat_at = None
    report.restarts = 0
    report.progress_done = report.progress_total = 0
    report.error = ""
    report.save()
    record_audit(
        actor=actor,
        action="gaming_day.close_requested",
        obj=report,
        data={"day": day.isoformat(), "forced": report.forced, "task_id": report.task_id},
    )
    report_id, task_id = report.pk, report.task_id
    transaction.on_commit(lambda: _send_audit(report_id, task_id))
    return report


def audit_previous_gaming_day(*, now: dt.datetime | None = None) -> AuditReport | None:
    """The beat's job after the rollover: audit the day that just ended, unless done already."""
    day = gaming_day_for(now or timezone.now()) - dt.timedelta(days=1)
    existing = AuditReport.objects.filter(gaming_day=day).first()
    if existing is not None and existing.status == AuditStatus.DONE:
        return None
    return request_audit(day=day, actor=None)


@dataclass
class SweepResult:
    sent: list[int] = field(default_factory=list)  # reports whose task went (again) to the broker
    unsent: list[int] = field(default_factory=list)  # still waiting for the broker
    restarted: list[int] = field(default_factory=list)  # dead runs queued again
    failed: list[int] = field(default_factory=list)  # dead more than AUDIT_MAX_RESTARTS times


def sweep_audits(*, now: dt.datetime | None = None) -> SweepResult:
    """Beat: finish what a broker outage or a killed worker left behind.

    * queued and never taken by the broker (the close's send failed), or taken more than
      ``REQUEUE_QUEUED_AFTER`` ago and never started (the message was lost): sent again;
    * running, silent for ``AUDIT_STALE_SECONDS`` and with its advisory lock free (no session
      runs it): queued again under the same task id, or marked failed after
      ``AUDIT_MAX_RESTARTS`` restarts of the same close.

    Sending twice is harmless: ``run_audit`` skips a task that is done or was replaced, and a
    twin that finds the run locked retries until it is.
    """
    now = now or timezone.now()
    result = SweepResult()
    for report_id in _dead_runs(now):
        outcome = _restart_dead_run(report_id, now)
        if outcome == "failed":
            result.failed.append(report_id)
        elif outcome == "restarted":
            result.restarted.append(report_id)
    to_send = AuditReport.objects.filter(status=AuditStatus.QUEUED).filter(
        Q(sent_at__isnull=True, requested_at__lt=now - UNSENT_GRACE)
        | Q(sent_at__isnull=True, pk__in=result.restarted)
        | Q(sent_at__lt=now - REQUEUE_QUEUED_AFTER)
    )
    for report_id, task_id in to_send.values_list("pk", "task_id"):
        (result.sent if _send_audit(report_id, task_id) else result.unsent).append(report_id)
    if result.unsent or result.restarted or result.failed:
        logger.warning("audit sweep: %s", result)
    return result


def _dead_runs(now: dt.datetime) -> list[int]:
    running = AuditReport.objects.filter(status=AuditStatus.RUNNING).order_by("pk")
    return [report.pk for report in running if get_liveness(report, now=now).stale]


def _restart_dead_run(report_id: int, now: dt.datetime) -> str | None:
    """Queue a dead run again (``sweep_audits`` sends it), unless a session still holds its lock."""
    with _audit_lock(report_id) as free:
        if not free:
            return None  # alive but slow, or a dead worker's session PostgreSQL has not reaped yet
        with transaction.atomic():
            report = AuditReport.objects.select_for_update().get(pk=report_id)
            liveness = get_liveness(report, now=now)
            if not liveness.stale:
                return None
            last = liveness.heartbeat_at.isoformat() if liveness.heartbeat_at else None
            if report.restarts >= settings.AUDIT_MAX_RESTARTS:
                report.status = AuditStatus.FAILED
                report.finished_at = now
                report.error = (
                    f"The audit's worker stopped {report.restarts + 1} times (last heartbeat {last}); "
                    "close the day again to retry."
                )
                report.save(update_fields=["status", "finished_at", "error"])
                record_audit(
                    actor=None, action="gaming_day.audit_failed", obj=report, data={"error": report.error}
                )
                return "failed"
            report.status = AuditStatus.QUEUED
            report.sent_at = None
            report.restarts += 1
            report.save(update_fields=["status", "sent_at", "restarts"])
            record_audit(
                actor=None,
                action="gaming_day.audit_restarted",
                obj=report,
                data={"task_id": report.task_id, "restarts": report.restarts, "last_heartbeat": last},
            )
    return "restarted"


# --------------------------------------------------------------------------- running


class _Progress:
    """Reports (done, total) to the task and to the report row, a few times a second at most.

    Steps may come from the audit's SQL thread too; only the thread that created the tracker
    reports (a Celery task's ``update_state`` knows its task only in the task's own thread).
    """

    def __init__(self, report_id: int, callback: ProgressCallback | None, every: float = 0.5) -> None:
        self.report_id = report_id
        self.callback = callback
        self.every = every
        self.done = 0
        self.total = 0
        self._last = 0.0
        self._lock = threading.Lock()
        self._owner = threading.get_ident()

    def set_total(self, total: int) -> None:
        self.total = total
        self._emit(force=True)

    def step(self, n: int = 1) -> None:
        with self._lock:
            self.done = min(self.done + n, self.total) if self.total else self.done + n
        if threading.get_ident() == self._owner:
            self._emit()

    def finish(self) -> None:
        self.done = self.total
        self._emit(force=True)

    def _emit(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.every and self.done < self.total:
            return
        self._last = now
        AuditReport.objects.filter(pk=self.report_id).update(
            progress_done=self.done, progress_total=self.total, heartbeat_at=timezone.now()
        )
        if self.callback is not None:
            self.callback(self.done, self.total)


class _Heartbeat:
    """Writes the report's ``heartbeat_at`` every ``AUDIT_HEARTBEAT_SECONDS`` while the run lasts.

    From a thread of its own, so a long step (a slow SQL section, a wait for a lock) does not
    look like a dead worker; a killed worker stops beating, and ``sweep_audits`` restarts its
    run once the beat is ``AUDIT_STALE_SECONDS`` old. Inside a transaction (tests calling
    ``run_audit`` directly) another connection would not see the row: progress beats alone.
    """

    def __init__(self, report_id: int) -> None:
        self.report_id = report_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"audit-heartbeat-{report_id}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        if not connection.in_atomic_block:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.AUDIT_HEARTBEAT_SECONDS):
                try:
                    AuditReport.objects.filter(pk=self.report_id, status=AuditStatus.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:
                    logger.warning("audit report %s: heartbeat not written", self.report_id, exc_info=True)
        finally:
            connections.close_all()  # this thread's connections only


class AuditBusy(Exception):
    """Another session holds the report's audit lock: a twin delivery runs, or a dead worker's
    session has not been reaped yet. The task retries later rather than dropping the audit."""


def run_audit(
    *, report_id: int, progress: ProgressCallback | None = None, task_id: str | None = None
) -> AuditReport:
    """Close the report's gaming day and (re)compute its report in place.

    Safe to rerun and to redeliver (``acks_late``): the close is idempotent, the audit only
    reads, and the result replaces ``data`` on the same row. While another session holds the
    lock it raises ``AuditBusy``. A delivery of a task that already finished (same ``task_id``,
    report done; the sweep and the broker may both have sent it) returns the report without
    recomputing it, and so does one of a task a later close replaced (another ``task_id``).
    """
    with _audit_lock(report_id) as acquired:
        if not acquired:
            logger.info("audit report %s is locked by another session; will retry", report_id)
            raise AuditBusy(f"audit report {report_id} is locked by another session")
        report = AuditReport.objects.select_related("requested_by").get(pk=report_id)
        if task_id and report.task_id == task_id and report.status == AuditStatus.DONE:
            return report
        if task_id and report.task_id and report.task_id != task_id:
            logger.info("audit report %s: task %s was replaced by %s", report_id, task_id, report.task_id)
            return report
        now = timezone.now()
        AuditReport.objects.filter(pk=report_id).update(
            status=AuditStatus.RUNNING,
            started_at=now,
            heartbeat_at=now,
            finished_at=None,
            runs=F("runs") + 1,
            progress_done=0,
            progress_total=0,
            error="",
        )
        tracker = _Progress(report_id, progress)
        actor = report.requested_by
        with _Heartbeat(report_id):
            try:
                with transaction.atomic():
                    if report.forced and gaming_day_bounds(report.gaming_day)[1] > timezone.now():
                        # A table opened since the request: the early close still must not freeze it.
                        refuse_early_close_with_open_tables(day=report.gaming_day, lock=True)
                    closed = close_gaming_day(
                        day=report.gaming_day, closed_by=(actor.username if actor else "beat")
                    )
                    record_audit(
                        actor=actor, action="gaming_day.closed", obj=closed, data={"forced": report.forced}
                    )
                data = compute_audit(day=report.gaming_day, progress=tracker, closed_at=closed.closed_at)
                tracker.finish()
                data["closed"].update(by=closed.closed_by, forced=report.forced)
            except Exception as error:
                AuditReport.objects.filter(pk=report_id).update(
                    status=AuditStatus.FAILED,
                    finished_at=timezone.now(),
                    error=f"{type(error).__name__}: {error}",
                )
                raise
            with transaction.atomic():
                AuditReport.objects.filter(pk=report_id).update(
                    status=AuditStatus.DONE,
                    finished_at=timezone.now(),
                    data=data,
                    findings=len(data["findings"]),
                    progress_done=tracker.total,
                    progress_total=tracker.total,
                )
                record_audit(
                    actor=actor,
                    action="gaming_day.audited",
                    obj=report,
                    data={"findings": len(data["findings"]), "seconds": data["seconds"]},
                )
    return AuditReport.objects.get(pk=report_id)


# --------------------------------------------------------------------------- computing


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


@dataclass
class _TableAcc:
    """Everything gathered about one table before it becomes a report row."""

    table: Table
    sessions: list[TableSession] = field(default_factory=list)
    tray_by_kind: dict[str, int] = field(default_factory=dict)
    slip_fills: int = 0
    slip_credits: int = 0
    rake: int = 0
    handle: int = 0
    rounds: int = 0
    bets: int = 0
    theo: float = 0.0
    theo_var: float = 0.0


@dataclass
class _PersonAcc:
    tables: set[str] = field(default_factory=set)
    minutes: float = 0.0
    rounds: int = 0
    handle: int = 0
    win: int = 0
    theo: float = 0.0
    cash_in: int = 0
    cash_out: int = 0


@dataclass
class _Audit:
    """The state of one computation; the sections below fill it in."""

    day: dt.date
    start: dt.datetime
    end: dt.datetime
    as_of: dt.datetime | None
    zone: ZoneInfo
    progress: _Progress | None
    variance_threshold: int = field(default_factory=lambda: int(settings.AUDIT_VARIANCE_THRESHOLD))
    ctr_threshold: int = field(default_factory=lambda: int(settings.CTR_THRESHOLD))
    mtl_threshold: int = field(default_factory=lambda: int(settings.MTL_THRESHOLD))
    findings: list[shape.FindingData] = field(default_factory=list)
    checks: list[shape.CheckData] = field(default_factory=list)
    tables: dict[int, _TableAcc] = field(default_factory=dict)
    dealers: dict[int, _PersonAcc] = field(default_factory=lambda: defaultdict(_PersonAcc))
    players: dict[int, _PersonAcc] = field(default_factory=lambda: defaultdict(_PersonAcc))
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
    notes: list[str] = field(default_factory=list)
    # The replay's theo by player and dealer, kept apart from the SQL thread's dicts until both end.
    theo_players: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    theo_dealers: dict[int, float] = field(default_factory=lambda: defaultdict(float))
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

    def table_for(self, table_id: int) -> _TableAcc | None:
        return self.tables.get(table_id)

    def step(self, n: int = 1) -> None:
        if self.progress is not None:
            self.progress.step(n)


def compute_audit(
    *, day: dt.date, progress: _Progress | None = None, closed_at: dt.datetime | None = None
) -> dict[str, Any]:
    """The whole report for ``day`` as a JSON-ready dict (tables.audit.report.ReportData)."""
    began = time.monotonic()
    start, end = gaming_day_bounds(day)
    now = timezone.now()
    audit = _Audit(
        day=day,
        start=start,
        end=end,
        as_of=end if end <= now else None,
        zone=ZoneInfo(settings.CASINO_TIME_ZONE),
        progress=progress,
    )
    _load_people(audit)
    _load_rounds(audit)
    if progress is not None:
        progress.set_total(len(audit.rounds) + SECTIONS)
    ledger_sections: list[tuple[str, Callable[[_Audit], None]]] = [
        ("tables", _section_tables),
        ("settlements", _section_settlements),
        ("time", _section_time),
        ("cage", _section_cage),
        ("cash flow", _section_cash_flow),
        ("trial balance", _section_trial_balance),
        ("transfers", _section_zero_sum),
        ("accounts", _section_account_balances),
        ("settlements vs ledger", _section_settlements_vs_ledger),
        ("corrections", _section_corrections),
    ]
    if connection.in_atomic_block:
        # Inside a caller's transaction another connection would not see its rows: one thread.
        _run_sections(audit, ledger_sections)
        _run_sections(audit, [("rounds", _section_rounds)])
    else:
        # The replay is Python on this core; the ledger's sums are PostgreSQL's work on another.
        # The SQL sections run meanwhile in a thread with its own connection.
        worker = threading.Thread(
            target=_run_sections, args=(audit, ledger_sections), kwargs={"own_connection": True}, daemon=True
        )
        worker.start()
        _run_sections(audit, [("rounds", _section_rounds)])
        worker.join()
    _run_sections(audit, [("table results", _finish_tables)])
    for player_id, theo in audit.theo_players.items():
        audit.players[player_id].theo += theo
    for dealer_id, theo in audit.theo_dealers.items():
        audit.dealers[dealer_id].theo += theo
    audit.checks.sort(key=lambda c: CHECK_ORDER.index(c["name"]) if c["name"] in CHECK_ORDER else 99)
    return _assemble(audit, began=began, closed_at=closed_at)


CHECK_ORDER = (
    "trial_balance",
    "zero_sum",
    "account_balances",
    "settlements_vs_ledger",
    "round_replay",
    "commitments",
    "rounds_finished",
)


def _run_sections(
    audit: _Audit, sections: list[tuple[str, Callable[[_Audit], None]]], *, own_connection: bool = False
) -> None:
    """Run sections in order; one that fails becomes a finding and the others still run."""
    try:
        for label, section in sections:
            try:
                section(audit)
            except Exception as error:
                logger.exception("audit section %s failed for %s", label, audit.day)
                audit.add(
                    shape.finding(
                        "audit_section_failed",
                        "critical",
                        f"The {label} section could not be computed: {type(error).__name__}: {error}",
                        evidence={"section": label},
                    )
                )
            if section is not _section_rounds:
                audit.step()
    finally:
        if own_connection:
            connections.close_all()  # this thread's connections only


# --- loading ------------------------------------------------------------------------------


def _load_people(audit: _Audit) -> None:
    for pk, wallet_id, code, name, username in Player.objects.values_list(
        "pk", "wallet_id", "wallet__code", "user__name", "user__username"
    ):
        audit.wallet_player[wallet_id] = pk
        audit.wallet_code_player[code] = pk
        audit.player_names[pk] = name or username


def _load_rounds(audit: _Audit) -> None:
    """Rounds started in the day, and rounds started the day before that moved chips in this one."""
    # all_objects: a round whose only movements today were later voided still moved chips today.
    straddling = RoundSettlement.all_objects.filter(round_id=OuterRef("pk"), transfer__gaming_day=audit.day)
    audit.rounds = list(
        Round.objects.filter(
            Q(started_at__gte=audit.start, started_at__lt=audit.end)
            | Q(started_at__gte=audit.start - dt.timedelta(days=1), started_at__lt=audit.start)
            & Exists(straddling)
        ).order_by("table_id", "number")
    )
    # The replay and the SQL thread both fill these in; create them before either starts.
    _table_acc(audit, {r.table_id for r in audit.rounds})


def _table_acc(audit: _Audit, table_ids: set[int]) -> None:
    missing = table_ids - audit.tables.keys()
    if missing:
        for table in Table.objects.filter(pk__in=missing).select_related("tray"):
            audit.tables[table.pk] = _TableAcc(table=table)


# --- sections -----------------------------------------------------------------------------


def _section_tables(audit: _Audit) -> None:
    """Sessions (the count), tray postings by kind (the ledger), slips, rake."""
    sessions = list(
        TableSession.objects.filter(opened_at__gte=audit.start, opened_at__lt=audit.end).order_by(
            "opened_at", "pk"
        )
    )
    tray_rows = _rows(
        """
        SELECT e.account_id, t.kind, SUM(e.amount)
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
          JOIN ledger_account a ON a.id = e.account_id
         WHERE t.gaming_day = %s AND a.purpose = 'tray'
         GROUP BY e.account_id, t.kind
        """,
        [audit.day],
    )
    rake_rows = _rows(
        """
        SELECT t.meta ->> 'table', SUM(e.amount)
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
          JOIN ledger_account a ON a.id = e.account_id
         WHERE t.gaming_day = %s AND a.purpose = 'rake_revenue'
         GROUP BY 1
        """,
        [audit.day],
    )
    slips = list(
        TrayRequest.objects.filter(
            status=TrayRequestStatus.APPROVED, transfer__gaming_day=audit.day
        ).values_list("table_id", "kind", "amount")
    )
    tray_table = dict(
        Table.objects.filter(tray_id__in={r[0] for r in tray_rows}).values_list("tray_id", "pk")
    )
    table_ids = (
        {s.table_id for s in sessions}
        | set(tray_table.values())
        | {int(t) for t, _ in rake_rows if t is not None}
        | {table_id for table_id, _, _ in slips}
        | {r.table_id for r in audit.rounds}
    )
    _table_acc(audit, table_ids)
    for session in sessions:
        audit.tables[session.table_id].sessions.append(session)
    for account_id, kind, total in tray_rows:
        acc = audit.tables[tray_table[account_id]]
        acc.tray_by_kind[kind] = acc.tray_by_kind.get(kind, 0) + int(total)
    for table_ref, total in rake_rows:
        if table_ref is None:
            audit.add(
                shape.finding(
                    "rake_without_table",
                    "warning",
                    "Rake was posted with no table in its metadata.",
                    amount=int(total),
                )
            )
            continue
        audit.tables[int(table_ref)].rake += int(total)
    for table_id, kind, amount in slips:
        acc = audit.tables[table_id]
        if kind == TrayRequestKind.FILL:
            acc.slip_fills += amount
        else:
            acc.slip_credits += amount
    for round_ in audit.rounds:
        if round_.status != RoundStatus.VOID:  # a misdeal voided whole was never played
            audit.tables[round_.table_id].rounds += 1


def _section_settlements(audit: _Audit) -> None:
    """Handle and house win from the day's round settlements, by table, player and dealer.

    Handle: chips moved from a wallet onto the table's layouts or into its pots. The dealer
    of a movement is whoever keyed the action (the round's starter for its opening antes).
    Rows a correction voided are skipped: their transfers were reversed, so the ledger nets
    them out of the wallets and the tray, and they are no handle either.
    """
    rows = _rows(
        """
        SELECT r.table_id, s.player_id, COALESCE(act.actor_id, r.started_by_id),
               SUM(CASE WHEN s.from_account LIKE 'wallet:%%'
                         AND (s.to_account LIKE 'layout:%%' OR s.to_account LIKE 'pot:%%')
                        THEN s.amount ELSE 0 END),
               SUM(CASE WHEN s.to_account = 'tray:' || r.table_id OR s.to_account = 'rake'
                        THEN s.amount ELSE 0 END)
             - SUM(CASE WHEN s.from_account = 'tray:' || r.table_id OR s.from_account = 'rake'
                        THEN s.amount ELSE 0 END)
          FROM tables_roundsettlement s
          JOIN tables_round r ON r.id = s.round_id
          JOIN ledger_transfer t ON t.id = s.transfer_id
          LEFT JOIN tables_roundaction act ON act.id = s.action_id
         WHERE t.gaming_day = %s AND s.voided_by_id IS NULL
         GROUP BY 1, 2, 3
        """,
        [audit.day],
    )
    _table_acc(audit, {r[0] for r in rows})
    for table_id, player_id, dealer_id, handle, house in rows:
        acc = audit.tables[table_id]
        acc.handle += int(handle)
        dealer = audit.dealers[dealer_id]
        dealer.handle += int(handle)
        dealer.win += int(house)
        dealer.tables.add(acc.table.name)
        if player_id is not None:
            player = audit.players[player_id]
            player.handle += int(handle)
            player.tables.add(acc.table.name)
    results = _rows(
        """
        SELECT e.account_id, t.meta ->> 'table', SUM(e.amount)
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
          JOIN ledger_account a ON a.id = e.account_id
         WHERE t.gaming_day = %s AND a.purpose = 'wallet' AND t.meta ? 'table'
         GROUP BY 1, 2
        """,
        [audit.day],
    )
    for account_id, _table, total in results:
        player_id = audit.wallet_player.get(account_id)
        if player_id is not None:
            audit.players[player_id].win += int(total)  # the player's side: positive = player won
    for round_ in audit.rounds:
        if round_.status != RoundStatus.VOID:
            audit.dealers[round_.started_by_id].rounds += 1


def _minutes(since: dt.datetime, until: dt.datetime | None, audit: _Audit) -> float:
    """Minutes of [since, until) inside the gaming day (open-ended spans stop now)."""
    stop = min(until or timezone.now(), audit.end)
    begin = max(since, audit.start)
    return max((stop - begin).total_seconds() / 60.0, 0.0)


def _section_time(audit: _Audit) -> None:
    """Dealer time from DealerShift, player time from Seat, both clipped to the day."""
    overlapping = Q(left_at__isnull=True) | Q(left_at__gt=audit.start)
    for player_id, table_name, seated_at, left_at in Seat.objects.filter(
        overlapping, seated_at__lt=audit.end
    ).values_list("player_id", "table__name", "seated_at", "left_at"):
        player = audit.players[player_id]
        player.minutes += _minutes(seated_at, left_at, audit)
        player.tables.add(table_name)
    shifts = DealerShift.objects.filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=audit.start), started_at__lt=audit.end
    ).values_list("dealer_id", "table__name", "started_at", "ended_at")
    for dealer_id, table_name, started_at, ended_at in shifts:
        dealer = audit.dealers[dealer_id]
        dealer.minutes += _minutes(started_at, ended_at, audit)
        dealer.tables.add(table_name)


def _section_cage(audit: _Audit) -> None:
    """Cash in and out per player: CTR above the daily threshold, an MTL entry per large transaction."""
    rows = _rows(
        """
        SELECT e.account_id, t.id, t.kind, t.created_at, e.amount
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
          JOIN ledger_account a ON a.id = e.account_id
         WHERE t.gaming_day = %s AND t.kind IN ('buy_in', 'cash_out') AND a.purpose = 'wallet'
         ORDER BY t.created_at, t.id
        """,
        [audit.day],
    )
    mtl: list[shape.MtlEntryData] = []
    total_in = total_out = 0
    for account_id, transfer_id, kind, at, amount in rows:
        player_id = audit.wallet_player.get(account_id)
        if player_id is None:
            continue
        player = audit.players[player_id]
        cents = abs(int(amount))
        if kind == "buy_in":
            player.cash_in += cents
            total_in += cents
        else:
            player.cash_out += cents
            total_out += cents
        if cents > audit.mtl_threshold:
            mtl.append(
                {
                    "player": player_id,
                    "name": audit.player_names.get(player_id, ""),
                    "kind": kind,
                    "amount": cents,
                    "at": at.astimezone(audit.zone).isoformat(),
                    "transfer": transfer_id,
                }
            )
    ctr: list[shape.CtrData] = []
    for player_id, player in sorted(audit.players.items()):
        directions = [
            label
            for label, total in (("cash_in", player.cash_in), ("cash_out", player.cash_out))
            if total > audit.ctr_threshold
        ]
        if not directions:
            continue
        name = audit.player_names.get(player_id, "")
        ctr.append(
            {
                "player": player_id,
                "name": name,
                "cash_in": player.cash_in,
                "cash_out": player.cash_out,
                "directions": directions,
            }
        )
        audit.add(
            shape.finding(
                "ctr_required",
                "compliance",
                f"{name}: "
                + " and ".join(
                    f"{label.replace('_', ' ')} {shape.dollars(total)}"
                    for label, total in (("cash_in", player.cash_in), ("cash_out", player.cash_out))
                    if label in directions
                )
                + f" above the CTR threshold of {shape.dollars(audit.ctr_threshold)}: a Currency Transaction "
                "Report is due.",
                player=player_id,
                amount=max(player.cash_in, player.cash_out),
                evidence={"cash_in": player.cash_in, "cash_out": player.cash_out},
            )
        )
    audit.cage = {
        "cash_in": total_in,
        "cash_out": total_out,
        "transactions": len(rows),
        "ctr": ctr,
        "mtl": mtl,
    }


def _section_cash_flow(audit: _Audit) -> None:
    """The day hour by hour (casino time): buy-ins, cash-outs, fills and credits."""
    rows = _rows(
        """
        SELECT date_trunc('hour', t.created_at AT TIME ZONE %s), t.kind, SUM(e.amount)
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
         WHERE t.gaming_day = %s AND t.kind IN ('buy_in', 'cash_out', 'fill', 'credit') AND e.amount > 0
         GROUP BY 1, 2
        """,
        [str(audit.zone), audit.day],
    )
    by_hour: dict[dt.datetime, dict[str, int]] = defaultdict(dict)
    for hour, kind, total in rows:
        by_hour[hour.replace(tzinfo=None)][kind] = int(total)
    hours: list[shape.CashFlowHour] = []
    moment = audit.start
    while moment < audit.end:
        local = moment.astimezone(audit.zone)
        key = local.replace(minute=0, second=0, microsecond=0, tzinfo=None)
        sums = by_hour.get(key, {})
        hours.append(
            {
                "hour": local.strftime("%H:00"),
                "start": local.isoformat(),
                "cash_in": sums.get("buy_in", 0),
                "cash_out": sums.get("cash_out", 0),
                "fills": sums.get("fill", 0),
                "credits": sums.get("credit", 0),
            }
        )
        moment += dt.timedelta(hours=1)
    audit.cash_flow = hours


def _section_trial_balance(audit: _Audit) -> None:
    """Total debits = total credits, balances sum to 0, summed from the entries themselves.

    As of the day's end (or now, after an early close): from entries rather than the stored
    account totals, so an entry changed behind the ledger's back unbalances it.
    """
    trial = get_trial_balance(as_of=audit.as_of or timezone.now())
    groups: dict[str, shape.PurposeBalance] = {}
    for row in trial.rows:
        group = groups.setdefault(
            row.purpose, {"purpose": row.purpose, "accounts": 0, "debits": 0, "credits": 0, "balance": 0}
        )
        group["accounts"] += 1
        group["debits"] += row.debits
        group["credits"] += row.credits
        group["balance"] += row.balance
    balances = sum(row.balance for row in trial.rows)
    audit.trial_balance = {
        "as_of": (audit.as_of or timezone.now()).isoformat(),
        "total_debits": trial.total_debits,
        "total_credits": trial.total_credits,
        "sum_of_balances": balances,
        "balanced": trial.balanced,
        "by_purpose": sorted(groups.values(), key=lambda g: g["purpose"]),
    }
    audit.check(
        "trial_balance",
        "Trial balance: debits = credits, balances sum to 0",
        len(trial.rows),
        0 if trial.balanced else 1,
    )
    if not trial.balanced:
        audit.add(
            shape.finding(
                "trial_balance_unbalanced",
                "critical",
                f"The trial balance does not balance: debits {shape.dollars(trial.total_debits)}, "
                f"credits {shape.dollars(trial.total_credits)}, balances sum to {shape.dollars(balances)}.",
                amount=trial.total_credits - trial.total_debits,
                evidence={
                    "total_debits": trial.total_debits,
                    "total_credits": trial.total_credits,
                    "sum": balances,
                },
            )
        )


def _section_zero_sum(audit: _Audit) -> None:
    """Every transfer of the day has two or more entries summing to 0 (the trigger's rule, rechecked)."""
    checked = _rows("SELECT COUNT(*) FROM ledger_transfer WHERE gaming_day = %s", [audit.day])[0][0]
    bad = _rows(
        """
        SELECT t.id, t.key, t.kind, COALESCE(SUM(e.amount), 0), COUNT(e.id),
               t.meta ->> 'table', t.meta ->> 'round'
          FROM ledger_transfer t
          LEFT JOIN ledger_entry e ON e.transfer_id = t.id
         WHERE t.gaming_day = %s
         GROUP BY t.id
        HAVING COALESCE(SUM(e.amount), 0) <> 0 OR COUNT(e.id) < 2
         ORDER BY t.id
        """,
        [audit.day],
    )
    audit.check("zero_sum", "Every transfer's entries sum to 0", int(checked), len(bad))
    for transfer_id, key, kind, total, entries, table_ref, round_ref in bad:
        table_id = int(table_ref) if table_ref else None
        acc = audit.table_for(table_id) if table_id else None
        audit.add(
            shape.finding(
                "transfer_not_zero_sum",
                "critical",
                f"Transfer {transfer_id} ({kind}, key {key}) has {entries} entries summing to "
                f"{int(total)} cents, not 0.",
                table=table_id,
                table_name=acc.table.name if acc else None,
                round=int(round_ref) if round_ref else None,
                transfer=transfer_id,
                amount=int(total),
                evidence={"key": key, "kind": kind, "entries": int(entries), "sum": int(total)},
            )
        )


def _section_account_balances(audit: _Audit) -> None:
    """Every account touched in the day: stored balance and totals equal the sum of its entries."""
    rows = _rows(
        """
        WITH touched AS (
            SELECT DISTINCT e.account_id
              FROM ledger_entry e JOIN ledger_transfer t ON t.id = e.transfer_id
             WHERE t.gaming_day = %s
        ), sums AS (
            SELECT e.account_id,
                   COALESCE(SUM(e.amount), 0) AS balance,
                   COALESCE(-SUM(e.amount) FILTER (WHERE e.amount < 0), 0) AS debits,
                   COALESCE(SUM(e.amount) FILTER (WHERE e.amount > 0), 0) AS credits
              FROM ledger_entry e JOIN touched USING (account_id)
             GROUP BY e.account_id
        )
        SELECT a.id, a.code, a.balance, a.debits_posted, a.credits_posted, s.balance, s.debits, s.credits
          FROM ledger_account a JOIN sums s ON s.account_id = a.id
        """,
        [audit.day],
    )
    bad = [r for r in rows if (r[2], r[3], r[4]) != (r[5], r[6], r[7])]
    audit.check("account_balances", "Stored balances equal the sum of their entries", len(rows), len(bad))
    for _pk, code, balance, debits, credits, e_balance, e_debits, e_credits in bad:
        audit.add(
            shape.finding(
                "account_balance_mismatch",
                "critical",
                f"Account {code} stores a balance of {balance} cents; its entries sum to {int(e_balance)}.",
                amount=int(balance) - int(e_balance),
                evidence={
                    "account": code,
                    "stored": {"balance": balance, "debits": debits, "credits": credits},
                    "entries": {
                        "balance": int(e_balance),
                        "debits": int(e_debits),
                        "credits": int(e_credits),
                    },
                },
            )
        )


def _section_settlements_vs_ledger(audit: _Audit) -> None:
    """Each round transfer's entries are exactly its RoundSettlement rows' debits and credits.

    Compared per transfer as (count, sum of a hash of each (account, signed amount)), which
    needs no sort of the day's entries; only the transfers that differ are fetched leg by leg.
    A settlement row a correction voided still describes its original transfer, so it takes
    part like any other; the correction's reversal (kind ``reversal``, ``reverses`` a round
    transfer) has no settlement rows and is checked by ``_check_reversals`` instead.
    """
    rows = _rows(
        """
        WITH round_transfers AS (
            SELECT t.id FROM ledger_transfer t
             WHERE t.gaming_day = %s AND t.meta ? 'round'
               AND NOT (t.kind = 'reversal' AND t.reverses_id IS NOT NULL)
        ), ledger_side AS (
            SELECT e.transfer_id, COUNT(*) AS n,
                   SUM(hashtextextended(e.account_id::text || ':' || e.amount::text, 0)::numeric) AS h
              FROM ledger_entry e JOIN round_transfers rt ON rt.id = e.transfer_id
             GROUP BY e.transfer_id
        ), settled AS (
            SELECT s.transfer_id, s.from_account AS code, -s.amount AS amount
              FROM tables_roundsettlement s JOIN ledger_transfer t ON t.id = s.transfer_id
             WHERE t.gaming_day = %s
            UNION ALL
            SELECT s.transfer_id, s.to_account, s.amount
              FROM tables_roundsettlement s JOIN ledger_transfer t ON t.id = s.transfer_id
             WHERE t.gaming_day = %s
        ), settlement_side AS (
            SELECT st.transfer_id, COUNT(*) AS n,
                   SUM(hashtextextended(COALESCE(a.id::text, st.code) || ':' || st.amount::text, 0)::numeric)
                       AS h
              FROM settled st LEFT JOIN ledger_account a ON a.code = st.code
             GROUP BY st.transfer_id
        )
        SELECT COALESCE(l.transfer_id, s.transfer_id),
               l.n IS NOT DISTINCT FROM s.n AND l.h IS NOT DISTINCT FROM s.h
          FROM ledger_side l FULL JOIN settlement_side s ON s.transfer_id = l.transfer_id
        """,
        [audit.day, audit.day, audit.day],
    )
    reversals_checked, reversal_problems = _check_reversals(audit)
    bad = sorted(transfer_id for transfer_id, same in rows if not same)
    audit.check(
        "settlements_vs_ledger",
        "Round settlements equal their ledger legs; corrections reverse exactly what they voided",
        len(rows) + reversals_checked,
        len(bad) + reversal_problems,
    )
    if not bad:
        return
    details = _rows(
        """
        WITH legs AS (
            SELECT e.transfer_id,
                   MAX(a.code) FILTER (WHERE e.amount < 0) AS payer,
                   MAX(a.code) FILTER (WHERE e.amount > 0) AS payee,
                   MAX(e.amount) FILTER (WHERE e.amount > 0) AS amount
              FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id
             WHERE e.transfer_id = ANY(%s)
             GROUP BY e.transfer_id, e.leg
        ), settled AS (
            SELECT transfer_id, from_account AS payer, to_account AS payee, amount
              FROM tables_roundsettlement WHERE transfer_id = ANY(%s)
        )
        (SELECT transfer_id, 'ledger', payer, payee, amount FROM legs
         EXCEPT ALL SELECT transfer_id, 'ledger', payer, payee, amount FROM settled)
        UNION ALL
        (SELECT transfer_id, 'settlement', payer, payee, amount FROM settled
         EXCEPT ALL SELECT transfer_id, 'settlement', payer, payee, amount FROM legs)
        """,
        [bad[:MAX_FINDINGS_PER_KIND], bad[:MAX_FINDINGS_PER_KIND]],
    )
    diffs: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for transfer_id, side, payer, payee, amount in details:
        diffs[transfer_id].append((side, payer, payee, amount))
    metas = dict(Transfer.objects.filter(pk__in=bad).values_list("pk", "meta"))
    for transfer_id in bad:
        meta = metas.get(transfer_id) or {}
        table_id = meta.get("table")
        acc = audit.table_for(table_id) if isinstance(table_id, int) else None
        found = diffs.get(transfer_id, [])
        audit.add(
            shape.finding(
                "settlement_ledger_mismatch",
                "critical",
                f"Transfer {transfer_id}'s ledger entries differ from the round's settlement rows.",
                table=table_id if isinstance(table_id, int) else None,
                table_name=acc.table.name if acc else None,
                round=meta.get("round") if isinstance(meta.get("round"), int) else None,
                transfer=transfer_id,
                evidence={
                    "only_in_ledger": [list(d[1:]) for d in found if d[0] == "ledger"],
                    "only_in_settlements": [list(d[1:]) for d in found if d[0] == "settlement"],
                },
            )
        )


def _check_reversals(audit: _Audit) -> tuple[int, int]:
    """The day's reversals of round transfers, and the day's voided settlement rows.

    Each reversal must be the exact mirror of the transfer it reverses (same accounts, every
    amount negated), and that transfer's settlement rows must all be voided: the money came
    back, so the round must no longer count it. Conversely a voided settlement row whose
    transfer no transfer reverses left the money where it was. Returns (checked, failed).
    """
    reversals = _rows(
        """
        WITH rev AS (
            SELECT r.id, r.reverses_id, r.meta ->> 'table' AS table_ref, r.meta ->> 'round' AS round_ref
              FROM ledger_transfer r JOIN ledger_transfer o ON o.id = r.reverses_id
             WHERE r.gaming_day = %s AND r.kind = 'reversal' AND (o.meta ? 'round' OR r.meta ? 'round')
        ), reversal_side AS (
            SELECT rev.id, COUNT(*) AS n,
                   SUM(hashtextextended(e.account_id::text || ':' || e.amount::text, 0)::numeric) AS h
              FROM rev JOIN ledger_entry e ON e.transfer_id = rev.id
             GROUP BY rev.id
        ), original_side AS (
            SELECT rev.id, COUNT(*) AS n,
                   SUM(hashtextextended(e.account_id::text || ':' || (-e.amount)::text, 0)::numeric) AS h
              FROM rev JOIN ledger_entry e ON e.transfer_id = rev.reverses_id
             GROUP BY rev.id
        ), rows_of AS (
            SELECT rev.id, COUNT(s.id) AS n, COUNT(s.id) FILTER (WHERE s.voided_by_id IS NULL) AS live
              FROM rev LEFT JOIN tables_roundsettlement s ON s.transfer_id = rev.reverses_id
             GROUP BY rev.id
        )
        SELECT rev.id, rev.reverses_id, rev.table_ref, rev.round_ref,
               rs.n IS NOT DISTINCT FROM os.n AND rs.h IS NOT DISTINCT FROM os.h, rows_of.n, rows_of.live
          FROM rev
          LEFT JOIN reversal_side rs ON rs.id = rev.id
          LEFT JOIN original_side os ON os.id = rev.id
          JOIN rows_of ON rows_of.id = rev.id
         ORDER BY rev.id
        """,
        [audit.day],
    )
    unreversed = _rows(
        """
        SELECT s.transfer_id, MIN(s.round_id), MIN(s.voided_by_id), MIN(r.table_id)
          FROM tables_roundsettlement s
          JOIN ledger_transfer t ON t.id = s.transfer_id
          JOIN tables_round r ON r.id = s.round_id
         WHERE t.gaming_day = %s AND s.voided_by_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ledger_transfer x WHERE x.reverses_id = s.transfer_id)
         GROUP BY s.transfer_id
         ORDER BY s.transfer_id
        """,
        [audit.day],
    )
    failed = 0
    for transfer_id, original, table_ref, round_ref, mirror, rows, live in reversals:
        problems = []
        if not mirror:
            problems.append(f"is not the exact mirror of transfer {original}")
        if not rows:
            problems.append(f"reverses transfer {original}, which has no round settlement rows")
        elif live:
            problems.append(
                f"reverses transfer {original}, but {live} of its {rows} settlement rows are not voided"
            )
        if not problems:
            continue
        failed += 1
        table_id = int(table_ref) if table_ref and table_ref.isdigit() else None
        acc = audit.table_for(table_id) if table_id else None
        audit.add(
            shape.finding(
                "reversal_mismatch",
                "critical",
                f"Reversal {transfer_id} " + "; ".join(problems) + ".",
                table=table_id,
                table_name=acc.table.name if acc else None,
                round=int(round_ref) if round_ref and round_ref.isdigit() else None,
                transfer=transfer_id,
                evidence={"reverses": original, "mirror": bool(mirror), "rows": rows, "live_rows": live},
            )
        )
    for transfer_id, round_id, correction_id, table_id in unreversed:
        failed += 1
        acc = audit.table_for(table_id)
        audit.add(
            shape.finding(
                "reversal_mismatch",
                "critical",
                f"Transfer {transfer_id}'s settlement rows were voided by correction {correction_id}, "
                "but no transfer reverses it: the chips never went back.",
                table=table_id,
                table_name=acc.table.name if acc else None,
                round=round_id,
                transfer=transfer_id,
                evidence={"correction": correction_id},
            )
        )
    return len(reversals) + len(unreversed), failed


def _section_corrections(audit: _Audit) -> None:
    """Every correction of the day's rounds (or asked during the day): who asked, who decided, why.

    What it voided (the action numbers, or the whole round), the reversing transfers and the
    chips they moved back. One still pending at the close is a warning: its round is paused
    and the day closed on it.
    """
    round_ids = [r.pk for r in audit.rounds]
    corrections = list(
        Correction.objects.filter(
            Q(round_id__in=round_ids) | Q(requested_at__gte=audit.start, requested_at__lt=audit.end)
        )
        .select_related("round", "round__table")
        .order_by("requested_at", "pk")
    )
    if not corrections:
        return
    voided: dict[int, list[int]] = defaultdict(list)
    for correction_id, seq in (
        RoundAction.all_objects.filter(voided_by__in=corrections)
        .order_by("seq")
        .values_list("voided_by_id", "seq")
    ):
        voided[correction_id].append(seq)
    pending = [c for c in corrections if c.status == CorrectionStatus.PENDING]
    would_void: dict[int, list[int]] = defaultdict(list)  # round -> live seqs, for pending ones
    for round_id, seq in (
        RoundAction.objects.filter(round_id__in={c.round_id for c in pending})
        .order_by("seq")
        .values_list("round_id", "seq")
    ):
        would_void[round_id].append(seq)
    reversal_ids = {int(t) for c in corrections for t in (c.reversals or []) if isinstance(t, int)}
    moved = dict(
        _rows(
            "SELECT transfer_id, SUM(amount) FROM ledger_entry WHERE transfer_id = ANY(%s) AND amount > 0"
            " GROUP BY transfer_id",
            [sorted(reversal_ids)],
        )
    )
    names = _names(
        {c.requested_by_id for c in corrections} | {c.decided_by_id for c in corrections if c.decided_by_id}
    )

    def local(moment: dt.datetime | None) -> str | None:
        return moment.astimezone(audit.zone).isoformat() if moment else None

    for correction in corrections:
        round_ = correction.round
        whole = correction.from_seq is None
        if correction.status == CorrectionStatus.PENDING:
            live = would_void.get(round_.pk, [])
            actions = live if whole else [seq for seq in live if seq >= (correction.from_seq or 0)]
        else:
            actions = voided.get(correction.pk, [])
        reversals = [int(t) for t in (correction.reversals or []) if isinstance(t, int)]
        row: shape.CorrectionData = {
            "id": correction.pk,
            "table": round_.table_id,
            "table_name": round_.table.name,
            "round": round_.pk,
            "round_number": round_.number,
            "whole_round": whole,
            "actions": actions,
            "voided": shape.voided_text(whole=whole, actions=actions),
            "reason": correction.reason,
            "status": correction.status,
            "requested_by": correction.requested_by_id,
            "requested_by_name": names.get(correction.requested_by_id, str(correction.requested_by_id)),
            "requested_at": local(correction.requested_at) or "",
            "decided_by": correction.decided_by_id,
            "decided_by_name": names.get(correction.decided_by_id) if correction.decided_by_id else None,
            "decided_at": local(correction.decided_at),
            "note": correction.note,
            "reversals": reversals,
            "amount_reversed": sum(int(moved.get(t, 0)) for t in reversals),
        }
        audit.corrections.append(row)
        if correction.status == CorrectionStatus.PENDING:
            audit.add(
                shape.finding(
                    "correction_pending",
                    "warning",
                    f"Correction still pending at the close: correction {correction.pk} of round "
                    f"{round_.number} at {round_.table.name} ({row['voided']}: {correction.reason}), "
                    f"asked by {row['requested_by_name']}, was never approved or refused.",
                    table=round_.table_id,
                    table_name=round_.table.name,
                    round=round_.pk,
                    evidence={"correction": correction.pk, "requested_at": row["requested_at"]},
                )
            )


# --- rounds: replay, commitments, theo -------------------------------------------------------


def _party_mapper(audit: _Audit, table_id: int) -> Callable[[str], str]:
    """Ledger code → engine party (the inverse of tables.rounds._Accounts.code)."""
    tray = f"tray:{table_id}"
    layout_prefix = f"layout:{table_id}:"
    pot_prefix = f"pot:{table_id}:"

    seen: dict[str, str] = {}

    def party(code: str) -> str:
        known = seen.get(code)
        if known is not None:
            return known
        player = audit.wallet_code_player.get(code)
        if player is not None:
            found = f"wallet:{player}"
        elif code == tray:
            found = "bank"
        elif code == "rake":
            found = "rake"
        elif code.startswith(layout_prefix):
            found = f"layout:{code[len(layout_prefix) :]}"
        elif code.startswith(pot_prefix):
            found = f"pot:{code[len(pot_prefix) :]}"
        else:
            found = code
        seen[code] = found
        return found

    return party


def _section_rounds(audit: _Audit) -> None:
    """Replay every round from its actions (and seed); check settlements, state and commitment.

    The same fold reads the casekeeper before each Faro bet, which gives the bet's exact edge
    (tables.games.faro_edge), so the theoretical win costs no second replay.
    """
    round_ids = [r.pk for r in audit.rounds]
    actions: dict[int, list[tuple[int, int, dict[str, Any], int]]] = defaultdict(list)
    seq_of: dict[int, int] = {}
    # Half of a night's actions are the same few texts (every electronic turn, common bets):
    # decode each text once. Engines are pure and never change an action they are given.
    decoded: dict[str, dict[str, Any]] = {}
    # Actions a correction voided are not folded (the round is as if they had never been made),
    # so a round's seqs may have gaps: settlements are compared by seq, never by position.
    for pk, round_id, seq, text, actor_id in _rows(
        "SELECT id, round_id, seq, payload::text, actor_id FROM tables_roundaction"
        " WHERE round_id = ANY(%s) AND voided_by_id IS NULL ORDER BY round_id, seq",
        [round_ids],
    ):
        payload = decoded.get(text)
        if payload is None:
            payload = decoded[text] = json.loads(text)
        actions[round_id].append((pk, seq, payload, actor_id))
        seq_of[pk] = seq
    raw: dict[int, list[tuple[int | None, str, str, str, int]]] = defaultdict(list)
    for round_id, action_id, kind, payer, payee, amount in _rows(
        "SELECT round_id, action_id, kind, from_account, to_account, amount FROM tables_roundsettlement"
        " WHERE round_id = ANY(%s) AND voided_by_id IS NULL",
        [round_ids],
    ):
        raw[round_id].append((action_id, kind, payer, payee, amount))
    voided_rounds = _void_round_rows(audit)
    stored: dict[int, Counter[tuple[int, str, str, str, int]]] = defaultdict(Counter)
    mappers: dict[int, Callable[[str], str]] = {}
    failed_replay = failed_commitment = electronic = live = 0
    for round_ in audit.rounds:
        party = mappers.get(round_.table_id) or mappers.setdefault(
            round_.table_id, _party_mapper(audit, round_.table_id)
        )
        counter = stored[round_.pk]
        for action_id, kind, payer, payee, amount in raw.pop(round_.pk, ()):
            seq = seq_of.get(action_id, -1) if action_id is not None else 0
            counter[(seq, kind, party(payer), party(payee), amount)] += 1
        acc = audit.tables.get(round_.table_id)
        table_name = acc.table.name if acc else str(round_.table_id)
        if round_.status in LIVE_ROUND_STATUSES:
            live += 1
            audit.add(
                shape.finding(
                    "round_live",
                    "warning",
                    f"Round {round_.number} at {table_name} was still {round_.status} when the day closed.",
                    table=round_.table_id,
                    table_name=table_name,
                    round=round_.pk,
                )
            )
        if round_.shoe == ShoeKind.ELECTRONIC:
            electronic += 1
            if not _commitment_ok(round_):
                failed_commitment += 1
                audit.add(
                    shape.finding(
                        "commitment_mismatch",
                        "critical",
                        f"Round {round_.number} at {table_name}: the seed does not hash to its commitment.",
                        table=round_.table_id,
                        table_name=table_name,
                        round=round_.pk,
                        evidence={"commitment": round_.commitment},
                    )
                )
        if round_.status == RoundStatus.VOID:
            problems = _check_void_round(round_, voided_rounds.get(round_.pk))
        else:
            problems = _replay_round(audit, round_, actions.get(round_.pk, []), counter)
        if problems:
            failed_replay += 1
            audit.add(
                shape.finding(
                    "round_replay_mismatch",
                    "critical",
                    f"Round {round_.number} at {table_name} does not replay: {'; '.join(problems)}",
                    table=round_.table_id,
                    table_name=table_name,
                    round=round_.pk,
                    evidence={"problems": problems},
                )
            )
        audit.step()
    audit.check(
        "round_replay",
        "Every round replays to its stored state and settlements",
        len(audit.rounds),
        failed_replay,
    )
    audit.check(
        "commitments", "Every electronic round's seed matches its commitment", electronic, failed_commitment
    )
    audit.check("rounds_finished", "No round was live at the close", len(audit.rounds), live)


def _commitment_ok(round_: Round) -> bool:
    try:
        return bool(round_.seed) and commitment_for(round_.seed) == round_.commitment
    except ValueError:  # a seed that is not hex
        return False


def _replay_round(
    audit: _Audit,
    round_: Round,
    actions: list[tuple[int, int, dict[str, Any], int]],
    stored: Counter[tuple[int, str, str, str, int]],
) -> list[str]:
    """Fold the engine over the actions (as tables.rounds.replay_round does); return the problems."""
    problems: list[str] = []
    acc = audit.tables.get(round_.table_id)
    faro = round_.game == "faro"
    try:
        engine = engine_for(round_.game)
        state, opening = engine.start(context_of(round_))
        expected: Counter[tuple[int, str, str, str, int]] = Counter(
            (0, s.kind, s.payer, s.payee, s.amount) for s in opening
        )
        counts: tuple[dict[str, int], int] | None = None
        last = 0
        for _pk, seq, payload, actor_id in actions:
            if not last < seq <= round_.version:
                problems.append(
                    f"action seq {seq} is out of order (after {last}, round version {round_.version})"
                )
            last = seq
            kind = payload.get("type")
            if faro and (kind == "bet" or kind == "call_turn"):
                if counts is None:
                    counts = _casekeeper_counts(engine, state)
                _add_theo(audit, acc, round_, payload, counts, actor_id)
            state, moved = engine.apply(state, payload)
            if faro and kind not in _NO_CARDS:
                counts = None  # cards came out: the casekeeper moved on
            if moved:
                expected.update((seq, s.kind, s.payer, s.payee, s.amount) for s in moved)
        if engine.public_state(state) != round_.state:
            problems.append("the stored state differs from the replayed state")
    except Exception as error:
        problems.append(f"the actions no longer replay ({type(error).__name__}: {error})")
        return problems
    if expected != stored:
        missing = sorted(expected - stored)[:5]
        extra = sorted(stored - expected)[:5]
        problems.append(
            f"settlements differ: expected but not stored {missing}, stored but not expected {extra}"
        )
    return problems


@dataclass
class _VoidRound:
    """What a round voided whole left behind: its rows, and whether each transfer went back."""

    live_settlements: int = 0
    live_actions: int = 0
    transfers: set[int] = field(default_factory=set)
    reversed: set[int] = field(default_factory=set)


def _void_round_rows(audit: _Audit) -> dict[int, _VoidRound]:
    """For the rounds voided whole (misdeals): settlement rows, actions and reversals."""
    void_ids = [r.pk for r in audit.rounds if r.status == RoundStatus.VOID]
    found: dict[int, _VoidRound] = {pk: _VoidRound() for pk in void_ids}
    if not void_ids:
        return found
    for round_id, transfer_id, live, reversed_ in _rows(
        """
        SELECT x.round_id, x.transfer_id, x.live,
               EXISTS (SELECT 1 FROM ledger_transfer r WHERE r.reverses_id = x.transfer_id)
          FROM (SELECT round_id, transfer_id, voided_by_id IS NULL AS live
                  FROM tables_roundsettlement WHERE round_id = ANY(%s)
                UNION ALL
                SELECT round_id, transfer_id, voided_by_id IS NULL
                  FROM tables_roundaction WHERE round_id = ANY(%s)) x
        """,
        [void_ids, void_ids],
    ):
        rows = found[round_id]
        if live:
            if transfer_id is None:
                rows.live_actions += 1  # an action that moved nothing
            else:
                rows.live_settlements += 1
        if transfer_id is not None:
            rows.transfers.add(transfer_id)
            if reversed_:
                rows.reversed.add(transfer_id)
    return found


def _check_void_round(round_: Round, rows: _VoidRound | None) -> list[str]:
    """A misdeal (tables.replay._check_voided): every settlement voided, every transfer reversed,
    and the round left as it stood before its first action."""
    problems: list[str] = []
    rows = rows or _VoidRound()
    if rows.live_settlements or rows.live_actions:
        problems.append("the round is void but some of its settlements or actions are not")
    unreversed = sorted(rows.transfers - rows.reversed)
    if unreversed:
        problems.append(f"the round is void but transfers {unreversed[:5]} are not reversed")
    try:
        engine = engine_for(round_.game)
        state, _opening = engine.start(context_of(round_))
        if engine.public_state(state) != round_.state:
            problems.append("the stored state is not the round's state before its first action")
    except Exception as error:
        problems.append(f"the round no longer starts ({type(error).__name__}: {error})")
    return problems


_NO_CARDS = frozenset({"bet", "call_turn", "remove_bet"})


def _casekeeper_counts(engine: Any, state: Any) -> tuple[dict[str, int], int]:
    """Per-rank cards left and cards left in the shoe: the casekeeper before a bet.

    Read from the Faro state's dealt cards (its soda and turns) rather than by building the
    whole public view before every turn's bets, which would cost as much as the replay
    itself; the public view is still compared once, at the end of each round.
    """
    soda, turns = getattr(state, "soda", None), getattr(state, "turns", None)
    if turns is None:
        public = engine.public_state(state)
        left = {rank: int(row["left"]) for rank, row in public["casekeeper"].items()}
        return left, int(public["cards_remaining"])
    left = dict.fromkeys(RANKS, 4)
    dealt = [soda] if soda is not None else []
    for turn in turns:
        dealt += [card for card in (turn.banker, turn.player, turn.hock) if card is not None]
    for card in dealt:
        left[rank_of(card)] -= 1
    return left, DECK_SIZE - len(dealt)


def _add_theo(
    audit: _Audit,
    acc: _TableAcc | None,
    round_: Round,
    payload: dict[str, Any],
    counts: tuple[dict[str, int], int],
    actor_id: int,
) -> None:
    edge = faro_edge.bet_edge(payload, counts[0], counts[1], round_.rules)
    amount = payload.get("amount")
    if edge is None or not isinstance(amount, int) or isinstance(amount, bool):
        return
    theo = amount * edge.edge
    if acc is not None:
        acc.bets += 1
        acc.theo += theo
        acc.theo_var += amount * amount * edge.variance
    player = payload.get("player")
    if isinstance(player, int) and not isinstance(player, bool):
        audit.theo_players[player] += theo
    audit.theo_dealers[actor_id] += theo


# --- per-table results ----------------------------------------------------------------------


def _finish_tables(audit: _Audit) -> None:
    """Win from the count, checked against the ledger's house-win postings; variances flagged."""
    for acc in sorted(audit.tables.values(), key=lambda a: a.table.name):
        table = acc.table
        sessions = acc.sessions
        ledger_win = sum(v for k, v in acc.tray_by_kind.items() if k not in NON_PLAY_TRAY_KINDS)
        ledger_fills = acc.tray_by_kind.get("fill", 0)
        ledger_credits = -acc.tray_by_kind.get("credit", 0)
        if (ledger_fills, ledger_credits) != (acc.slip_fills, acc.slip_credits):
            audit.add(
                shape.finding(
                    "slips_ledger_mismatch",
                    "critical",
                    f"{table.name}: approved slips show fills {shape.dollars(acc.slip_fills)} and "
                    f"credits {shape.dollars(acc.slip_credits)}, the tray's postings "
                    f"{shape.dollars(ledger_fills)} and {shape.dollars(ledger_credits)}.",
                    table=table.pk,
                    table_name=table.name,
                    evidence={
                        "slips": [acc.slip_fills, acc.slip_credits],
                        "ledger": [ledger_fills, ledger_credits],
                    },
                )
            )
        for index, session in enumerate(sessions):
            # The first opening's variance is yesterday's closer against today's opener: listed
            # when non-zero, but it is not part of today's win.
            if index > 0 or session.opening_variance:
                _record_variance(
                    audit, acc, session, "opening", session.opening_inventory, session.opening_ledger
                )
            if session.closed_at is not None:
                _record_variance(
                    audit, acc, session, "closing", session.closing_inventory, session.closing_ledger
                )
        if not sessions and (ledger_win or acc.rounds):
            audit.add(
                shape.finding(
                    "uncounted_table",
                    "warning",
                    f"{table.name} has play in the ledger but no session (no count) opened in the day.",
                    table=table.pk,
                    table_name=table.name,
                    amount=ledger_win,
                )
            )
        open_session = next((s for s in sessions if s.closed_at is None), None)
        if open_session is not None:
            audit.add(
                shape.finding(
                    "table_open",
                    "warning",
                    f"{table.name} was still open at the close: its closer is the tray's ledger balance, "
                    "not a count.",
                    table=table.pk,
                    table_name=table.name,
                )
            )
        audit.table_rows.append(_table_row(audit, acc))


def _record_variance(
    audit: _Audit, acc: _TableAcc, session: TableSession, stage: str, counted: int | None, ledger: int | None
) -> None:
    amount = (session.opening_variance if stage == "opening" else session.closing_variance) or 0
    flagged = abs(amount) > audit.variance_threshold
    audit.variances.append(
        {
            "table": acc.table.pk,
            "table_name": acc.table.name,
            "session": session.pk,
            "stage": stage,
            "counted": counted,
            "ledger": ledger,
            "amount": amount,
            "flagged": flagged,
        }
    )


def _table_row(audit: _Audit, acc: _TableAcc) -> shape.TableData:
    table = acc.table
    sessions = acc.sessions
    ledger_win = sum(v for k, v in acc.tray_by_kind.items() if k not in NON_PLAY_TRAY_KINDS)
    opener = sessions[0].opening_inventory if sessions else None
    last = sessions[-1] if sessions else None
    is_open = last is not None and last.closed_at is None
    if last is None:
        closer = None
    elif is_open:
        closer = int(Table.objects.filter(pk=table.pk).values_list("tray__balance", flat=True).get())
    else:
        closer = last.closing_inventory
    win = (
        closer + acc.slip_credits - opener - acc.slip_fills
        if opener is not None and closer is not None
        else None
    )
    variance = win - ledger_win if win is not None else None
    recorded = sum((s.closing_variance or 0) for s in sessions) + sum(
        s.opening_variance for s in sessions[1:]
    )
    flagged = variance is not None and abs(variance) > audit.variance_threshold
    if flagged and variance is not None:
        audit.add(
            shape.finding(
                "count_variance",
                "warning",
                f"{table.name}: the count's win {shape.dollars(win)} differs from the ledger's "
                f"{shape.dollars(ledger_win)} by {shape.dollars(variance)} "
                f"(threshold {shape.dollars(audit.variance_threshold)}).",
                table=table.pk,
                table_name=table.name,
                amount=variance,
                evidence={"win": win, "ledger_win": ledger_win, "recorded_variance": recorded},
            )
        )
    if variance is not None and variance != recorded:
        audit.add(
            shape.finding(
                "variance_unexplained",
                "critical",
                f"{table.name}: count and ledger differ by {shape.dollars(variance)}, but the sessions "
                f"recorded {shape.dollars(recorded)} of count variances.",
                table=table.pk,
                table_name=table.name,
                amount=variance - recorded,
                evidence={"variance": variance, "recorded_variance": recorded},
            )
        )
    counted_win = win if win is not None else ledger_win
    house_win = counted_win + acc.rake
    theo = round(acc.theo) if table.game == "faro" else None
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        # The card room's result-keyed tables name the game they deal (Gops, Old Maid …).
        "variant": _variant_name(table),
        "sessions": len(sessions),
        "open": is_open,
        "opener": opener,
        "closer": closer,
        "fills": acc.slip_fills,
        "credits": acc.slip_credits,
        "win": win,
        "ledger_win": ledger_win,
        "variance": variance,
        "recorded_variance": recorded,
        "variance_flagged": flagged,
        "rake": acc.rake,
        "house_win": house_win,
        "handle": acc.handle,
        "hold_pct": shape.pct(house_win, acc.handle),
        "theo": theo,
        "theo_hold_pct": shape.pct(acc.theo, acc.handle) if theo is not None else None,
        "theo_band": shape.band(acc.theo, acc.theo_var, acc.handle)
        if theo is not None
        else {"low_pct": None, "high_pct": None},
        "rounds": acc.rounds,
        "bets": acc.bets,
    }


def _names(ids: set[int]) -> dict[int, str]:
    return {
        pk: name or username
        for pk, name, username in User.objects.filter(pk__in=ids).values_list("pk", "name", "username")
    }


def _assemble(audit: _Audit, *, began: float, closed_at: dt.datetime | None) -> dict[str, Any]:
    tables = audit.table_rows
    dealer_names = _names(set(audit.dealers))
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
                    f"{shape.dollars(variance['amount'])}.",
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
    }
    return dict(data)


# --------------------------------------------------------------------------- the files

FILE_CACHE_SECONDS = 7 * 24 * 3600


def _file_key(report: AuditReport, fmt: str) -> str:
    stamp = report.finished_at.timestamp() if report.finished_at else 0
    # v2: CSV cells are spreadsheet-safe; v3: the corrections section. Files cached by an older
    # renderer are not served.
    return f"audit-file:v3:{fmt}:{report.pk}:{report.runs}:{stamp:.6f}"


def get_report_file(*, report: AuditReport, fmt: str) -> bytes:
    """The report as a PDF or a CSV archive: from the cache, else drawn now and kept.

    A finished run never changes (a rerun bumps ``runs``), so the bytes are cached under the
    run; the worker draws them right after the audit, so a download rarely waits for it.
    """
    from django.core.cache import cache

    from tables.audit.render_csv import render_csv_zip
    from tables.audit.render_pdf import render_pdf

    key = _file_key(report, fmt)
    content: bytes | None = cache.get(key)
    if content is None:
        content = render_pdf(report.data) if fmt == "pdf" else render_csv_zip(report.data)
        cache.set(key, content, FILE_CACHE_SECONDS)
    return content


def render_report_files(*, report_id: int) -> list[str]:
    """Draw a finished report's PDF and CSV archive into the cache; returns the formats drawn."""
    report = AuditReport.objects.get(pk=report_id)
    if report.status != AuditStatus.DONE:
        return []
    for fmt in ("pdf", "csv"):
        get_report_file(report=report, fmt=fmt)
    return ["pdf", "csv"]


def _variant_name(table: Table) -> str | None:
    """Display name of a stakes table's ``rules.variant``; None for the engine games."""
    if table.game != "stakes":
        return None
    from tables.games.stakes import VARIANTS

    key = str((table.rules or {}).get("variant", ""))
    return VARIANTS[key][0] if key in VARIANTS else key or None
