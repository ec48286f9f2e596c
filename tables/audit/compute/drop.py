"""Drop and count: the day's drop boxes as the audit lists them (seal, recorded, counted, who counted).

A box is listed on the day it went to its table, each day its cash was recorded in, and the day
it was removed in (a box placed when the last was removed takes the next day's cash). Who
counted is the member who wrote the count (``counted_by``) and the second who signed its drop
slip as the count team.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Q

from casino.models import Role
from casino.selectors import staff_names
from ledger.gaming_day import gaming_day_bounds
from ledger.models import Transfer
from tables.audit import report as shape
from tables.audit.compute.win_data import CASH_BUY_IN
from tables.drop.models import DropBox
from tables.slips.models import Slip, SlipKind, SlipSignature, SlipStatus


def drop_boxes(day: dt.date) -> list[shape.DropBoxData]:
    """The boxes of the day: those that went to a table in it, took its cash, or were removed in it."""
    start, end = gaming_day_bounds(day)
    took = Transfer.objects.filter(kind=CASH_BUY_IN, gaming_day=day).values_list("meta__drop_box", flat=True)
    boxes = list(
        DropBox.objects.filter(
            Q(gaming_day=day)
            | Q(pk__in={int(pk) for pk in took if pk})
            | Q(removed_at__gte=start, removed_at__lt=end)
        )
        .select_related("table", "slip")
        .order_by("table__name", "sequence")
    )
    slip_ids = [b.slip_id for b in boxes if b.slip_id]
    signers: dict[int, list[int]] = defaultdict(list)
    for slip_id, user_id in SlipSignature.objects.filter(
        slip_id__in=slip_ids, role=Role.COUNT_TEAM
    ).values_list("slip_id", "user_id"):
        signers[slip_id].append(user_id)
    markers: dict[int, int] = defaultdict(int)
    for box_id, amount in (
        Slip.objects.filter(kind=SlipKind.MARKER, drop_box_id__in=[b.pk for b in boxes])
        .exclude(status=SlipStatus.VOID)
        .values_list("drop_box_id", "amount")
    ):
        markers[box_id] += amount
    names = staff_names(
        {uid for ids in signers.values() for uid in ids}
        | {b.removed_by_id for b in boxes if b.removed_by_id}
        | {b.counted_by_id for b in boxes if b.counted_by_id}
    )
    out: list[shape.DropBoxData] = []
    for box in boxes:
        counters = [box.counted_by_id] if box.counted_by_id else []
        counters += [uid for uid in signers.get(box.slip_id or 0, []) if uid not in counters]
        out.append(
            {
                "number": box.number,
                "table": box.table_id,
                "table_name": box.table.name,
                "status": box.status,
                "seal": box.seal,
                "recorded": box.recorded,
                "counted": box.counted,
                "variance": box.variance,
                "markers_amount": markers.get(box.pk, 0) if box.counted is not None else 0,
                "removed_by": names.get(box.removed_by_id, "") if box.removed_by_id else "",
                "removed_at": box.removed_at.isoformat() if box.removed_at else None,
                "counted_by": [names.get(uid, str(uid)) for uid in counters],
                "counted_at": box.counted_at.isoformat() if box.counted_at else None,
                "slip": box.slip.number if box.slip else None,
            }
        )
    return out
