"""A slip's page in the web console: /slips/<id>/ (staff, session sign-in), linked from every list
of slips: what it says, who signed it and when, how its status moved, and a void with its reason."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import STAFF_ROLES
from casino.permissions import role_of
from casino.signed_in import NotAllowed, signed_in_get
from tables.slips.history import slip_history
from tables.slips.printing import slip_sheet
from tables.slips.selectors import get_slip


@signed_in_get
def slip_page(request: HttpRequest, slip_id: int) -> HttpResponse:
    if role_of(request.user) not in STAFF_ROLES:
        raise NotAllowed("Slips are for casino staff.")
    slip = get_slip(slip_id=slip_id)
    return render(request, "slips/history.html", {**slip_sheet(slip), "events": slip_history(slip)})
