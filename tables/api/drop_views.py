"""The drop and the count (API.md 2026-12): a cash buy-in at a table, the drop boxes, a box's
removal under seal and its count into a drop slip."""

from __future__ import annotations

from typing import Any

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import CentsField, IdField, StrictIntegerField
from casino.api.filters import FilteredListApi, GamingDayFilter, IdFilter
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import NotFound
from casino.permissions import actor_of, require
from casino.selectors import get_player_balance
from tables.api.slip_views import SlipOutputSerializer, slip_body
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.selectors import list_boxes
from tables.drop.services import SEAL_MAX, cash_buy_in, count_box, remove_box
from tables.selectors import access_table


class CashBuyInApi(APIView):
    class InputSerializer(serializers.Serializer):
        player = IdField()
        amount = CentsField()

    class OutputSerializer(serializers.Serializer):
        transfer_id = serializers.IntegerField()
        balance = serializers.IntegerField(help_text="the player's available balance after it, in cents")
        drop_box = serializers.IntegerField(help_text="the id of the drop box the cash went into")

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: OutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """A player buys chips with cash from the table's dealer: the chips leave the tray for the
        player's wallet, the cash is recorded into the table's drop box."""
        table = access_table(user=request.user, table_id=table_id)
        require(request.user, "table.cash_buy_in", table=table)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            made = cash_buy_in(
                actor=actor_of(request), table_id=table_id, player_id=data["player"], amount=data["amount"]
            )
            balance = get_player_balance(player=made.player)
            body = {"transfer_id": made.transfer.pk, "balance": balance.available, "drop_box": made.box.pk}
            return Response(body, status=status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class DropBoxSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField(help_text="e.g. BOX-12-0007: the table's seventh box")
    table = serializers.IntegerField(source="table_id")
    gaming_day = serializers.DateField(help_text="the gaming day it went to the table")
    status = serializers.ChoiceField(choices=DropBoxStatus.choices)
    recorded = serializers.IntegerField(help_text="cents of cash recorded into it at the table")
    counted = serializers.IntegerField(allow_null=True, help_text="cents the count found; null until counted")
    variance = serializers.IntegerField(allow_null=True, help_text="counted − recorded; null until counted")
    seal = serializers.CharField(help_text="the seal it was removed under; empty while at the table")
    slip = serializers.IntegerField(
        source="slip_id", allow_null=True, help_text="its drop slip, once counted"
    )


class DropBoxFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=DropBoxStatus.choices, help_text="at_table, removed or counted"
    )
    table = IdFilter(field_name="table_id", query_name="table", help_text="boxes of one table")
    day = GamingDayFilter(
        field_name="gaming_day", query_name="day", help_text="boxes that went to their table that gaming day"
    )

    class Meta:
        model = DropBox
        fields: list[str] = []


class DropBoxListApi(FilteredListApi, APIView):
    pagination_class = NewestFirstCursorPagination
    filterset_class = DropBoxFilter

    @extend_schema(responses={200: DropBoxSerializer(many=True), **errors(400, 401, 403)})
    def get(self, request: Request) -> Response:
        """The drop boxes, newest first, cursor-paginated."""
        require(request.user, "drop.read")
        boxes = self.filter_list(request, list_boxes())
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(boxes, request, view=self)
        return paginator.get_paginated_response(DropBoxSerializer(page, many=True).data)


def _box_exists(box_id: int) -> None:
    if not DropBox.objects.filter(pk=box_id).exists():
        raise NotFound("No such drop box.")


class DropBoxRemoveApi(APIView):
    class InputSerializer(serializers.Serializer):
        seal = serializers.CharField(max_length=SEAL_MAX, help_text="the seal number the box is locked with")

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: DropBoxSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, box_id: int) -> Response:
        """The count team removes a box under seal; a new box is at the table at once."""
        require(request.user, "drop.remove")
        _box_exists(box_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            box = remove_box(actor=actor_of(request), box_id=box_id, seal=data["seal"])
            return Response(DropBoxSerializer(box).data)

        return run_idempotent(request, handle)


class DropBoxCountApi(APIView):
    class InputSerializer(serializers.Serializer):
        currency = serializers.DictField(
            child=StrictIntegerField(min_value=0),
            help_text='pieces by bill value in cents, e.g. {"10000": 12, "2000": 5}',
        )
        markers = serializers.ListField(
            child=IdField(), required=False, default=list, help_text="the marker slips found in the box"
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SlipOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, box_id: int) -> Response:
        """The count of a removed box: a drop slip (amount = the bills counted, expected = what
        was recorded into it) that a second count team member, then a cashier, signs."""
        require(request.user, "drop.count")
        _box_exists(box_id)

        def handle() -> Response:
            data: dict[str, Any] = valid(self.InputSerializer, request.data)
            slip = count_box(
                actor=actor_of(request), box_id=box_id, currency=data["currency"], markers=data["markers"]
            )
            return Response(slip_body(slip))

        return run_idempotent(request, handle)
