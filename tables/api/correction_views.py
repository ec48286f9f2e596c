"""Corrections (API.md "Rounds"): the dealer asks, a pit boss or admin approves or refuses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.permissions import actor_of, require_staff
from tables.api.round_views import RoundOutputSerializer, round_response
from tables.corrections import approve_correction, refuse_correction, request_correction
from tables.models import Correction


class CorrectionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id")
    void = serializers.JSONField(help_text='"last", "round" or {"from": seq}')
    from_seq = serializers.IntegerField(
        allow_null=True, help_text="first action voided; null: the whole round"
    )
    reason = serializers.CharField()
    status = serializers.CharField()
    requested_by = serializers.IntegerField(source="requested_by_id")
    requested_at = serializers.DateTimeField()
    decided_by = serializers.IntegerField(source="decided_by_id", allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()


def _correction_response(correction: Correction, code: int = 200) -> Response:
    return Response(CorrectionOutputSerializer(correction).data, status=code)


class RoundCorrectionCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        void = serializers.JSONField(help_text='"last", "round" (a misdeal) or {"from": seq}')
        reason = serializers.CharField(max_length=300)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: CorrectionOutputSerializer, **errors(400, 401, 403, 404, 409)},
        examples=[OpenApiExample("Mis-keyed card", value={"void": "last", "reason": "keyed 5S, was 6S"})],
        description="The assigned dealer asks to void the last action(s) or the whole round; "
        "nothing moves until a pit boss or admin who is not the dealer approves.",
    )
    def post(self, request: Request, round_id: int) -> Response:
        require_staff(request.user)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            correction = request_correction(
                actor=actor_of(request),
                round_id=round_id,
                void=data["void"],
                reason=data["reason"],
            )
            return _correction_response(correction, status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class CorrectionApproveApi(APIView):
    @extend_schema(
        request=None,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: RoundOutputSerializer, **errors(401, 403, 404, 409)},
        description="Reverses the voided actions' transfers and refolds the round without them. "
        "Never by the requester (403 separation_of_duties).",
    )
    def post(self, request: Request, correction_id: int) -> Response:
        require_staff(request.user)
        return run_idempotent(
            request,
            lambda: round_response(approve_correction(actor=actor_of(request), correction_id=correction_id)),
        )


class CorrectionRefuseApi(APIView):
    class InputSerializer(serializers.Serializer):
        note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        responses={200: CorrectionOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, correction_id: int) -> Response:
        require_staff(request.user)
        data = valid(self.InputSerializer, request.data)
        correction = refuse_correction(
            actor=actor_of(request), correction_id=correction_id, note=data["note"]
        )
        return _correction_response(correction)
