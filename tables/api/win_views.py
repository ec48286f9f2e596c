"""Win and hold for a gaming day as the regulator reads them (API.md "The drop and the count")."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.schema import errors
from casino.errors import ValidationFailed
from casino.models import Role
from casino.permissions import require_role
from casino.replica import from_replica
from tables.api.audit_views import DAY_PARAMETER, parse_day
from tables.audit.compute.win_report import win_for_day
from tables.audit.report import WIN_GROUPINGS, WinData
from tables.audit.schema import serializer_for

WinOutputSerializer = serializer_for(WinData)


class GamingDayWinApi(APIView):
    @extend_schema(
        operation_id="gaming_day_win",
        parameters=[
            DAY_PARAMETER,
            OpenApiParameter(
                "by",
                OpenApiTypes.STR,
                enum=list(WIN_GROUPINGS),
                default="table",
                description="one row per table, per game, or per shift (WIN_SHIFTS, from the rollover)",
            ),
        ],
        responses={200: WinOutputSerializer, **errors(400, 401, 403)},
        description=(
            "Win as the regulator reads it: `win = drop - fills + credits + (closer - opener)`, "
            "`hold = win / drop` (null with no drop), with the ledger's own win from play "
            "(`electronic_win`) and the `difference`, explained line by line in `explanation`; "
            "the day's `totals`, `month_to_date` and `year_to_date`. Pit bosses and auditors. "
            "Amounts in cents. A day still open reads as it stands (a table still open: its tray now)."
        ),
    )
    @from_replica
    def get(self, request: Request, day: str) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        gaming_day = parse_day(day)
        by = request.query_params.get("by", "table")
        if by not in WIN_GROUPINGS:
            raise ValidationFailed(
                f"by must be one of {', '.join(WIN_GROUPINGS)}.", fields={"by": by}, code="bad_by"
            )
        return Response(WinOutputSerializer(win_for_day(gaming_day, by=by)).data)
