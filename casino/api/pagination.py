"""Cursor pagination, newest first: ``{"results": [...], "next": url | null}`` as API.md says.

Bad paging input is the client's mistake, so it is a 400 naming the parameter: DRF answers a
cursor it cannot read with 404 and silently replaces a ``limit`` it cannot read (``null``,
``-2e-297``) by the default page size. A cursor is opaque but can be forged; its position must
be a value of the ordering field, or the database would be asked to compare ``id`` with text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Field, Model, QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response

from casino.errors import ValidationFailed

_CANONICAL_INT = re.compile(r"[1-9][0-9]{0,5}")


class NewestFirstCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 500
    _model: type[Model] | None = None

    def paginate_queryset(
        self, queryset: QuerySet[Any] | Sequence[Any], request: Request, view: Any = None
    ) -> list[Any] | None:
        # decode_cursor checks the position against the ordering field of this model.
        self._model = queryset.model if isinstance(queryset, QuerySet) else None
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not _CANONICAL_INT.fullmatch(raw) or int(raw) > self.max_page_size:
            raise ValidationFailed(
                f"limit must be a whole number from 1 to {self.max_page_size}.",
                fields={self.page_size_query_param: raw},
            )
        return int(raw)

    def decode_cursor(self, request: Request) -> Cursor | None:
        try:
            cursor = super().decode_cursor(request)
        except NotFound as error:
            raise self._invalid_cursor(request) from error
        if cursor is not None and cursor.position is not None and not self._is_position(str(cursor.position)):
            raise self._invalid_cursor(request)
        return cursor

    def _is_position(self, position: str) -> bool:
        if "\x00" in position:
            return False
        if self._model is None:
            return True
        name = self.ordering if isinstance(self.ordering, str) else self.ordering[0]
        try:
            field = self._model._meta.get_field(name.lstrip("-"))
            if isinstance(field, Field):
                field.to_python(position)
        except (FieldDoesNotExist, DjangoValidationError, ValueError, TypeError):
            return False
        return True

    def _invalid_cursor(self, request: Request) -> ValidationFailed:
        return ValidationFailed(
            "This cursor is not one this list gave out; start again without it and follow `next`.",
            fields={self.cursor_query_param: request.query_params.get(self.cursor_query_param, "")},
            code="invalid_cursor",
        )

    def get_paginated_response(self, data: Any) -> Response:
        return Response({"results": data, "next": self.get_next_link()})

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["results", "next"],
            "properties": {
                "results": schema,
                "next": {"type": "string", "format": "uri", "nullable": True},
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": self.max_page_size}
        return parameters
