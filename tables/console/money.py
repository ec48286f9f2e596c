"""Dollars exist only on the screen: parse what a dealer types into cents, and format cents back.

No float or Decimal arithmetic: the text is split at the point and read as whole numbers.
"""

from __future__ import annotations

import re

from casino.errors import ValidationFailed

_DOLLARS = re.compile(r"^\$?\s*(?P<whole>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<cents>\d{1,2}))?$")
MAX_DOLLARS_DIGITS = 10


def parse_dollars(text: object, *, field: str = "amount", allow_zero: bool = False) -> int:
    """'1,234.50' → 123450. Refuses anything that is not a plain amount of dollars and cents."""
    raw = str(text if text is not None else "").strip()
    match = _DOLLARS.match(raw)
    if not raw or match is None or (match.group("whole") is None and match.group("cents") is None):
        raise ValidationFailed(f"Enter the {field} in dollars, like 250 or 1,234.50.", fields={field: raw})
    whole = (match.group("whole") or "0").replace(",", "")
    if len(whole) > MAX_DOLLARS_DIGITS:
        raise ValidationFailed(f"The {field} is too large.", fields={field: raw})
    cents_text = (match.group("cents") or "").ljust(2, "0")
    cents = int(whole) * 100 + int(cents_text or "0")
    if cents == 0 and not allow_zero:
        raise ValidationFailed(f"The {field} must be more than $0.00.", fields={field: raw})
    return cents


def format_dollars(cents: object, *, whole_if_even: bool = False) -> str:
    """123450 → '$1,234.50'; with ``whole_if_even`` 2500 → '$25' (chip labels)."""
    if cents is None or cents == "":
        return "—"
    try:
        value = int(cents)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return str(cents)
    sign = "\u2212" if value < 0 else ""
    dollars, rest = divmod(abs(value), 100)
    if whole_if_even and rest == 0:
        return f"{sign}${dollars:,}"
    return f"{sign}${dollars:,}.{rest:02d}"
