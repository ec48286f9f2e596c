"""Strict JSON fields: money is an integer, never a float, a string or a bool."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

MAX_CENTS = 10**12


class StrictIntegerField(serializers.IntegerField):
    """DRF's IntegerField accepts ``"5"`` and ``5.0``; amounts must be JSON integers."""

    default_error_messages = {"invalid": "Must be a JSON integer (cents), not {type}."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid", type=type(data).__name__)
        return int(super().to_internal_value(data))


class CentsField(StrictIntegerField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_CENTS)
        kwargs.setdefault("help_text", "Integer cents")
        super().__init__(**kwargs)


class IdField(StrictIntegerField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(**kwargs)
