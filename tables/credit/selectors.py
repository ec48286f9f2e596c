"""Reading credit: a player's line against the ledger, markers with their age, and the day's
credit for the audit."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from casino.errors import NotFound, ValidationFailed
from casino.models import Player
from ledger.gaming_day import gaming_day_for
from ledger.models import Account
from tables.accounts import receivable_code
from tables.credit.models import CreditLine, Marker
from tables.slips.models import SlipStatus

# ``GET /markers?status=``: whether a marker is still owed, or where its slip stands.
OUTSTANDING, REDEEMED = "outstanding", "redeemed"
MARKER_STATUSES = (OUTSTANDING, REDEEMED, SlipStatus.PENDING.value, SlipStatus.FINAL.value)


@dataclass(frozen=True)
class CreditSummary:
    player: int
    player_name: str
    limit: int
    outstanding: int  # the balance of the player's markers receivable
    available: int
    set_by: int | None


def credit_summary(*, player: Player) -> CreditSummary:
    """A player's line; ``outstanding`` is the ledger's receivable (0 and no limit without a line)."""
    line = CreditLine.objects.filter(player=player).select_related("receivable").first()
    if line is None:
        owed = (
            Account.objects.filter(code=receivable_code(player.pk)).values_list("balance", flat=True).first()
        )
        return CreditSummary(player.pk, player.name, 0, int(owed or 0), 0, None)
    owed = line.receivable.balance
    return CreditSummary(player.pk, player.name, line.limit, owed, max(line.limit - owed, 0), line.set_by_id)


def today() -> dt.date:
    return gaming_day_for(timezone.now())


def days_outstanding(marker: Marker, *, on: dt.date | None = None) -> int:
    """Days since the marker's gaming day (0 on the day it was issued)."""
    return ((on or today()) - marker.slip.gaming_day).days


def collection_deadline(marker: Marker) -> dt.date:
    return marker.slip.gaming_day + dt.timedelta(days=settings.MARKER_COLLECTION_DAYS)


def past_deadline(marker: Marker, *, on: dt.date | None = None) -> bool:
    """Unpaid after the casino's collection deadline (``MARKER_COLLECTION_DAYS``)."""
    return marker.outstanding > 0 and (on or today()) > collection_deadline(marker)


def list_markers(*, player: int | None = None, status: str | None = None) -> QuerySet[Marker]:
    """Markers newest first, with their slips, players and tables (filtered as asked)."""
    markers = Marker.objects.select_related("slip__table", "player__user").order_by("-id")
    if player is not None:
        markers = markers.filter(player_id=player)
    return markers if status is None else with_status(markers, status)


def with_status(markers: QuerySet[Marker], status: str) -> QuerySet[Marker]:
    """``outstanding`` (still owed), ``redeemed`` (paid in full), or the slip's ``pending``/``final``."""
    if status not in MARKER_STATUSES:
        raise ValidationFailed(
            f"status must be one of {', '.join(MARKER_STATUSES)}.", fields={"status": status}
        )
    if status == OUTSTANDING:
        return markers.filter(outstanding__gt=0)
    if status == REDEEMED:
        return markers.filter(outstanding=0)
    return markers.filter(slip__status=status)


def get_marker(*, marker_id: int) -> Marker:
    marker = list_markers().filter(slip_id=marker_id).first()
    if marker is None:
        raise NotFound("No such marker.")
    return marker


def open_markers_of(*, player: Player) -> list[Marker]:
    """The player's markers still owed, oldest first: what the cage screen offers to redeem."""
    return list(list_markers(player=player.pk, status=OUTSTANDING).order_by("id"))
