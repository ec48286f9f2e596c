"""Lock helpers for the floor: one fixed order (table, then its rows, then ledger accounts)."""

from __future__ import annotations

from django.db import connection

from casino.errors import NotFound
from casino.rows import instance_from_row
from ledger.kept_cursor import kept_cursor
from tables import sql
from tables.models import Round, Table


def lock_table(*, table_id: int) -> Table:
    """The table, its row locked (404 when there is none), with its tray."""
    table = Table.objects.select_for_update(of=("self",)).select_related("tray").filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such table.")
    return table


def lock_table_of_round(*, round_id: int) -> Table | None:
    """The table a round is dealt at, its row locked as ``lock_table`` locks it (None: no such
    round), with the fields an action uses (``sql.LOCKED_TABLE_FIELDS``; any other is deferred,
    read on first use). Its tray is not read (``table.tray`` would be a query of its own).

    Found through the round in the same statement, so a round action does not first read the
    round only to learn which table to lock.
    """
    cursor = kept_cursor()
    cursor.execute(sql.LOCK_TABLE_OF_ROUND, [round_id])
    row = cursor.fetchone()
    return None if row is None else instance_from_row(Table, sql.LOCKED_TABLE_FIELDS, row)


def lock_round(*, round_id: int) -> Round | None:
    """A round locked in the order a round action locks it: its table, then the round (None: no
    such round).

    For writers beside the action (the ratings): their rows point at the table, and PostgreSQL
    checks those foreign keys at COMMIT with a share lock on the table row. Holding the round
    alone, such a writer deadlocks with an action that holds the table and waits for the round.
    """
    if lock_table_of_round(round_id=round_id) is None:
        return None
    return Round.objects.select_for_update(of=("self",)).get(pk=round_id)


def share_round(*, round_id: int) -> int | None:
    """Hold a round and its table as a new row pointing at both needs them (``FOR KEY SHARE``),
    in the order every writer locks them: the table, then the round. Returns the table's id
    (None: no such round). Call it inside the inserting transaction.

    For writers that only insert such a row (a refused action's log). PostgreSQL checks those
    foreign keys at COMMIT in its triggers' order, the round before the table; against an action
    that holds the table and waits for the round, that is a deadlock (issue 44). Held here
    first, in the action's order, the checks at COMMIT find both rows already held.
    """
    with connection.cursor() as cursor:
        cursor.execute(sql.SHARE_TABLE_OF_ROUND, [round_id])
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(sql.SHARE_ROUND, [round_id])
    return int(row[0])
