"""The bills a drop box is counted in (``settings.BILL_VALUES``) and a count of them.

A count arrives as ``{"<bill value in cents>": pieces}`` (API.md "The drop and the count") and
is kept in that shape over every bill value, like a tray's count over the chip set, so the drop
slip shows the whole sheet the count team filled in.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from casino.errors import ValidationFailed
from casino.money import format_dollars
from tables.games.input_checks import is_int

MAX_PIECES = 1_000_000


def bill_values() -> tuple[int, ...]:
    """The bills, smallest first."""
    return tuple(settings.BILL_VALUES)


def bill_label(value: int) -> str:
    """``$100`` for 10000, ``$1`` for 100."""
    return format_dollars(value, whole_if_even=True)


def parse_currency(raw: Any, *, field: str = "currency") -> dict[str, int]:
    """Currency as sent → pieces over every bill value (absent bills are 0). 400 for anything
    but an object of known bill values and whole, non-negative piece counts."""
    if not isinstance(raw, dict):
        raise ValidationFailed(
            f'{field} must be pieces by bill value in cents, like {{"10000": 12, "2000": 5}}.',
            fields={field: "must be an object"},
        )
    values = {str(value): value for value in bill_values()}
    currency = dict.fromkeys(values, 0)
    for key, pieces in raw.items():
        value = values.get(str(key))
        if value is None:
            known = ", ".join(bill_label(v) for v in bill_values())
            raise ValidationFailed(
                f"There is no {key}-cent bill; the bills are {known}.",
                fields={field: {str(key): "unknown bill"}},
            )
        if not is_int(pieces) or not 0 <= pieces <= MAX_PIECES:
            raise ValidationFailed(
                f"The number of {bill_label(value)} bills must be a whole number from 0 to {MAX_PIECES:,}.",
                fields={field: {str(key): "must be a whole number of bills, not negative"}},
            )
        currency[str(value)] = pieces
    return currency


def currency_amount(currency: dict[str, int]) -> int:
    """What the bills are worth, in cents."""
    return sum(int(value) * pieces for value, pieces in currency.items())
