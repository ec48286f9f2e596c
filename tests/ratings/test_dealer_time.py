"""A dealer's time is counted once when they hold several tables at the same moment (issue 44).

The demo's one dealer held all seven tables at once; the pit's pace and the dealer performance
summed the seven shifts, so that person was on shift seven times over and dealt at a seventh of
their real pace. Here a dealer holds two tables at once for three hours: three hours, not six.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.models import User
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.console.pit.figures import floor_figures
from tables.models import DealerShift, Table
from tables.ratings.compute import hour_of
from tables.ratings.models import RoundStat
from tables.ratings.selectors import dealers_performance, seconds_covered
from tests.ratings.floor import play, punter, stakes_table

HOUR = dt.timedelta(hours=1)


def _shift(table: Table, dealer: User, pit_boss: User, begin: dt.datetime, end: dt.datetime) -> None:
    """A shift that is over (started_at is stamped on insert, so it is set after)."""
    shift = DealerShift.objects.create(table=table, dealer=dealer, assigned_by=pit_boss, ended_at=end)
    DealerShift.objects.filter(pk=shift.pk).update(started_at=begin)


def _rounds_moved_to(table: Table, moment: dt.datetime) -> None:
    RoundStat.objects.filter(table=table).update(ended_at=moment, hour=hour_of(moment))


@pytest.fixture
def day() -> dt.date:
    """A gaming day that is over: its shifts have ended and nothing live reaches into it."""
    return gaming_day_for() - dt.timedelta(days=3)


def test_two_tables_held_at_once_for_three_hours_are_three_hours_of_shift_at_the_real_pace(
    day: dt.date, pit_boss: User, dealer: User, cashier: User
) -> None:
    start, _ = gaming_day_bounds(day)
    first = stakes_table(pit_boss, dealer, name="Card room A")
    second = stakes_table(pit_boss, dealer, name="Card room B")
    players = [punter(cashier, funded=100_000) for _ in range(2)]
    play(first, players, rounds=4, new_sitting_each_round=True)
    play(second, players, rounds=2, new_sitting_each_round=True)
    for table in (first, second):
        _rounds_moved_to(table, start + 3 * HOUR)
        _shift(table, dealer, pit_boss, start + 2 * HOUR, start + 5 * HOUR)

    figures = dealers_performance(dealer_ids=[dealer.pk], day=day)[dealer.pk]
    assert (figures["minutes"], figures["decisions"]) == (180, 6)  # not 360
    assert figures["decisions_per_hour"] == 2.0  # 6 decisions in 3 hours, not 1.0

    # The pit's cards: both tables show the one dealer's time and pace.
    cards = floor_figures([first, second], now=start + 4 * HOUR)
    for table in (first, second):
        card = cards[table.pk]
        assert (card.dealer_minutes, card.dealer_decisions, card.dealer_pace) == (180, 6, 2.0)


def test_overlapping_shifts_count_their_common_time_once_and_the_rest_in_full(
    day: dt.date, pit_boss: User, dealer: User, other_dealer: User
) -> None:
    """From 1:00 to 2:00 at one table and 1:30 to 3:00 at another is two hours; a relief
    dealer's back-to-back shifts at two tables add up; a shift cut by the day's end stops there."""
    start, end = gaming_day_bounds(day)
    one, two = (stakes_table(pit_boss, other_dealer, name=f"Card room {n}") for n in (1, 2))
    _shift(one, dealer, pit_boss, start + HOUR, start + 2 * HOUR)
    _shift(two, dealer, pit_boss, start + 1.5 * HOUR, start + 3 * HOUR)
    _shift(one, other_dealer, pit_boss, start + 3 * HOUR, start + 4 * HOUR)
    _shift(two, other_dealer, pit_boss, start + 4 * HOUR, start + 4.5 * HOUR)
    _shift(one, other_dealer, pit_boss, end - HOUR, end + 2 * HOUR)

    figures = dealers_performance(dealer_ids=[dealer.pk, other_dealer.pk], day=day)
    assert figures[dealer.pk]["minutes"] == 120
    assert figures[other_dealer.pk]["minutes"] == 90 + 60


def test_seconds_covered_merges_overlaps_and_skips_empty_spans() -> None:
    at = dt.datetime(2026, 6, 1, 20, tzinfo=dt.UTC)
    assert seconds_covered([]) == 0
    assert seconds_covered([(at, at + 3 * HOUR), (at, at + 3 * HOUR)]) == 3 * 3600
    assert seconds_covered([(at + HOUR, at + 2 * HOUR), (at, at + 3 * HOUR)]) == 3 * 3600  # one inside
    assert seconds_covered([(at, at + HOUR), (at + HOUR, at + 2 * HOUR)]) == 2 * 3600  # end to end
    assert seconds_covered([(at, at + HOUR), (at + 2 * HOUR, at + 3 * HOUR)]) == 2 * 3600  # a gap
    assert seconds_covered([(at + HOUR, at), (at, at)]) == 0  # empty (a shift clipped away)
