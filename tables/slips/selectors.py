"""Reading slips: lists, one slip with its signatures, and a series accounted for."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from casino.errors import NotFound
from tables.slips.models import Slip, SlipCounter, SlipSignature, SlipStatus
from tables.slips.numbers import format_number


def list_slips() -> QuerySet[Slip]:
    """Every slip with its signers, newest first (filtered by the caller)."""
    return Slip.objects.select_related("table", "requested_by", "voided_by").prefetch_related(
        Prefetch("signatures", queryset=SlipSignature.objects.select_related("user").order_by("id"))
    )


def get_slip(*, slip_id: int) -> Slip:
    slip = list_slips().filter(pk=slip_id).first()
    if slip is None:
        raise NotFound("No such slip.")
    return slip


def session_slip(*, session_id: int, kind: str) -> Slip | None:
    """A table session's opener or closer (one each, written with the opening and the closing;
    None for a session opened before slips were kept)."""
    return list_slips().filter(session_id=session_id, kind=kind).first()


@dataclass(frozen=True)
class Series:
    kind: str
    year: int
    first: str | None
    last: str | None
    issued: int
    void: int
    missing: list[str]


def account_for_series(*, kind: str, year: int) -> Series:
    """Every number from 1 to the counter's last, and which of them no slip carries.

    ``missing`` can only be non-empty if rows were removed behind the service's back (the
    triggers of migration tables/0014 refuse it): it is what an auditor checks first.
    """
    last = SlipCounter.objects.filter(kind=kind, year=year).values_list("last", flat=True).first() or 0
    rows = Slip.objects.filter(kind=kind, year=year).values_list("serial", "status")
    serials = {serial for serial, _ in rows}
    voided = sum(1 for _, status in rows if status == SlipStatus.VOID)
    top = max([last, *serials], default=0)
    missing = [format_number(kind, year, n) for n in range(1, top + 1) if n not in serials]
    return Series(
        kind=kind,
        year=year,
        first=format_number(kind, year, 1) if top else None,
        last=format_number(kind, year, top) if top else None,
        issued=len(serials),
        void=voided,
        missing=missing,
    )
