"""Ratings and floor analytics (API.md "Ratings and floor analytics")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import GamingDayField
from casino.api.filters import FilteredListApi
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import errors
from casino.errors import NotFound
from casino.models import Role, User
from casino.permissions import access_player, require_role
from casino.replica import from_replica
from ledger.gaming_day import gaming_day_for
from tables.api.filters import SittingFilter
from tables.models import Table
from tables.ratings.selectors import dealer_performance, list_sittings, sitting_row, table_hours


class GamingDayQuery(serializers.Serializer):
    date = GamingDayField(required=False, help_text="gaming day, YYYY-MM-DD; default today")


def _day(request: Request) -> dt.date:
    # A plain dict, so ``?date=`` (empty) is refused rather than read as absent.
    query = valid(GamingDayQuery, request.query_params.dict())
    return query.get("date") or gaming_day_for()


class SittingCursorPagination(NewestFirstCursorPagination):
    ordering = "-seated_at"


class PlayerRatingsApi(FilteredListApi, APIView):
    pagination_class = SittingCursorPagination
    filterset_class = SittingFilter

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

    @extend_schema(responses={200: OutputSerializer(many=True), **errors(400, 401, 404)})
    @from_replica
    def get(self, request: Request, player_id: int | str) -> Response:
        player = access_player(user=request.user, player_id=player_id)
        sittings = self.filter_list(request, list_sittings(player_id=player.pk))
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(sittings, request, view=self)
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
        parameters=[GamingDayQuery],
        responses={200: OutputSerializer, **errors(400, 401, 403, 404)},
    )
    @from_replica
    def get(self, request: Request, table_id: int) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound("No such table.")
        day = _day(request)
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
        parameters=[GamingDayQuery],
        responses={200: OutputSerializer, **errors(400, 401, 403, 404)},
    )
    @from_replica
    def get(self, request: Request, dealer_id: int) -> Response:
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        if not User.objects.filter(pk=dealer_id, role=Role.DEALER).exists():
            raise NotFound("No such dealer.")
        day = _day(request)
        data: dict[str, Any] = dealer_performance(dealer_id=dealer_id, day=day)
        return Response(self.OutputSerializer(data).data)
