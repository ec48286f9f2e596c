"""Voiding a slip: it keeps its number and what it says, and the series counts it as void.

The side that answers for a slip's chips voids it (API.md): the cage for fills and credits,
the pit for the counts of a tray. A slip that everyone it needs has signed is final: its chips
arrived, or its count stands, and a mistake in it is corrected by a new slip, never by a void.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, Forbidden, ValidationFailed
from casino.models import Role, User
from casino.permissions import role_of
from tables.slips import effects
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.services import lock_slip

REASON_MAX = 300

# Who voids each kind of slip. A kind not listed (drops, markers) is not voided here.
VOIDED_BY: dict[str, str] = {
    SlipKind.OPENER: Role.PIT_BOSS,
    SlipKind.CLOSER: Role.PIT_BOSS,
    SlipKind.COUNT: Role.PIT_BOSS,
    SlipKind.FILL: Role.CASHIER,
    SlipKind.CREDIT: Role.CASHIER,
}
WHO_IN_WORDS: dict[str, str] = {
    Role.PIT_BOSS: "a pit boss: the pit answers for the counts of a tray",
    Role.CASHIER: "a cashier: the cage answers for fills and credits",
}


def check_void_reason(reason: Any) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise ValidationFailed("Say why the slip is void.", fields={"reason": "required"})
    if len(text) > REASON_MAX:
        raise ValidationFailed(f"A reason is at most {REASON_MAX} characters.", fields={"reason": "too long"})
    return text


def check_voider(*, actor: User, slip: Slip) -> None:
    """403 unless the actor's role is the one that voids this kind of slip."""
    role = VOIDED_BY.get(slip.kind)
    if role is None:
        raise Forbidden(
            f"Slip {slip.number} is a {slip.kind} slip: it is not voided here.", fields={"kind": slip.kind}
        )
    if role_of(actor) != role:
        raise Forbidden(
            f"Slip {slip.number} is voided only by {WHO_IN_WORDS[role]}.", fields={"role": role_of(actor)}
        )


@transaction.atomic
def void_slip(*, actor: User, slip_id: int, reason: Any) -> Slip:
    """Void a slip that is not final: chips in transit go back (``effects.ON_VOID``), the slip
    keeps its number, and the void says who, when and why."""
    reason = check_void_reason(reason)
    slip = lock_slip(slip_id=slip_id)
    check_voider(actor=actor, slip=slip)
    return void_locked(slip=slip, actor=actor, reason=reason)


def void_locked(*, slip: Slip, actor: User, reason: str) -> Slip:
    """Void ``slip``, locked by the caller (``lock_slip``), whoever may: ``void_slip`` checks the
    voider; a fill's or credit's refusal is its approver's (tables.slips.transit)."""
    if slip.status == SlipStatus.VOID:
        raise Conflict(f"Slip {slip.number} is already void.", code="slip_void")
    if not slip.needs or slip.status in (SlipStatus.RECEIVED, SlipStatus.FINAL):
        raise Conflict(
            f"Slip {slip.number} is final: it is corrected by a new slip, never voided.", code="slip_final"
        )
    effects.before_void(slip=slip, actor=actor)
    slip.status = SlipStatus.VOID
    slip.void_reason = reason
    slip.voided_by = actor
    slip.voided_at = timezone.now()
    slip.save(update_fields=["status", "void_reason", "voided_by", "voided_at", "return_transfer"])
    record_action(actor=actor, action="slip.void", obj=slip, data={"number": slip.number, "reason": reason})
    return slip
