"""Round endpoints: start, read, act, verify (API.md "Rounds")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.idempotency import HEADER as IDEMPOTENCY_KEY
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import NotFound
from casino.permissions import actor_of, require_staff
from tables.games.errors import IllegalAction
from tables.models import Round, ShoeKind, Table
from tables.rounds import apply_round_action, log_refused_action, start_round, verify_round
from tables.selectors import SETTLEMENT_COLUMNS, list_round_settlements, round_exists, round_settlements

SETTLEMENTS_SCHEMA = inline_serializer(
    "RoundSettlement",
    many=True,
    fields={
        "transfer_id": serializers.IntegerField(),
        "kind": serializers.CharField(),
        "from": serializers.CharField(help_text="ledger account code paid from"),
        "to": serializers.CharField(help_text="ledger account code paid to"),
        "amount": serializers.IntegerField(help_text="cents"),
        "player": serializers.IntegerField(allow_null=True),
    },
)


def settlement_rows(rows: Iterable[tuple[int, str, int, int | None, str, str]]) -> list[dict[str, Any]]:
    """Settlements as API.md lists them, shaped from plain tuples (``list_round_settlements``'
    shape): a GET late in a Faro deal lists over a hundred, too many for a serializer each."""
    return [
        {
            "transfer_id": transfer,
            "kind": kind,
            "amount": amount,
            "player": player,
            "from": source,
            "to": target,
        }
        for transfer, kind, amount, player, source, target in rows
    ]


class RoundOutputSerializer(serializers.Serializer):
    """A round (API.md). ``settlements`` and ``settlements_count`` come in the context:
    ``round_response`` fills them, with every settlement or with one action's."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    game = serializers.CharField()
    number = serializers.IntegerField()
    status = serializers.CharField()
    shoe = serializers.CharField()
    commitment = serializers.CharField()
    state = serializers.DictField()
    settlements = serializers.SerializerMethodField(
        help_text="every transfer the round made; in the answer to an action, only the ones it made"
    )
    settlements_count = serializers.SerializerMethodField(help_text="how many settlements the round has made")
    version = serializers.IntegerField()
    players = serializers.ListField(child=serializers.IntegerField())
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    sat_out = serializers.SerializerMethodField(
        help_text="seated players not dealt in: {player, name, reserve, available, message}, cents"
    )

    @extend_schema_field(SETTLEMENTS_SCHEMA)
    def get_settlements(self, round_: Round) -> list[dict[str, Any]]:
        return list(self.context["settlements"])

    def get_settlements_count(self, round_: Round) -> int:
        return int(self.context["settlements_count"])

    def get_sat_out(self, round_: Round) -> list[dict[str, Any]]:
        """Who sat this round out because their wallet could not cover the reserve, and why."""
        return list(round_.context.get("sat_out", []))

    def to_representation(self, round_: Round) -> dict[str, Any]:
        """The fields above, in their order, converted as each field would convert them
        (``round_body``; ``tests/api/test_round_answer_shape.py`` checks it against DRF's own
        field-by-field rendering, so the two cannot drift apart)."""
        return round_body(round_, self.get_settlements(round_), self.get_settlements_count(round_))


def round_body(round_: Round, settlements: list[dict[str, Any]], settlements_count: int) -> dict[str, Any]:
    """A round as ``RoundOutputSerializer`` renders it, read from the attributes directly.

    DRF builds and binds a fresh copy of all fifteen field objects for every answer, and a
    serializer instance besides, a measurable part of a tap (``bench/run-rounds``).
    """
    return {
        "id": _int(round_.pk),
        "table": _int(round_.table_id),
        "game": _str(round_.game),
        "number": _int(round_.number),
        "status": _str(round_.status),
        "shoe": _str(round_.shoe),
        "commitment": _str(round_.commitment),
        "state": None if round_.state is None else {str(k): v for k, v in round_.state.items()},
        "settlements": list(settlements),
        "settlements_count": int(settlements_count),
        "version": _int(round_.version),
        "players": None if round_.players is None else [_int(p) for p in round_.players],
        "started_at": _MOMENT.to_representation(round_.started_at),
        "ended_at": None if round_.ended_at is None else _MOMENT.to_representation(round_.ended_at),
        "sat_out": list(round_.context.get("sat_out", [])),
    }


# DRF's own datetime rendering (ISO 8601 in the current time zone, "Z" for UTC), built once.
_MOMENT = serializers.DateTimeField()


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def round_response(round_: Round, code: int = 200) -> Response:
    """The round as the service left it (or as read): no second read of the row.

    After an action (``settlements_made`` set by ``apply_round_action``) it lists that
    action's settlements only, so a tap late in a deal answers as fast as an early one; after a
    start, the opening's (``start_round`` sets them: they are all the round has); otherwise every
    settlement of the round, read (GET, an approved correction).
    """
    made = getattr(round_, "settlements_made", None)
    if made is None:
        rows = settlement_rows(list_round_settlements(round_id=round_.pk))
        count = len(rows)
    else:
        rows, count = settlement_rows(made), round_.settlements_count
    return Response(round_body(round_, rows, count), status=code)


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
        require_staff(request.user)
        # As for an action: an unknown table is a 404 before its Idempotency-Key is looked at;
        # without a key the service's lock of the table refuses it with the same 404.
        if IDEMPOTENCY_KEY in request.headers and not Table.objects.filter(pk=table_id).exists():
            raise NotFound("No such table.")

        def handle() -> Response:
            shoe = valid(self.InputSerializer, request.data)["shoe"]
            round_ = start_round(actor=actor_of(request), table_id=table_id, shoe=shoe)
            return round_response(round_, status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class RoundDetailApi(APIView):
    @extend_schema(responses={200: RoundOutputSerializer, **errors(401, 403, 404)})
    def get(self, request: Request, round_id: int) -> Response:
        return round_response(_access_round(request, round_id))


class OldestFirstCursorPagination(NewestFirstCursorPagination):
    ordering = "id"


class RoundSettlementListApi(APIView):
    """Every settlement of a round, oldest first, a page at a time: an action's answer lists
    only its own (API.md "Rounds")."""

    pagination_class = OldestFirstCursorPagination

    @extend_schema(responses={200: SETTLEMENTS_SCHEMA, **errors(400, 401, 403, 404)})
    def get(self, request: Request, round_id: int) -> Response:
        round_ = _access_round(request, round_id)
        paginator = self.pagination_class()
        rows = round_settlements(round_id=round_.pk).values("id", *SETTLEMENT_COLUMNS)
        page = paginator.paginate_queryset(rows, request, view=self) or []
        shaped = settlement_rows(tuple(row[column] for column in SETTLEMENT_COLUMNS) for row in page)
        return paginator.get_paginated_response(shaped)


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
        if IDEMPOTENCY_KEY in request.headers and not round_exists(round_id):
            raise NotFound("No such round.")
        action = request.data

        def handle() -> Response:
            version = action.get("version") if isinstance(action, dict) else None
            round_ = apply_round_action(
                actor=actor_of(request), round_id=round_id, action=action, version=version
            )
            return round_response(round_)

        try:
            return run_idempotent(request, handle)
        except IllegalAction as error:
            log_refused_action(actor=actor_of(request), round_id=round_id, action=action, code=error.code)
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
