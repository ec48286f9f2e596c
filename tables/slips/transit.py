"""Fills and credits: chips between the cage and a table, on a numbered slip, in transit between
two signatures (API.md "Chips, counts and slips"; N.J.A.C. 13:69D-1.20 and 1.21).

A fill: the table's dealer or a pit boss asks (slip ``pending``) → a cashier approves: the cage
issues the chips (cage → transit, ``issued``) → the table's dealer and a pit boss sign for them
(transit → tray, ``received``). A credit runs the other way: asked → a pit boss approves: the
pit releases them (tray → transit) → a cashier signs for them at the cage (transit → cage).
The requester never approves (``Step.second_person``). The approval is the first step's
signature; the ledger moves are ``tables.slips.effects``. A refusal voids the pending slip,
with the refusal as its reason: its number stays accounted for.

Locks: the table, then the slip, then the series counter (a new slip) or the ledger accounts.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from casino.errors import Conflict, Forbidden, NotFound, SeparationOfDuties, ValidationFailed
from casino.models import User
from casino.permissions import require, role_of
from tables.amounts import MAX_CENTS, check_cents
from tables.locks import lock_table
from tables.models import TableSession
from tables.slips.chips import count_amount, parse_count
from tables.slips.flows import first_step
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.services import NOTE_MAX, issue_slip, lock_slip, sign_slip
from tables.slips.voids import void_locked

# Who approves each kind: the side the chips leave (the cage issues a fill, the pit releases a credit).
APPROVER: dict[str, str] = {kind: str(first_step(kind).needs[0]) for kind in (SlipKind.FILL, SlipKind.CREDIT)}
SIDE: dict[str, str] = {SlipKind.FILL: "the cage", SlipKind.CREDIT: "the pit"}
_APPROVER_WORDS: dict[str, str] = {
    SlipKind.FILL: "a cashier (the cage issues it)",
    SlipKind.CREDIT: "a pit boss (the pit releases it)",
}


def require_approver(user: Any, kind: str) -> None:
    """403 unless ``user`` holds the role that approves or refuses a ``kind`` slip."""
    if role_of(user) != APPROVER[kind]:
        raise Forbidden(
            f"Only {_APPROVER_WORDS[kind]} approves or refuses a {kind}.", fields={"role": role_of(user)}
        )


def chips_asked(*, amount: Any, count: Any) -> tuple[int, dict[str, int] | None]:
    """What a request asks for: ``amount`` in cents, or a ``count`` over the chip set (its sum)."""
    if (amount is None) == (count is None):
        raise ValidationFailed(
            "Ask for an amount in cents or a count of chips by value, one of the two.",
            fields={"amount": "give amount or count", "count": "give amount or count"},
        )
    if count is None:
        return check_cents(amount, field="amount"), None
    pieces = parse_count(count)
    total = count_amount(pieces)
    if not 0 < total <= MAX_CENTS:
        raise ValidationFailed(
            "A count must hold at least one chip."
            if total == 0
            else "That count is more than any tray holds.",
            fields={"count": "no chips" if total == 0 else "too large"},
        )
    return total, pieces


@transaction.atomic
def request_transit_slip(
    *, actor: User, table_id: int, kind: str, amount: Any = None, count: Any = None
) -> Slip:
    """The table's dealer or a pit boss asks for a fill or a credit: a numbered slip, ``pending``;
    nothing moves until the other side approves."""
    table = lock_table(table_id=table_id)
    require(actor, "tray.request", table=table)
    cents, pieces = chips_asked(amount=amount, count=count)
    session = TableSession.objects.filter(table=table, closed_at__isnull=True).first()
    return issue_slip(kind=kind, requested_by=actor, amount=cents, table=table, session=session, count=pieces)


def _pending(*, actor: User, table_id: int, slip_id: int, kind: str) -> Slip:
    """The slip locked, at this table and of this kind, still waiting for its approval, and
    ``actor`` the side that approves it and not its requester."""
    slip = lock_slip(slip_id=slip_id)
    if slip.kind != kind or slip.table_id != table_id:
        raise NotFound(f"No such {kind} at this table.")
    require_approver(actor, kind)
    if slip.requested_by_id == actor.pk:
        raise SeparationOfDuties(
            f"You asked for {kind} {slip.number}; someone else must approve or refuse it."
        )
    if slip.status != SlipStatus.PENDING:
        state = "void" if slip.status == SlipStatus.VOID else f"already {slip.get_status_display()}"
        raise Conflict(f"{kind.title()} {slip.number} is {state}.", code="already_decided")
    return slip


@transaction.atomic
def approve_transit_slip(
    *, actor: User, table_id: int, slip_id: int, kind: str, password_confirmed: bool
) -> Slip:
    """The cage issues a fill, or the pit releases a credit: the slip's first signature, which
    puts its chips in transit. ``password_confirmed``: the approver typed their password again
    (the signature says whether they did)."""
    slip = _pending(actor=actor, table_id=table_id, slip_id=slip_id, kind=kind)
    return sign_slip(actor=actor, slip_id=slip.pk, password_confirmed=password_confirmed)


@transaction.atomic
def refuse_transit_slip(*, actor: User, table_id: int, slip_id: int, kind: str, note: str = "") -> Slip:
    """The side that would approve refuses: the slip is void, the refusal its reason. Nothing had
    moved, so nothing moves back."""
    note = (note or "").strip()
    if len(note) > NOTE_MAX:
        raise ValidationFailed(f"A note is at most {NOTE_MAX} characters.", fields={"note": "too long"})
    slip = _pending(actor=actor, table_id=table_id, slip_id=slip_id, kind=kind)
    reason = f"Refused by {SIDE[kind]}" + (f": {note}" if note else ".")
    return void_locked(slip=slip, actor=actor, reason=reason)
