"""The slips waiting for a dealer's signature at their table: markers the pit issued there (and
fills received), each signed with the dealer's own password on the books' row
(``tables.console.books``: the same form, service and answer as the pit's and the cage's lists)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import Role
from casino.permissions import actor_of
from casino.signed_in import signed_in_get
from tables.console.access import dealer_table
from tables.console.books.rows import slip_row
from tables.slips.models import SlipStatus
from tables.slips.selectors import list_slips


@signed_in_get
def table_slips(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table's slips that still need the dealer, oldest first (none they signed already)."""
    table = dealer_table(request.user, table_id)
    actor = actor_of(request)
    slips = (
        list_slips()
        .filter(table=table, needs__contains=[Role.DEALER.value])
        .exclude(status=SlipStatus.VOID)
        .order_by("id")
    )
    rows = [row for row in (slip_row(slip, actor) for slip in slips) if row.may_sign]
    context = {"rows": rows, "title": f"Slips to sign at {table.name}", "screen": "dealer", "table": table}
    return render(request, "books/waiting.html", context)
