"""Reads for detection: the alert list (API) and the open alerts the pit view shows."""

from __future__ import annotations

from django.db.models import Case, IntegerField, QuerySet, Value, When

from tables.detection.models import Alert, AlertSeverity, AlertStatus

SEVERITY_ORDER = Case(
    When(severity=AlertSeverity.HIGH, then=Value(0)),
    When(severity=AlertSeverity.MEDIUM, then=Value(1)),
    default=Value(2),
    output_field=IntegerField(),
)


def list_alerts() -> QuerySet[Alert]:
    """Alerts newest first (the API filters them with ``AlertFilter`` and pages with a cursor)."""
    return Alert.objects.order_by("-id")


def list_open_alerts(*, limit: int = 25) -> list[Alert]:
    """The pit view's panel: open alerts, most severe and newest first."""
    return list(
        Alert.objects.filter(status=AlertStatus.OPEN)
        .select_related("table", "dealer", "player__user")
        .annotate(rank=SEVERITY_ORDER)
        .order_by("rank", "-id")[:limit]
    )


def count_open_alerts() -> int:
    return Alert.objects.filter(status=AlertStatus.OPEN).count()
