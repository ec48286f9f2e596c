"""What a slip does to the chips (the ledger): when a step of it is done, and when it is voided.

Counts move nothing when signed (the count itself was recorded when the slip was written).
Fills and credits post their transit transfers here; each effect runs inside ``sign_slip``'s
transaction with the table and the slip locked, and sets the slip's transfer fields.

A void's effect (``ON_VOID``, by kind) runs inside ``void_slip``'s transaction, the same locks
held, before the slip is marked void: it sees the status the slip had (``pending``: nothing has
moved yet; ``issued``: the chips are in transit) and sends chips in transit back where they came
from, setting ``return_transfer``. Counts have none: a void count moved no chips.
"""

from __future__ import annotations

from collections.abc import Callable

from casino.models import User
from tables.slips.models import Slip

Effect = Callable[[Slip, User], None]

EFFECTS: dict[tuple[str, int], Effect] = {}
ON_VOID: dict[str, Effect] = {}


def after_step(*, slip: Slip, index: int, actor: User) -> None:
    effect = EFFECTS.get((slip.kind, index))
    if effect is not None:
        effect(slip, actor)


def before_void(*, slip: Slip, actor: User) -> None:
    effect = ON_VOID.get(slip.kind)
    if effect is not None:
        effect(slip, actor)
