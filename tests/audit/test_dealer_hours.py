"""The audit credits a dealer with the time they held any table, once (issue 44).

The demo's one dealer held all seven tables at once and the audit summed the seven shifts:
70 hours in one gaming day. A person holding two tables at once for 3 hours is credited 3.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.models import User
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.audit.compute import compute_audit
from tables.models import DealerShift, Table
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db

HOUR = dt.timedelta(hours=1)


def _shift(table: Table, dealer: User, pit_boss: User, begin: dt.datetime, end: dt.datetime) -> None:
    """A shift that is over (started_at is stamped on insert, so it is set after)."""
    shift = DealerShift.objects.create(table=table, dealer=dealer, assigned_by=pit_boss, ended_at=end)
    DealerShift.objects.filter(pk=shift.pk).update(started_at=begin)


def test_a_dealer_holding_two_tables_at_once_for_three_hours_is_credited_three_hours(
    system_accounts: None, pit_boss: User, dealer: User, other_dealer: User
) -> None:
    day = gaming_day_for() - dt.timedelta(days=3)
    start, _ = gaming_day_bounds(day)
    faro, farmer = TableFactory(actor=pit_boss, name="Faro 9"), TableFactory(actor=pit_boss, name="Farmer 9")
    _shift(faro, dealer, pit_boss, start + 2 * HOUR, start + 5 * HOUR)
    _shift(farmer, dealer, pit_boss, start + 2 * HOUR, start + 5 * HOUR)
    # The relief dealer: an hour at each table, one after the other.
    _shift(faro, other_dealer, pit_boss, start + 5 * HOUR, start + 6 * HOUR)
    _shift(farmer, other_dealer, pit_boss, start + 6 * HOUR, start + 7 * HOUR)

    dealers = {row["id"]: row for row in compute_audit(day=day)["dealers"]}

    assert dealers[dealer.pk]["minutes"] == 180  # not 360
    assert dealers[dealer.pk]["tables"] == ["Farmer 9", "Faro 9"]
    assert dealers[other_dealer.pk]["minutes"] == 120
    assert dealers[other_dealer.pk]["tables"] == ["Farmer 9", "Faro 9"]
