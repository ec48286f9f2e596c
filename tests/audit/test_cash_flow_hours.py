"""The audit's cash flow counts the same hours as the ratings: every real hour of the gaming day.

It used to step through wall-clock hours, so a night the clocks fall back showed 24 rows (the two
01:00 hours' cash summed in one) while the ratings' hourly results showed 25.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from ledger.services import Leg, post_transfer
from tables.audit.compute import compute_audit
from tables.ratings.selectors import day_hours
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pacific(settings: object, system_accounts: None) -> None:
    """A Pacific casino with its house accounts (a flushing test before this one removes them)."""
    settings.CASINO_TIME_ZONE = "America/Los_Angeles"  # type: ignore[attr-defined]
    settings.GAMING_DAY_ROLLOVER_HOUR = 6  # type: ignore[attr-defined]


def _buy_in(player: object, amount: int, at: dt.datetime) -> None:
    post_transfer(
        key=f"buy_in:{at.isoformat()}",
        kind="buy_in",
        legs=[Leg(debit="cage", credit=player.wallet.code, amount=amount)],  # type: ignore[attr-defined]
        at=at,
    )


def test_the_night_the_clocks_fall_back_has_25_hours_and_two_one_oclocks() -> None:
    day = dt.date(2026, 10, 31)  # the clocks go back at 02:00 on 1 November 2026
    player = PlayerFactory()
    _buy_in(player, 10_000, dt.datetime(2026, 11, 1, 8, 30, tzinfo=dt.UTC))  # 01:30 PDT
    _buy_in(player, 20_000, dt.datetime(2026, 11, 1, 9, 30, tzinfo=dt.UTC))  # 01:30 PST

    hours = compute_audit(day=day)["cash_flow"]

    assert len(hours) == len(day_hours(day)) == 25
    one_oclocks = [hour for hour in hours if hour["hour"] == "01:00"]
    assert [hour["cash_in"] for hour in one_oclocks] == [10_000, 20_000]
    assert [hour["start"][-6:] for hour in one_oclocks] == ["-07:00", "-08:00"]
    assert sum(hour["cash_in"] for hour in hours) == 30_000


def test_the_night_the_clocks_spring_forward_has_23_hours_and_no_two_oclock() -> None:
    day = dt.date(2026, 3, 7)  # the clocks go forward at 02:00 on 8 March 2026
    player = PlayerFactory()
    zone = ZoneInfo(settings.CASINO_TIME_ZONE)
    _buy_in(player, 5_000, dt.datetime(2026, 3, 8, 3, 15, tzinfo=zone))

    hours = compute_audit(day=day)["cash_flow"]

    assert len(hours) == len(day_hours(day)) == 23
    assert "02:00" not in [hour["hour"] for hour in hours]
    assert [hour["cash_in"] for hour in hours if hour["hour"] == "03:00"] == [5_000]
