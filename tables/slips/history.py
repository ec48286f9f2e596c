"""A slip's history in words: written, each signature, each change of status, a void.

The statuses are replayed from the slip's flow (``tables.slips.flows``) and its signatures in
the order they were given, the same rule ``sign_slip`` follows, so the history needs no log of
its own and says exactly what the stored signatures imply.
"""

from __future__ import annotations

from dataclasses import dataclass

from casino.selectors import staff_name
from tables.slips.flows import done_status, first_step, step_of
from tables.slips.models import Slip, SlipStatus
from tables.slips.printing import STATUS_WORDS, local_time, role_words


@dataclass(frozen=True, slots=True)
class Event:
    at: str  # casino-local time
    who: str
    what: str  # "Signed as pit boss"
    note: str
    status: str  # the status it left the slip in, in words ("" when it did not change)


def _status(status: str) -> str:
    return STATUS_WORDS.get(SlipStatus(status), status)


def slip_history(slip: Slip) -> list[Event]:
    """Oldest first (the slip read by ``selectors.get_slip``, signatures prefetched in order)."""
    step = first_step(slip.kind)
    index, needs = 0, list(step.needs)
    events = [
        Event(local_time(slip.at), staff_name(slip.requested_by), "Wrote the slip", "", _status(step.status))
    ]
    for signature in slip.signatures.all():
        if signature.role in needs:
            needs.remove(signature.role)
        status = ""
        if not needs:
            index += 1
            following = step_of(slip.kind, index)
            status = _status(done_status(slip.kind) if following is None else following.status)
            needs = list(following.needs) if following is not None else []
        what = f"Signed as {role_words(signature.role).lower()}"
        events.append(
            Event(local_time(signature.at), staff_name(signature.user), what, signature.note, status)
        )
    if slip.status == SlipStatus.VOID and slip.voided_by is not None:
        events.append(
            Event(
                local_time(slip.voided_at),
                staff_name(slip.voided_by),
                "Voided it",
                slip.void_reason,
                _status(SlipStatus.VOID),
            )
        )
    return events
