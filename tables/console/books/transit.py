"""Fills and credits as the pit and the cage see and decide them: each slip by its number, its
state in words, and the Approve and Refuse taps only for the side the chips leave (the cage
issues a fill, a pit boss releases a credit; never the requester).

A tap calls the API's services (``tables.services.approve_tray_request`` and
``refuse_tray_request``, over ``tables.slips.transit``); the receiving signatures are given on
the books' lists (``tables.console.books.views.waiting``), which a slip in transit links to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from casino.models import Role, User
from casino.money import format_dollars
from casino.permissions import actor_of, role_of
from casino.selectors import staff_name
from tables import services
from tables.console import forms
from tables.console.access import found
from tables.console.taps import receipt
from tables.selectors import TRANSIT_KINDS, list_transit_slips
from tables.slips.models import Slip, SlipStatus
from tables.slips.printing import STATUS_WORDS
from tables.slips.transit import APPROVER

# What each kind waits for before its chips move, and what its approval is called.
AWAITS = {"fill": "waiting for the cage to issue it", "credit": "waiting for a pit boss to release it"}
APPROVED = {"fill": "issued", "credit": "released"}
ROUTE = {"fill": "cage → transit → tray", "credit": "tray → transit → cage"}
SIGNERS: dict[str, str] = {
    Role.DEALER: "the dealer's",
    Role.PIT_BOSS: "a pit boss's",
    Role.CASHIER: "a cashier's",
}
# Where each role gives its receiving signature: the books' list of its screen.
SIGN_SCREENS: dict[str, str] = {Role.PIT_BOSS: "pit:slips", Role.CASHIER: "cage:slips"}


def signers_words(needs: list[str]) -> str:
    """ "the dealer's and a pit boss's signatures", "a cashier's signature"."""
    names = [SIGNERS.get(role, f"a {role.replace('_', ' ')}'s") for role in needs]
    plural = "signatures" if len(names) > 1 else "signature"
    return f"{' and '.join(names)} {plural}"


def state_words(slip: Slip) -> str:
    """The slip's number and where it stands ("F-2026-000003 — issued, in transit: waiting for the
    dealer's and a pit boss's signatures")."""
    if slip.status == SlipStatus.PENDING:
        return f"{slip.number} — {AWAITS[slip.kind]}"
    if slip.status == SlipStatus.ISSUED:
        return f"{slip.number} — {APPROVED[slip.kind]}, in transit: waiting for {signers_words(slip.needs)}"
    return f"{slip.number} — {STATUS_WORDS.get(SlipStatus(slip.status), slip.status).lower()}"


@dataclass(frozen=True, slots=True)
class TransitRow:
    slip: Slip
    what: str  # "fill of $2,000.00 for Faro 1": the buttons' labels and the receipts
    state: str  # state_words
    asked_by: str
    may_decide: bool  # the viewer approves or refuses it here
    own: bool  # the viewer asked for it
    sign_url: str  # the viewer's list to sign for it on, if their signature is awaited; else ""


def transit_row(slip: Slip, viewer: User) -> TransitRow:
    role = role_of(viewer)
    own = slip.requested_by_id == viewer.pk
    pending = slip.status == SlipStatus.PENDING
    awaited = slip.status == SlipStatus.ISSUED and role in slip.needs and role in SIGN_SCREENS
    return TransitRow(
        slip=slip,
        what=f"{slip.kind} of {format_dollars(slip.amount)} for {slip.table.name if slip.table else ''}",
        state=state_words(slip),
        asked_by=staff_name(slip.requested_by),
        may_decide=pending and not own and role == APPROVER[slip.kind],
        own=own,
        sign_url=reverse(SIGN_SCREENS[role]) if awaited else "",
    )


def transit_rows(viewer: User) -> list[TransitRow]:
    """The fills and credits pending or in transit, as ``viewer`` may act on them (one read)."""
    return [transit_row(slip, viewer) for slip in list_transit_slips()]


def transit_decision(request: HttpRequest, slip_id: int, verdict: str) -> Callable[[], dict[str, Any]]:
    """The work of approving or refusing the fill or credit slip ``slip_id`` (the pit's tap and the
    cage's); the service refuses anyone but the side the chips leave, and the requester."""
    slips = Slip.objects.select_related("table").filter(pk=slip_id, kind__in=TRANSIT_KINDS)
    slip = found(slips, "No such fill or credit.")
    return partial(_decide, request, slip, verdict)


def _decide(request: HttpRequest, slip: Slip, verdict: str) -> dict[str, Any]:
    amount = format_dollars(slip.amount)
    table = slip.table.name if slip.table else ""
    what = f"{slip.kind} {slip.number} of {amount} for {table}"
    assert slip.table_id is not None  # fills and credits are always a table's
    if verdict == "approve":
        done = services.approve_tray_request(
            actor=actor_of(request), table_id=slip.table_id, request_id=slip.pk, kind=slip.kind
        )
        return receipt(
            f"{APPROVED[slip.kind].capitalize()}: {what}.",
            f"{amount} in transit ({ROUTE[slip.kind]}): waiting for {signers_words(done.needs)}.",
        )
    note = forms.checked(forms.NoteForm(request.POST)).cleaned_data["note"]
    services.refuse_tray_request(
        actor=actor_of(request), table_id=slip.table_id, request_id=slip.pk, kind=slip.kind, note=note
    )
    return receipt(f"Refused: {what}.", f"Slip {slip.number} is void. Nothing moved.")
