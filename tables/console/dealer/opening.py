"""Opening and closing a table in the console: the tray counted blind on the chip grid, and
what the count's slip and its postings say afterwards, in words.

The open panel and the close page draw the grid (``tables.console.chip_grid``) with nothing of
the ledger's tray: the dealer counts what is there, not towards a figure. Once the count is in,
the opener or closer slip (``services.open_table`` / ``close_table``) says what the ledger
expected, the variance and who still signs, and the receipt says what opening posted
(``plan_lines``: a first opening's bankroll issued from the cage, any other difference to
over/short).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casino.models import User
from casino.money import format_dollars
from ledger.errors import InsufficientFunds
from tables.console.books.rows import SlipRow, slip_row
from tables.console.chip_grid import grid_chips
from tables.models import Table, TableSession, TableStatus
from tables.services import OpeningPlan
from tables.slips.models import SlipKind
from tables.slips.printing import variance_words
from tables.slips.selectors import session_slip


def open_form(table: Table, typed: Mapping[str, Any] | None) -> dict[str, Any]:
    """The open panel: the blank grid (or as typed before a refusal), and whether this is the
    table's first opening, whose count the cage issues as its bankroll."""
    return {
        "first": not TableSession.objects.filter(table=table).exists(),
        "chips": grid_chips(typed),
    }


def close_form(table: Table, typed: Mapping[str, Any] | None = None, error: str = "") -> dict[str, Any]:
    """The close page: the grid (as typed before a refusal, with the refusal), blind like the opener's."""
    return {
        "table": table,
        "chips": grid_chips(typed),
        "error": error,
        "is_open": table.status == TableStatus.OPEN,
    }


def count_slip(session_id: int, kind: SlipKind, viewer: User) -> SlipRow | None:
    """A session's opener or closer as its row shows it to the dealer: number, the ledger's
    tray, the variance and who still signs (None for a session from before slips)."""
    slip = session_slip(session_id=session_id, kind=kind)
    return None if slip is None else slip_row(slip, viewer)


def summary_context(session: TableSession, viewer: User, *, replayed: bool) -> dict[str, Any]:
    """A closed session's summary, with its closer slip and the variance in words."""
    return {
        "session": session,
        "table": session.table,
        "replayed": replayed,
        "variance": variance_words(session.closing_variance),
        "closer": count_slip(session.pk, SlipKind.CLOSER, viewer),
    }


def plan_lines(plan: OpeningPlan) -> list[str]:
    """What opening will post, in the ledger's terms."""
    lines = []
    if plan.last_closer is not None and plan.ledger != plan.last_closer:
        lines.append(
            f"Fills and credits since the close make the tray's ledger {format_dollars(plan.ledger)}."
        )
    if plan.issue:
        lines.append(f"The cage issues {format_dollars(plan.issue)} to the tray as this table's bankroll.")
    if plan.variance:
        lines.append(
            f"The variance ({variance_words(plan.variance)}) is posted to over/short, "
            "so the tray's ledger balance becomes your count."
        )
    if not plan.issue and not plan.variance:
        lines.append("Nothing moves: the tray's ledger already holds your count.")
    return lines


def tray_shortfall(error: Exception, table: Table) -> int:
    """Cents this table's tray lacks for a refused payout (0 if the refusal is another one)."""
    if not isinstance(error, InsufficientFunds) or error.fields.get("account") != table.tray.code:
        return 0
    return max(int(error.fields.get("needed", 0)) - int(error.fields.get("available", 0)), 0)


def shortfall_words(error: InsufficientFunds, table: Table, more: int) -> str:
    available = format_dollars(int(error.fields.get("available", 0)))
    return (
        f"The tray of {table.name} has {available}; this {error.fields.get('what', 'payout')} needs "
        f"{format_dollars(more)} more. "
        "Request a fill, then tap again once it is approved."
    )
