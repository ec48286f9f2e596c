"""A slip on paper: what its print page and its PDF show, in words and dollars.

Both render ``slips/_slip.html`` from ``slip_sheet``: the number, the kind in words, the table
and gaming day, the chips by denomination, the amount in words and in figures, the count's
expected tray and variance, the signatures, and the void with its reason.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.template.loader import render_to_string

from casino.models import Role
from casino.money import format_dollars
from casino.selectors import staff_name
from tables.slips.chips import chip_set
from tables.slips.models import CountReason, Slip, SlipKind, SlipStatus
from tables.slips.words import amount_in_words_and_figures

KIND_TITLES = {
    SlipKind.OPENER: "Opener: the tray counted at opening",
    SlipKind.CLOSER: "Closer: the tray counted at closing",
    SlipKind.COUNT: "Count of the tray",
    SlipKind.FILL: "Fill: chips from the cage to the table",
    SlipKind.CREDIT: "Credit: chips from the table to the cage",
    SlipKind.DROP: "Drop: the cash in a table's drop box",
    SlipKind.MARKER: "Marker: credit given to a player",
}
STATUS_WORDS = {
    SlipStatus.PENDING: "Waiting for signatures",
    SlipStatus.ISSUED: "Chips in transit",
    SlipStatus.RECEIVED: "Received",
    SlipStatus.FINAL: "Signed by everyone it needs",
    SlipStatus.VOID: "Void",
}


@dataclass(frozen=True, slots=True)
class ChipLine:
    label: str  # "$25"
    colour: str
    pieces: int
    value: str  # "$1,000.00"


@dataclass(frozen=True, slots=True)
class SignatureLine:
    role: str
    name: str
    at: str
    note: str


def local_time(moment: dt.datetime | None) -> str:
    """Casino-local "YYYY-MM-DD HH:MM" (the zone is printed once on the slip)."""
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(settings.CASINO_TIME_ZONE)).strftime("%Y-%m-%d %H:%M")


def role_words(role: str) -> str:
    return str(Role(role).label) if role in Role.values else role.replace("_", " ").capitalize()


def kind_title(slip: Slip) -> str:
    """The kind in words; a count says why it was taken ("Count of the tray: shift change")."""
    title = KIND_TITLES.get(SlipKind(slip.kind), slip.kind)
    if slip.kind == SlipKind.COUNT and slip.reason in CountReason.values:
        title = f"{title}: {CountReason(slip.reason).label}"
    if slip.kind == SlipKind.MARKER and slip.reason:  # the player who signed it
        title = f"Marker: credit given to {slip.reason}"
    return title


def chip_lines(count: dict[str, int] | None) -> list[ChipLine]:
    """The count by denomination, smallest chip first; a chip no longer in the set still shows."""
    if not count:
        return []
    colours = {str(chip.value): chip.colour for chip in chip_set()}
    return [
        ChipLine(
            label=format_dollars(int(value), whole_if_even=True),
            colour=colours.get(value, ""),
            pieces=pieces,
            value=format_dollars(int(value) * pieces),
        )
        for value, pieces in sorted(count.items(), key=lambda item: int(item[0]))
    ]


def variance_words(variance: int | None) -> str:
    """ "$150.00 short", "$20.00 over", "none" (the count matched)."""
    if variance is None:
        return ""
    if variance == 0:
        return "none: the count matched the ledger"
    return f"{format_dollars(abs(variance))} {'over' if variance > 0 else 'short'}"


def slip_sheet(slip: Slip) -> dict[str, Any]:
    """What the print page and the PDF render (the slip read by ``selectors.get_slip``)."""
    return {
        "slip": slip,
        "title": kind_title(slip),
        "status": STATUS_WORDS.get(SlipStatus(slip.status), slip.status),
        "table_name": slip.table.name if slip.table is not None else "",
        "requested_by": staff_name(slip.requested_by),
        "at": local_time(slip.at),
        "zone": settings.CASINO_TIME_ZONE,
        "chips": chip_lines(slip.count),
        "pieces": sum((slip.count or {}).values()),
        "amount": format_dollars(slip.amount),
        "amount_line": amount_in_words_and_figures(slip.amount),
        "expected": None if slip.expected is None else format_dollars(slip.expected),
        "variance": variance_words(slip.variance),
        "signatures": [
            SignatureLine(role_words(s.role), staff_name(s.user), local_time(s.at), s.note)
            for s in slip.signatures.all()
        ],
        "needs": [role_words(role) for role in slip.needs] if slip.status != SlipStatus.VOID else [],
        "void": slip.status == SlipStatus.VOID,
        "void_reason": slip.void_reason,
        "voided_by": staff_name(slip.voided_by) if slip.voided_by is not None else "",
        "voided_at": local_time(slip.voided_at),
    }


def render_slip_pdf(slip: Slip) -> bytes:
    """The slip as a PDF. WeasyPrint is imported here: it needs Pango (deploy/scripts/setup)."""
    from weasyprint import HTML

    html = render_to_string("slips/slip_pdf.html", slip_sheet(slip))
    pdf: bytes = HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()
    return pdf
