"""The chip-set grid every tray count is typed on: the dealer's opening, closing and
shift-change or spot counts alike (one box of pieces per chip of ``settings.CHIP_SET``).

The form reads the boxes into the count the slips services take (``{"<value in cents>":
pieces}``); ``grid_chips`` draws the boxes again as typed, so a refused count is fixed, not
typed over. The grid is blind: nothing here reads the ledger's tray.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from tables.slips.chips import MAX_PIECES, Chip, chip_set

NOTHING_TYPED = "Count the tray: type how many of each chip it holds (0 for an empty tray)."


def chip_field_name(chip: Chip) -> str:
    return f"chip_{chip.value}"


def grid_chips(typed: Mapping[str, Any] | None = None) -> list[tuple[Chip, str, str]]:
    """Each chip of the set with its box's name and what was typed in it (``typed``: a post)."""
    typed = typed or {}
    return [(chip, chip_field_name(chip), str(typed.get(chip_field_name(chip), ""))) for chip in chip_set()]


class ChipGridForm(forms.Form):
    """Pieces per chip of the set; an empty box is none. ``require_some``: at least one box
    must be typed in (an opening or closing count of nothing at all is a tap by mistake)."""

    require_some = False

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

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.require_some and all(cleaned.get(chip_field_name(chip)) is None for chip in chip_set()):
            raise forms.ValidationError(NOTHING_TYPED, code="required")
        return cleaned

    def count(self) -> dict[str, int]:
        """The count as the service reads it: ``{"<value in cents>": pieces}`` over the whole set."""
        return {str(chip.value): self.cleaned_data.get(chip_field_name(chip)) or 0 for chip in chip_set()}


class TrayCountForm(ChipGridForm):
    """An opening or closing count: the grid, with at least one box typed in."""

    require_some = True
