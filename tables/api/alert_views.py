"""Detection alerts (API.md "Gaming days, audits, alerts"): the list, and resolving one."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.filters import FilteredListApi
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import errors
from casino.models import Role
from casino.permissions import actor_of, require_role
from tables.api.filters import AlertFilter
from tables.detection.kinds import ALERT_KINDS
from tables.detection.models import Alert, AlertSeverity, AlertStatus
from tables.detection.selectors import list_alerts
from tables.detection.services import NOTE_MAX, resolve_alert


class AlertOutputSerializer(serializers.ModelSerializer[Alert]):
    table = serializers.IntegerField(source="table_id", allow_null=True)
    player = serializers.IntegerField(source="player_id", allow_null=True)
    dealer = serializers.IntegerField(source="dealer_id", allow_null=True, help_text="staff id")
    kind = serializers.ChoiceField(choices=ALERT_KINDS)
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


class AlertListApi(FilteredListApi, APIView):
    pagination_class = NewestFirstCursorPagination
    filterset_class = AlertFilter

    @extend_schema(responses={200: AlertOutputSerializer(many=True), **errors(400, 401, 403)})
    def get(self, request: Request) -> Response:
        """Newest first, cursor-paginated: ``{"results": [...], "next": url | null}``."""
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        alerts = self.filter_list(request, list_alerts())
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(alerts, request, view=self)
        return paginator.get_paginated_response(AlertOutputSerializer(page, many=True).data)


class AlertResolveApi(APIView):
    class InputSerializer(serializers.Serializer):
        # Blank or missing reaches the service, which asks for the note in words (400).
        note = serializers.CharField(
            max_length=NOTE_MAX,
            allow_blank=True,
            required=False,
            default="",
            help_text="what the pit boss found",
        )

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
        data = valid(self.InputSerializer, request.data)
        alert = resolve_alert(actor=actor_of(request), alert_id=alert_id, note=data["note"])
        return Response(AlertOutputSerializer(alert).data)
