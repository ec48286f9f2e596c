"""Reads for the pit view: every table at a glance, and the house's win so far tonight."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, Sum

from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.models import Round, Table, TableSession, TrayRequest, TrayRequestKind, TrayRequestStatus
from tables.selectors import get_live_round, get_open_session, list_tables


@dataclass(frozen=True, slots=True)
class FloorRow:
    table: Table
    session: TableSession | None
    live_round: Round | None
    win_tonight: int
    players: int


def _approved(table: Table, kind: str, since: dt.datetime) -> int:
    total = TrayRequest.objects.filter(
        table=table, kind=kind, status=TrayRequestStatus.APPROVED, decided_at__gte=since
    ).aggregate(total=Sum("amount"))["total"]
    return int(total or 0)


def win_so_far(session: TableSession, tray_balance: int) -> int:
    """closer + credits - opener - fills; an open session uses the tray now as its provisional closer."""
    if session.closed_at is not None and session.win is not None:
        return session.win
    fills = _approved(session.table, TrayRequestKind.FILL, session.opened_at)
    credits = _approved(session.table, TrayRequestKind.CREDIT, session.opened_at)
    return tray_balance + credits - session.opening_inventory - fills


def tonight_start(now: dt.datetime | None = None) -> dt.datetime:
    return gaming_day_bounds(gaming_day_for(now))[0]


def win_tonight(table: Table, *, since: dt.datetime) -> int:
    """Every session of this gaming day, closed or still open."""
    sessions = TableSession.objects.filter(table=table).filter(
        Q(opened_at__gte=since) | Q(closed_at__isnull=True)
    )
    return sum(win_so_far(session, table.tray.balance) for session in sessions.select_related("table"))


def list_floor(*, user: Any) -> list[FloorRow]:
    since = tonight_start()
    rows = []
    for table in list_tables(user=user):
        rows.append(
            FloorRow(
                table=table,
                session=get_open_session(table),
                live_round=get_live_round(table),
                win_tonight=win_tonight(table, since=since),
                players=len(getattr(table, "active_seats", [])),
            )
        )
    return rows
