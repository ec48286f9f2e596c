"""A count of chips by denomination in a request body, read by ``tables.slips.chips.parse_count``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tables.slips.chips import parse_count

COUNT_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": "integer", "minimum": 0},
    "description": 'pieces by chip value in cents, over GET /api/v1/chips: {"2500": 40, "500": 12}',
    "example": {"2500": 40, "500": 12},
}


@extend_schema_field(COUNT_SCHEMA)
class ChipCountField(serializers.Field):
    """Its refusal is ``parse_count``'s ``ValidationFailed``, raised through ``is_valid`` as is, so
    an unknown chip or a negative piece count reads the same wherever a count is sent."""

    def to_internal_value(self, data: Any) -> dict[str, int]:
        return parse_count(data, field=self.field_name or "count")

    def to_representation(self, value: dict[str, int]) -> dict[str, int]:
        return value
