"""The end-of-night audit's entry points: ask for it, run it, and keep it going.

``request_audit`` (the API, the console and the beat's ``audit_previous_gaming_day``) creates
or reuses the day's ``AuditReport`` and sends ``run_audit_task`` after commit; the task calls
``run_audit``, which closes the day in the ledger (no transfer can be dated into it
afterwards), computes the report with ``tables.audit.compute`` and stores it on the same row.
A rerun rewrites that row and nothing else: closing is ``get_or_create`` and the audit itself
only reads. ``sweep_audits`` (beat) sends what the broker never took and restarts dead runs.

The run's lock, heartbeat and progress are ``tables.audit.runner``'s; the report files
(PDF, CSV) ``tables.audit.files``'. tables/audit/README.md has the long form.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict
from casino.models import Role, User
from casino.permissions import require_role
from casino.task_sending import send_task
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import ClosedGamingDay
from ledger.services import close_gaming_day
from tables.audit.compute import compute_audit
from tables.audit.investigations import raise_hold_investigations
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.runner import LOCK_CLASS as LOCK_CLASS  # re-exported: the sweep's tests hold it
from tables.audit.runner import AuditBusy, Heartbeat, Progress, ProgressCallback, audit_lock
from tables.audit.selectors import get_liveness, list_open_tables
from tables.evidence.checkpoint import make_checkpoint
from tables.models import Table

logger = logging.getLogger(__name__)

RUN_AUDIT_TASK = "tables.audit.tasks.run_audit_task"
REQUEUE_QUEUED_AFTER = dt.timedelta(minutes=10)
UNSENT_GRACE = dt.timedelta(seconds=5)  # the close's own send happens right after its commit


# --------------------------------------------------------------------------- requesting


def _in_flight(report: AuditReport, now: dt.datetime) -> bool:
    """A queued task that may still arrive, or a run some worker is doing right now."""
    if report.status == AuditStatus.QUEUED:
        return now - report.requested_at < REQUEUE_QUEUED_AFTER
    if report.status == AuditStatus.RUNNING:
        with audit_lock(report.pk) as free:
            return not free  # running but unlocked: its worker died, so it may be requeued
    return False


def _send_audit(report_id: int, task_id: str) -> bool:
    """Hand the run to the broker (bounded: an outage costs ~0.2 s, never an error) and record
    that it went; a report left unsent is sent again by ``sweep_audits``."""
    options: dict[str, Any] = {"task_id": task_id, "queue": settings.AUDIT_QUEUE}
    # By name: tasks.py imports this module, never the other way round.
    if send_task(current_app.signature(RUN_AUDIT_TASK), args=[report_id], **options) is None:
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
    record_action(
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


# --------------------------------------------------------------------------- the sweep


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
    with audit_lock(report_id) as free:
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
                record_action(
                    actor=None, action="gaming_day.audit_failed", obj=report, data={"error": report.error}
                )
                return "failed"
            report.status = AuditStatus.QUEUED
            report.sent_at = None
            report.restarts += 1
            report.save(update_fields=["status", "sent_at", "restarts"])
            record_action(
                actor=None,
                action="gaming_day.audit_restarted",
                obj=report,
                data={"task_id": report.task_id, "restarts": report.restarts, "last_heartbeat": last},
            )
    return "restarted"


# --------------------------------------------------------------------------- running


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
    with audit_lock(report_id) as acquired:
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
        tracker = Progress(report_id, progress)
        actor = report.requested_by
        with Heartbeat(report_id):
            try:
                with transaction.atomic():
                    if report.forced and gaming_day_bounds(report.gaming_day)[1] > timezone.now():
                        # A table opened since the request: the early close still must not freeze it.
                        refuse_early_close_with_open_tables(day=report.gaming_day, lock=True)
                    closed = close_gaming_day(
                        day=report.gaming_day, closed_by=(actor.username if actor else "beat")
                    )
                    record_action(
                        actor=actor, action="gaming_day.closed", obj=closed, data={"forced": report.forced}
                    )
                make_checkpoint(day=report.gaming_day)  # the day's evidence, signed (docs/evidence.md)
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
                raise_hold_investigations(day=report.gaming_day, checks=data.get("hold_investigations", []))
                AuditReport.objects.filter(pk=report_id).update(
                    status=AuditStatus.DONE,
                    finished_at=timezone.now(),
                    data=data,
                    findings=len(data["findings"]),
                    progress_done=tracker.total,
                    progress_total=tracker.total,
                )
                record_action(
                    actor=actor,
                    action="gaming_day.audited",
                    obj=report,
                    data={"findings": len(data["findings"]), "seconds": data["seconds"]},
                )
    return AuditReport.objects.get(pk=report_id)
