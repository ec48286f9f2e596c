"""The gaming day: a date in the casino's zone that rolls over at a configured hour, not midnight."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

# The days this service accepts: each day's bounds reach into the next day, and date.max has
# none, so the range stops short of it (a client asking for 9999-12-31 gets a 400, not a 500).
FIRST_SUPPORTED_DAY = dt.date(1900, 1, 1)
LAST_SUPPORTED_DAY = dt.date(9998, 12, 31)


def is_supported_day(day: dt.date) -> bool:
    return FIRST_SUPPORTED_DAY <= day <= LAST_SUPPORTED_DAY


def gaming_day_for(at: dt.datetime | None = None) -> dt.date:
    moment = (at or timezone.now()).astimezone(ZoneInfo(settings.CASINO_TIME_ZONE))
    if moment.hour < settings.GAMING_DAY_ROLLOVER_HOUR:
        return moment.date() - dt.timedelta(days=1)
    return moment.date()


def gaming_day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """[start, end) of a gaming day as aware datetimes."""
    zone = ZoneInfo(settings.CASINO_TIME_ZONE)
    start = dt.datetime.combine(day, dt.time(settings.GAMING_DAY_ROLLOVER_HOUR), tzinfo=zone)
    end = dt.datetime.combine(
        day + dt.timedelta(days=1), dt.time(settings.GAMING_DAY_ROLLOVER_HOUR), tzinfo=zone
    )
    return start, end
