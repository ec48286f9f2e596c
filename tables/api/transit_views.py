"""Fills and credits (API.md Tables, and "Chips, counts and slips"): ask for one, then the side
the chips leave approves (the cage issues a fill, the pit releases a credit) or refuses it.

Every answer is the slip (``slip_views.SlipOutputSerializer``). The receiving side signs with
``POST /slips/{id}/sign``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import CentsField, StrictIntegerField
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import NotFound
from casino.permissions import actor_of, require
from casino.signatures import confirm_signature
from tables.api.slip_views import SlipOutputSerializer, slip_body
from tables.selectors import access_table
from tables.slips.models import Slip, SlipKind
from tables.slips.services import NOTE_MAX
from tables.slips.transit import (
    approve_transit_slip,
    refuse_transit_slip,
    request_transit_slip,
    require_approver,
)


class _TransitCreateApi(APIView):
    kind: str = ""

    class InputSerializer(serializers.Serializer):
        amount = CentsField(required=False)
        count = serializers.DictField(
            child=StrictIntegerField(min_value=0),
            required=False,
            help_text='pieces by chip value in cents, e.g. {"2500": 40}; instead of amount',
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: SlipOutputSerializer, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Ask for chips by ``amount`` or ``count``: a numbered slip, ``pending`` until the other
        side approves it."""
        table = access_table(user=request.user, table_id=table_id)
        require(request.user, "tray.request", table=table)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            slip = request_transit_slip(
                actor=actor_of(request),
                table_id=table_id,
                kind=self.kind,
                amount=data.get("amount"),
                count=data.get("count"),
            )
            return Response(slip_body(slip), status=status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class FillCreateApi(_TransitCreateApi):
    kind = SlipKind.FILL


class CreditCreateApi(_TransitCreateApi):
    kind = SlipKind.CREDIT


def _decider(request: Request, table_id: int, slip_id: int, kind: str) -> None:
    """404 for a table or slip that is not there, 403 for a role that does not decide ``kind``:
    before the body is read, so a role that may not act learns nothing from validation."""
    access_table(user=request.user, table_id=table_id)
    require_approver(request.user, kind)
    if not Slip.objects.filter(pk=slip_id, table_id=table_id, kind=kind).exists():
        raise NotFound(f"No such {kind} at this table.")


class _TransitApproveApi(APIView):
    kind: str = ""

    class InputSerializer(serializers.Serializer):
        password = serializers.CharField(
            max_length=128,
            trim_whitespace=False,
            required=False,
            help_text="the approver's own password, typed again: the approval is then an electronic "
            "signature like POST /slips/{id}/sign (wrong → 403 bad_signature). Without it the "
            "approval is signed by the signed-in session, and the signature says so",
        )

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SlipOutputSerializer, **errors(400, 401, 403, 404, 409, 429)},
    )
    def post(self, request: Request, table_id: int, slip_id: int) -> Response:
        """The side the chips leave approves: they are in transit (``issued``) until the other
        side signs for them. Never the requester."""
        _decider(request, table_id, slip_id, self.kind)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data or {})
            actor = actor_of(request)
            typed = "password" in data
            if typed:
                confirm_signature(request, user=actor, password=data["password"])
            slip = approve_transit_slip(
                actor=actor, table_id=table_id, slip_id=slip_id, kind=self.kind, password_confirmed=typed
            )
            return Response(slip_body(slip))

        return run_idempotent(request, handle)


class _TransitRefuseApi(APIView):
    kind: str = ""

    class InputSerializer(serializers.Serializer):
        note = serializers.CharField(max_length=NOTE_MAX, required=False, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SlipOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int, slip_id: int) -> Response:
        """The side that would approve refuses: the slip is ``void`` (its number kept), the
        refusal and its note its reason. Never the requester."""
        _decider(request, table_id, slip_id, self.kind)

        def handle() -> Response:
            data: dict[str, Any] = valid(self.InputSerializer, request.data or {})
            slip = refuse_transit_slip(
                actor=actor_of(request), table_id=table_id, slip_id=slip_id, kind=self.kind, note=data["note"]
            )
            return Response(slip_body(slip))

        return run_idempotent(request, handle)


class FillApproveApi(_TransitApproveApi):
    kind = SlipKind.FILL


class FillRefuseApi(_TransitRefuseApi):
    kind = SlipKind.FILL


class CreditApproveApi(_TransitApproveApi):
    kind = SlipKind.CREDIT


class CreditRefuseApi(_TransitRefuseApi):
    kind = SlipKind.CREDIT
