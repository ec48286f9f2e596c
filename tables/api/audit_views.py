"""Gaming-day close and audit report endpoints (API.md "Gaming days, audits, alerts")."""

from __future__ import annotations

import datetime as dt
import re
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

from casino.api.params import require_supported_day
from casino.api.schema import errors
from casino.errors import ValidationFailed
from casino.models import Role, User
from casino.permissions import require_role
from tables.audit.report import (
    CASH_DIRECTIONS,
    CASH_KINDS,
    CORRECTION_STATUSES,
    COUNT_STAGES,
    SEVERITIES,
    in_schema_order,
)
from tables.audit.selectors import get_liveness, get_report_for_day
from tables.audit.services import get_report_file, request_audit
from tables.models import AuditReport, AuditStatus

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FORMATS = ("json", "csv", "pdf")
DAY_PARAMETER = OpenApiParameter(
    "day",
    OpenApiTypes.DATE,
    OpenApiParameter.PATH,
    description="the gaming day, YYYY-MM-DD (else 400 bad_date)",
)


def parse_day(value: str) -> dt.date:
    """A gaming day is written YYYY-MM-DD; anything else is a 400, never a 500."""
    if _DAY.match(value or ""):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            pass
        else:
            return require_supported_day(day, field="date", code="bad_date")
    raise ValidationFailed(
        f"'{value}' is not a gaming day; write it as YYYY-MM-DD.",
        fields={"date": "YYYY-MM-DD"},
        code="bad_date",
    )


class _QueryFormatIsNotARenderer(DefaultContentNegotiation):
    """Here ``?format=`` picks the report's file type; errors and statuses are always JSON."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


# --- serializers (the OpenAPI description of tables.audit.report's shape) ------------------------


class FindingSerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="e.g. count_variance, round_replay_mismatch, transfer_not_zero_sum"
    )
    severity = serializers.ChoiceField(choices=SEVERITIES)
    message = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    table_name = serializers.CharField(allow_null=True)
    round = serializers.IntegerField(allow_null=True)
    player = serializers.IntegerField(allow_null=True)
    transfer = serializers.IntegerField(allow_null=True)
    amount = serializers.IntegerField(allow_null=True, help_text="cents")
    evidence = serializers.DictField()


class VarianceSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    session = serializers.IntegerField()
    stage = serializers.ChoiceField(choices=COUNT_STAGES)
    counted = serializers.IntegerField(allow_null=True)
    ledger = serializers.IntegerField(allow_null=True)
    amount = serializers.IntegerField(help_text="counted - ledger, cents")
    flagged = serializers.BooleanField()


class BandSerializer(serializers.Serializer):
    low_pct = serializers.FloatField(allow_null=True)
    high_pct = serializers.FloatField(allow_null=True)


class TableRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    sessions = serializers.IntegerField()
    open = serializers.BooleanField()
    opener = serializers.IntegerField(allow_null=True)
    closer = serializers.IntegerField(allow_null=True)
    fills = serializers.IntegerField()
    credits = serializers.IntegerField()
    win = serializers.IntegerField(allow_null=True, help_text="closer + credits - opener - fills")
    ledger_win = serializers.IntegerField(help_text="the tray's round postings (house win in the ledger)")
    variance = serializers.IntegerField(allow_null=True, help_text="win - ledger_win")
    recorded_variance = serializers.IntegerField()
    variance_flagged = serializers.BooleanField()
    rake = serializers.IntegerField()
    house_win = serializers.IntegerField(help_text="win (ledger_win if uncounted) + rake")
    handle = serializers.IntegerField(help_text="chips moved from wallets to the table's layouts and pots")
    hold_pct = serializers.FloatField(allow_null=True)
    theo = serializers.IntegerField(allow_null=True, help_text="Faro only: Σ bet x edge when placed")
    theo_hold_pct = serializers.FloatField(allow_null=True)
    theo_band = BandSerializer()
    rounds = serializers.IntegerField()
    bets = serializers.IntegerField()


class DealerRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    tables = serializers.ListField(child=serializers.CharField())
    minutes = serializers.IntegerField()
    rounds = serializers.IntegerField()
    handle = serializers.IntegerField()
    win = serializers.IntegerField(help_text="house side")
    theo = serializers.IntegerField()


class PlayerRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    tables = serializers.ListField(child=serializers.CharField())
    minutes = serializers.IntegerField()
    handle = serializers.IntegerField()
    result = serializers.IntegerField(help_text="player side: positive = the player won")
    theo = serializers.IntegerField()
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    ctr_in = serializers.BooleanField()
    ctr_out = serializers.BooleanField()


class MtlSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=CASH_KINDS)
    amount = serializers.IntegerField()
    at = serializers.DateTimeField()
    transfer = serializers.IntegerField()


class CtrSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    directions = serializers.ListField(child=serializers.ChoiceField(choices=CASH_DIRECTIONS))


class CageSerializer(serializers.Serializer):
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    transactions = serializers.IntegerField()
    ctr = CtrSerializer(many=True)
    mtl = MtlSerializer(many=True)


class CashFlowSerializer(serializers.Serializer):
    hour = serializers.CharField()
    start = serializers.DateTimeField()
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    fills = serializers.IntegerField()
    credits = serializers.IntegerField()


class PurposeSerializer(serializers.Serializer):
    purpose = serializers.CharField()
    accounts = serializers.IntegerField()
    debits = serializers.IntegerField()
    credits = serializers.IntegerField()
    balance = serializers.IntegerField()


class TrialBalanceSerializer(serializers.Serializer):
    as_of = serializers.DateTimeField(allow_null=True)
    total_debits = serializers.IntegerField()
    total_credits = serializers.IntegerField()
    sum_of_balances = serializers.IntegerField()
    balanced = serializers.BooleanField()
    by_purpose = PurposeSerializer(many=True)


class CheckSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # the field, not Field.label
    checked = serializers.IntegerField()
    failed = serializers.IntegerField()
    passed = serializers.BooleanField()


class CorrectionRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    round = serializers.IntegerField(help_text="the round's id")
    round_number = serializers.IntegerField(help_text="the table's round counter")
    whole_round = serializers.BooleanField(help_text="a misdeal: the whole round voided")
    actions = serializers.ListField(
        child=serializers.IntegerField(), help_text="action numbers voided (pending: to be voided)"
    )
    voided = serializers.CharField(help_text='"whole round", "action 4", "actions 4, 5"')
    reason = serializers.CharField()
    status = serializers.ChoiceField(choices=CORRECTION_STATUSES)
    requested_by = serializers.IntegerField()
    requested_by_name = serializers.CharField()
    requested_at = serializers.DateTimeField()
    decided_by = serializers.IntegerField(allow_null=True)
    decided_by_name = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    reversals = serializers.ListField(child=serializers.IntegerField(), help_text="reversing transfer ids")
    amount_reversed = serializers.IntegerField(help_text="cents moved back by the reversals")


class SummarySerializer(serializers.Serializer):
    tables = serializers.IntegerField()
    open_tables = serializers.IntegerField()
    rounds = serializers.IntegerField()
    bets = serializers.IntegerField()
    handle = serializers.IntegerField()
    win = serializers.IntegerField()
    ledger_win = serializers.IntegerField()
    rake = serializers.IntegerField()
    house_win = serializers.IntegerField()
    hold_pct = serializers.FloatField(allow_null=True)
    theo = serializers.IntegerField()
    theo_hold_pct = serializers.FloatField(allow_null=True)
    fills = serializers.IntegerField()
    credits = serializers.IntegerField()
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    players = serializers.IntegerField()
    dealers = serializers.IntegerField()
    findings = serializers.IntegerField()
    critical = serializers.IntegerField()
    variances_flagged = serializers.IntegerField()
    checks_passed = serializers.IntegerField()
    checks_failed = serializers.IntegerField()
    rounds_voided = serializers.IntegerField(required=False, help_text="misdeals voided whole")
    corrections = serializers.IntegerField(required=False)
    corrections_pending = serializers.IntegerField(required=False)


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class ReportOutputSerializer(serializers.Serializer):
    """The status envelope is always there; the report's sections once ``status`` is ``done``."""

    gaming_day = serializers.DateField()
    status = serializers.ChoiceField(choices=AuditStatus.choices)
    task_id = serializers.CharField(allow_blank=True, help_text="the last run's Celery task")
    runs = serializers.IntegerField()
    progress = ProgressSerializer()
    heartbeat_at = serializers.DateTimeField(
        allow_null=True, help_text="the last sign of life of the (last) run's worker"
    )
    seconds_since_heartbeat = serializers.FloatField(
        allow_null=True, help_text="while running: seconds since heartbeat_at (or since the start)"
    )
    stale = serializers.BooleanField(
        help_text="running, but silent for AUDIT_STALE_SECONDS: its worker is presumed dead and the "
        "sweep restarts the run"
    )
    error = serializers.CharField(required=False, help_text="why the last run failed")
    schema_version = serializers.IntegerField(required=False)
    bounds = serializers.DictField(child=serializers.DateTimeField(), required=False)
    closed = serializers.DictField(required=False, help_text="{at, by, forced}")
    thresholds = serializers.DictField(child=serializers.IntegerField(), required=False)
    generated_at = serializers.DateTimeField(required=False)
    seconds = serializers.FloatField(required=False)
    summary = SummarySerializer(required=False)
    findings = FindingSerializer(many=True, required=False)
    variances = VarianceSerializer(many=True, required=False)
    tables = TableRowSerializer(many=True, required=False)
    dealers = DealerRowSerializer(many=True, required=False)
    players = PlayerRowSerializer(many=True, required=False)
    cage = CageSerializer(required=False)
    cash_flow = CashFlowSerializer(many=True, required=False)
    trial_balance = TrialBalanceSerializer(required=False)
    checks = CheckSerializer(many=True, required=False)
    corrections = CorrectionRowSerializer(
        many=True,
        required=False,
        help_text="every correction of the day's rounds: who asked, who decided, why",
    )
    notes = serializers.ListField(child=serializers.CharField(), required=False)


def report_envelope(report: AuditReport) -> dict[str, Any]:
    """Status fields, plus the stored report once the audit is done."""
    body: dict[str, Any] = {
        "gaming_day": report.gaming_day.isoformat(),
        "status": report.status,
        "task_id": report.task_id,
        "runs": report.runs,
        "progress": {"done": report.progress_done, "total": report.progress_total},
    }
    liveness = get_liveness(report)
    body["heartbeat_at"] = liveness.heartbeat_at.isoformat() if liveness.heartbeat_at else None
    body["seconds_since_heartbeat"] = liveness.seconds_since_heartbeat
    body["stale"] = liveness.stale
    if report.status == AuditStatus.FAILED:
        body["error"] = report.error
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
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        actor = cast(User, request.user)  # require_role let only staff through
        report = request_audit(day=gaming_day, actor=actor, force=data.validated_data["force"])
        body = {
            "task_id": report.task_id,
            "gaming_day": report.gaming_day.isoformat(),
            "status": report.status,
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)


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
                    "checks.csv, trial_balance.csv, corrections.csv), amounts in cents."
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
        name = f"audit-{gaming_day.isoformat()}"
        if wanted == "pdf":
            response = HttpResponse(get_report_file(report=report, fmt="pdf"), content_type="application/pdf")
            response["Content-Disposition"] = f'inline; filename="{name}.pdf"'
        else:
            response = HttpResponse(get_report_file(report=report, fmt="csv"), content_type="application/zip")
            response["Content-Disposition"] = f'attachment; filename="{name}.zip"'
        return response
