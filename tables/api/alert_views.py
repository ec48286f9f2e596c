"""Detection alerts (API.md "Gaming days, audits, alerts"): the list, and resolving one."""

from __future__ import annotations

import datetime as dt

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.pagination import NewestFirstCursorPagination
from casino.api.params import require_supported_day
from casino.api.schema import errors
from casino.errors import ValidationFailed
from casino.models import Role
from casino.permissions import require_role, signed_in
from tables.detection.detectors import DETECTOR_OF_KIND
from tables.detection.selectors import list_alerts
from tables.detection.services import NOTE_MAX, resolve_alert
from tables.models import Alert, AlertSeverity, AlertStatus


class AlertOutputSerializer(serializers.ModelSerializer[Alert]):
    table = serializers.IntegerField(source="table_id", allow_null=True)
    player = serializers.IntegerField(source="player_id", allow_null=True)
    dealer = serializers.IntegerField(source="dealer_id", allow_null=True, help_text="staff id")
    kind = serializers.ChoiceField(choices=sorted(DETECTOR_OF_KIND))
    severity = serializers.ChoiceField(choices=AlertSeverity.choices)
    status = serializers.ChoiceField(choices=AlertStatus.choices)
    evidence = serializers.DictField(help_text="the numbers, rounds and transfers behind the alert")
    resolved_by = serializers.IntegerField(source="resolved_by_id", allow_null=True)

    class Meta:
        model = Alert
        fields = [
            "id",
            "kind",
            "severity",
            "table",
            "player",
            "dealer",
            "evidence",
            "status",
            "at",
            "detector",
            "gaming_day",
            "summary",
            "updated_at",
            "detections",
            "resolved_by",
            "resolved_at",
            "note",
        ]


def _day(value: str | None) -> dt.date | None:
    if not value:
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError as error:
        raise ValidationFailed(
            f"'{value}' is not a gaming day; write it as YYYY-MM-DD.", fields={"day": value}, code="bad_date"
        ) from error
    return require_supported_day(day, field="day", code="bad_date")


class AlertListApi(APIView):
    pagination_class = NewestFirstCursorPagination

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=AlertStatus.values, description="open or resolved"),
            OpenApiParameter("kind", str, enum=sorted(DETECTOR_OF_KIND), description="one alert kind"),
            OpenApiParameter("day", OpenApiTypes.DATE, description="the gaming day the alert is about"),
            OpenApiParameter("table", int, description="alerts about one table"),
        ],
        responses={200: AlertOutputSerializer(many=True), **errors(400, 401, 403)},
    )
    def get(self, request: Request) -> Response:
        """Newest first, cursor-paginated: ``{"results": [...], "next": url | null}``."""
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        kind = request.query_params.get("kind") or None
        if kind is not None and kind not in DETECTOR_OF_KIND:
            raise ValidationFailed(
                f"kind must be one of {', '.join(sorted(DETECTOR_OF_KIND))}.", fields={"kind": kind}
            )
        alerts = list_alerts(status=request.query_params.get("status") or None, kind=kind)
        day = _day(request.query_params.get("day"))
        if day is not None:
            alerts = alerts.filter(gaming_day=day)
        table = request.query_params.get("table")
        if table:
            if not table.isdigit():
                raise ValidationFailed("table must be a table id.", fields={"table": table})
            alerts = alerts.filter(table_id=int(table))
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(alerts, request, view=self)
        return paginator.get_paginated_response(AlertOutputSerializer(page, many=True).data)


class AlertResolveApi(APIView):
    class InputSerializer(serializers.Serializer):
        note = serializers.CharField(max_length=NOTE_MAX, help_text="what the pit boss found")

        def validate_note(self, value: str) -> str:
            if not isinstance(self.initial_data.get("note"), str):  # DRF would turn 5 into "5"
                raise serializers.ValidationError("A note is text.")
            return value

    @extend_schema(
        request=InputSerializer,
        responses={200: AlertOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, alert_id: int) -> Response:
        """A pit boss resolves an open alert with a note; an alert is resolved once (else 409)."""
        require_role(request.user, Role.PIT_BOSS)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        alert = resolve_alert(actor=signed_in(request), alert_id=alert_id, note=data.validated_data["note"])
        return Response(AlertOutputSerializer(alert).data)
