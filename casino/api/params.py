"""Query parameters that name a moment: a gaming day (``2026-11-22``) or a datetime.

A datetime without a zone is casino time. What a bare date means depends on the endpoint (the
start of that gaming day for a range's bound, its end for "as of"), so the caller decides.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.conf import settings

from casino.errors import ValidationFailed
from ledger.gaming_day import FIRST_SUPPORTED_DAY, LAST_SUPPORTED_DAY, is_supported_day


def require_supported_day(day: dt.date, *, field: str, code: str = "invalid") -> dt.date:
    """``day``, or a 400 if it lies outside the days the service can compute with."""
    if not is_supported_day(day):
        raise ValidationFailed(
            f"{field} must fall between {FIRST_SUPPORTED_DAY} and {LAST_SUPPORTED_DAY}.",
            fields={field: day.isoformat()},
            code=code,
        )
    return day


def parse_day_or_moment(value: str | None, *, field: str) -> dt.date | dt.datetime | None:
    """None when absent or empty; a ``date`` for ``2026-11-22``; an aware ``datetime`` otherwise."""
    if not value:
        return None
    try:
        return require_supported_day(dt.date.fromisoformat(value), field=field)
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError as error:
        raise ValidationFailed(
            f"{field} must be a date like 2026-11-22 or a datetime like 2026-11-22T21:00:00-08:00.",
            fields={field: value},
        ) from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(settings.CASINO_TIME_ZONE))
    require_supported_day(moment.date(), field=field)
    return moment
