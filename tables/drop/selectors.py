"""Reading drop boxes: the list the API pages through and the count room's two lists."""

from __future__ import annotations

from django.db.models import QuerySet

from tables.drop.models import DropBox, DropBoxStatus
from tables.slips.models import Slip, SlipKind, SlipStatus


def list_boxes() -> QuerySet[DropBox]:
    """Every box, newest first, with its table."""
    return DropBox.objects.select_related("table").order_by("-id")


def boxes_waiting() -> QuerySet[DropBox]:
    """Removed, not yet counted: the count room's work, oldest first."""
    return list_boxes().filter(status=DropBoxStatus.REMOVED).order_by("removed_at", "id")


def boxes_at_tables() -> QuerySet[DropBox]:
    """The box at each table, by table name."""
    return list_boxes().filter(status=DropBoxStatus.AT_TABLE).order_by("table__name")


def markers_in(box: DropBox) -> QuerySet[Slip]:
    """The marker slips that went into ``box`` and stand (not void), in the order written."""
    return (
        Slip.objects.filter(drop_box=box, kind=SlipKind.MARKER).exclude(status=SlipStatus.VOID).order_by("id")
    )
