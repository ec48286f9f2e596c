"""casino/days.py: the one reading of a gaming day or a moment (issue 19, item 6).

Before it, seven parsers disagreed: the ratings, alerts and trial-balance parameters took
anything ``date.fromisoformat`` reads (``20261122``, ``2026-W47-1``), the audit's only
``YYYY-MM-DD``. Now every day is ``YYYY-MM-DD`` and every moment a day with a time.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import path

from casino.converters import DayConverter
from casino.days import parse_day, parse_moment
from casino.errors import ValidationFailed
from ledger.gaming_day import gaming_day_bounds

NOT_A_DAY = [
    "20261122",
    "2026-W47-1",
    "2026-11-22T00:00",
    "2026-1-1",
    "2026-02-30",
    "22/11/2026",
    " 2026-11-22",
    "",
]


def test_a_day_is_written_yyyy_mm_dd() -> None:
    assert parse_day("2026-11-22", field="day") == dt.date(2026, 11, 22)


@pytest.mark.parametrize("text", NOT_A_DAY)
def test_every_other_spelling_of_a_day_is_refused_with_the_field_named(text: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_day(text, field="date", code="bad_date")

    assert refused.value.code == "bad_date"
    assert refused.value.fields == {"date": text}
    assert "date must be a gaming day written YYYY-MM-DD" in refused.value.message


@pytest.mark.parametrize("text", ["0001-01-01", "9999-12-31"])
def test_days_past_the_supported_range_are_refused(text: str) -> None:
    with pytest.raises(ValidationFailed, match="between 1900-01-01 and 9998-12-31"):
        parse_day(text, field="day")


def test_a_bare_day_as_a_moment_is_its_gaming_days_start_or_end() -> None:
    start, end = gaming_day_bounds(dt.date(2026, 3, 14))

    assert parse_moment("2026-03-14", field="from", day_means="start") == start
    assert parse_moment("2026-03-14", field="as_of", day_means="end") == end - dt.timedelta(microseconds=1)


def test_a_moment_without_a_zone_is_casino_time() -> None:
    naive = parse_moment("2026-03-14T21:00:00", field="from", day_means="start")
    zoned = parse_moment("2026-03-14T21:00:00+00:00", field="from", day_means="start")

    assert naive.tzinfo is not None
    assert naive.utcoffset() == dt.timedelta(hours=-7)  # America/Los_Angeles in March (PDT)
    assert zoned.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize(
    "text", ["20261122", "20261122T210000", "2026-W47-1", "2026-03-14T25:00", "tomorrow"]
)
def test_a_moment_is_a_day_or_a_day_with_a_time(text: str) -> None:
    with pytest.raises(ValidationFailed, match="from must be a date like 2026-11-22 or a datetime"):
        parse_moment(text, field="from", day_means="start")


def _converts(text: str) -> bool:
    """What Django does with a path segment: match the converter's pattern, then to_python."""
    if re.fullmatch(DayConverter.regex, text) is None:
        return False
    try:
        DayConverter().to_python(text)
    except ValueError:
        return False
    return True


def test_the_day_converter_takes_only_a_canonical_supported_day() -> None:
    assert DayConverter().to_python("2026-11-22") == dt.date(2026, 11, 22)
    assert DayConverter().to_url(dt.date(2026, 11, 22)) == "2026-11-22"
    for text in [*NOT_A_DAY, "0001-01-01", "9999-12-31"]:
        assert not _converts(text), text


def test_the_day_converter_is_registered_for_urls() -> None:
    def view() -> None: ...

    pattern = path("days/<day:day>/", view, name="x")
    match = pattern.resolve("days/2026-11-22/")
    assert match is not None
    assert match.kwargs == {"day": dt.date(2026, 11, 22)}
    assert pattern.resolve("days/20261122/") is None
    assert pattern.resolve("days/9999-12-31/") is None
