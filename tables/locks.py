"""Lock helpers for the floor: one fixed order (table, then its rows, then ledger accounts)."""

from __future__ import annotations

from tables.models import Table, TrayRequest


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


def lock_tray_request(*, request_id: int) -> TrayRequest:
    return (
        TrayRequest.objects.select_for_update(of=("self",))
        .select_related("table", "table__tray")
        .get(pk=request_id)
    )
