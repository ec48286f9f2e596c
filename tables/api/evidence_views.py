"""Evidence (API.md "Evidence (2026-12)"): a day's signed checkpoint, its export and proofs, and
its system exceptions."""

from __future__ import annotations

from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import days
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import errors
from casino.models import ActionLog, Role
from casino.permissions import require_role
from tables.api.audit_views import parse_day
from tables.evidence import export
from tables.evidence.exceptions import KINDS, kind_of, list_exceptions
from tables.evidence.proofs import inclusion_proof, parse_record
from tables.evidence.selectors import get_checkpoint

DATE_PARAMETER = OpenApiParameter(
    "day",
    OpenApiTypes.DATE,
    OpenApiParameter.PATH,
    description="the gaming day, YYYY-MM-DD (else 400 bad_date)",
)


class CheckpointOutputSerializer(serializers.Serializer):
    gaming_day = serializers.DateField()
    records = serializers.IntegerField(help_text="how many records the root covers")
    # "root" shadows Field.root (the serializer tree's top) in the stubs; these serializers only describe.
    root = serializers.CharField(help_text="the Merkle root of the records' hashes (RFC 6962), hex")  # type: ignore[assignment]
    previous_root = serializers.CharField(
        allow_null=True, help_text="the root of the checkpoint before; null: the first"
    )
    previous_day = serializers.DateField(allow_null=True)
    algorithm = serializers.CharField()
    signature = serializers.CharField(help_text="Ed25519 over the canonical bytes of the rest, base64")
    key_id = serializers.CharField(help_text="the first 32 hex digits of SHA-256 of the public key")
    public_key = serializers.CharField(help_text="the signer's Ed25519 public key, base64")
    at = serializers.DateTimeField()
    format = serializers.CharField()
    chains = serializers.DictField(
        help_text="stream → runs [first place, last place, previous hash, head hash] the checkpoint covers"
    )


class ProofOutputSerializer(serializers.Serializer):
    gaming_day = serializers.DateField()
    record = serializers.CharField(help_text="type:id")
    hash = serializers.CharField(help_text="the record's hash as the database holds it now")
    index = serializers.IntegerField(help_text="its place among the day's records (the tree's leaves)")
    size = serializers.IntegerField(help_text="how many leaves")
    path = serializers.ListField(child=serializers.CharField(), help_text="sibling hashes, leaf upwards")
    root = serializers.CharField()  # type: ignore[assignment]
    included = serializers.BooleanField(help_text="whether the path leads to the signed root")


class EvidenceCheckpointApi(APIView):
    @extend_schema(
        operation_id="evidence_checkpoint",
        parameters=[DATE_PARAMETER],
        responses={200: CheckpointOutputSerializer, **errors(400, 401, 403, 404)},
        description=(
            "The gaming day's signed checkpoint, made when the day closed, exactly as signed: save it as a "
            "file and give it to `python -m ledger.verify` with the export. Auditors. No checkpoint → 404 "
            "`no_checkpoint`. docs/evidence.md has the encoding."
        ),
    )
    def get(self, request: Request, day: str) -> Response:
        require_role(request.user, Role.AUDITOR)
        return Response(get_checkpoint(day=parse_day(day)).document)


class EvidenceExportApi(APIView):
    @extend_schema(
        operation_id="evidence_export",
        parameters=[DATE_PARAMETER],
        responses={
            (200, "application/jsonl"): OpenApiResponse(OpenApiTypes.BINARY, description="JSON lines"),
            **errors(400, 401, 403, 404),
        },
        description=(
            "The day's records as they stand in the database now, as JSON lines: a header "
            '(`{"format": "casekeeper-evidence/1", "gaming_day", "root"}`), then one record a line '
            "(`{type, id, stream, seq, previous, hash, fields}`; a transfer's entries carry its place and "
            "previous hash in each account's chain). Each carries the hash stored when it was written, so a "
            "record changed since shows. Auditors."
        ),
    )
    def get(self, request: Request, day: str) -> StreamingHttpResponse:
        require_role(request.user, Role.AUDITOR)
        checkpoint = get_checkpoint(day=parse_day(day))
        lines = (line + "\n" for line in export.lines(checkpoint.gaming_day, checkpoint.document))
        response = StreamingHttpResponse(lines, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="evidence-{checkpoint.gaming_day}.jsonl"'
        return response


class EvidenceProofApi(APIView):
    @extend_schema(
        operation_id="evidence_proof",
        parameters=[
            DATE_PARAMETER,
            OpenApiParameter(
                "record",
                OpenApiTypes.STR,
                required=True,
                description="type:id, e.g. transfer:12, round_action:40",
            ),
        ],
        responses={200: ProofOutputSerializer, **errors(400, 401, 403, 404)},
        description=(
            "The inclusion proof of one record in the day's signed root (RFC 6962's audit path), from the "
            "hashes the database holds now. Auditors. A record not in the checkpoint → 404."
        ),
    )
    def get(self, request: Request, day: str) -> Response:
        require_role(request.user, Role.AUDITOR)
        checkpoint = get_checkpoint(day=parse_day(day))
        kind, record_id = parse_record(request.query_params.get("record", ""))
        proof = inclusion_proof(checkpoint=checkpoint, kind=kind, record_id=record_id)
        return Response(ProofOutputSerializer(proof).data)


class ExceptionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the action log entry's id")
    kind = serializers.CharField(help_text="one of: " + ", ".join(sorted({kind for _, kind in KINDS})))
    action = serializers.CharField(help_text="the action as logged, e.g. table.limits_changed")
    at = serializers.DateTimeField()
    by = serializers.SerializerMethodField(help_text="who did it; null: the system or a shell")
    object = serializers.SerializerMethodField(help_text="{type, id} of what it was done to")
    details = serializers.DictField(
        source="data", help_text="what changed: old and new values, amounts, notes"
    )
    request_id = serializers.CharField()
    remote_addr = serializers.IPAddressField(allow_null=True)

    def get_by(self, entry: ActionLog) -> dict[str, Any] | None:
        actor = entry.actor
        return None if actor is None else {"id": actor.pk, "username": actor.username, "name": actor.name}

    def get_object(self, entry: ActionLog) -> dict[str, str]:
        return {"type": entry.object_type, "id": entry.object_id}

    def to_representation(self, instance: ActionLog) -> dict[str, Any]:
        instance.kind = kind_of(instance.action)  # type: ignore[attr-defined]
        return dict(super().to_representation(instance))


class ExceptionListApi(APIView):
    pagination_class = NewestFirstCursorPagination

    @extend_schema(
        operation_id="exceptions_list",
        parameters=[
            OpenApiParameter(
                "day", OpenApiTypes.DATE, required=True, description="the gaming day, YYYY-MM-DD (else 400)"
            )
        ],
        responses={200: ExceptionOutputSerializer(many=True), **errors(400, 401, 403)},
        description=(
            "The gaming day's system exceptions (25 CFR 543.16(c)), newest first, cursor-paginated: limit "
            "changes, changes made in the admin (settings), corrections asked, approved or refused, voided "
            "slips, variance sign-offs (a count signed off beyond `COUNT_VARIANCE_NOTE`, a table closed "
            "off its count), sign-in lockouts and unlocks, role and access changes; each with who and "
            "when. Auditors."
        ),
    )
    def get(self, request: Request) -> Response:
        require_role(request.user, Role.AUDITOR)
        day = days.parse_day(request.query_params.get("day", ""), field="day", code="bad_date")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(list_exceptions(day=day), request, view=self)
        return paginator.get_paginated_response(ExceptionOutputSerializer(page, many=True).data)
