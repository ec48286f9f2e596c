"""Round endpoints: start, read, act, verify (API.md "Rounds")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.idempotency import HEADER as IDEMPOTENCY_KEY
from casino.api.idempotency import run_idempotent
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import NotFound
from casino.permissions import require_staff, signed_in
from tables.games.errors import IllegalAction
from tables.models import Round, ShoeKind
from tables.rounds import apply_round_action, log_refused_action, start_round, verify_round
from tables.selectors import access_table, list_round_settlements


def settlement_rows(round_id: int) -> list[dict[str, Any]]:
    """Every settlement of the round as API.md lists them, shaped from plain tuples: late in a
    Faro deal that is over a hundred rows on every response, too many for a serializer each."""
    return [
        {
            "transfer_id": transfer,
            "kind": kind,
            "amount": amount,
            "player": player,
            "from": source,
            "to": target,
        }
        for transfer, kind, amount, player, source, target in list_round_settlements(round_id=round_id)
    ]


class RoundOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    game = serializers.CharField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    shoe = serializers.CharField()
    commitment = serializers.CharField()
    state = serializers.DictField()
    settlements = serializers.SerializerMethodField()
    version = serializers.IntegerField()
    players = serializers.ListField(child=serializers.IntegerField())
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    sat_out = serializers.SerializerMethodField(
        help_text="seated players not dealt in: {player, name, reserve, available, message}, cents"
    )

    def get_settlements(self, round_: Round) -> list[dict[str, Any]]:
        return settlement_rows(round_.pk)

    def get_sat_out(self, round_: Round) -> list[dict[str, Any]]:
        """Who sat this round out because their wallet could not cover the reserve, and why."""
        return list(round_.context.get("sat_out", []))


def round_response(round_: Round, code: int = 200) -> Response:
    """The round as the service left it (or as read): no second read of the row."""
    return Response(RoundOutputSerializer(round_).data, status=code)


def _access_round(request: Request, round_id: int) -> Round:
    require_staff(request.user)
    round_ = Round.objects.filter(pk=round_id).first()
    if round_ is None:
        raise NotFound("No such round.")
    return round_


class RoundCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        shoe = serializers.ChoiceField(choices=ShoeKind.choices, default=ShoeKind.ELECTRONIC)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: RoundOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        access_table(user=request.user, table_id=table_id)

        def handle() -> Response:
            data = self.InputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            round_ = start_round(
                actor=signed_in(request), table_id=table_id, shoe=data.validated_data["shoe"]
            )
            return round_response(round_, status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class RoundDetailApi(APIView):
    @extend_schema(responses={200: RoundOutputSerializer, **errors(401, 403, 404)})
    def get(self, request: Request, round_id: int) -> Response:
        return round_response(_access_round(request, round_id))


class RoundActionApi(APIView):
    class InputSerializer(serializers.Serializer):
        type = serializers.CharField(max_length=30)
        version = serializers.IntegerField(required=False, help_text="409 stale_round if the round moved on")

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: RoundOutputSerializer, **errors(400, 401, 403, 404, 409)},
        examples=[
            OpenApiExample("Faro bet", value={"type": "bet", "player": 7, "ranks": ["Q"], "amount": 500}),
            OpenApiExample("Faro turn (manual shoe)", value={"type": "turn", "cards": ["5S", "QH"]}),
        ],
        description="Game-specific fields as API.md 'Action types' lists them; "
        "illegal actions → 400 illegal_action (or a more specific code) and nothing moves.",
    )
    def post(self, request: Request, round_id: int) -> Response:
        require_staff(request.user)
        # An unknown round is a 404 before its Idempotency-Key is looked at. Without a key the
        # service refuses it with the same 404, so that request does not read the round twice.
        if IDEMPOTENCY_KEY in request.headers and not Round.objects.filter(pk=round_id).exists():
            raise NotFound("No such round.")
        action = request.data

        def handle() -> Response:
            version = action.get("version") if isinstance(action, dict) else None
            round_ = apply_round_action(
                actor=signed_in(request), round_id=round_id, action=action, version=version
            )
            return round_response(round_)

        try:
            return run_idempotent(request, handle)
        except IllegalAction as error:
            log_refused_action(actor=signed_in(request), round_id=round_id, action=action, code=error.code)
            raise


class RoundVerifyApi(APIView):
    class OutputSerializer(serializers.Serializer):
        commitment = serializers.CharField()
        server_seed = serializers.CharField()
        deck = serializers.ListField(child=serializers.CharField())
        algorithm = serializers.CharField()
        extra = serializers.ListField(child=serializers.DictField())

    @extend_schema(responses={200: OutputSerializer, **errors(401, 403, 404, 409)})
    def get(self, request: Request, round_id: int) -> Response:
        round_ = _access_round(request, round_id)
        return Response(self.OutputSerializer(verify_round(round_=round_)).data)
