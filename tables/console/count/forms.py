"""The count room's forms: a seal number, and a box's bills and markers as typed and ticked."""

from __future__ import annotations

from typing import Any

from django import forms

from casino.errors import ValidationFailed
from tables.drop.currency import MAX_PIECES, bill_label, bill_values


def bill_field_name(value: int) -> str:
    return f"bill_{value}"


class SealForm(forms.Form):
    seal = forms.CharField(
        max_length=40,
        error_messages={
            "required": "Write the seal number the box is locked with.",
            "max_length": "A seal number is at most 40 characters.",
        },
    )


def posted_currency(data: Any) -> dict[str, int]:
    """Pieces by bill value as typed (an empty box is 0); a piece count that is not a whole
    number is refused in words (the service checks the rest)."""
    currency: dict[str, int] = {}
    for value in bill_values():
        raw = str(data.get(bill_field_name(value), "")).strip().replace(",", "")
        if not raw:
            currency[str(value)] = 0
            continue
        if not raw.isdigit() or int(raw) > MAX_PIECES:
            raise ValidationFailed(
                f"The number of {bill_label(value)} bills must be a whole number from 0 to {MAX_PIECES:,}.",
                fields={bill_field_name(value): "a whole number"},
            )
        currency[str(value)] = int(raw)
    return currency


def posted_markers(data: Any) -> list[int]:
    """The marker slips ticked as found in the box."""
    ticked = data.getlist("markers") if hasattr(data, "getlist") else []
    if any(not str(item).isdigit() for item in ticked):
        raise ValidationFailed("Tick the markers found in the box.", fields={"markers": "ids"})
    return [int(item) for item in ticked]
