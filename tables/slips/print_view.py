"""The slip's print page in the web console: /slips/<id>/print (staff, session sign-in).

The PDF beside it is the API's (``GET /api/v1/slips/{id}/pdf``), which accepts the same session.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from casino.models import STAFF_ROLES
from casino.permissions import role_of
from casino.signed_in import NotAllowed, signed_in_get
from tables.slips.printing import slip_sheet
from tables.slips.selectors import get_slip


@signed_in_get
def print_slip(request: HttpRequest, slip_id: int) -> HttpResponse:
    if role_of(request.user) not in STAFF_ROLES:
        raise NotAllowed("Slips are for casino staff.")
    slip = get_slip(slip_id=slip_id)
    context = {**slip_sheet(slip), "pdf_url": reverse("slip-pdf", args=[slip.pk])}
    return render(request, "slips/print.html", context)
