"""Reads for the pit view: every table at a glance, and the house's win so far tonight.

The pit polls every 5 s, so a refresh costs a fixed number of queries however many tables
there are: the tables with their trays, dealers and how many players are seated; tonight's
sessions (the open one among them), each annotated with its approved fills and credits; and the
live rounds, each one query for the whole floor.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    BigIntegerField,
    Count,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from casino.permissions import require_staff
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.models import (
    LIVE_ROUND_STATUSES,
    Round,
    Seat,
    Table,
    TableSession,
    TrayRequestKind,
    table_win,
)
from tables.selectors import approved_slips, approved_total


@dataclass(frozen=True, slots=True)
class FloorRow:
    table: Table
    session: TableSession | None
    live_round: Round | None
    win_tonight: int
    players: int


def _approved_since_opening(kind: str) -> Coalesce:
    """The session's table's approved ``kind`` total, decided at or after the session opened."""
    total = (
        approved_slips(kind)
        .filter(table_id=OuterRef("table_id"), decided_at__gte=OuterRef("opened_at"))
        .order_by()
        .values("table_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(total), Value(0), output_field=BigIntegerField())


def sessions_with_tray_totals() -> QuerySet[TableSession]:
    """Sessions carrying ``approved_fills`` and ``approved_credits``, so ``win_so_far`` needs no query."""
    return TableSession.objects.annotate(
        approved_fills=_approved_since_opening(TrayRequestKind.FILL),
        approved_credits=_approved_since_opening(TrayRequestKind.CREDIT),
    )


def win_so_far(session: TableSession, tray_balance: int) -> int:
    """closer + credits - opener - fills; an open session uses the tray now as its provisional closer."""
    if session.closed_at is not None and session.win is not None:
        return session.win
    fills = getattr(session, "approved_fills", None)
    credits = getattr(session, "approved_credits", None)
    if fills is None or credits is None:  # a session fetched without the annotations
        fills = approved_total(session.table_id, TrayRequestKind.FILL, session.opened_at)
        credits = approved_total(session.table_id, TrayRequestKind.CREDIT, session.opened_at)
    return table_win(
        opener=session.opening_inventory, closer=tray_balance, fills=int(fills), credits=int(credits)
    )


def tonight_start(now: dt.datetime | None = None) -> dt.datetime:
    return gaming_day_bounds(gaming_day_for(now))[0]


def _tonight(since: dt.datetime) -> Q:
    """Opened this gaming day, or still open (a shift carried over from the day before)."""
    return Q(opened_at__gte=since) | Q(closed_at__isnull=True)


def win_tonight(table: Table, *, since: dt.datetime) -> int:
    """Every session of this gaming day, closed or still open.

    ``list_floor`` prefetches the sessions (``sessions_tonight``, for the same ``since``);
    otherwise one query reads them with their fills and credits.
    """
    sessions = getattr(table, "sessions_tonight", None)
    if sessions is None:
        sessions = sessions_with_tray_totals().filter(_tonight(since), table=table)
    return sum(win_so_far(session, table.tray.balance) for session in sessions)


def _seated_now() -> Coalesce:
    """How many players sit at the table now: the pit shows the number, not who (the seats, their
    players and users were 600 objects to build for a 200-table floor)."""
    seated = (
        Seat.objects.filter(table_id=OuterRef("pk"), left_at__isnull=True)
        .order_by()
        .values("table_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(seated), Value(0), output_field=IntegerField())


def list_floor(*, user: Any) -> list[FloorRow]:
    require_staff(user)
    return floor_rows()


def floor_rows() -> list[FloorRow]:
    """Every table's pit row, by name; the caller has checked who reads it (``list_floor``)."""
    since = tonight_start()
    tables = (
        Table.objects.select_related("tray", "dealer")
        .annotate(seated_now=_seated_now())
        .order_by("name")
        .prefetch_related(
            Prefetch(
                "sessions",
                queryset=sessions_with_tray_totals().filter(_tonight(since)).order_by("pk"),
                to_attr="sessions_tonight",
            ),
            Prefetch(
                "rounds",
                # Only what a card says of the live deal (``pit_floor._live_deal``): the rest of a
                # round (its rules, context, seeds, holds, times) is decoded for nothing 200 times.
                queryset=Round.objects.filter(status__in=LIVE_ROUND_STATUSES)
                .only("id", "table_id", "game", "number", "status", "state")
                .order_by("pk"),
                to_attr="live_rounds",
            ),
        )
    )
    return [
        FloorRow(
            table=table,
            # The one session still open (a table has at most one) is among tonight's: they include it.
            session=next((s for s in table.sessions_tonight if s.closed_at is None), None),
            live_round=next(iter(table.live_rounds), None),
            win_tonight=win_tonight(table, since=since),
            players=getattr(table, "seated_now", 0),
        )
        for table in tables
    ]


def tonights_last_deal(table: Table) -> Round | None:
    """The table's newest deal if it was dealt tonight: in the session open now, this gaming day.
    A deal of an earlier night or session is history (the pit's and the audit's), not the deal the
    dealer is at: the screen opens on "Start deal" instead of on last night's result."""
    tonight = Round.objects.filter(table=table, session__closed_at__isnull=True)
    return tonight.filter(started_at__gte=tonight_start()).order_by("-number").first()
