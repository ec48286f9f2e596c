"""The gaming day rolls over at 06:00 casino time, and a closed gaming day takes no more transfers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from pytest_django import Settings

from ledger.errors import GamingDayClosed
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import Account, ClosedGamingDay, Entry, Transfer
from ledger.services import Leg, close_gaming_day, post_transfer

MakeWallet = Callable[..., Account]

VEGAS = ZoneInfo("America/Los_Angeles")


@pytest.fixture(autouse=True)
def _casino_in_vegas(settings: Settings) -> None:
    """Pin the defaults so an environment override cannot change what these tests mean."""
    settings.CASINO_TIME_ZONE = "America/Los_Angeles"
    settings.GAMING_DAY_ROLLOVER_HOUR = 6


@pytest.mark.parametrize(
    ("local", "day"),
    [
        (dt.datetime(2025, 7, 15, 5, 59, 59, 999999), dt.date(2025, 7, 14)),
        (dt.datetime(2025, 7, 15, 5, 59), dt.date(2025, 7, 14)),
        (dt.datetime(2025, 7, 15, 6, 0), dt.date(2025, 7, 15)),
        (dt.datetime(2025, 7, 15, 0, 0), dt.date(2025, 7, 14)),
        (dt.datetime(2025, 7, 15, 23, 59), dt.date(2025, 7, 15)),
        (dt.datetime(2025, 1, 1, 5, 0), dt.date(2024, 12, 31)),
        (dt.datetime(2024, 3, 1, 2, 0), dt.date(2024, 2, 29)),
    ],
)
def test_gaming_day_rolls_over_at_six_casino_time(local: dt.datetime, day: dt.date) -> None:
    assert gaming_day_for(local.replace(tzinfo=VEGAS)) == day


def test_the_casino_zone_decides_not_the_zone_of_the_moment() -> None:
    # 13:59 UTC is 06:59 PDT; 12:59 UTC is 05:59 PDT (July: UTC-7).
    assert gaming_day_for(dt.datetime(2025, 7, 15, 12, 59, tzinfo=dt.UTC)) == dt.date(2025, 7, 14)
    assert gaming_day_for(dt.datetime(2025, 7, 15, 13, 0, tzinfo=dt.UTC)) == dt.date(2025, 7, 15)
    # In January (PST, UTC-8) the same rollover is at 14:00 UTC.
    assert gaming_day_for(dt.datetime(2025, 1, 15, 13, 59, tzinfo=dt.UTC)) == dt.date(2025, 1, 14)
    assert gaming_day_for(dt.datetime(2025, 1, 15, 14, 0, tzinfo=dt.UTC)) == dt.date(2025, 1, 15)
    # 03:00 UTC on the 16th is still the evening of the 15th in Las Vegas.
    assert gaming_day_for(dt.datetime(2025, 7, 16, 3, 0, tzinfo=dt.UTC)) == dt.date(2025, 7, 15)


def test_without_a_moment_it_is_the_gaming_day_of_now() -> None:
    assert gaming_day_for() == gaming_day_for(timezone.now())


def test_settings_change_the_rollover_hour_and_zone(settings: Settings) -> None:
    settings.GAMING_DAY_ROLLOVER_HOUR = 4
    assert gaming_day_for(dt.datetime(2025, 7, 15, 3, 59, tzinfo=VEGAS)) == dt.date(2025, 7, 14)
    assert gaming_day_for(dt.datetime(2025, 7, 15, 4, 0, tzinfo=VEGAS)) == dt.date(2025, 7, 15)
    # 05:59 belongs to the previous day under the default rollover, to this one now.
    assert gaming_day_for(dt.datetime(2025, 7, 15, 5, 59, tzinfo=VEGAS)) == dt.date(2025, 7, 15)

    settings.CASINO_TIME_ZONE = "Asia/Macau"  # UTC+8, no DST
    settings.GAMING_DAY_ROLLOVER_HOUR = 6
    assert gaming_day_for(dt.datetime(2025, 7, 14, 21, 59, tzinfo=dt.UTC)) == dt.date(2025, 7, 14)
    assert gaming_day_for(dt.datetime(2025, 7, 14, 22, 0, tzinfo=dt.UTC)) == dt.date(2025, 7, 15)

    settings.GAMING_DAY_ROLLOVER_HOUR = 0  # a midnight rollover is the calendar day
    assert gaming_day_for(dt.datetime(2025, 7, 14, 15, 59, tzinfo=dt.UTC)) == dt.date(2025, 7, 14)
    assert gaming_day_for(dt.datetime(2025, 7, 14, 16, 0, tzinfo=dt.UTC)) == dt.date(2025, 7, 15)


def test_gaming_day_bounds_run_from_rollover_to_rollover() -> None:
    start, end = gaming_day_bounds(dt.date(2025, 7, 15))

    assert start == dt.datetime(2025, 7, 15, 6, 0, tzinfo=VEGAS)
    assert end == dt.datetime(2025, 7, 16, 6, 0, tzinfo=VEGAS)
    assert gaming_day_for(start) == dt.date(2025, 7, 15)
    assert gaming_day_for(end - dt.timedelta(microseconds=1)) == dt.date(2025, 7, 15)
    assert gaming_day_for(end) == dt.date(2025, 7, 16)


def test_a_gaming_day_across_a_dst_change_is_not_24_hours() -> None:
    spring_start, spring_end = gaming_day_bounds(dt.date(2025, 3, 8))  # clocks go forward on the 9th
    fall_start, fall_end = gaming_day_bounds(dt.date(2025, 11, 1))  # clocks go back on the 2nd

    # Same-zone subtraction in Python is wall-clock arithmetic; the elapsed time needs UTC.
    assert spring_end.astimezone(dt.UTC) - spring_start.astimezone(dt.UTC) == dt.timedelta(hours=23)
    assert fall_end.astimezone(dt.UTC) - fall_start.astimezone(dt.UTC) == dt.timedelta(hours=25)
    assert gaming_day_for(spring_end - dt.timedelta(seconds=1)) == dt.date(2025, 3, 8)


@pytest.mark.django_db
def test_a_transfer_is_dated_into_the_gaming_day_of_its_moment(make_wallet: MakeWallet) -> None:
    wallet = make_wallet()
    late = post_transfer(
        key="late-night",
        kind="buy_in",
        legs=[Leg("cage", wallet.code, 10)],
        at=dt.datetime(2025, 7, 15, 5, 59, tzinfo=VEGAS),
    )
    morning = post_transfer(
        key="morning",
        kind="buy_in",
        legs=[Leg("cage", wallet.code, 10)],
        at=dt.datetime(2025, 7, 15, 6, 0, tzinfo=VEGAS),
    )

    late.refresh_from_db()
    morning.refresh_from_db()
    assert late.gaming_day == dt.date(2025, 7, 14)
    assert morning.gaming_day == dt.date(2025, 7, 15)


@pytest.mark.django_db
def test_a_closed_gaming_day_refuses_transfers_and_moves_nothing(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    closed = close_gaming_day(day=dt.date(2025, 7, 14), closed_by="auditor")
    assert ClosedGamingDay.objects.get(day=dt.date(2025, 7, 14)).closed_by == "auditor"
    assert closed.closed_at is not None
    entries = Entry.objects.count()

    with pytest.raises(GamingDayClosed) as caught:
        post_transfer(
            key="too-late",
            kind="bet",
            legs=[Leg(wallet.code, table.code, 40)],
            at=dt.datetime(2025, 7, 15, 5, 59, tzinfo=VEGAS),  # still the 14th's gaming day
        )

    assert (caught.value.code, caught.value.status) == ("gaming_day_closed", 409)
    assert "2025-07-14" in caught.value.message
    wallet.refresh_from_db()
    table.refresh_from_db()
    assert (wallet.balance, wallet.debits_posted, table.balance) == (100, 0, 0)
    assert not Transfer.objects.filter(key="too-late").exists()
    assert Entry.objects.count() == entries

    next_day = post_transfer(
        key="next-day",
        kind="bet",
        legs=[Leg(wallet.code, table.code, 40)],
        at=dt.datetime(2025, 7, 15, 6, 0, tzinfo=VEGAS),
    )
    assert next_day.gaming_day == dt.date(2025, 7, 15)
    wallet.refresh_from_db()
    assert wallet.balance == 60


@pytest.mark.django_db
def test_closing_today_refuses_undated_transfers(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    close_gaming_day(day=gaming_day_for())

    with pytest.raises(GamingDayClosed):
        post_transfer(key="now", kind="bet", legs=[Leg(wallet.code, table.code, 1)])

    wallet.refresh_from_db()
    assert wallet.balance == 100


@pytest.mark.django_db
def test_closing_a_gaming_day_twice_keeps_the_first_close() -> None:
    first = close_gaming_day(day=dt.date(2025, 7, 14), closed_by="first")

    second = close_gaming_day(day=dt.date(2025, 7, 14), closed_by="second")

    assert second.pk == first.pk
    assert ClosedGamingDay.objects.filter(day=dt.date(2025, 7, 14)).count() == 1
    assert ClosedGamingDay.objects.get(day=dt.date(2025, 7, 14)).closed_by == "first"


@pytest.mark.django_db
def test_a_replay_of_a_transfer_in_a_now_closed_day_still_returns_it(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    moment = dt.datetime(2025, 7, 14, 20, 0, tzinfo=VEGAS)
    legs = [Leg(wallet.code, table.code, 25)]
    first = post_transfer(key="before-close", kind="bet", legs=legs, at=moment)
    close_gaming_day(day=dt.date(2025, 7, 14))

    again = post_transfer(key="before-close", kind="bet", legs=legs, at=moment)

    assert again.pk == first.pk
    wallet.refresh_from_db()
    assert wallet.balance == 75
