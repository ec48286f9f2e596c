"""Writing slips: issue one with the next number of its series, and sign it.

Locks follow the floor's one order (tables.locks): the table, then the slip, then the series
counter, then ledger accounts (through ``post_transfer`` in ``tables.slips.effects``).
A signature here is already proven: the caller checked the signer's password again
(``casino.signatures.confirm_signature``).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, Forbidden, NotFound, SeparationOfDuties, ValidationFailed
from casino.models import Role, User
from casino.money import format_dollars
from casino.permissions import role_of
from ledger.gaming_day import gaming_day_for
from tables.locks import lock_table
from tables.models import Table, TableSession
from tables.slips import effects
from tables.slips.flows import done_status, first_step, step_of
from tables.slips.models import Slip, SlipSignature, SlipStatus
from tables.slips.numbers import format_number, series_year, take_serial

NOTE_MAX = 300


def issue_slip(
    *,
    kind: str,
    requested_by: User,
    amount: int,
    table: Table | None = None,
    session: TableSession | None = None,
    count: dict[str, int] | None = None,
    expected: int | None = None,
    reason: str = "",
    at: dt.datetime | None = None,
) -> Slip:
    """A new slip at the first step of its kind's flow. Call inside the transaction that does
    what the slip records, after locking the table: the number is taken here."""
    moment = at or timezone.now()
    year = series_year(moment)
    serial = take_serial(kind, year)
    step = first_step(kind)
    slip = Slip.objects.create(
        kind=kind,
        year=year,
        serial=serial,
        number=format_number(kind, year, serial),
        status=step.status,
        table=table,
        session=session,
        gaming_day=gaming_day_for(moment),
        reason=reason,
        count=count,
        amount=amount,
        expected=expected,
        variance=None if expected is None else amount - expected,
        requested_by=requested_by,
        needs=[str(role) for role in step.needs],
    )
    record_action(
        actor=requested_by, action=f"slip.{kind}", obj=slip, data={"number": slip.number, "amount": amount}
    )
    return slip


def lock_slip(*, slip_id: int) -> Slip:
    """The slip, its row locked after its table's (404 when there is none)."""
    found = list(Slip.objects.filter(pk=slip_id).values_list("table_id", flat=True))
    if not found:
        raise NotFound("No such slip.")
    if found[0] is not None:
        lock_table(table_id=found[0])
    return Slip.objects.select_for_update(of=("self",)).select_related("table").get(pk=slip_id)


def signing_role(*, actor: User, slip: Slip) -> str:
    """The role the actor signs this slip in: one it still needs (a dealer only at their own table)."""
    role = role_of(actor)
    if slip.status == SlipStatus.VOID:
        raise Conflict(f"Slip {slip.number} is void; it takes no more signatures.", code="slip_void")
    if not slip.needs:
        raise Conflict(f"Slip {slip.number} is already signed by everyone it needs.", code="slip_final")
    if role not in slip.needs:
        wanted = " and ".join(
            Role(r).label.lower() if r in Role.values else r.replace("_", " ") for r in slip.needs
        )
        raise Forbidden(f"Slip {slip.number} waits for the signature of: {wanted}.", fields={"role": role})
    if role == Role.DEALER and (slip.table is None or slip.table.dealer_id != actor.pk):
        raise Forbidden(f"Only the dealer assigned to this table may sign slip {slip.number}.")
    return role


def _check_second_person(*, actor: User, slip: Slip) -> None:
    step = step_of(slip.kind, slip.step)
    if step is not None and step.second_person and slip.requested_by_id == actor.pk:
        raise SeparationOfDuties(f"You asked for slip {slip.number}; someone else must approve it.")


def _check_note(*, role: str, slip: Slip, note: str) -> None:
    """A count off by more than ``COUNT_VARIANCE_NOTE`` is signed by the pit boss with a note."""
    threshold = settings.COUNT_VARIANCE_NOTE
    if role != Role.PIT_BOSS or slip.variance is None or abs(slip.variance) <= threshold or note:
        return
    raise ValidationFailed(
        f"The count is {format_dollars(abs(slip.variance))} {'over' if slip.variance > 0 else 'short'}: "
        "say why in a note before signing.",
        code="note_required",
        fields={"note": f"required for a variance over {format_dollars(threshold)}"},
    )


@transaction.atomic
def sign_slip(*, actor: User, slip_id: int, note: str = "", password_confirmed: bool = True) -> Slip:
    """Add the actor's signature; when a step has every signature it needs, run its effect and
    move to the next step (or make the slip final).

    ``password_confirmed``: the caller had the signer type their password again (every signature
    but an approval sent without one: ``tables.slips.transit.approve_transit_slip``)."""
    note = (note or "").strip()
    if len(note) > NOTE_MAX:
        raise ValidationFailed(f"A note is at most {NOTE_MAX} characters.", fields={"note": "too long"})
    slip = lock_slip(slip_id=slip_id)
    role = signing_role(actor=actor, slip=slip)
    if SlipSignature.objects.filter(slip=slip, user=actor).exists():
        raise Conflict(
            f"You have already signed slip {slip.number}; one person signs a slip once.",
            code="already_signed",
        )
    _check_second_person(actor=actor, slip=slip)
    _check_note(role=role, slip=slip, note=note)
    SlipSignature.objects.create(
        slip=slip, user=actor, role=role, note=note, password_confirmed=password_confirmed
    )
    needs = list(slip.needs)
    needs.remove(role)
    slip.needs = needs
    fields: list[str] = ["needs"]
    if not needs:
        effects.after_step(slip=slip, index=slip.step, actor=actor)
        slip.step += 1
        following = step_of(slip.kind, slip.step)
        if following is None:
            slip.status = done_status(slip.kind)
        else:
            slip.status = following.status
            slip.needs = [str(r) for r in following.needs]
        fields += ["step", "status", "issue_transfer", "receipt_transfer"]
    slip.save(update_fields=fields)
    record_action(actor=actor, action="slip.sign", obj=slip, data={"number": slip.number, "role": role})
    return slip
