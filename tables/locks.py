"""Lock helpers for the floor: one fixed order (table, then its rows, then ledger accounts)."""

from __future__ import annotations

from tables.models import Round, Table, TrayRequest


def lock_table(*, table_id: int) -> Table:
    return Table.objects.select_for_update(of=("self",)).select_related("tray").get(pk=table_id)


def lock_table_of_round(*, round_id: int) -> Table | None:
    """The table a round is dealt at, locked as ``lock_table`` locks it (None: no such round).

    Found through the round in the same statement, so a round action does not first read the
    round only to learn which table to lock.
    """
    return (
        Table.objects.select_for_update(of=("self",))
        .select_related("tray")
        .filter(rounds__pk=round_id)
        .first()
    )


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


def lock_tray_request(*, request_id: int) -> TrayRequest:
    return (
        TrayRequest.objects.select_for_update(of=("self",))
        .select_related("table", "table__tray")
        .get(pk=request_id)
    )
