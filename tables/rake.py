"""The time rake: a seated player pays ``rules.rake.amount`` at the start of every period.

Percent rake is the engines' business (taken from a pot as it is won). A period is
charged once whatever the schedule does: the transfer key names the seat and period.
A wallet that cannot cover a period pays what it has (a player never goes negative).
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from ledger.services import Leg, post_transfer
from tables.accounts import RAKE
from tables.models import Seat, TableStatus


def periods_due(*, seated_at: dt.datetime, now: dt.datetime, minutes: int) -> int:
    """Periods started so far, the first at the moment the player sat down."""
    elapsed = max((now - seated_at).total_seconds(), 0)
    return int(elapsed // (minutes * 60)) + 1


def charge_time_rake(*, now: dt.datetime | None = None) -> int:
    """Charge every due period on every open time-raked table; returns the cents collected."""
    moment = now or timezone.now()
    collected = 0
    seats = Seat.objects.filter(
        left_at__isnull=True, table__status=TableStatus.OPEN, table__rules__rake__kind="time"
    ).values_list("pk", flat=True)
    for seat_id in seats:
        collected += _charge_seat(seat_id=seat_id, now=moment)
    return collected


@transaction.atomic
def _charge_seat(*, seat_id: int, now: dt.datetime) -> int:
    seat = (
        Seat.objects.select_for_update(of=("self",)).select_related("table", "player__wallet").get(pk=seat_id)
    )
    if seat.left_at is not None:
        return 0
    rake = seat.table.rules.get("rake") or {}
    due = periods_due(seated_at=seat.seated_at, now=now, minutes=int(rake["minutes"]))
    collected = 0
    for period in range(seat.rake_periods_charged + 1, due + 1):
        seat.player.wallet.refresh_from_db(fields=["balance", "held"])
        amount = min(int(rake["amount"]), seat.player.wallet.available)
        if amount > 0:
            post_transfer(
                key=f"time_rake:{seat.pk}:{period}",
                kind="rake",
                legs=[Leg(debit=seat.player.wallet.code, credit=RAKE, amount=amount)],
                memo=f"Time rake, period {period}, at {seat.table.name}",
                meta={"table": seat.table_id, "player": seat.player_id, "seat": seat.pk, "period": period},
                at=now,
            )
            collected += amount
    if due > seat.rake_periods_charged:
        seat.rake_periods_charged = due
        seat.time_rake_paid += collected
        seat.save(update_fields=["rake_periods_charged", "time_rake_paid"])
    return collected
