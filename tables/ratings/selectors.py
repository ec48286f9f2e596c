"""Reads for ratings, hourly table figures and dealer performance: sums of small rows."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from ledger.gaming_day import gaming_day_bounds
from tables.models import DealerShift, RefusedAction, RoundStat, Seat, TrayRequest, TrayRequestStatus

MILLI = 1000


def list_sittings(*, player_id: int, start: dt.datetime | None, end: dt.datetime | None) -> QuerySet[Seat]:
    """A player's sittings, newest first, each annotated with its rating sums (one query)."""
    sittings = (
        Seat.objects.filter(player_id=player_id)
        .select_related("table")
        .annotate(
            n_decisions=Coalesce(Sum("stats__decisions"), 0),
            n_handle=Coalesce(Sum("stats__handle"), 0),
            n_bets=Coalesce(Sum("stats__bets"), 0),
            n_theo_milli=Coalesce(Sum("stats__theo_milli"), 0),
            n_result=Coalesce(Sum("stats__result"), 0),
        )
        .order_by("-seated_at", "-pk")
    )
    if start is not None:
        sittings = sittings.filter(Q(left_at__isnull=True) | Q(left_at__gte=start))
    if end is not None:
        sittings = sittings.filter(seated_at__lt=end)
    return sittings


def sitting_row(seat: Any) -> dict[str, Any]:
    """One API row; theo adds the sitting's time rake and is rounded to the cent only here."""
    ended = seat.left_at
    minutes = int(((ended or timezone.now()) - seat.seated_at).total_seconds() // 60)
    theo_milli = seat.n_theo_milli + seat.time_rake_paid * MILLI
    theo = round(theo_milli / MILLI)
    return {
        "table": seat.table_id,
        "game": seat.table.game,
        "started": seat.seated_at,
        "ended": ended,
        "minutes": minutes,
        "decisions": seat.n_decisions,
        "handle": seat.n_handle,
        "average_bet": seat.n_handle // seat.n_bets if seat.n_bets else 0,
        "theo": theo,
        "result": seat.n_result,
        "comp_points": int(theo_milli * settings.COMP_RATE // MILLI),
    }


@dataclass(frozen=True, slots=True)
class Hour:
    hour: dt.datetime
    handle: int
    win: int
    hold: float | None
    fills: int
    credits: int
    decisions: int
    occupancy: float


def table_hours(*, table_id: int, day: dt.date) -> list[Hour]:
    """24 rows for a gaming day: three grouped queries, whatever the night's size."""
    start, end = gaming_day_bounds(day)
    stats = {
        row["hour"]: row
        for row in RoundStat.objects.filter(table_id=table_id, ended_at__gte=start, ended_at__lt=end)
        .values("hour")
        .annotate(handle=Sum("handle"), win=Sum("win"), decisions=Sum("decisions"))
    }
    trays: dict[tuple[dt.datetime, str], int] = {}
    for decided_at, kind, amount in TrayRequest.objects.filter(
        table_id=table_id, status=TrayRequestStatus.APPROVED, decided_at__gte=start, decided_at__lt=end
    ).values_list("decided_at", "kind", "amount"):
        if decided_at is not None:
            key = (_hour_index(decided_at, start), kind)
            trays[key] = trays.get(key, 0) + amount
    seat_seconds = [0.0] * 24
    for seated_at, left_at in (
        Seat.objects.filter(table_id=table_id, seated_at__lt=end)
        .filter(Q(left_at__isnull=True) | Q(left_at__gt=start))
        .values_list("seated_at", "left_at")
    ):
        _spread(seat_seconds, start, max(seated_at, start), min(left_at or timezone.now(), end))
    hours = []
    for index in range(24):
        begin = start + dt.timedelta(hours=index)
        row: dict[str, Any] = dict(stats.get(begin) or {})
        handle, win = int(row.get("handle") or 0), int(row.get("win") or 0)
        hours.append(
            Hour(
                hour=begin,
                handle=handle,
                win=win,
                hold=round(win / handle, 6) if handle else None,
                fills=trays.get((begin, "fill"), 0),
                credits=trays.get((begin, "credit"), 0),
                decisions=int(row.get("decisions") or 0),
                occupancy=round(seat_seconds[index] / 3600, 3),
            )
        )
    return hours


def _hour_index(moment: dt.datetime, start: dt.datetime) -> dt.datetime:
    offset = int((moment - start).total_seconds() // 3600)
    return start + dt.timedelta(hours=offset)


def _spread(buckets: list[float], day_start: dt.datetime, begin: dt.datetime, end: dt.datetime) -> None:
    """Add a sitting's seconds to each hour it overlaps."""
    cursor = begin
    while cursor < end:
        index = int((cursor - day_start).total_seconds() // 3600)
        if index >= len(buckets):
            return
        hour_end = day_start + dt.timedelta(hours=index + 1)
        step_end = min(hour_end, end)
        buckets[index] += (step_end - cursor).total_seconds()
        cursor = step_end


def dealer_performance(*, dealer_id: int, day: dt.date) -> dict[str, Any]:
    start, end = gaming_day_bounds(day)
    now = timezone.now()
    seconds = 0.0
    for started_at, ended_at in (
        DealerShift.objects.filter(dealer_id=dealer_id, started_at__lt=end)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=start))
        .values_list("started_at", "ended_at")
    ):
        seconds += max((min(ended_at or now, end) - max(started_at, start)).total_seconds(), 0)
    totals = RoundStat.objects.filter(dealer_id=dealer_id, ended_at__gte=start, ended_at__lt=end).aggregate(
        decisions=Coalesce(Sum("decisions"), 0),
        handle=Coalesce(Sum("handle"), 0),
        win=Coalesce(Sum("win"), 0),
    )
    refused = RefusedAction.objects.filter(actor_id=dealer_id, at__gte=start, at__lt=end).aggregate(
        n=Count("pk")
    )["n"]
    minutes = int(seconds // 60)
    return {
        "dealer": dealer_id,
        "minutes": minutes,
        "decisions": totals["decisions"],
        "decisions_per_hour": round(totals["decisions"] * 3600 / seconds, 1) if seconds else 0.0,
        "handle": totals["handle"],
        "win": totals["win"],
        "refused_actions": refused,
    }
