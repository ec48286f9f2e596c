"""Ratings and floor analytics (API.md "Ratings and floor analytics")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.pagination import NewestFirstCursorPagination
from casino.api.params import parse_day_or_moment, require_supported_day
from casino.api.schema import errors
from casino.errors import NotFound, ValidationFailed
from casino.models import Role, User
from casino.permissions import access_player, require_role
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.models import Table
from tables.ratings.selectors import dealer_performance, list_sittings, sitting_row, table_hours


def _parse_date(value: str | None, *, field: str) -> dt.date:
    if value is None:
        return gaming_day_for()
    try:
        day = dt.date.fromisoformat(value)
    except ValueError as error:
        raise ValidationFailed(f"{field} must be a date like 2026-11-22.", fields={field: value}) from error
    return require_supported_day(day, field=field)


def _parse_moment(value: str | None, *, field: str) -> dt.datetime | None:
    """A date means the start of that gaming day; a datetime without a zone is casino time."""
    parsed = parse_day_or_moment(value, field=field)
    if parsed is None or isinstance(parsed, dt.datetime):
        return parsed
    return gaming_day_bounds(parsed)[0]


class SittingCursorPagination(NewestFirstCursorPagination):
    ordering = "-seated_at"


class PlayerRatingsApi(APIView):
    pagination_class = SittingCursorPagination

    class OutputSerializer(serializers.Serializer):
        table = serializers.IntegerField()
        game = serializers.CharField()
        started = serializers.DateTimeField()
        ended = serializers.DateTimeField(allow_null=True)
        minutes = serializers.IntegerField()
        decisions = serializers.IntegerField()
        handle = serializers.IntegerField(help_text="cents")
        average_bet = serializers.IntegerField(help_text="cents")
        theo = serializers.IntegerField(help_text="theoretical win, cents")
        result = serializers.IntegerField(help_text="the player's net, cents")
        comp_points = serializers.IntegerField()

    @extend_schema(
        parameters=[
            OpenApiParameter("from", str, description="ISO date (the gaming day's start) or datetime"),
            OpenApiParameter(
                "to", str, description="ISO date (that gaming day's start) or datetime; exclusive"
            ),
        ],
        responses={200: OutputSerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, player_id: int | str) -> Response:
        player = access_player(user=request.user, player_id=player_id)
        start = _parse_moment(request.query_params.get("from"), field="from")
        end = _parse_moment(request.query_params.get("to"), field="to")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(
            list_sittings(player_id=player.pk, start=start, end=end), request, view=self
        )
        rows = [sitting_row(seat) for seat in page or []]
        return paginator.get_paginated_response(self.OutputSerializer(rows, many=True).data)


class TableHourSerializer(serializers.Serializer):
    hour = serializers.DateTimeField()
    handle = serializers.IntegerField()
    win = serializers.IntegerField()
    hold = serializers.FloatField(allow_null=True, help_text="win / handle")
    fills = serializers.IntegerField()
    credits = serializers.IntegerField()
    decisions = serializers.IntegerField()
    occupancy = serializers.FloatField(help_text="average players seated")


class TableHourlyApi(APIView):
    class OutputSerializer(serializers.Serializer):
        table = serializers.IntegerField()
        date = serializers.DateField()
        hours = TableHourSerializer(many=True)  # module level, so the schema describes each hour

    @extend_schema(
        parameters=[OpenApiParameter("date", str, description="gaming day; default today")],
        responses={200: OutputSerializer, **errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound("No such table.")
        day = _parse_date(request.query_params.get("date"), field="date")
        hours = table_hours(table_id=table_id, day=day)
        return Response(self.OutputSerializer({"table": table_id, "date": day, "hours": hours}).data)


class DealerPerformanceApi(APIView):
    class OutputSerializer(serializers.Serializer):
        dealer = serializers.IntegerField()
        minutes = serializers.IntegerField()
        decisions = serializers.IntegerField()
        decisions_per_hour = serializers.FloatField()
        handle = serializers.IntegerField()
        win = serializers.IntegerField()
        refused_actions = serializers.IntegerField()

    @extend_schema(
        parameters=[OpenApiParameter("date", str, description="gaming day; default today")],
        responses={200: OutputSerializer, **errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, dealer_id: int) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        if not User.objects.filter(pk=dealer_id, role=Role.DEALER).exists():
            raise NotFound("No such dealer.")
        day = _parse_date(request.query_params.get("date"), field="date")
        data: dict[str, Any] = dealer_performance(dealer_id=dealer_id, day=day)
        return Response(self.OutputSerializer(data).data)
