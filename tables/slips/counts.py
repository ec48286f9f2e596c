"""Counts of a tray written as slips: the opener, the closer, and a count that leaves the table open.

Every count is a slip that carries ``expected`` (the ledger's tray when counted) and the
``variance`` between them, and that the table's dealer and a pit boss sign (tables.slips.flows).
A variance beyond what the pit lets pass raises its alert in the same transaction
(tables.slips.alerts).

A shift-change or spot count moves no chips: it records what the tray held against the ledger,
and its variance is what the pit investigates. Only the opener and the closer adjust the tray to
the count (over/short, ``tables.services``), as the session's win is measured between them.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from casino.errors import Conflict, ValidationFailed
from casino.models import User
from casino.permissions import require
from tables.locks import lock_table
from tables.models import Table, TableSession, TableStatus
from tables.slips.alerts import raise_variance_alert
from tables.slips.chips import count_amount, parse_count
from tables.slips.models import CountReason, Slip, SlipKind
from tables.slips.services import issue_slip


def write_count_slip(
    *,
    kind: str,
    actor: User,
    table: Table,
    session: TableSession | None,
    amount: int,
    count: dict[str, int] | None,
    expected: int,
    reason: str = "",
) -> Slip:
    """A count's slip (opener, closer or count) and its variance alert. Call with the table
    locked and before any ledger account is (the number's counter row comes first)."""
    slip = issue_slip(
        kind=kind,
        requested_by=actor,
        table=table,
        session=session,
        amount=amount,
        count=count,
        expected=expected,
        reason=reason,
    )
    raise_variance_alert(slip)
    return slip


def check_reason(reason: Any) -> str:
    if reason not in CountReason.values:
        choices = " or ".join(f'"{value}"' for value in CountReason.values)
        raise ValidationFailed(f"reason must be {choices}.", fields={"reason": "unknown reason"})
    return str(reason)


@transaction.atomic
def take_count(*, actor: User, table_id: int, count: Any, reason: Any) -> Slip:
    """A shift-change or spot count of an open table's tray: a count slip; the table stays open
    and nothing moves (the module's docstring says why)."""
    table = lock_table(table_id=table_id)
    require(actor, "table.count", table=table)
    reason = check_reason(reason)
    pieces = parse_count(count)
    session = TableSession.objects.filter(table=table, closed_at__isnull=True).first()
    if table.status != TableStatus.OPEN or session is None:
        raise Conflict(
            f"{table.name} is not open: its tray is counted when it opens and closes.", code="table_closed"
        )
    return write_count_slip(
        kind=SlipKind.COUNT,
        actor=actor,
        table=table,
        session=session,
        amount=count_amount(pieces),
        count=pieces,
        expected=table.tray.balance,
        reason=reason,
    )
