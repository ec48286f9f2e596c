"""Who may use which screen: dealers the console (their own tables), pit staff the pit view.

A refusal is ``casino.signed_in.NotAllowed``, which ``signed_in`` renders as a polite page.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet

from casino.errors import NotFound
from casino.permissions import SCREENS, may_open
from casino.signed_in import NotAllowed
from tables.models import Table
from tables.selectors import table_with_seats


def dealer_table(user: Any, table_id: int) -> Table:
    """The table, if it is assigned to this dealer: dealers see only their own tables. Read with
    its tray and seats, not its session, which the dealer's screens do not show."""
    if not may_open(user, "tables"):
        raise NotAllowed("The dealer console is for dealers. Pit bosses and cashiers use the pit view.")
    table = table_with_seats(table_id)
    if table is None:
        raise NotFound("No such table.")
    if table.dealer_id != user.pk:
        raise NotAllowed(f"{table.name} is not assigned to you. Ask the pit boss to assign it.")
    return table


def found[M: Model](rows: QuerySet[M], missing: str) -> M:
    """The first of ``rows``, or a 404 page saying ``missing`` (even from a tap's work: no flash)."""
    row = rows.first()
    if row is None:
        raise NotAllowed(missing, status=404)
    return row


def require_pit(user: Any) -> None:
    if not may_open(user, "floor"):
        raise NotAllowed("The pit view is for pit bosses and cashiers.")


def require_screen(user: Any, screen: str) -> None:
    """Only the roles ``casino.permissions.SCREENS`` lists for ``screen`` may open it."""
    if not may_open(user, screen):
        raise NotAllowed(f"{SCREENS[screen].label} is not a screen of this account.")
