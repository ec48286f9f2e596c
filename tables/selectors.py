"""Reads for tables; ``access_*`` fetch and authorize in one step."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from django.db.models import Prefetch, QuerySet

from casino.errors import NotFound
from casino.permissions import require_staff
from casino.selectors import ids_in
from tables.models import LIVE_ROUND_STATUSES, Round, RoundSettlement, Seat, Table, TableSession, TrayRequest


def _tables(*, sessions: bool = True) -> QuerySet[Table]:
    """Tables with their tray, dealer and seated players (``active_seats``, with the wallets whose
    codes name them in a receipt), and with ``sessions`` their open session (``open_sessions``,
    read by ``get_open_session``)."""
    tables = Table.objects.select_related("tray", "dealer").prefetch_related(
        Prefetch(
            "seatings",
            queryset=Seat.objects.filter(left_at__isnull=True)
            .select_related("player__user", "player__wallet")
            .order_by("number"),
            to_attr="active_seats",
        )
    )
    if not sessions:
        return tables
    return tables.prefetch_related(
        Prefetch(
            "sessions", queryset=TableSession.objects.filter(closed_at__isnull=True), to_attr="open_sessions"
        )
    )


def list_tables(*, user: Any) -> QuerySet[Table]:
    require_staff(user)
    return _tables().order_by("name")


TABLE_REF = re.compile(r"\b[Tt]able (?P<id>\d+)\b")


def tables_named(messages: Sequence[str]) -> list[str]:
    """``messages`` with every "table 5" in them put as the table's name ("Faro 1"), with one read
    for all of them (an alert list's summaries); an id that is no table stays as it was."""
    ids = ids_in(TABLE_REF, messages)
    names = dict(Table.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    return [
        TABLE_REF.sub(lambda found: names.get(int(found.group("id")), found.group(0)), message)
        for message in messages
    ]


def access_table(*, user: Any, table_id: int, sessions: bool = True) -> Table:
    """The table as ``_tables`` reads it (``sessions``: with its open session)."""
    require_staff(user)
    table = _tables(sessions=sessions).filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such table.")
    return table


def get_open_session(table: Table) -> TableSession | None:
    sessions = getattr(table, "open_sessions", None)
    if sessions is not None:
        return sessions[0] if sessions else None
    return TableSession.objects.filter(table=table, closed_at__isnull=True).first()


def last_closing_count(table: Table) -> int | None:
    """The tray's count when the table last closed (the next opener's starting point), if ever."""
    return (
        TableSession.objects.filter(table=table, closed_at__isnull=False)
        .order_by("-closed_at")
        .values_list("closing_inventory", flat=True)
        .first()
    )


def list_pending_tray_requests() -> QuerySet[TrayRequest]:
    return (
        TrayRequest.objects.filter(status="pending")
        .select_related("table", "requested_by")
        .order_by("requested_at")
    )


def get_live_round(table: Table) -> Round | None:
    return Round.objects.filter(table=table, status__in=LIVE_ROUND_STATUSES).first()


class SettlementRow(NamedTuple):
    """A settlement as the round API lists it and a console receipt words it (``RoundSettlement``'s
    columns, the order of ``apply_round_action``'s ``settlements_made``)."""

    transfer_id: int
    kind: str
    amount: int
    player_id: int | None
    from_account: str
    to_account: str


SETTLEMENT_COLUMNS = SettlementRow._fields


def round_settlements(*, round_id: int) -> QuerySet[RoundSettlement]:
    """The round's live settlements (a correction's voided ones left out), oldest first."""
    return RoundSettlement.objects.filter(round_id=round_id).order_by("pk")


def list_round_settlements(
    *, round_id: int
) -> QuerySet[RoundSettlement, tuple[int, str, int, int | None, str, str]]:
    """The round's settlements, oldest first, as ``SETTLEMENT_COLUMNS`` tuples."""
    return round_settlements(round_id=round_id).values_list(*SETTLEMENT_COLUMNS)
