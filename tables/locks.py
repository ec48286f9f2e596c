"""Lock helpers for the floor: one fixed order (table, then its rows, then ledger accounts)."""

from __future__ import annotations

from tables.models import Table, TrayRequest


def lock_table(*, table_id: int) -> Table:
    return Table.objects.select_for_update(of=("self",)).select_related("tray").get(pk=table_id)


def lock_tray_request(*, request_id: int) -> TrayRequest:
    return (
        TrayRequest.objects.select_for_update(of=("self",))
        .select_related("table", "table__tray")
        .get(pk=request_id)
    )
