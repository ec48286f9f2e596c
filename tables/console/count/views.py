"""The count room (/count/), the count team's home: the boxes waiting to be counted (removed,
not counted), the boxes at the tables with "Remove" under a seal number, the drop slips waiting
for a second member's signature.

A box is counted blind: its card shows the bills by value with a running total in dollars
(console/count.js) and its markers to tick, never what the table recorded into it; the receipt
after the count shows that and the variance. Each POST is one form → one ``tables.drop``
service inside the console's one-time token (``tap_flash``) → the room drawn again with the
answer. The second member signs a drop slip with their password on the books' signing form
(``tables.console.books.views.sign``); the cashier signs it on the cage's list of slips.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import User
from casino.money import format_dollars
from casino.permissions import actor_of
from casino.signed_in import signed_in_get, signed_in_post
from tables.console import forms as console_forms
from tables.console.access import require_screen
from tables.console.books.rows import SlipRow, slip_row, waiting_for
from tables.console.count.forms import SealForm, bill_field_name, posted_currency, posted_markers
from tables.console.taps import Flash, receipt, render_screen, tap_flash
from tables.drop.currency import bill_label, bill_values
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.selectors import boxes_at_tables, boxes_waiting, markers_in
from tables.drop.services import count_box, remove_box
from tables.slips.models import Slip, SlipKind
from tables.slips.printing import variance_words
from tables.slips.selectors import get_slip

PARTIAL, WHOLE = "count/count.html#room", "count/count.html"


def _own(row: SlipRow, viewer: User) -> SlipRow:
    """A drop slip its own counter sees: never theirs to sign (a second member signs it)."""
    return replace(row, may_sign=False) if row.slip.requested_by_id == viewer.pk else row


def _box_card(box: DropBox, typed: Any = None, error: str = "") -> dict[str, Any]:
    """A waiting box: its bills to fill in (as typed after a refusal) and its markers to tick."""
    data = typed or {}
    ticked = set(data.getlist("markers")) if hasattr(data, "getlist") else set()
    return {
        "box": box,
        "bills": [
            (value, bill_label(value), bill_field_name(value), data.get(bill_field_name(value), ""))
            for value in bill_values()
        ],
        "markers": [(m, str(m.pk) in ticked, format_dollars(m.amount)) for m in markers_in(box)],
        "error": error,
    }


def room_context(
    actor: User,
    *,
    flash: Flash | None = None,
    counted: dict[str, Any] | None = None,
    refused: tuple[int, Any, str] | None = None,
) -> dict[str, Any]:
    """The room: ``counted`` the receipt of the count just made; ``refused`` a box's card as it
    was typed, with why its count was refused (box id, posted data, words)."""
    cards = []
    for box in boxes_waiting():
        if refused is not None and refused[0] == box.pk:
            cards.append(_box_card(box, refused[1], refused[2]))
        else:
            cards.append(_box_card(box))
    drops = [row for row in waiting_for(actor) if row.slip.kind == SlipKind.DROP]
    return {
        "waiting": cards,
        "at_tables": list(boxes_at_tables()),
        "to_sign": [row for row in drops if row.slip.requested_by_id != actor.pk],
        "flash": flash,
        "counted": counted,
    }


@signed_in_get
def count_home(request: HttpRequest) -> HttpResponse:
    require_screen(request.user, "count")
    return render(request, WHOLE, room_context(actor_of(request)))


@signed_in_post
def remove(request: HttpRequest, box_id: int) -> HttpResponse:
    """Remove a box from its table under a seal number; the next box is at the table at once."""
    require_screen(request.user, "count")
    actor = actor_of(request)

    def work() -> dict[str, Any]:
        seal = console_forms.checked(SealForm(request.POST)).cleaned_data["seal"]
        box = remove_box(actor=actor, box_id=box_id, seal=seal)
        following = DropBox.objects.get(table=box.table, status=DropBoxStatus.AT_TABLE)
        return receipt(
            f"Drop box {box.number} removed from {box.table.name} under seal {box.seal}.",
            f"Drop box {following.number} is at {box.table.name} now: play goes on.",
        )

    flash, _, status = tap_flash(request, f"remove-{box_id}", work)
    return render_screen(request, PARTIAL, WHOLE, room_context(actor, flash=flash), status=status)


def _counted(slip: Slip, box: DropBox, viewer: User) -> dict[str, Any]:
    """The count's receipt: what was counted, what was recorded, the variance, the slip."""
    return {
        "box": box,
        "counted": format_dollars(slip.amount),
        "recorded": format_dollars(slip.expected),
        "variance": variance_words(slip.variance).replace("the ledger", "what was recorded"),
        "row": _own(slip_row(get_slip(slip_id=slip.pk), viewer), viewer),
    }


@signed_in_post
def count(request: HttpRequest, box_id: int) -> HttpResponse:
    """Count a removed box: its bills and the markers ticked → a drop slip; the receipt shows
    what was recorded into the box only now."""
    require_screen(request.user, "count")
    actor = actor_of(request)

    def work() -> dict[str, Any]:
        slip = count_box(
            actor=actor,
            box_id=box_id,
            currency=posted_currency(request.POST),
            markers=posted_markers(request.POST),
        )
        return receipt(
            f"Drop slip {slip.number} written: {format_dollars(slip.amount)} counted.", slip=slip.pk
        )

    flash, made, status = tap_flash(request, f"count-{box_id}", work)
    if not flash.ok:
        context = room_context(actor, refused=(box_id, request.POST, flash.headline))
        return render_screen(request, PARTIAL, WHOLE, context, status=status)
    slip = get_slip(slip_id=made["slip"])
    box = DropBox.objects.select_related("table").get(slip=slip)
    context = room_context(actor, flash=flash, counted=_counted(slip, box, actor))
    return render_screen(request, PARTIAL, WHOLE, context)
