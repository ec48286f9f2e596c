"""People and cage endpoints. Views parse, call one service or selector, and serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.authentication import ExpiringTokenAuthentication
from casino.api.fields import CentsField, IdField
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import NotFound, ValidationFailed
from casino.login_guard import LoginLockedOut, lockout_message
from casino.models import Player, Role
from casino.permissions import access_player, actor_of, require_role, require_staff, role_of
from casino.selectors import get_player_balance, list_player_transactions, search_players
from casino.services import buy_in, cash_out, create_player, create_staff, issue_token, revoke_token


class TokenCreateApi(APIView):
    # Sign in (POST) and out (DELETE). No rate limit: failed sign-ins lock out their account only
    # (casino.login_guard) and a success costs nothing, so a floor signing in at shift change
    # is never refused, and signing out is never refused either.
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()
        role = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer, **errors(400, 429)}, auth=[])
    def post(self, request: Request) -> Response:
        data = valid(self.InputSerializer, request.data)
        user = authenticate(request, username=data["username"], password=data["password"])
        if user is None:
            if getattr(request, "axes_locked_out", False):  # set by django-axes on this request
                raise LoginLockedOut(lockout_message(request))
            raise ValidationFailed("Wrong username or password.", code="invalid_credentials")
        token = issue_token(user=user)
        return Response({"token": token, "role": role_of(user)})

    @extend_schema(request=None, responses={204: None, **errors(401)})
    def delete(self, request: Request) -> Response:
        """Revoke the token this request was made with (sign out)."""
        pair = ExpiringTokenAuthentication().authenticate(request)
        if pair is None:
            from rest_framework.exceptions import NotAuthenticated

            raise NotAuthenticated()
        revoke_token(token=pair[1])
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        name = serializers.CharField()
        role = serializers.CharField()
        player = serializers.IntegerField(allow_null=True)

    @extend_schema(responses={200: OutputSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        user = actor_of(request)
        player = Player.objects.filter(user=user).values_list("pk", flat=True).first()
        return Response(
            {
                "id": user.pk,
                "username": user.username,
                "name": user.name,
                "role": role_of(user),
                "player": player,
            }
        )


class StaffCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        name = serializers.CharField(max_length=150)
        role = serializers.ChoiceField(
            choices=[Role.ADMIN, Role.PIT_BOSS, Role.DEALER, Role.CASHIER, Role.AUDITOR]
        )

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        name = serializers.CharField()
        role = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer, **errors(400, 401, 403, 409)})
    def post(self, request: Request) -> Response:
        require_role(request.user, Role.ADMIN)
        data = valid(self.InputSerializer, request.data)
        user = create_staff(actor=actor_of(request), **data)
        return Response(self.OutputSerializer(user).data, status=status.HTTP_201_CREATED)


class PlayerOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    name = serializers.CharField(source="user.name")


class PlayerListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        name = serializers.CharField(max_length=150)

    @extend_schema(
        request=InputSerializer, responses={201: PlayerOutputSerializer, **errors(400, 401, 403, 409)}
    )
    def post(self, request: Request) -> Response:
        require_role(request.user, Role.ADMIN, Role.PIT_BOSS, Role.CASHIER)
        data = valid(self.InputSerializer, request.data)
        player = create_player(actor=actor_of(request), **data)
        return Response(PlayerOutputSerializer(player).data, status=status.HTTP_201_CREATED)

    class SearchSerializer(serializers.Serializer):
        # A CharField refuses NUL, which PostgreSQL cannot take in a LIKE pattern (a 500 before).
        search = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False, default="")

    @extend_schema(
        parameters=[SearchSerializer],
        responses={200: PlayerOutputSerializer(many=True), **errors(400, 401, 403)},
    )
    def get(self, request: Request) -> Response:
        """Staff search players by name or username (``?search=``), for seating and the cage."""
        require_staff(request.user)
        query = valid(self.SearchSerializer, {"search": request.query_params.get("search", "")[:100]})
        players = search_players(query=query["search"])
        return Response(PlayerOutputSerializer(players, many=True).data)


class PlayerDetailApi(APIView):
    @extend_schema(responses={200: PlayerOutputSerializer, **errors(401, 404)})
    def get(self, request: Request, player_id: int | str) -> Response:
        player = access_player(user=request.user, player_id=player_id)
        return Response(PlayerOutputSerializer(player).data)


class BalanceOutputSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    available = serializers.IntegerField()
    in_play = serializers.IntegerField()
    total = serializers.IntegerField()
    as_of = serializers.DateTimeField()


class PlayerBalanceApi(APIView):
    @extend_schema(responses={200: BalanceOutputSerializer, **errors(401, 404)})
    def get(self, request: Request, player_id: int | str) -> Response:
        player = access_player(user=request.user, player_id=player_id)
        return Response(BalanceOutputSerializer(get_player_balance(player=player)).data)


class PlayerTransactionsApi(APIView):
    pagination_class = NewestFirstCursorPagination  # read by drf-spectacular for the response schema

    class OutputSerializer(serializers.Serializer):
        transfer_id = serializers.IntegerField()
        at = serializers.DateTimeField(source="created_at")
        kind = serializers.CharField(source="transfer.kind")
        amount = serializers.IntegerField()
        balance_after = serializers.IntegerField()
        table = serializers.SerializerMethodField()
        round = serializers.SerializerMethodField()
        memo = serializers.CharField(source="transfer.memo")

        def get_table(self, entry: Any) -> int | None:
            return entry.transfer.meta.get("table")

        def get_round(self, entry: Any) -> int | None:
            return entry.transfer.meta.get("round")

    @extend_schema(responses={200: OutputSerializer(many=True), **errors(401, 404)})
    def get(self, request: Request, player_id: int | str) -> Response:
        player = access_player(user=request.user, player_id=player_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(list_player_transactions(player=player), request, view=self)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


class CageInputSerializer(serializers.Serializer):
    player = IdField()
    amount = CentsField()


class CageOutputSerializer(serializers.Serializer):
    transfer_id = serializers.IntegerField()
    balance = serializers.IntegerField(
        help_text="The player's available balance after the transfer, in cents"
    )


class _CageMoveApi(APIView):
    service: Any  # a staticmethod: buy_in or cash_out

    @extend_schema(
        request=CageInputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: CageOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request) -> Response:
        require_role(request.user, Role.CASHIER)

        def handle() -> Response:
            data = valid(CageInputSerializer, request.data)
            player = Player.objects.select_related("wallet", "user").filter(pk=data["player"]).first()
            if player is None:
                raise NotFound("No such player.", fields={"player": data["player"]})
            transfer = self.service(actor=actor_of(request), player=player, amount=data["amount"])
            balance = get_player_balance(player=player)
            return Response(
                {"transfer_id": transfer.pk, "balance": balance.available}, status=status.HTTP_201_CREATED
            )

        return run_idempotent(request, handle)


class BuyInApi(_CageMoveApi):
    service = staticmethod(buy_in)


class CashOutApi(_CageMoveApi):
    service = staticmethod(cash_out)
