"""Gaming-day close and audit report endpoints (API.md "Gaming days, audits, alerts")."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any, cast

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import days
from casino.api.inputs import valid
from casino.api.schema import errors
from casino.errors import ValidationFailed
from casino.models import Role, User
from casino.permissions import require_role
from casino.replica import from_replica
from tables.audit.files import get_report_file
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.report import StatusData, in_schema_order
from tables.audit.schema import ReportOutputSerializer
from tables.audit.selectors import get_liveness, get_report_for_day
from tables.audit.services import request_audit

# format -> (content type, disposition, file extension) of the report's files
FILE_TYPES = {"csv": ("application/zip", "attachment", "zip"), "pdf": ("application/pdf", "inline", "pdf")}
FORMATS = ("json", *FILE_TYPES)
DAY_PARAMETER = OpenApiParameter(
    "day",
    OpenApiTypes.DATE,
    OpenApiParameter.PATH,
    description="the gaming day, YYYY-MM-DD (else 400 bad_date)",
)


def parse_day(value: str) -> dt.date:
    """A gaming day is written YYYY-MM-DD (``casino.days``); anything else is a 400 ``bad_date``."""
    return days.parse_day(value, field="date", code="bad_date")


class _QueryFormatIsNotARenderer(DefaultContentNegotiation):
    """Here ``?format=`` picks the report's file type; errors and statuses are always JSON."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


def report_envelope(report: AuditReport) -> dict[str, Any]:
    """Status fields, plus the stored report once the audit is done."""
    liveness = get_liveness(report)
    envelope: StatusData = {
        "gaming_day": report.gaming_day.isoformat(),
        "status": report.status,
        "task_id": report.task_id,
        "runs": report.runs,
        "progress": {"done": report.progress_done, "total": report.progress_total},
        "heartbeat_at": liveness.heartbeat_at.isoformat() if liveness.heartbeat_at else None,
        "seconds_since_heartbeat": liveness.seconds_since_heartbeat,
        "stale": liveness.stale,
    }
    if report.status == AuditStatus.FAILED:
        envelope["error"] = report.error
    body: dict[str, Any] = dict(envelope)
    if report.status == AuditStatus.DONE:
        body.update(in_schema_order(report.data))
    return body


# --- views ------------------------------------------------------------------------------------


class GamingDayCloseApi(APIView):
    class InputSerializer(serializers.Serializer):
        force = serializers.BooleanField(
            required=False, default=False, help_text="close before the day's end (end-of-night early close)"
        )

    class OutputSerializer(serializers.Serializer):
        task_id = serializers.CharField(help_text="the Celery task; its state shows PROGRESS {done, total}")
        gaming_day = serializers.DateField()
        status = serializers.ChoiceField(choices=AuditStatus.choices)

    @extend_schema(
        operation_id="gaming_day_close",
        parameters=[DAY_PARAMETER],
        request=InputSerializer,
        responses={202: OutputSerializer, **errors(400, 401, 403, 409)},
        description=(
            "Close the gaming day (no transfer may be dated into it afterwards) and run the end-of-night "
            "audit in a worker. Pit bosses and auditors. A day whose end is still to come → 409 "
            '`gaming_day_open` unless the body is `{"force": true}`: an early close, after which the '
            "ledger refuses every transfer until the rollover; it is refused with 409 `tables_open` while "
            "any table is open (`fields.tables`: `[{id, name}]`, the message names them). The close at or "
            "after the rollover never waits for tables. A day not yet begun → 409 "
            "`gaming_day_not_started`. Closing again reruns the audit and replaces the report; while a "
            "run is queued or running the same `task_id` comes back and nothing new is queued. The task is "
            "sent after the commit; with the broker unavailable the close still answers 202 (the report is "
            "`queued`) and a sweep sends it once the broker is back."
        ),
        examples=[OpenApiExample("Early close", value={"force": True}, request_only=True)],
    )
    def post(self, request: Request, day: str) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        gaming_day = parse_day(day)
        data = valid(self.InputSerializer, request.data)
        actor = cast(User, request.user)  # require_role let only staff through
        report = request_audit(day=gaming_day, actor=actor, force=data["force"])
        return Response(self.OutputSerializer(report).data, status=status.HTTP_202_ACCEPTED)


class GamingDayReportApi(APIView):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _QueryFormatIsNotARenderer

    @extend_schema(
        operation_id="gaming_day_report",
        parameters=[
            DAY_PARAMETER,
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                enum=list(FORMATS),
                default="json",
                description=(
                    "json: the report; pdf: the printable report (summary, findings and variances first, "
                    "tables, charts); csv: a ZIP with one CSV file per section (summary.csv, findings.csv, "
                    "variances.csv, tables.csv, dealers.csv, players.csv, cash_flow.csv, mtl.csv, ctr.csv, "
                    "checks.csv, trial_balance.csv, corrections.csv, the slips' four, drop_boxes.csv, "
                    "win.csv, win_lines.csv, hold_investigations.csv), each amount in cents and in dollars."
                ),
            ),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                ReportOutputSerializer,
                description="The report, or while the audit is queued/running/failed only its status "
                "(with progress), whatever the format asked for.",
            ),
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="format=pdf"),
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="format=csv"),
            **errors(400, 401, 403, 404),
        },
        description="The end-of-night audit report. Auditors and pit bosses. No audit yet → 404 `no_report`.",
    )
    @from_replica
    def get(self, request: Request, day: str) -> Response | HttpResponse:
        require_role(request.user, Role.AUDITOR, Role.PIT_BOSS)
        gaming_day = parse_day(day)
        wanted = request.query_params.get("format", "json")
        if wanted not in FORMATS:
            raise ValidationFailed(
                f"format must be one of {', '.join(FORMATS)}.", fields={"format": wanted}, code="bad_format"
            )
        report = get_report_for_day(day=gaming_day)
        if report.status != AuditStatus.DONE or wanted == "json":
            return Response(report_envelope(report))
        content_type, disposition, extension = FILE_TYPES[wanted]
        response = HttpResponse(get_report_file(report=report, fmt=wanted), content_type=content_type)
        response["Content-Disposition"] = f'{disposition}; filename="audit-{gaming_day}.{extension}"'
        return response
