"""Celery entry points for the audit; each calls one service.

This module imports the services, never the other way round: ``request_audit`` and the sweep
send ``run_audit_task`` by its name (``tables.audit.services.RUN_AUDIT_TASK``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import Task, shared_task
from django.conf import settings

from tables.audit.files import render_report_files
from tables.audit.runner import AuditBusy
from tables.audit.services import RUN_AUDIT_TASK, audit_previous_gaming_day, run_audit, sweep_audits


@shared_task(
    name=RUN_AUDIT_TASK,
    bind=True,
    acks_late=True,  # a run whose worker dies is redelivered (the audit is idempotent) ...
    reject_on_worker_lost=True,  # ... also when only its pool process died
    soft_time_limit=settings.AUDIT_TIME_LIMIT_SECONDS,  # the run fails, recorded on the report
    time_limit=settings.AUDIT_TIME_LIMIT_SECONDS + settings.AUDIT_TIME_LIMIT_GRACE_SECONDS,
)
def run_audit_task(self: Task, report_id: int) -> dict[str, Any]:
    """Close a gaming day and audit it. Takes the report's id; a redelivery or rerun rewrites it.

    The broker's visibility timeout must outlast ``time_limit`` (check ``tables.E001``), or
    Redis hands a run still going to a second worker.

    Progress is the task's state: ``PROGRESS`` with ``{"done": n, "total": m}`` (rounds
    replayed plus sections computed), so ``AsyncResult(task_id).info`` shows how far it is.
    """

    def progress(done: int, total: int) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    try:
        report = run_audit(report_id=report_id, progress=progress, task_id=self.request.id)
    except AuditBusy as busy:
        # Never acknowledge an audit that did not run: try again once the lock is free.
        raise self.retry(exc=busy, countdown=settings.AUDIT_BUSY_RETRY_SECONDS, max_retries=60) from busy
    # The PDF of a big night takes longer to draw than a web request may wait: draw it now.
    render_report_files_task.apply_async(args=[report_id], queue=settings.AUDIT_QUEUE)
    return {
        "report": report.pk,
        "gaming_day": report.gaming_day.isoformat(),
        "status": report.status,
        "findings": report.findings,
    }


@shared_task(acks_late=True)
def render_report_files_task(report_id: int) -> list[str]:
    """After an audit: draw its PDF and CSV archive into the cache (idempotent)."""
    return render_report_files(report_id=report_id)


@shared_task(acks_late=True)
def audit_previous_gaming_day_task() -> int | None:
    """Beat, after the rollover: close and audit the day that just ended (once)."""
    report = audit_previous_gaming_day()
    return report.pk if report else None


@shared_task(acks_late=True)
def sweep_audits_task() -> dict[str, list[int]]:
    """Beat, every ``AUDIT_SWEEP_SECONDS``: send audits the broker never took, restart dead runs."""
    return asdict(sweep_audits())
