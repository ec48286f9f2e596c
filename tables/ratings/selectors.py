"""Reads for ratings, hourly table figures and dealer performance: sums of small rows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from ledger.gaming_day import gaming_day_bounds
from tables.models import (
    LIVE_ROUND_STATUSES,
    DealerShift,
    RefusedAction,
    Round,
    RoundStatus,
    Seat,
)
from tables.ratings.compute import PlayerFigures
from tables.ratings.models import MILLI, RoundStat
from tables.ratings.services import round_figures, sittings_for
from tables.selectors import tray_moves


def _unrated_deals_during(*, table_id: Any, seated_at: Any, left_at: Any) -> QuerySet[Round]:
    """Deals at a table that overlap a sitting and have no rating rows yet: one still being dealt,
    or one settled whose rating task has not run. Voided deals are never rated: none of them.

    A sitting still open (``left_at`` NULL) overlaps none: ``started_at <= NULL`` is never true.
    """
    return (
        Round.objects.filter(table_id=table_id, started_at__lte=left_at, stat__isnull=True)
        .filter(status__in=[*LIVE_ROUND_STATUSES, RoundStatus.SETTLED])
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gte=seated_at))
    )


def list_sittings(*, player_id: int) -> QuerySet[Seat]:
    """A player's sittings, newest first, each annotated with its rating sums (one query), and
    with ``in_unrated_deal``: the player left during a deal not rated yet (``sitting_row``)."""
    unrated = _unrated_deals_during(
        table_id=OuterRef("table_id"), seated_at=OuterRef("seated_at"), left_at=OuterRef("left_at")
    )
    return (
        Seat.objects.filter(player_id=player_id)
        .select_related("table")
        .annotate(
            n_decisions=Coalesce(Sum("stats__decisions"), 0),
            n_handle=Coalesce(Sum("stats__handle"), 0),
            n_bets=Coalesce(Sum("stats__bets"), 0),
            n_theo_milli=Coalesce(Sum("stats__theo_milli"), 0),
            n_result=Coalesce(Sum("stats__result"), 0),
            in_unrated_deal=Exists(unrated),
        )
        .order_by("-seated_at", "-pk")
    )


def decided_before_leaving(seat: Seat) -> PlayerFigures:
    """The sitting's part of deals not rated yet: a Faro punter may leave mid-deal once nothing
    of theirs is on the layout, so what was decided by then is all the deal will ever give them.

    The same figures ``rate_round`` writes once the deal is rated, given to the same sitting
    (``sittings_for``); from then on the rows count them and this finds no deal, so nothing is
    counted twice.
    """
    part = PlayerFigures()
    deals = _unrated_deals_during(table_id=seat.table_id, seated_at=seat.seated_at, left_at=seat.left_at)
    for round_ in deals.order_by("pk"):
        mine = round_figures(round_).players.get(seat.player_id)
        if mine is None or sittings_for(round_, [seat.player_id]).get(seat.player_id) != seat.pk:
            continue
        part.handle += mine.handle
        part.result += mine.result
        part.bets += mine.bets
        part.decisions += mine.decisions
        part.theo_milli += mine.theo_milli
    return part


def sitting_row(seat: Any) -> dict[str, Any]:
    """One API row; theo adds the sitting's time rake and is rounded to the cent only here.

    A sitting that ended during a deal not rated yet adds its part of it (``decided_before_leaving``).
    """
    ended = seat.left_at
    minutes = int(((ended or timezone.now()) - seat.seated_at).total_seconds() // 60)
    part = decided_before_leaving(seat) if seat.in_unrated_deal else PlayerFigures()
    handle, bets = seat.n_handle + part.handle, seat.n_bets + part.bets
    theo_milli = seat.n_theo_milli + part.theo_milli + seat.time_rake_paid * MILLI
    theo = round(theo_milli / MILLI)
    return {
        "table": seat.table_id,
        "game": seat.table.game,
        "started": seat.seated_at,
        "ended": ended,
        "minutes": minutes,
        "decisions": seat.n_decisions + part.decisions,
        "handle": handle,
        "average_bet": handle // bets if bets else 0,
        "theo": theo,
        "result": seat.n_result + part.result,
        # A sitting whose bets favoured the player (Faro's odd early in a deal) earns no comps.
        "comp_points": max(int(theo_milli * settings.COMP_RATE // MILLI), 0),
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


def day_hours(day: dt.date) -> list[dt.datetime]:
    """The start of every real hour of a gaming day (23, 24 or 25 of them across a DST change).

    Counted in UTC: adding hours to a wall-clock time in the casino's zone would skip or repeat
    an hour on the nights the clocks change.
    """
    start, end = (moment.astimezone(dt.UTC) for moment in gaming_day_bounds(day))
    count = int((end - start).total_seconds() // 3600)
    return [start + dt.timedelta(hours=index) for index in range(count)]


def table_hours(*, table_id: int, day: dt.date) -> list[Hour]:
    """One row per hour of a gaming day: three grouped queries, whatever the night's size."""
    return tables_hours(table_ids=[table_id], day=day)[table_id]


def tables_hours(
    *, table_ids: Sequence[int], day: dt.date, fills_and_credits: bool = True
) -> dict[int, list[Hour]]:
    """``table_hours`` for many tables (the pit view) in the same three queries.

    ``fills_and_credits=False`` leaves every hour's fills and credits at 0 and skips reading them
    (two queries): the pit's charts draw neither, and on a 200-table floor the approved requests
    were the largest of its figures' reads.
    """
    begins = day_hours(day)
    start, end = begins[0], begins[-1] + dt.timedelta(hours=1)
    ids = list(table_ids)
    stats = {
        (row["table_id"], row["hour"]): row
        for row in RoundStat.objects.filter(table_id__in=ids, ended_at__gte=start, ended_at__lt=end)
        .values("table_id", "hour")
        .annotate(handle=Sum("handle"), win=Sum("win"), decisions=Sum("decisions"))
        .order_by()
    }
    trays = _approved_by_hour(ids, start, end) if fills_and_credits else {}
    seat_seconds = {table_id: [0.0] * len(begins) for table_id in ids}
    now = timezone.now()
    for table_id, seated_at, left_at in (
        Seat.objects.filter(table_id__in=ids, seated_at__lt=end)
        .filter(Q(left_at__isnull=True) | Q(left_at__gt=start))
        .values_list("table_id", "seated_at", "left_at")
    ):
        _spread(seat_seconds[table_id], start, max(seated_at, start), min(left_at or now, end))
    result: dict[int, list[Hour]] = {}
    # Most hours of a night are idle at most tables: one frozen Hour per idle hour serves them all
    # (200 tables by 24 hours were 4,800 objects for the pit's every refresh).
    idle = [
        Hour(hour=begin, handle=0, win=0, hold=None, fills=0, credits=0, decisions=0, occupancy=0.0)
        for begin in begins
    ]
    for table_id in ids:
        hours = []
        seconds = seat_seconds[table_id]
        for index, begin in enumerate(begins):
            found = stats.get((table_id, begin))
            fills = trays.get((table_id, index, "fill"), 0)
            credits = trays.get((table_id, index, "credit"), 0)
            if found is None and not fills and not credits and not seconds[index]:
                hours.append(idle[index])
                continue
            row: Mapping[str, Any] = found or {}
            handle, win = int(row.get("handle") or 0), int(row.get("win") or 0)
            hours.append(
                Hour(
                    hour=begin,
                    handle=handle,
                    win=win,
                    hold=round(win / handle, 6) if handle else None,
                    fills=fills,
                    credits=credits,
                    decisions=int(row.get("decisions") or 0),
                    occupancy=round(seconds[index] / 3600, 3),
                )
            )
        result[table_id] = hours
    return result


def _approved_by_hour(
    ids: list[int], start: dt.datetime, end: dt.datetime
) -> dict[tuple[int, int, str], int]:
    """Fills and credits per (table, hour index, kind), from ``start`` to ``end``, in the hour
    their chips crossed the tray (``tables.selectors.tray_moves``: one query)."""
    trays: dict[tuple[int, int, str], int] = {}
    for table_id, moment, kind, amount in tray_moves(ids, start, end):
        key = (table_id, _hour_index(moment, start), kind)
        trays[key] = trays.get(key, 0) + amount
    return trays


def _hour_index(moment: dt.datetime, start: dt.datetime) -> int:
    return int((moment - start).total_seconds() // 3600)


def _spread(buckets: list[float], day_start: dt.datetime, begin: dt.datetime, end: dt.datetime) -> None:
    """Add a sitting's seconds to each hour it overlaps (``day_start`` in UTC)."""
    cursor = begin
    while cursor < end:
        index = _hour_index(cursor, day_start)
        if index >= len(buckets):
            return
        hour_end = day_start + dt.timedelta(hours=index + 1)
        step_end = min(hour_end, end)
        buckets[index] += (step_end - cursor).total_seconds()
        cursor = step_end


Span = tuple[dt.datetime, dt.datetime]


def seconds_covered(spans: Iterable[Span]) -> float:
    """Seconds inside at least one of ``spans`` (begin, end): a dealer who holds two tables at
    once is on shift once, so overlapping shifts count their common time one time. The audit's
    dealer minutes and the dealers' pace both count time this way."""
    total = 0.0
    run: Span | None = None  # the overlapping spans merged so far
    for begin, end in sorted(span for span in spans if span[1] > span[0]):
        if run is not None and begin <= run[1]:
            run = (run[0], max(run[1], end))
            continue
        if run is not None:
            total += (run[1] - run[0]).total_seconds()
        run = (begin, end)
    if run is not None:
        total += (run[1] - run[0]).total_seconds()
    return total


def dealer_performance(*, dealer_id: int, day: dt.date) -> dict[str, Any]:
    return dealers_performance(dealer_ids=[dealer_id], day=day)[dealer_id]


def dealers_performance(*, dealer_ids: Sequence[int], day: dt.date) -> dict[int, dict[str, Any]]:
    """Minutes on shift, pace, handle, win and refusals per dealer: three queries for any number.

    Minutes are the time the dealer held any table (``seconds_covered``), and pace is their
    decisions per hour of it, so a dealer holding two tables at once is not on shift twice.
    """
    start, end = gaming_day_bounds(day)
    now = timezone.now()
    ids = list(dealer_ids)
    spans: dict[int, list[Span]] = {dealer_id: [] for dealer_id in ids}
    for dealer_id, started_at, ended_at in (
        DealerShift.objects.filter(dealer_id__in=ids, started_at__lt=end)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=start))
        .values_list("dealer_id", "started_at", "ended_at")
    ):
        spans[dealer_id].append((max(started_at, start), min(ended_at or now, end)))
    seconds = {dealer_id: seconds_covered(spans[dealer_id]) for dealer_id in ids}
    totals = {
        row["dealer_id"]: row
        for row in RoundStat.objects.filter(dealer_id__in=ids, ended_at__gte=start, ended_at__lt=end)
        .values("dealer_id")
        .annotate(decisions=Sum("decisions"), handle=Sum("handle"), win=Sum("win"))
        .order_by()
    }
    refused = dict(
        RefusedAction.objects.filter(actor_id__in=ids, at__gte=start, at__lt=end)
        .values("actor_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("actor_id", "n")
    )
    result: dict[int, dict[str, Any]] = {}
    for dealer_id in ids:
        row: Mapping[str, Any] = totals.get(dealer_id) or {}
        decisions = int(row.get("decisions") or 0)
        shift = seconds[dealer_id]
        result[dealer_id] = {
            "dealer": dealer_id,
            "minutes": int(shift // 60),
            "decisions": decisions,
            "decisions_per_hour": round(decisions * 3600 / shift, 1) if shift else 0.0,
            "handle": int(row.get("handle") or 0),
            "win": int(row.get("win") or 0),
            "refused_actions": int(refused.get(dealer_id, 0)),
        }
    return result
