"""Credit play (API.md "Credit and cash compliance"): credit lines, markers issued at a table,
their redemption at the cage and the list of markers with what is still owed."""

from __future__ import annotations

from typing import Any

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import CentsField, StrictIntegerField
from casino.api.filters import FilteredListApi, IdFilter
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.models import Role
from casino.permissions import access_player, actor_of, require, role_of
from tables.api.slip_views import SlipOutputSerializer
from tables.credit import selectors
from tables.credit.models import Marker, RedemptionMethod
from tables.credit.services import issue_marker, redeem_marker, set_credit_line
from tables.selectors import access_table
from tables.slips.selectors import get_slip


class CreditLineSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    limit = serializers.IntegerField(help_text="cents; 0 without a line")
    outstanding = serializers.IntegerField(help_text="cents owed on markers: the ledger's markers receivable")
    available = serializers.IntegerField(
        help_text="cents the player may still draw: limit − outstanding, at least 0"
    )


def credit_body(player: Any) -> dict[str, Any]:
    return dict(CreditLineSerializer(selectors.credit_summary(player=player)).data)


class CreditLineApi(APIView):
    class InputSerializer(serializers.Serializer):
        limit = StrictIntegerField(min_value=0, max_value=10**12, help_text="cents")

    @extend_schema(responses={200: CreditLineSerializer, **errors(401, 403, 404)})
    def get(self, request: Request, player_id: int | str) -> Response:
        """A player's credit line against the ledger; a player reads only their own."""
        if role_of(request.user) != Role.PLAYER:
            require(request.user, "credit.read")
        player = access_player(user=request.user, player_id=player_id)
        return Response(credit_body(player))

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: CreditLineSerializer, **errors(400, 401, 403, 404)},
    )
    def put(self, request: Request, player_id: int | str) -> Response:
        """Set a player's credit line (an admin, after the cage's credit check)."""
        require(request.user, "credit.set")
        player = access_player(user=request.user, player_id=player_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            set_credit_line(actor=actor_of(request), player=player, limit=data["limit"])
            return Response(credit_body(player))

        return run_idempotent(request, handle)


class MarkerOutputSerializer(SlipOutputSerializer):
    """A marker slip, with whose it is and what is still owed on it."""

    player = serializers.IntegerField()
    player_name = serializers.CharField()
    outstanding = serializers.IntegerField(help_text="cents still owed on this marker")
    redeemed = serializers.IntegerField(help_text="cents paid against it so far")
    days_outstanding = serializers.IntegerField(help_text="days since its gaming day")
    collection_deadline = serializers.DateField(help_text="its gaming day + MARKER_COLLECTION_DAYS")
    past_deadline = serializers.BooleanField(help_text="still owed after the collection deadline")
    drop_box = serializers.IntegerField(allow_null=True, help_text="the drop box the marker went into")

    def to_representation(self, instance: Any) -> dict[str, Any]:
        marker: Marker = instance
        body = dict(SlipOutputSerializer(marker.slip).data)
        body.update(
            player=marker.player_id,
            player_name=marker.player.name,
            outstanding=marker.outstanding,
            redeemed=marker.amount - marker.outstanding,
            days_outstanding=selectors.days_outstanding(marker),
            collection_deadline=selectors.collection_deadline(marker).isoformat(),
            past_deadline=selectors.past_deadline(marker),
            drop_box=marker.slip.drop_box_id,
        )
        return body


def marker_body(marker: Marker) -> dict[str, Any]:
    """A marker as the API shows it, read again so its slip's signatures are current."""
    fresh = selectors.get_marker(marker_id=marker.slip_id)
    fresh.slip = get_slip(slip_id=marker.slip_id)
    return dict(MarkerOutputSerializer(fresh).data)


class MarkerCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        player = StrictIntegerField(min_value=1, help_text="the player's id")
        amount = CentsField()

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: MarkerOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """A pit boss issues a marker: chips from the tray to the player on credit, a marker slip
        (M-<year>-…) into the table's drop box for the dealer to sign. 409 ``credit_limit`` beyond
        what the line has available; 403 for the person who set the line."""
        table = access_table(user=request.user, table_id=table_id)
        require(request.user, "marker.issue", table=table)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            marker = issue_marker(
                actor=actor_of(request), table_id=table_id, player_id=data["player"], amount=data["amount"]
            )
            return Response(marker_body(marker), status=status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class RedeemOutputSerializer(serializers.Serializer):
    marker = MarkerOutputSerializer()
    outstanding = serializers.IntegerField(help_text="cents still owed on this marker")
    credit_line = CreditLineSerializer(help_text="the player's line after the payment")


class MarkerRedeemApi(APIView):
    class InputSerializer(serializers.Serializer):
        amount = CentsField()
        method = serializers.ChoiceField(choices=RedemptionMethod.choices)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: RedeemOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, marker_id: int) -> Response:
        """A cashier takes a payment on a marker, in cash or in the player's chips; part payments
        leave the rest outstanding. 409 beyond what is outstanding or beyond the player's chips."""
        require(request.user, "marker.redeem")
        selectors.get_marker(marker_id=marker_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            marker = redeem_marker(
                actor=actor_of(request), marker_id=marker_id, amount=data["amount"], method=data["method"]
            )
            return Response(
                {
                    "marker": marker_body(marker),
                    "outstanding": marker.outstanding,
                    "credit_line": credit_body(marker.player),
                }
            )

        return run_idempotent(request, handle)


class MarkerFilter(django_filters.FilterSet):
    player = IdFilter(field_name="player_id", query_name="player", help_text="one player's markers")
    status = django_filters.ChoiceFilter(
        choices=[(s, s) for s in selectors.MARKER_STATUSES],
        method="by_status",
        help_text="outstanding (still owed), redeemed (paid in full), or the slip's pending or final",
    )

    class Meta:
        model = Marker
        fields: list[str] = []

    def by_status(self, queryset: Any, name: str, value: str) -> Any:
        return selectors.with_status(queryset, value)


class MarkerListApi(FilteredListApi, APIView):
    pagination_class = NewestFirstCursorPagination
    filterset_class = MarkerFilter

    @extend_schema(responses={200: MarkerOutputSerializer(many=True), **errors(400, 401, 403)})
    def get(self, request: Request) -> Response:
        """Marker slips newest first, with what is owed, their age and whether past the deadline."""
        require(request.user, "marker.list")
        markers = self.filter_list(
            request, selectors.list_markers().prefetch_related("slip__signatures__user")
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(markers, request, view=self)
        return paginator.get_paginated_response(MarkerOutputSerializer(page, many=True).data)
