"""Chips, counts and slips (API.md 2026-12): the chip set, counts, slips, signatures, voids,
the printable slip and the series."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import django_filters
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.filters import FilteredListApi, GamingDayFilter, IdFilter
from casino.api.idempotency import run_idempotent
from casino.api.inputs import valid
from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import IDEMPOTENCY_HEADER, errors
from casino.errors import ValidationFailed
from casino.models import Role
from casino.permissions import actor_of, require, require_role, require_staff
from casino.selectors import staff_name
from casino.signatures import confirm_signature
from tables.api.chip_fields import ChipCountField
from tables.selectors import access_table
from tables.slips.chips import chip_set
from tables.slips.counts import take_count
from tables.slips.models import CountReason, Slip, SlipKind, SlipStatus
from tables.slips.printing import render_slip_pdf
from tables.slips.selectors import account_for_series, get_slip, list_slips
from tables.slips.services import NOTE_MAX, sign_slip
from tables.slips.voids import REASON_MAX, check_voider, void_slip


class ChipSetApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class Denomination(serializers.Serializer):
            value = serializers.IntegerField(help_text="cents")
            colour = serializers.CharField()

        denominations = Denomination(many=True)

    @extend_schema(responses={200: OutputSerializer, **errors(401, 403)})
    def get(self, request: Request) -> Response:
        """The casino's chip set (``CHIP_SET``), smallest first."""
        require_staff(request.user)
        return Response({"denominations": [{"value": c.value, "colour": c.colour} for c in chip_set()]})


class SignatureSerializer(serializers.Serializer):
    role = serializers.CharField()
    user = serializers.IntegerField(source="user_id")
    name = serializers.SerializerMethodField()
    at = serializers.DateTimeField()
    note = serializers.CharField()
    password_confirmed = serializers.BooleanField(
        help_text="the signer typed their own password again; false for an approval sent without one"
    )

    def get_name(self, signature: Any) -> str:
        return staff_name(signature.user)


class VoidSerializer(serializers.Serializer):
    reason = serializers.CharField()
    by = serializers.IntegerField()
    at = serializers.DateTimeField()


class SlipOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.CharField(help_text="<letter>-<year>-<6 digits>")
    kind = serializers.ChoiceField(choices=SlipKind.choices)
    status = serializers.ChoiceField(choices=SlipStatus.choices)
    table = serializers.IntegerField(source="table_id", allow_null=True)
    gaming_day = serializers.DateField()
    reason = serializers.CharField()
    count = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True, help_text="pieces by chip value in cents"
    )
    amount = serializers.IntegerField(help_text="cents")
    expected = serializers.IntegerField(allow_null=True, help_text="the ledger's tray, for counts")
    variance = serializers.IntegerField(allow_null=True, help_text="amount − expected")
    requested_by = serializers.IntegerField(source="requested_by_id")
    signatures = SignatureSerializer(many=True, source="signatures.all")
    needs = serializers.ListField(
        child=serializers.CharField(), help_text="roles still to sign; empty once final"
    )
    void = VoidSerializer(source="void_summary", allow_null=True)
    at = serializers.DateTimeField()


def slip_body(slip: Slip) -> dict[str, Any]:
    """A slip as API.md shows it, read again so its signatures are current."""
    return dict(SlipOutputSerializer(get_slip(slip_id=slip.pk)).data)


class SlipFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=SlipKind.choices)
    status = django_filters.ChoiceFilter(choices=SlipStatus.choices)
    table = IdFilter(field_name="table_id", query_name="table", help_text="slips of one table")
    day = GamingDayFilter(field_name="gaming_day", query_name="day", help_text="slips of one gaming day")

    class Meta:
        model = Slip
        fields: list[str] = []


class SlipListApi(FilteredListApi, APIView):
    pagination_class = NewestFirstCursorPagination
    filterset_class = SlipFilter

    @extend_schema(responses={200: SlipOutputSerializer(many=True), **errors(400, 401, 403)})
    def get(self, request: Request) -> Response:
        """Newest first, cursor-paginated."""
        require_staff(request.user)
        slips = self.filter_list(request, list_slips())
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(slips, request, view=self)
        return paginator.get_paginated_response(SlipOutputSerializer(page, many=True).data)


class _QueryFormatIsNotARenderer(DefaultContentNegotiation):
    """Here ``?format=pdf`` asks for the printable slip; everything else is JSON."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


def slip_pdf_response(slip: Slip) -> HttpResponse:
    response = HttpResponse(render_slip_pdf(slip), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="slip-{slip.number}.pdf"'
    return response


PDF_RESPONSE = OpenApiResponse(OpenApiTypes.BINARY, description="the printable slip")


class SlipDetailApi(APIView):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _QueryFormatIsNotARenderer

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                enum=["json", "pdf"],
                default="json",
                description="pdf: the printable slip (as GET /api/v1/slips/{id}/pdf)",
            )
        ],
        responses={
            (200, "application/json"): SlipOutputSerializer,
            (200, "application/pdf"): PDF_RESPONSE,
            **errors(400, 401, 403, 404),
        },
    )
    def get(self, request: Request, slip_id: int) -> Response | HttpResponse:
        require_staff(request.user)
        wanted = request.query_params.get("format", "json")
        if wanted not in ("json", "pdf"):
            raise ValidationFailed(
                "format must be json or pdf.", fields={"format": wanted}, code="bad_format"
            )
        slip = get_slip(slip_id=slip_id)
        if wanted == "pdf":
            return slip_pdf_response(slip)
        return Response(SlipOutputSerializer(slip).data)


class SlipPdfApi(APIView):
    @extend_schema(responses={(200, "application/pdf"): PDF_RESPONSE, **errors(401, 403, 404)})
    def get(self, request: Request, slip_id: int) -> HttpResponse:
        """The printable slip: number, chips by denomination, the amount in words and figures,
        the count against the ledger, the signatures and any void."""
        require_staff(request.user)
        return slip_pdf_response(get_slip(slip_id=slip_id))


class SlipSignApi(APIView):
    class InputSerializer(serializers.Serializer):
        password = serializers.CharField(
            max_length=128, trim_whitespace=False, help_text="the signer's own password"
        )
        note = serializers.CharField(max_length=NOTE_MAX, required=False, allow_blank=True, default="")

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SlipOutputSerializer, **errors(400, 401, 403, 404, 409, 429)},
    )
    def post(self, request: Request, slip_id: int) -> Response:
        """An electronic signature: the signer types their own password again."""
        require_staff(request.user)
        get_slip(slip_id=slip_id)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            actor = actor_of(request)
            confirm_signature(request, user=actor, password=data["password"])
            slip = sign_slip(actor=actor, slip_id=slip_id, note=data["note"])
            return Response(slip_body(slip))

        return run_idempotent(request, handle)


class SlipVoidApi(APIView):
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=REASON_MAX, help_text="why the slip is void")

        def validate_reason(self, value: str) -> str:
            if not isinstance(self.initial_data.get("reason"), str):  # DRF would turn 5 into "5"
                raise serializers.ValidationError("A reason is text.")
            return value

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={200: SlipOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, slip_id: int) -> Response:
        """Void a slip not yet final: the cage voids fills and credits (chips in transit go back
        where they came from), the pit openers, closers and counts. It keeps its number; a final
        slip is corrected by a new slip instead (409 ``slip_final``)."""
        require_staff(request.user)
        check_voider(actor=actor_of(request), slip=get_slip(slip_id=slip_id))

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            slip = void_slip(actor=actor_of(request), slip_id=slip_id, reason=data["reason"])
            return Response(slip_body(slip))

        return run_idempotent(request, handle)


class TableCountApi(APIView):
    class InputSerializer(serializers.Serializer):
        count = ChipCountField()
        reason = serializers.ChoiceField(choices=CountReason.choices)

    @extend_schema(
        request=InputSerializer,
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: SlipOutputSerializer, **errors(400, 401, 403, 404, 409)},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """A shift-change or spot count of an open table's tray: a count slip with the ledger's
        tray as ``expected`` and the ``variance``. The table stays open and no chips move."""
        table = access_table(user=request.user, table_id=table_id)
        require(request.user, "table.count", table=table)

        def handle() -> Response:
            data = valid(self.InputSerializer, request.data)
            slip = take_count(
                actor=actor_of(request), table_id=table_id, count=data["count"], reason=data["reason"]
            )
            return Response(slip_body(slip), status=status.HTTP_201_CREATED)

        return run_idempotent(request, handle)


class SeriesOutputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=SlipKind.choices)
    year = serializers.IntegerField()
    first = serializers.CharField(allow_null=True)
    last = serializers.CharField(allow_null=True)
    issued = serializers.IntegerField()
    void = serializers.IntegerField()
    missing = serializers.ListField(child=serializers.CharField())


class SlipSeriesApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("year", int, description="calendar year (default: this year)"),
            OpenApiParameter(
                "kind", str, enum=SlipKind.values, description="one series (default: every kind)"
            ),
        ],
        responses={
            # One series with ``kind``; without it, every kind's series of the year.
            200: PolymorphicProxySerializer(
                component_name="SeriesAnswer",
                serializers=[SeriesOutputSerializer, SeriesOutputSerializer(many=True)],
                resource_type_field_name=None,
                many=False,
            ),
            **errors(400, 401, 403),
        },
    )
    def get(self, request: Request) -> Response:
        """A series accounted for: first, last, issued, void and missing numbers. Without
        ``kind``, a list with every kind's series of the year."""
        require_role(request.user, Role.AUDITOR)
        year = _year(request.query_params.get("year"))
        kind = request.query_params.get("kind")
        if kind is not None and kind not in SlipKind.values:
            raise ValidationFailed(
                f"kind must be one of {', '.join(SlipKind.values)}.", fields={"kind": kind}
            )
        if kind:
            return Response(SeriesOutputSerializer(account_for_series(kind=kind, year=year)).data)
        return Response(
            [SeriesOutputSerializer(account_for_series(kind=k, year=year)).data for k in SlipKind.values]
        )


def _year(text: str | None) -> int:
    if text is None:
        return dt.date.today().year
    if not text.isascii() or not text.isdigit() or not 1900 <= int(text) <= 9998:
        raise ValidationFailed("year must be a calendar year like 2026.", fields={"year": text})
    return int(text)
