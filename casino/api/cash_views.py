"""Cash compliance endpoints (API.md "Credit and cash compliance"): identification, a player's
cash activity, the multiple-transaction log and the currency transaction reports."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import GamingDayField
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import errors
from casino.cash.models import IdentificationKind
from casino.cash.selectors import cash_activity, list_ctrs, list_mtl
from casino.cash.services import record_identification
from casino.csv_safety import spreadsheet_safe
from casino.errors import ValidationFailed
from casino.models import Role
from casino.permissions import access_player, actor_of, require_role
from ledger.gaming_day import gaming_day_for


class DayQuerySerializer(serializers.Serializer):
    day = GamingDayField(required=False, help_text="The gaming day, YYYY-MM-DD; today's if left out")


def _day(request: Request) -> Any:
    return valid(DayQuerySerializer, request.query_params).get("day") or gaming_day_for()


class CashLineSerializer(serializers.Serializer):
    """One cash transaction, as a person reads it."""

    at = serializers.DateTimeField()
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    kind = serializers.CharField()
    direction = serializers.CharField()
    amount = serializers.IntegerField(help_text="cents")
    where = serializers.CharField()
    table = serializers.IntegerField(source="table_id", allow_null=True)
    by = serializers.CharField(source="by.name")
    transfer_id = serializers.IntegerField(allow_null=True)
    mtl = serializers.BooleanField()


class IdentificationSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=IdentificationKind.choices)
    number = serializers.CharField(max_length=60)
    issued_by = serializers.CharField(max_length=80, required=False, allow_blank=True, default="")
    name = serializers.CharField(max_length=150)
    birth_date = serializers.DateField()
    address = serializers.CharField(max_length=300)


class IdentificationCreateApi(APIView):
    class OutputSerializer(IdentificationSerializer):
        id = serializers.IntegerField()
        player = serializers.IntegerField(source="player_id")
        recorded_by = serializers.CharField(source="recorded_by.name")
        at = serializers.DateTimeField()

    @extend_schema(
        request=IdentificationSerializer,
        responses={201: OutputSerializer, **errors(400, 401, 403, 404)},
        description="Record the player's identification as examined (cashier, pit boss). The newest is on "
        "file: with it, a cash transaction past the CTR line goes through and the day's CTR lists it.",
    )
    def post(self, request: Request, player_id: int | str) -> Response:
        require_role(request.user, Role.CASHIER, Role.PIT_BOSS)
        player = access_player(user=request.user, player_id=player_id)
        data = valid(IdentificationSerializer, request.data)
        identification = record_identification(actor=actor_of(request), player=player, **data)
        return Response(self.OutputSerializer(identification).data, status=status.HTTP_201_CREATED)


class CashActivityApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class EntrySerializer(serializers.Serializer):
            at = serializers.DateTimeField()
            kind = serializers.CharField()
            direction = serializers.CharField()
            amount = serializers.IntegerField()
            where = serializers.CharField()
            by = serializers.CharField(source="by.name")
            mtl = serializers.BooleanField()

        player = serializers.IntegerField()
        gaming_day = serializers.DateField()
        cash_in = serializers.IntegerField()
        cash_out = serializers.IntegerField()
        mtl_threshold = serializers.IntegerField()
        ctr_threshold = serializers.IntegerField()
        identification_on_file = serializers.BooleanField()
        entries = EntrySerializer(many=True)

    @extend_schema(
        parameters=[DayQuerySerializer],
        responses={200: OutputSerializer, **errors(400, 401, 403, 404)},
        description="The player's cash in and cash out on a gaming day, across the cage and every table.",
    )
    def get(self, request: Request, player_id: int | str) -> Response:
        # Another player's data is a 404 to a player (API.md), before the role's 403.
        player = access_player(user=request.user, player_id=player_id)
        require_role(request.user, Role.CASHIER, Role.PIT_BOSS, Role.AUDITOR)
        return Response(self.OutputSerializer(cash_activity(player=player, day=_day(request))).data)


class MtlListApi(APIView):
    pagination_class = NewestFirstCursorPagination

    @extend_schema(
        parameters=[DayQuerySerializer],
        responses={200: CashLineSerializer(many=True), **errors(400, 401, 403)},
        description="The gaming day's multiple-transaction log: each cash transaction of $3,000.00 or more, "
        "or one that took the player's day total in its direction past $3,000.00. Newest first.",
    )
    def get(self, request: Request) -> Response:
        require_role(request.user, Role.CASHIER, Role.PIT_BOSS, Role.AUDITOR)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(list_mtl(day=_day(request)), request, view=self)
        return paginator.get_paginated_response(CashLineSerializer(page, many=True).data)


class _FormatIsAQuery(DefaultContentNegotiation):
    """``?format=csv`` asks for the file; the renderer is JSON whatever it says."""

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


class CtrOutputSerializer(serializers.Serializer):
    """One currency transaction report: FinCEN form 112's part I (the person) and part II (amounts)."""

    player = serializers.IntegerField()
    name = serializers.CharField()
    gaming_day = serializers.DateField()
    identification = IdentificationSerializer(allow_null=True)
    cash_in = serializers.IntegerField()
    cash_out = serializers.IntegerField()
    directions = serializers.ListField(child=serializers.CharField())
    transactions = CashLineSerializer(many=True)


CSV_COLUMNS = (
    "gaming_day", "player", "name", "id_kind", "id_number", "id_issued_by", "id_name", "birth_date",
    "address", "cash_in", "cash_out", "directions", "transactions",
)  # fmt: skip


def ctr_csv(reports: list[dict[str, Any]]) -> str:
    """The day's CTRs, one row each (``transactions`` counts them), amounts in cents; text cells
    safe to open in a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for data in reports:
        ident = data["identification"] or {}
        row = [
            data["gaming_day"], data["player"], data["name"], ident.get("kind", ""), ident.get("number", ""),
            ident.get("issued_by", ""), ident.get("name", ""), ident.get("birth_date", ""),
            ident.get("address", ""), data["cash_in"], data["cash_out"], " ".join(data["directions"]),
            len(data["transactions"]),
        ]  # fmt: skip
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return out.getvalue()


class CtrListApi(APIView):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _FormatIsAQuery

    @extend_schema(
        parameters=[
            DayQuerySerializer,
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"], default="json"),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(CtrOutputSerializer(many=True)),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="format=csv: one row per CTR"),
            **errors(400, 401, 403),
        },
        description="The gaming day's currency transaction reports (auditor): every player whose cash in or "
        "cash out passed $10,000.00, with the identification on file and the transactions behind it.",
    )
    def get(self, request: Request) -> Response | HttpResponse:
        require_role(request.user, Role.AUDITOR)
        wanted = request.query_params.get("format", "json")
        if wanted not in ("json", "csv"):
            raise ValidationFailed(
                "format must be json or csv.", fields={"format": wanted}, code="bad_format"
            )
        day = _day(request)
        reports: list[dict[str, Any]] = list(CtrOutputSerializer(list_ctrs(day=day), many=True).data)
        if wanted == "json":
            return Response(reports)
        response = HttpResponse(ctr_csv(reports), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="ctr-{day}.csv"'
        return response
