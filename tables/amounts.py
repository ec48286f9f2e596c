"""Amounts a client sends: whole cents within sane bounds, checked the same way by every service."""

from __future__ import annotations

from typing import Any

from casino.errors import ValidationFailed
from tables.games.input_checks import is_int

MAX_CENTS = 10**12


def check_cents(value: Any, *, field: str, allow_zero: bool = False) -> int:
    """Amounts are whole cents: no floats, no bools, no strings, within sane bounds."""
    if not is_int(value):
        raise ValidationFailed(
            f"{field} must be a whole number of cents.", fields={field: "must be an integer"}
        )
    low = 0 if allow_zero else 1
    if not low <= value <= MAX_CENTS:
        raise ValidationFailed(
            f"{field} must be between {low} and {MAX_CENTS} cents.", fields={field: "out of range"}
        )
    return value
