"""Int cents written as dollars: the one spelling of money people read.

Pure Python at the bottom layer, so that the ledger's refusals, the game engines' messages (the
engines import nothing else of the project) and ``casino.money`` (screens, reports, alerts)
write ``$1,234.50`` and ``−$5.00`` alike.
"""

from __future__ import annotations

MINUS = "\u2212"  # the typographic minus: a loss reads −$5.00


def dollars(cents: int, *, whole_if_even: bool = False) -> str:
    """123450 → '$1,234.50', -500 → '−$5.00'; ``whole_if_even``: 2500 → '$25' (chips)."""
    whole, rest = divmod(abs(cents), 100)
    sign = MINUS if cents < 0 else ""
    if whole_if_even and rest == 0:
        return f"{sign}${whole:,}"
    return f"{sign}${whole:,}.{rest:02d}"
