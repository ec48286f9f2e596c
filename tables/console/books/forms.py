"""The books' posted forms: a count on the chip grid, a signature, read before any service runs.

Each is read through ``tables.console.forms.checked``, so its first error is the refusal shown
in place, in words.
"""

from __future__ import annotations

from typing import Any

from django import forms

from tables.slips.chips import MAX_PIECES, Chip, chip_set
from tables.slips.models import CountReason
from tables.slips.services import NOTE_MAX

CHOOSE_REASON = "Choose why the tray is counted: shift change or spot check."


def chip_field_name(chip: Chip) -> str:
    return f"chip_{chip.value}"


class CountGridForm(forms.Form):
    """Pieces per chip of the set (an empty box is none) and why the tray is counted."""

    reason = forms.ChoiceField(
        choices=CountReason.choices,
        error_messages={"required": CHOOSE_REASON, "invalid_choice": CHOOSE_REASON},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for chip in chip_set():
            message = f"The number of {chip.label} chips must be a whole number from 0 to {MAX_PIECES:,}."
            self.fields[chip_field_name(chip)] = forms.IntegerField(
                required=False,
                min_value=0,
                max_value=MAX_PIECES,
                error_messages={"invalid": message, "min_value": message, "max_value": message},
            )

    def count(self) -> dict[str, int]:
        """The count as the service reads it: ``{"<value in cents>": pieces}`` over the whole set."""
        return {str(chip.value): self.cleaned_data.get(chip_field_name(chip)) or 0 for chip in chip_set()}


class SignForm(forms.Form):
    """The signer's own password (checked by ``casino.signatures``) and a note for a variance."""

    password = forms.CharField(required=False, strip=False, max_length=128)
    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX,
        error_messages={"max_length": f"A note is at most {NOTE_MAX} characters."},
    )
