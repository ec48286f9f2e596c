"""What a finished step of a slip does to the chips (the ledger), by kind and step.

Counts move nothing when signed (the count itself was recorded when the slip was written).
Fills and credits post their transit transfers here; each effect runs inside ``sign_slip``'s
transaction with the table and the slip locked, and sets the slip's transfer fields.
"""

from __future__ import annotations

from collections.abc import Callable

from casino.models import User
from tables.slips.models import Slip

Effect = Callable[[Slip, User], None]

EFFECTS: dict[tuple[str, int], Effect] = {}


def after_step(*, slip: Slip, index: int, actor: User) -> None:
    effect = EFFECTS.get((slip.kind, index))
    if effect is not None:
        effect(slip, actor)
