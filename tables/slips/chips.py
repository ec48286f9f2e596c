"""The casino's chip set (``settings.CHIP_SET``) and counts of a tray by denomination.

A count arrives as ``{"<value in cents>": pieces}`` (API.md); it is kept in that shape, with
every denomination of the set present, so a slip shows the whole grid the dealer filled in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from casino.errors import ValidationFailed
from casino.money import format_dollars
from tables.games.input_checks import is_int

MAX_PIECES = 100_000


@dataclass(frozen=True)
class Chip:
    value: int
    colour: str

    @property
    def label(self) -> str:
        return format_dollars(self.value, whole_if_even=True)


def chip_set() -> tuple[Chip, ...]:
    """The denominations, smallest first."""
    return tuple(Chip(value, colour) for value, colour in settings.CHIP_SET)


def parse_count(raw: Any, *, field: str = "count") -> dict[str, int]:
    """A count as sent → the same count over the whole chip set (absent denominations are 0).

    Refused (400): not an object, a denomination the set does not have, or a piece count that
    is not a whole number from 0 to ``MAX_PIECES``.
    """
    if not isinstance(raw, dict):
        raise ValidationFailed(
            f'{field} must be pieces by chip value in cents, like {{"2500": 40, "500": 12}}.',
            fields={field: "must be an object"},
        )
    values = {str(chip.value): chip for chip in chip_set()}
    count = dict.fromkeys(values, 0)
    for key, pieces in raw.items():
        chip = values.get(str(key))
        if chip is None:
            known = ", ".join(c.label for c in chip_set())
            raise ValidationFailed(
                f"There is no {key}-cent chip; the chips are {known}.",
                fields={field: {str(key): "unknown chip"}},
            )
        if not is_int(pieces) or not 0 <= pieces <= MAX_PIECES:
            raise ValidationFailed(
                f"The number of {chip.label} chips must be a whole number from 0 to {MAX_PIECES:,}.",
                fields={field: {str(key): "must be a whole number of pieces, not negative"}},
            )
        count[str(chip.value)] = pieces
    return count


def count_amount(count: dict[str, int]) -> int:
    """What a count is worth, in cents."""
    return sum(int(value) * pieces for value, pieces in count.items())
