"""The books' screens: the dealer's blind count on the chip grid, the lists of slips waiting
for the pit's and the cage's signatures, and a signature given with the signer's own password.

Each POST is one Django form → one slips service (``take_count``, ``sign_slip``) inside the
console's one-time token (``run_tap``) → a partial of ``books/_books.html`` with what changed.
The count is blind: the grid never shows the ledger's tray; the receipt after the count does.
The password is checked before the token is claimed, outside its transaction, so a wrong one is
recorded toward the account's lockout (``casino.signatures``) and never replayed as a success.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import STAFF_ROLES
from casino.permissions import actor_of, role_of
from casino.signatures import confirm_signature
from casino.signed_in import NotAllowed, signed_in_get, signed_in_post
from tables.console import forms
from tables.console.access import dealer_table, require_pit, require_screen
from tables.console.books.forms import CountGridForm, SignForm, chip_field_name
from tables.console.books.rows import slip_row, waiting_for
from tables.console.idempotency import Done, run_tap
from tables.console.taps import SERVICE_ERRORS, receipt
from tables.models import Table, TableStatus
from tables.slips.chips import chip_set
from tables.slips.counts import take_count
from tables.slips.models import CountReason
from tables.slips.printing import role_words
from tables.slips.selectors import get_slip
from tables.slips.services import sign_slip

PARTIALS = "books/_books.html"
SCREEN_TITLES = {
    "pit": "Slips waiting for your signature",
    "cage": "Fills to issue, credits and drops to sign for",
}


def _partial(request: HttpRequest, name: str, whole: str) -> str:
    return f"{PARTIALS}#{name}" if request.htmx else whole  # type: ignore[attr-defined]


def grid_context(table: Table, data: Any = None, error: str = "") -> dict[str, Any]:
    """The chip grid as typed so far (``data``: the posted form after a refusal)."""
    typed = data or {}
    return {
        "table": table,
        "chips": [(chip, chip_field_name(chip), typed.get(chip_field_name(chip), "")) for chip in chip_set()],
        "reasons": CountReason.choices,
        "reason": typed.get("reason", CountReason.SHIFT_CHANGE),
        "error": error,
        "is_open": table.status == TableStatus.OPEN,
    }


@signed_in_get
def count_grid(request: HttpRequest, table_id: int) -> HttpResponse:
    """The blank grid: pieces per chip, the running total, and nothing of what the ledger expects."""
    table = dealer_table(request.user, table_id)
    return render(request, "books/count.html", grid_context(table))


@signed_in_post
def count_tray(request: HttpRequest, table_id: int) -> HttpResponse:
    """Write the count's slip; answer with its receipt (the expected figure shows only now)."""
    table = dealer_table(request.user, table_id)

    def work() -> Done:
        form = forms.checked(CountGridForm(request.POST))
        slip = take_count(
            actor=actor_of(request), table_id=table.pk, count=form.count(), reason=form.cleaned_data["reason"]
        )
        return Done(receipt(f"Count {slip.number} written.", slip=slip.pk))

    try:
        outcome = run_tap(request, work)
    except SERVICE_ERRORS as error:
        context = grid_context(table, request.POST, error.message)
        status = int(getattr(error, "status", 400))
        return render(request, _partial(request, "grid", "books/count.html"), context, status=status)
    row = slip_row(get_slip(slip_id=outcome.result["slip"]), actor_of(request))
    context = {"table": table, "row": row, "counted": True}
    return render(request, _partial(request, "counted", "books/count.html"), context)


@signed_in_get
def waiting(request: HttpRequest, screen: str) -> HttpResponse:
    """The slips waiting for the signed-in person's role (the pit's list, the cage's list)."""
    if screen == "cage":
        require_screen(request.user, "cage")
    else:
        require_pit(request.user)
    context = {"rows": waiting_for(actor_of(request)), "title": SCREEN_TITLES[screen], "screen": screen}
    return render(request, "books/waiting.html", context)


@signed_in_post
def sign(request: HttpRequest, slip_id: int) -> HttpResponse:
    """One signature: the signer's password again, then ``sign_slip`` once per form token. The
    answer is the slip's row: signed, or the refusal in place with the prompt still open."""
    if role_of(request.user) not in STAFF_ROLES:
        raise NotAllowed("Slips are for casino staff.")
    actor = actor_of(request)
    get_slip(slip_id=slip_id)  # a missing slip is a 404 page, not a refusal in a row

    def work() -> Done:
        slip = sign_slip(actor=actor, slip_id=slip_id, note=form.cleaned_data["note"])
        return Done(receipt(f"You signed slip {slip.number} as {role_words(role_of(actor)).lower()}."))

    try:
        form = forms.checked(SignForm(request.POST))
        confirm_signature(request, user=actor, password=form.cleaned_data["password"])
        outcome = run_tap(request, work)
    except SERVICE_ERRORS as error:
        row = slip_row(get_slip(slip_id=slip_id), actor)
        context = {"row": row, "error": error.message, "note": request.POST.get("note", "")}
        return render(request, f"{PARTIALS}#row", context, status=int(getattr(error, "status", 400)))
    row = slip_row(get_slip(slip_id=slip_id), actor)
    return render(request, f"{PARTIALS}#row", {"row": row, "done": outcome.result["headline"]})
