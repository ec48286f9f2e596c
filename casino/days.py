"""A gaming day or a moment from text: the one reading behind every query, path and form.

A day is written ``YYYY-MM-DD`` and nothing else (``date.fromisoformat`` also reads
``20261122`` and ``2026-W47-1``, which no one means). A moment is a day with a time,
``2026-11-22T21:00:00`` (casino time) or with a zone; a bare day stands for the start or the end
of that gaming day, as the caller says. Days outside ``ledger.gaming_day``'s supported range
are refused: their bounds would reach past the calendar. Adapters: ``casino.api.fields``
(serializer fields), ``casino.api.filters`` (django-filter) and ``casino.converters``
(``<day:…>`` in URLs).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Literal
from zoneinfo import ZoneInfo

from django.conf import settings

from casino.errors import ValidationFailed
from ledger.gaming_day import FIRST_SUPPORTED_DAY, LAST_SUPPORTED_DAY, gaming_day_bounds, is_supported_day

DAY_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_DAY = re.compile(DAY_PATTERN)
_MOMENT = re.compile(DAY_PATTERN + r"[T ][0-9]{2}:[0-9]{2}.*")
DAY_EXAMPLE = "2026-11-22"
MOMENT_EXAMPLE = "2026-11-22T21:00:00-08:00"

DayMeans = Literal["start", "end"]


def _refused(field: str, text: str, code: str, must: str) -> ValidationFailed:
    return ValidationFailed(f"{field} must {must}.", fields={field: text}, code=code)


def require_supported_day(day: dt.date, *, field: str, code: str = "invalid") -> dt.date:
    """``day``, or a 400 if it lies outside the days the service can compute with."""
    if not is_supported_day(day):
        between = f"between {FIRST_SUPPORTED_DAY} and {LAST_SUPPORTED_DAY}"
        raise _refused(field, day.isoformat(), code, f"fall {between}")
    return day


def _read[T](pattern: re.Pattern[str], text: str, reader: Callable[[str], T]) -> T | None:
    if not pattern.fullmatch(text):
        return None
    try:
        return reader(text)
    except ValueError:  # 2026-02-30, 25:00
        return None


def parse_day(text: str, *, field: str, code: str = "invalid") -> dt.date:
    """``2026-11-22`` → that date; anything else (or a day out of range) is a ``ValidationFailed``."""
    day = _read(_DAY, text, dt.date.fromisoformat)
    if day is None:
        raise _refused(field, text, code, f"be a gaming day written YYYY-MM-DD, like {DAY_EXAMPLE}")
    return require_supported_day(day, field=field, code=code)


def parse_moment(text: str, *, field: str, day_means: DayMeans, code: str = "invalid") -> dt.datetime:
    """An aware datetime; a bare day is its gaming day's start, or its last microsecond for "end"."""
    day = _read(_DAY, text, dt.date.fromisoformat)
    if day is not None:
        start, end = gaming_day_bounds(require_supported_day(day, field=field, code=code))
        # Timestamps are stored to the microsecond: the end takes every entry of that day, none of the next.
        return start if day_means == "start" else end - dt.timedelta(microseconds=1)
    moment = _read(_MOMENT, text, dt.datetime.fromisoformat)
    if moment is None:
        raise _refused(field, text, code, f"be a date like {DAY_EXAMPLE} or a datetime like {MOMENT_EXAMPLE}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(settings.CASINO_TIME_ZONE))
    require_supported_day(moment.date(), field=field, code=code)
    return moment
