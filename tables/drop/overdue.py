"""Drop boxes left at their tables too long: a box still at its table ``DROP_BOX_OVERDUE_DAYS``
gaming days after it went there raises an alert ``drop_box_overdue`` (the count team removes
every box each gaming day; cash that stays under a table is cash nobody has counted).

Beat runs it every hour (``tables.tasks.alert_drop_boxes_overdue_task``); safe to run again and
again: the alert's ``dedup_key`` is the box's number, so each box raises one alert, whatever the
runs. Built as ``tables.slips.transit_alerts`` is.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.money import format_dollars
from ledger.gaming_day import gaming_day_for
from tables.detection.models import SLIP_ALERT_KINDS, Alert
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.services import lock_box

KIND = "drop_box_overdue"
DETECTOR = "drop"


def dedup_key(box: DropBox) -> str:
    return f"{KIND}:{box.number}"


def _latest_day(today: dt.date) -> dt.date:
    """The last gaming day a box may have gone to its table and not be overdue today."""
    return today - dt.timedelta(days=settings.DROP_BOX_OVERDUE_DAYS)


def overdue_boxes(*, now: dt.datetime | None = None) -> list[DropBox]:
    """Boxes at their tables since ``DROP_BOX_OVERDUE_DAYS`` gaming days ago or more, no alert yet."""
    since = _latest_day(gaming_day_for(now or timezone.now()))
    boxes = list(
        DropBox.objects.filter(status=DropBoxStatus.AT_TABLE, gaming_day__lte=since).select_related("table")
    )
    alerted = set(
        Alert.objects.filter(kind=KIND, dedup_key__in=[dedup_key(b) for b in boxes]).values_list(
            "dedup_key", flat=True
        )
    )
    return [box for box in boxes if dedup_key(box) not in alerted]


def _raise(box_id: int, *, today: dt.date) -> bool:
    """One box's alert, if it is still at its table past the limit: the table then the box
    locked (tables.locks' order), so a removal landing meanwhile is seen."""
    with transaction.atomic():
        box = lock_box(box_id=box_id)
        if box.status != DropBoxStatus.AT_TABLE or box.gaming_day > _latest_day(today):
            return False
        days = (today - box.gaming_day).days
        try:
            with transaction.atomic():
                Alert.objects.create(
                    dedup_key=dedup_key(box),
                    kind=KIND,
                    detector=DETECTOR,
                    severity=SLIP_ALERT_KINDS[KIND],
                    table_id=box.table_id,
                    gaming_day=today,
                    summary=(
                        f"Drop box {box.number} at {box.table.name} has been at the table {days} gaming days "
                        f"(since {box.gaming_day:%d %b %Y}) with {format_dollars(box.recorded)} recorded "
                        "into it: the count team has not removed it."
                    )[:300],
                    evidence={
                        "box": box.number,
                        "box_id": box.pk,
                        "recorded": box.recorded,
                        "days": days,
                        "since": box.gaming_day.isoformat(),
                    },
                )
        except IntegrityError:  # another run raised it first
            return False
    return True


def alert_drop_boxes_overdue(*, now: dt.datetime | None = None) -> int:
    """Raise ``drop_box_overdue`` for every overdue box without one; how many were raised."""
    today = gaming_day_for(now or timezone.now())
    return sum(_raise(box.pk, today=today) for box in overdue_boxes(now=now))
