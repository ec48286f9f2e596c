"""The audit's one row per gaming day (its report and its progress), in the ``tables`` app."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class AuditReport(models.Model):
    """The end-of-night audit of one gaming day: one row per day, rewritten by every rerun.

    ``data`` holds the whole report (tables.audit.report's shape) so the JSON, CSV, PDF and
    HTML views all render the same numbers; progress lives here too so a poll needs no broker.
    """

    gaming_day = models.DateField(unique=True)
    status = models.CharField(max_length=8, choices=AuditStatus.choices, default=AuditStatus.QUEUED)
    task_id = models.CharField(max_length=64, blank=True)
    forced = models.BooleanField(default=False, help_text="closed before the gaming day's end")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField()
    sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when the broker took this task_id's message; empty: the sweep sends it",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="a running audit's last sign of life (AUDIT_HEARTBEAT_SECONDS)"
    )
    restarts = models.PositiveIntegerField(
        default=0, help_text="runs of this request the sweep restarted after their worker died"
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    runs = models.PositiveIntegerField(default=0, help_text="how many times the audit ran")
    findings = models.PositiveIntegerField(default=0)
    data = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"audit of {self.gaming_day} ({self.status})"
