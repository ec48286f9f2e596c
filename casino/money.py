"""Money as text: what people type read into int cents, and int cents written as dollars.

Amounts are int cents everywhere else (API.md); dollars exist only on screens, in reports and
in messages, all of which format through here. No float or Decimal arithmetic: text is split
at the point and read as whole numbers, and cents are split with ``divmod``.

One spelling for every screen (the console, the pit, the player's page, the audit report and
alert summaries): ``$1,234.50``, a loss as ``−$5.00`` with the typographic minus sign.
"""

from __future__ import annotations

import re

from casino.errors import ValidationFailed
from ledger.dollars import dollars

EMPTY = "—"  # no amount at all, as opposed to $0.00
MAX_DOLLARS_DIGITS = 10
# ASCII digits only: ``\d`` also matches "１０" and "٧", which int() would read as numbers.
_DOLLARS = re.compile(r"^\$?\s*(?P<whole>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?(?:\.(?P<cents>[0-9]{1,2}))?$")


def parse_dollars(text: object, *, field: str = "amount", allow_zero: bool = False) -> int:
    """'1,234.50' → 123450. Refuses anything but plain dollars and cents (no fraction of a cent)."""
    raw = str(text if text is not None else "").strip()
    match = _DOLLARS.match(raw)
    if not raw or match is None or (match.group("whole") is None and match.group("cents") is None):
        raise ValidationFailed(f"Enter the {field} in dollars, like 250 or 1,234.50.", fields={field: raw})
    whole = (match.group("whole") or "0").replace(",", "")
    if len(whole) > MAX_DOLLARS_DIGITS:
        raise ValidationFailed(f"The {field} is too large.", fields={field: raw})
    cents = int(whole) * 100 + int((match.group("cents") or "").ljust(2, "0"))
    if cents == 0 and not allow_zero:
        raise ValidationFailed(f"The {field} must be more than $0.00.", fields={field: raw})
    return cents


def format_dollars(cents: object, *, whole_if_even: bool = False) -> str:
    """123450 → '$1,234.50', -500 → '−$5.00', None → '—'; ``whole_if_even``: 2500 → '$25' (chips)."""
    if cents is None or cents == "":
        return EMPTY
    try:
        value = int(cents)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return str(cents)
    return dollars(value, whole_if_even=whole_if_even)


def format_dollars_input(cents: object) -> str:
    """The value of a dollars input field, which ``parse_dollars`` reads back: 123450 → '1234.50'."""
    if cents is None or cents == "":
        return ""
    value = int(cents)  # type: ignore[call-overload]
    whole, rest = divmod(abs(value), 100)
    sign = "-" if value < 0 else ""  # what a keyboard types
    return f"{sign}{whole}.{rest:02d}" if rest else f"{sign}{whole}"
