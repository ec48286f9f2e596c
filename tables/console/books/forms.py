"""The books' posted forms: a count on the chip grid, a signature, read before any service runs.

Each is read through ``tables.console.forms.checked``, so its first error is the refusal shown
in place, in words.
"""

from __future__ import annotations

from django import forms

from tables.console.chip_grid import ChipGridForm
from tables.slips.models import CountReason
from tables.slips.services import NOTE_MAX

CHOOSE_REASON = "Choose why the tray is counted: shift change or spot check."


class CountGridForm(ChipGridForm):
    """A shift-change or spot count: the grid and why the tray is counted."""

    reason = forms.ChoiceField(
        choices=CountReason.choices,
        error_messages={"required": CHOOSE_REASON, "invalid_choice": CHOOSE_REASON},
    )


class SignForm(forms.Form):
    """The signer's own password (checked by ``casino.signatures``) and a note for a variance."""

    password = forms.CharField(required=False, strip=False, max_length=128)
    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX,
        error_messages={"max_length": f"A note is at most {NOTE_MAX} characters."},
    )
