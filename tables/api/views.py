"""Table endpoints: create, list, limits, dealer, open/close, seats (fills and credits: transit_views)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import CentsField, IdField, StrictIntegerField
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.permissions import actor_of, require
from tables import services
from tables.api.chip_fields import ChipCountField
from tables.api.slip_views import SlipOutputSerializer
from tables.models import Game
from tables.selectors import access_table, get_open_session, list_tables
from tables.slips.models import SlipKind
from tables.slips.selectors import session_slip


class SeatOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField(source="number")
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    seated_at = serializers.DateTimeField()


class SessionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    opened_at = serializers.DateTimeField()
    opened_by = serializers.IntegerField(source="opened_by_id")
    opening_inventory = serializers.IntegerField()
    opening_ledger = serializers.IntegerField()
    opening_variance = serializers.IntegerField()
    closed_at = serializers.DateTimeField(allow_null=True)
    closing_inventory = serializers.IntegerField(allow_null=True)
    closing_ledger = serializers.IntegerField(allow_null=True)
    drop = serializers.IntegerField(allow_null=True)
    fills = serializers.IntegerField(allow_null=True)
    credits = serializers.IntegerField(allow_null=True)
    win = serializers.IntegerField(allow_null=True)
    variance = serializers.IntegerField(source="closing_variance", allow_null=True)
    rake = serializers.IntegerField(allow_null=True, help_text="rake collected in the session (pot games)")
    pot_splits = serializers.ListField(
        child=serializers.DictField(), help_text="unwon pots split among the last round's players at closing"
    )


class TableOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    status = serializers.CharField()
    min_bet = serializers.IntegerField()
    max_bet = serializers.IntegerField()
    ante = serializers.IntegerField()
    rules = serializers.DictField()
    dealer = serializers.IntegerField(source="dealer_id", allow_null=True)
    seats = serializers.SerializerMethodField()
    tray_balance = serializers.IntegerField(source="tray.balance")
    session = serializers.SerializerMethodField()

    def get_seats(self, table: Any) -> list[dict[str, Any]]:
        # Every table served here is read by tables.selectors, which prefetches ``active_seats``.
        return SeatOutputSerializer(table.active_seats, many=True).data  # type: ignore[return-value]

    def get_session(self, table: Any) -> dict[str, Any] | None:
        session = get_open_session(table)
        return dict(SessionOutputSerializer(session).data) if session else None


def _table_response(request: Request, table_id: int, code: int = 200) -> Response:
    return Response(
        TableOutputSerializer(access_table(user=request.user, table_id=table_id)).data, status=code
    )


class TableCursorPagination(NewestFirstCursorPagination):
    ordering = "name"


class TableListCreateApi(APIView):
    pagination_class = TableCursorPagination

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        game = serializers.ChoiceField(choices=Game.choices)
        min_bet = CentsField()
        max_bet = CentsField()
        ante = CentsField(required=False, min_value=0, default=0)
        rules = serializers.DictField(required=False, default=dict)

    @extend_schema(
        request=InputSerializer, responses={201: TableOutputSerializer, **errors(400, 401, 403, 409)}
    )
    def post(self, request: Request) -> Response:
        require(request.user, "table.create")
        data = valid(self.InputSerializer, request.data)
        table = services.create_table(actor=actor_of(request), **data)
        return _table_response(request, table.pk, status.HTTP_201_CREATED)

    @extend_schema(responses={200: TableOutputSerializer(many=True), **errors(401, 403)})
    def get(self, request: Request) -> Response:
        """Lists are cursor-paginated (API.md): ``{"results": [...], "next": url | null}``, by name."""
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(list_tables(user=request.user), request, view=self)
        return paginator.get_paginated_response(TableOutputSerializer(page, many=True).data)


class TableDetailApi(APIView):
    @extend_schema(responses={200: TableOutputSerializer, **errors(401, 403, 404)})
    def get(self, request: Request, table_id: int) -> Response:
        return _table_response(request, table_id)


def _existing_table(request: Request, table_id: int, *, action: str | None = None) -> None:
    """404 for a table that is not there; then, with ``action``, 403 unless the policy allows it
    (before the body is read, so a role that may not act learns nothing from validation)."""
    table = access_table(user=request.user, table_id=table_id)
    if action is not None:
        require(request.user, action, table=table)


class TableLimitsApi(APIView):
    class InputSerializer(serializers.Serializer):
        min_bet = CentsField()
        max_bet = CentsField()

    @extend_schema(
        request=InputSerializer, responses={200: TableOutputSerializer, **errors(400, 401, 403, 404)}
    )
    def patch(self, request: Request, table_id: int) -> Response:
        _existing_table(request, table_id, action="table.limits")
        data = valid(self.InputSerializer, request.data)
        services.change_limits(actor=actor_of(request), table_id=table_id, **data)
        return _table_response(request, table_id)


class TableAssignApi(APIView):
    class InputSerializer(serializers.Serializer):
        dealer = IdField()

    @extend_schema(
        request=InputSerializer, responses={200: TableOutputSerializer, **errors(400, 401, 403, 404)}
    )
    def post(self, request: Request, table_id: int) -> Response:
        _existing_table(request, table_id, action="table.assign")
        data = valid(self.InputSerializer, request.data)
        services.assign_dealer(actor=actor_of(request), table_id=table_id, dealer_id=data["dealer"])
        return _table_response(request, table_id)


class OpenedSessionOutputSerializer(SessionOutputSerializer):
    opener = serializers.SerializerMethodField(help_text="the opener slip: the count in the tray")

    @extend_schema_field(SlipOutputSerializer(allow_null=True))
    def get_opener(self, session: Any) -> dict[str, Any] | None:
        slip = session_slip(session_id=session.pk, kind=SlipKind.OPENER)
        return None if slip is None else dict(SlipOutputSerializer(slip).data)


class ClosedSessionOutputSerializer(SessionOutputSerializer):
    closer = serializers.SerializerMethodField(help_text="the closer slip: the count in the tray")

    @extend_schema_field(SlipOutputSerializer(allow_null=True))
    def get_closer(self, session: Any) -> dict[str, Any] | None:
        slip = session_slip(session_id=session.pk, kind=SlipKind.CLOSER)
        return None if slip is None else dict(SlipOutputSerializer(slip).data)


class TableOpenApi(APIView):
    class InputSerializer(serializers.Serializer):
        opening_inventory = CentsField(min_value=0, required=False, help_text="the count in cents")
        opening_count = ChipCountField(required=False)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: OpenedSessionOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """The dealer opens with the tray counted by chip (``opening_count``) or in cents
        (``opening_inventory``); the opener slip records it against the ledger's tray."""
        _existing_table(request, table_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            session = services.open_table(actor=actor_of(request), table_id=table_id, **data)
            return Response(OpenedSessionOutputSerializer(session).data, status=status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class TableCloseApi(APIView):
    class InputSerializer(serializers.Serializer):
        closing_inventory = CentsField(min_value=0, required=False, help_text="the count in cents")
        closing_count = ChipCountField(required=False)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: ClosedSessionOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """The dealer closes with the tray counted by chip (``closing_count``) or in cents
        (``closing_inventory``); the closer slip records it against the ledger's tray."""
        _existing_table(request, table_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            session = services.close_table(actor=actor_of(request), table_id=table_id, **data)
            return Response(ClosedSessionOutputSerializer(session).data)

        return run_idempotent(request, handle)


class SeatCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        player = IdField()
        seat = StrictIntegerField(required=False, min_value=1, max_value=services.MAX_SEATS)

    @extend_schema(
        request=InputSerializer, responses={201: SeatOutputSerializer, **errors(400, 401, 403, 404, 409)}
    )
    def post(self, request: Request, table_id: int) -> Response:
        _existing_table(request, table_id, action="table.seat")
        data = valid(self.InputSerializer, request.data)
        seating = services.seat_player(
            actor=actor_of(request),
            table_id=table_id,
            player_id=data["player"],
            seat=data.get("seat"),
        )
        return Response(SeatOutputSerializer(seating).data, status=status.HTTP_201_CREATED)


class SeatDeleteApi(APIView):
    @extend_schema(responses={204: None, **errors(401, 403, 404, 409)})
    def delete(self, request: Request, table_id: int, player_id: int) -> Response:
        _existing_table(request, table_id, action="table.seat")
        services.unseat_player(actor=actor_of(request), table_id=table_id, player_id=player_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
