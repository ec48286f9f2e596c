"""Schema pieces shared by every endpoint: the error body and the usual error responses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorSerializer = inline_serializer(
    name="Error",
    fields={
        "error": inline_serializer(
            name="ErrorDetail",
            fields={
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(),
            },
        )
    },
)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    text = {
        400: "Malformed or illegal request",
        401: "No or bad token",
        403: "Your role may not do this",
        404: "Not found (or another player's data)",
        409: "Conflict with the current state",
        413: "The body is larger than this service accepts (too_large)",
        429: "Too many requests",
        503: "The database cannot be reached just now (unavailable); retry after Retry-After seconds",
    }
    return {code: OpenApiResponse(ErrorSerializer, description=text[code]) for code in codes}


IDEMPOTENCY_HEADER = OpenApiParameter(
    name="Idempotency-Key",
    location=OpenApiParameter.HEADER,
    required=False,
    type=str,
    description="Retry safely: the same key and body replay the first response; another body → 409.",
)
