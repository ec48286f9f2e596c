"""The detectors' findings, and a count's own alert, kept until a pit boss resolves them, in the
``tables`` app."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class AlertSeverity(models.TextChoices):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class AlertStatus(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"


# Kinds no detector raises: written with a count's slip the moment it is off the ledger's tray
# (tables.slips.alerts), by size, or for a fill or credit slip in transit too long
# (tables.slips.transit_alerts) or a drop box left at its table too long (tables.drop.overdue),
# with their severity; and their evidence keys that hold cents.
SLIP_ALERT_KINDS: dict[str, str] = {
    "count_variance": AlertSeverity.MEDIUM,
    "reportable_variance": AlertSeverity.HIGH,
    "slip_in_transit": AlertSeverity.MEDIUM,
    "drop_box_overdue": AlertSeverity.MEDIUM,
}
SLIP_ALERT_MONEY = frozenset({"counted", "expected", "variance", "amount", "recorded"})


# Kinds the end-of-night audit raises (tables.audit.investigations): a table's or a game's
# month-to-date hold outside its band; and their evidence keys that hold cents.
AUDIT_ALERT_KINDS: dict[str, str] = {
    "hold_investigation": AlertSeverity.HIGH,
}
AUDIT_ALERT_MONEY = frozenset({"drop", "win", "electronic_win"})


class Alert(models.Model):
    """A detector's finding (tables.detection), or a count's variance (tables.slips.alerts), kept
    until a pit boss resolves it with a note.

    ``dedup_key`` names the finding (kind, gaming day, subject): detecting it again updates
    the evidence of the same row instead of adding one, so the detectors can rerun freely.
    """

    kind = models.CharField(max_length=40, db_index=True)
    detector = models.CharField(max_length=30)
    severity = models.CharField(max_length=8, choices=AlertSeverity.choices)
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="alerts"
    )
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    player = models.ForeignKey(
        "casino.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    gaming_day = models.DateField(db_index=True)
    summary = models.CharField(max_length=300)
    evidence = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=AlertStatus.choices, default=AlertStatus.OPEN)
    at = models.DateTimeField(auto_now_add=True, help_text="first detected")
    updated_at = models.DateTimeField(auto_now=True, help_text="last detected or resolved")
    detections = models.PositiveIntegerField(default=1, help_text="how many runs found it")
    dedup_key = models.CharField(max_length=200, unique=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status="open", resolved_at__isnull=True, resolved_by__isnull=True)
                | Q(status="resolved", resolved_at__isnull=False, resolved_by__isnull=False),
                name="tables_alert_resolved_with_who_and_when",
            ),
        ]
        indexes = [models.Index(fields=["status", "-id"], name="tables_alert_status")]

    def __str__(self) -> str:
        return f"{self.kind} ({self.severity}) {self.dedup_key}"
