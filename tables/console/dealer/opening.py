"""Opening a table in the console: the count's confirm step, in the words of what the ledger does.

The dealer counts the tray; before anything moves the screen shows the last closer, the count
and the variance between them, and says what opening will post (``services.opening_plan``,
the same plan ``services.open_table`` follows): a first opening's bankroll issued from the
cage, any other difference posted to over/short as a count variance.
"""

from __future__ import annotations

from typing import Any

from casino.money import format_dollars
from ledger.errors import InsufficientFunds
from tables.models import Table, TableSession
from tables.selectors import last_closing_count
from tables.services import OpeningPlan


def open_form(table: Table, plan: OpeningPlan | None) -> dict[str, Any]:
    """The open panel: the count pre-filled with the last closer, or the plan to confirm."""
    last_closer = last_closing_count(table)
    return {
        "last_closer": last_closer,
        "first": last_closer is None and not TableSession.objects.filter(table=table).exists(),
        "plan": plan,
        "plan_lines": plan_lines(plan) if plan is not None else [],
        "variance": (
            variance_words(plan.count - plan.last_closer)
            if plan is not None and plan.last_closer is not None
            else ""
        ),
    }


def variance_words(cents: int) -> str:
    if cents > 0:
        return f"{format_dollars(cents)} over"
    if cents < 0:
        return f"{format_dollars(-cents)} short"
    return "none"


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
