"""Cursor pagination, newest first: ``{"results": [...], "next": url | null}`` as API.md says."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import CursorPagination
from rest_framework.response import Response


class NewestFirstCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 500

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
