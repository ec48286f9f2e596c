"""Path converters for ids and days: one spelling only, so one row (or day) has one URL.

Python's ``int()`` reads ``+1``, `` 1``, ``1_0`` and Arabic-Indic ``١`` as numbers, so a view
that parsed a ``str`` segment itself answered for player 1 or 10 under several spellings.
Every URL of the API and the console takes its ids through these converters instead; a
segment they refuse matches no route, which is a 404 (in the error shape on ``/api/``).
"""

from __future__ import annotations

import datetime as dt

from django.urls import register_converter

from casino.days import DAY_PATTERN, parse_day
from casino.errors import ValidationFailed

BIGINT_MAX = 2**63 - 1


class IdConverter:
    """``<id:name>``: 1 to 2⁶³−1 written in ASCII digits without sign, space or leading zero."""

    regex = "[1-9][0-9]{0,18}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > BIGINT_MAX:
            raise ValueError("beyond any row id")  # Django reads this as "no match": a 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class PlayerRefConverter(IdConverter):
    """``<player:name>``: a player id as ``<id:>`` takes it, or ``me`` for the signed-in player."""

    regex = f"(?:me|{IdConverter.regex})"

    def to_python(self, value: str) -> int | str:  # type: ignore[override]
        return value if value == "me" else super().to_python(value)

    def to_url(self, value: int | str) -> str:
        return str(value)


class DayConverter:
    """``<day:name>``: a gaming day as ``casino.days.parse_day`` reads it; any other segment is a 404."""

    regex = DAY_PATTERN

    def to_python(self, value: str) -> dt.date:
        try:
            return parse_day(value, field="day")
        except ValidationFailed as error:
            raise ValueError(error.message) from error  # Django reads this as "no match": a 404

    def to_url(self, value: dt.date | str) -> str:
        return value.isoformat() if isinstance(value, dt.date) else value


register_converter(IdConverter, "id")
register_converter(PlayerRefConverter, "player")
register_converter(DayConverter, "day")
