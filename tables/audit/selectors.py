"""Reads for audit reports."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from casino.errors import NotFound
from tables.audit.models import AuditReport, AuditStatus
from tables.models import Table, TableStatus


def get_report_for_day(*, day: dt.date) -> AuditReport:
    """The day's report row; 404 ``no_report`` until someone has asked for the audit."""
    report = AuditReport.objects.filter(gaming_day=day).first()
    if report is None:
        raise NotFound(f"No audit has run for gaming day {day} yet.", code="no_report")
    return report


def list_open_tables() -> list[Table]:
    """The tables open now, by name: an early close of the gaming day waits for every one."""
    return list(Table.objects.filter(status=TableStatus.OPEN).select_related("dealer").order_by("name", "pk"))


def list_recent_reports(*, limit: int = 30) -> QuerySet[AuditReport]:
    return AuditReport.objects.order_by("-gaming_day")[:limit]


@dataclass(frozen=True, slots=True)
class Liveness:
    """How long a running audit has been silent; ``stale``: longer than ``AUDIT_STALE_SECONDS``."""

    heartbeat_at: dt.datetime | None
    seconds_since_heartbeat: float | None  # None unless the audit is running
    stale: bool


def get_liveness(report: AuditReport, *, now: dt.datetime | None = None) -> Liveness:
    """The one definition of a dead run: the report page shows it, ``sweep_audits`` restarts on it.

    A run that has not beaten yet counts from its start. Only a running audit can be stale.
    """
    if report.status != AuditStatus.RUNNING:
        return Liveness(heartbeat_at=report.heartbeat_at, seconds_since_heartbeat=None, stale=False)
    last = report.heartbeat_at or report.started_at or report.requested_at
    seconds = max(0.0, ((now or timezone.now()) - last).total_seconds())
    return Liveness(
        heartbeat_at=report.heartbeat_at,
        seconds_since_heartbeat=round(seconds, 1),
        stale=seconds > settings.AUDIT_STALE_SECONDS,
    )
