"""Who signs each kind of slip, in which order, and what status it has while it waits.

A slip moves through its kind's steps; a step is done when every role it needs has signed.
The last step done makes the slip final (``received`` for chips that travelled, ``final`` for
a count). Read off API.md "Chips, counts and slips" and "The drop and the count".
"""

from __future__ import annotations

from dataclasses import dataclass

from casino.models import Role
from tables.slips.models import SlipKind, SlipStatus


@dataclass(frozen=True)
class Step:
    needs: tuple[str, ...]
    status: str  # the slip's status while it waits for this step
    second_person: bool = False  # the requester may not sign it (someone else approves)


_COUNTED_TOGETHER = (Step((Role.DEALER, Role.PIT_BOSS), SlipStatus.PENDING),)

FLOWS: dict[str, tuple[Step, ...]] = {
    SlipKind.OPENER: _COUNTED_TOGETHER,
    SlipKind.CLOSER: _COUNTED_TOGETHER,
    SlipKind.COUNT: _COUNTED_TOGETHER,
    # The cage issues (chips leave it), then the table's dealer and a pit boss sign for receipt.
    SlipKind.FILL: (
        Step((Role.CASHIER,), SlipStatus.PENDING, second_person=True),
        Step((Role.DEALER, Role.PIT_BOSS), SlipStatus.ISSUED),
    ),
    # The pit releases (chips leave the tray), then the cashier signs for them at the cage.
    SlipKind.CREDIT: (
        Step((Role.PIT_BOSS,), SlipStatus.PENDING, second_person=True),
        Step((Role.CASHIER,), SlipStatus.ISSUED),
    ),
    SlipKind.DROP: (
        Step((Role.COUNT_TEAM,), SlipStatus.PENDING, second_person=True),
        Step((Role.CASHIER,), SlipStatus.PENDING),
    ),
    SlipKind.MARKER: (Step((Role.DEALER,), SlipStatus.PENDING),),
}

DONE_STATUS: dict[str, str] = {
    SlipKind.FILL: SlipStatus.RECEIVED,
    SlipKind.CREDIT: SlipStatus.RECEIVED,
    SlipKind.DROP: SlipStatus.RECEIVED,
}


def first_step(kind: str) -> Step:
    return FLOWS[kind][0]


def step_of(kind: str, index: int) -> Step | None:
    """The step at ``index``, or None once the flow is done."""
    steps = FLOWS[kind]
    return steps[index] if index < len(steps) else None


def done_status(kind: str) -> str:
    return DONE_STATUS.get(kind, SlipStatus.FINAL)
