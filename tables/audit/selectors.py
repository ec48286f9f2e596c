"""Reads for audit reports."""

from __future__ import annotations

import datetime as dt

from django.db.models import QuerySet

from casino.errors import NotFound
from tables.models import AuditReport


def get_report_for_day(*, day: dt.date) -> AuditReport:
    """The day's report row; 404 ``no_report`` until someone has asked for the audit."""
    report = AuditReport.objects.filter(gaming_day=day).first()
    if report is None:
        raise NotFound(f"No audit has run for gaming day {day} yet.", code="no_report")
    return report


def list_recent_reports(*, limit: int = 30) -> QuerySet[AuditReport]:
    return AuditReport.objects.order_by("-gaming_day")[:limit]
