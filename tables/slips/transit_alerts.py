"""Slips in transit too long: a fill the cage issued, or a credit the pit released, that nobody
has signed for after ``SLIP_TRANSIT_MINUTES`` raises an alert ``slip_in_transit`` (chips that
left one side and did not reach the other are what a walk-away looks like).

Beat runs it every minute (``tables.tasks.alert_slips_in_transit_task``); safe to run again and
again: the alert's ``dedup_key`` is the slip's number, so each slip raises one alert, whatever
the runs.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.money import format_dollars
from tables.detection.models import SLIP_ALERT_KINDS, Alert
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.services import lock_slip

KIND = "slip_in_transit"
DETECTOR = "slips"
_FROM_TO: dict[str, tuple[str, str]] = {
    SlipKind.FILL: ("the cage", "the table"),
    SlipKind.CREDIT: ("the table", "the cage"),
}


def dedup_key(slip: Slip) -> str:
    return f"{KIND}:{slip.number}"


def _left_at(slip: Slip) -> dt.datetime:
    """When its chips went into transit (its issue transfer's time)."""
    assert slip.issue_transfer is not None  # an issued slip has one
    return slip.issue_transfer.created_at


def overdue_slips(*, now: dt.datetime | None = None) -> list[Slip]:
    """Fills and credits in transit since before ``SLIP_TRANSIT_MINUTES`` ago with no alert yet."""
    since = (now or timezone.now()) - dt.timedelta(minutes=settings.SLIP_TRANSIT_MINUTES)
    alerted = Alert.objects.filter(kind=KIND).values_list("dedup_key", flat=True)
    slips = Slip.objects.filter(
        kind__in=tuple(_FROM_TO), status=SlipStatus.ISSUED, issue_transfer__created_at__lte=since
    ).select_related("issue_transfer", "table")
    seen = set(alerted.filter(dedup_key__in=[dedup_key(s) for s in slips]))
    return [slip for slip in slips if dedup_key(slip) not in seen]


def _raise(slip_id: int, *, now: dt.datetime) -> bool:
    """One slip's alert, if it is still in transit past the limit: the table then the slip
    locked (tables.locks' order), so a signature landing meanwhile is seen."""
    with transaction.atomic():
        slip = lock_slip(slip_id=slip_id)
        if slip.status != SlipStatus.ISSUED or slip.issue_transfer is None:
            return False
        minutes = int((now - _left_at(slip)).total_seconds() // 60)
        if minutes < settings.SLIP_TRANSIT_MINUTES:
            return False
        source, destination = _FROM_TO[slip.kind]
        table = slip.table.name if slip.table is not None else "no table"
        try:
            with transaction.atomic():
                Alert.objects.create(
                    dedup_key=dedup_key(slip),
                    kind=KIND,
                    detector=DETECTOR,
                    severity=SLIP_ALERT_KINDS[KIND],
                    table_id=slip.table_id,
                    gaming_day=slip.gaming_day,
                    summary=(
                        f"{slip.kind.title()} {slip.number} of {format_dollars(slip.amount)} for {table} "
                        f"left {source} {minutes} minutes ago and has not reached {destination}."
                    )[:300],
                    evidence={
                        "slip": slip.number,
                        "slip_id": slip.pk,
                        "kind": slip.kind,
                        "amount": slip.amount,
                        "minutes": minutes,
                        "since": _left_at(slip).isoformat(),
                        "needs": list(slip.needs),
                    },
                )
        except IntegrityError:  # another run raised it first
            return False
    return True


def alert_slips_in_transit(*, now: dt.datetime | None = None) -> int:
    """Raise ``slip_in_transit`` for every overdue slip without one; how many were raised."""
    moment = now or timezone.now()
    return sum(_raise(slip.pk, now=moment) for slip in overdue_slips(now=moment))
