"""Query parameters that name a moment: a gaming day (``2026-11-22``) or a datetime.

A datetime without a zone is casino time. What a bare date means depends on the endpoint (the
start of that gaming day for a range's bound, its end for "as of"), so the caller decides.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.conf import settings

from casino.errors import ValidationFailed


def parse_day_or_moment(value: str | None, *, field: str) -> dt.date | dt.datetime | None:
    """None when absent or empty; a ``date`` for ``2026-11-22``; an aware ``datetime`` otherwise."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
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
    return moment
