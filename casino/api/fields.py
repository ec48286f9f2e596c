"""Strict fields: money is a JSON integer (never a float, a string or a bool); days as ``casino.days``."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.days import DayMeans, parse_day, parse_moment

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


@extend_schema_field(OpenApiTypes.DATE)
class GamingDayField(serializers.Field):
    """A gaming day as ``casino.days.parse_day`` reads it (``YYYY-MM-DD``, in the supported range).

    Its refusal is ``casino.days``' ``ValidationFailed``, raised through ``is_valid`` as is, so a bad
    day reads the same (``fields: {name: what was sent}``) in a query, a path or a body.
    """

    def to_internal_value(self, data: Any) -> dt.date:
        return parse_day(str(data), field=self.field_name or "day")

    def to_representation(self, value: dt.date) -> str:
        return value.isoformat()


@extend_schema_field(OpenApiTypes.STR)
class MomentField(serializers.Field):
    """A datetime, or a gaming day standing for its start or its end (``day_means``); empty is none."""

    def __init__(self, *, day_means: DayMeans, **kwargs: Any) -> None:
        self.day_means = day_means
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dt.datetime | None:
        if data == "":
            return None
        return parse_moment(str(data), field=self.field_name or "at", day_means=self.day_means)

    def to_representation(self, value: dt.datetime) -> str:
        return value.isoformat()
