"""Slips as a list shows them to the person who may sign them: number, table, amount, the
variance in words, who still signs, and whether their signature needs a note.

A pit boss signs a count off by more than ``COUNT_VARIANCE_NOTE`` only with a note
(``tables.slips.services``); the row says so before the prompt is sent, the service decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from casino.models import Role, User
from casino.money import format_dollars
from casino.permissions import role_of
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.printing import STATUS_WORDS, kind_title, role_words, variance_words
from tables.slips.selectors import list_slips

# A fill's first signature is the cage's issue: the chips leave the cage.
ISSUE_STEP = (SlipKind.FILL, 0)


@dataclass(frozen=True, slots=True)
class SlipRow:
    slip: Slip
    title: str  # "Count of the tray: shift change"
    table: str
    amount: str  # "$1,245.50"
    expected: str  # the ledger's tray for a count, else ""
    variance: str  # "$100.00 short", else ""
    status: str
    needs: tuple[str, ...]  # roles still to sign, in words
    action: str  # the button: "Issue" or "Sign"
    note_needed: str  # why a note is required, or ""
    may_sign: bool


def note_needed(slip: Slip, role: str) -> str:
    """Why this signer must write a note (the service's rule, said before the prompt), or ""."""
    if role != Role.PIT_BOSS or slip.variance is None or abs(slip.variance) <= settings.COUNT_VARIANCE_NOTE:
        return ""
    return f"The count is {variance_words(slip.variance)}: a note is required."


def slip_row(slip: Slip, viewer: User) -> SlipRow:
    role = role_of(viewer)
    live = slip.status != SlipStatus.VOID
    signed = any(s.user_id == viewer.pk for s in slip.signatures.all())
    return SlipRow(
        slip=slip,
        title=kind_title(slip),
        table=slip.table.name if slip.table is not None else "",
        amount=format_dollars(slip.amount),
        expected="" if slip.expected is None else format_dollars(slip.expected),
        variance=variance_words(slip.variance),
        status=STATUS_WORDS.get(SlipStatus(slip.status), slip.status),
        needs=tuple(role_words(r) for r in slip.needs) if live else (),
        action="Issue" if (slip.kind, slip.step) == ISSUE_STEP else "Sign",
        note_needed=note_needed(slip, role),
        may_sign=live and role in slip.needs and not signed,
    )


def waiting_for(viewer: User) -> list[SlipRow]:
    """The slips that wait for the viewer's role, oldest first; none they signed already."""
    role = role_of(viewer)
    slips = list_slips().filter(needs__contains=[role]).exclude(status=SlipStatus.VOID).order_by("id")
    rows = [slip_row(slip, viewer) for slip in slips]
    return [row for row in rows if row.may_sign]
