"""A table's markers in the pit: the players seated there with their credit available and their
cash in and out today against the MTL and CTR lines (``casino.cash``), a marker to issue (a pit
boss's, never on a line they set), and the markers issued at the table tonight.

One form → ``tables.credit.services.issue_marker`` once per form token (``tap_flash``) → the
page's live part again, with the receipt in words or the refusal in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from django import forms as django_forms
from django.http import HttpRequest, HttpResponse

from casino.cash.selectors import CashToday, cash_days_of
from casino.cash.services import ctr_line, mtl_line
from casino.money import format_dollars
from casino.permissions import actor_of, may
from casino.selectors import staff_name
from casino.signed_in import signed_in_get, signed_in_post
from tables.console import forms
from tables.console.access import found, require_pit
from tables.console.taps import Flash, receipt, render_screen, tap_flash
from tables.credit.models import CreditLine, Marker
from tables.credit.selectors import credit_summary, today
from tables.credit.services import issue_marker
from tables.models import Seat, Table, TableStatus
from tables.slips.models import SlipStatus
from tables.slips.printing import STATUS_WORDS


class MarkerForm(django_forms.Form):
    player = forms.PlayerField(words="the player who signs the marker")
    amount = forms.DollarsField(words="marker amount")


@dataclass(frozen=True, slots=True)
class CreditRow:
    player: int
    name: str
    limit: str
    owed: str
    available: str
    has_line: bool
    can_draw: bool
    cash_in: str
    cash_out: str
    cash_marks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MarkerRow:
    number: str
    slip: int
    name: str
    amount: str
    outstanding: str
    state: str


def cash_marks(cash: CashToday) -> tuple[str, ...]:
    """The compliance words for a player's cash day: "MTL" once either total is at or past the
    multiple-transaction log's line, and the identification's state once a total is within one
    MTL line of the CTR line (one more such transaction could cross it) or past it."""
    mtl, ctr = mtl_line(), ctr_line()
    most = max(cash.cash_in, cash.cash_out)
    marks: list[str] = []
    if most >= mtl:
        marks.append("MTL")
    if most > ctr:
        marks.append(f"CTR: past {format_dollars(ctr)}")
    if most >= ctr - mtl:
        marks.append("ID on file" if cash.identified else f"ID needed past {format_dollars(ctr)}")
    return tuple(marks)


def credit_rows(table: Table) -> list[CreditRow]:
    """Each player seated at the table, with their line, what they owe and what they may draw, and
    their cash in and out today (one read for every seat)."""
    seats = (
        Seat.objects.filter(table=table, left_at__isnull=True)
        .select_related("player__user")
        .order_by("number")
    )
    players = [seat.player for seat in seats]
    lines = {
        line.player_id: line
        for line in CreditLine.objects.filter(player__in=players).select_related("receivable")
    }
    cash = cash_days_of(player_ids=[player.pk for player in players], day=today())
    rows = []
    for player in players:
        line = lines.get(player.pk)
        day = cash[player.pk]
        owed = line.receivable.balance if line else 0
        available = max(line.limit - owed, 0) if line else 0
        rows.append(
            CreditRow(
                player=player.pk,
                name=player.name,
                limit=format_dollars(line.limit) if line else "no credit line",
                owed=format_dollars(owed),
                available=format_dollars(available),
                has_line=line is not None,
                can_draw=available > 0,
                cash_in=format_dollars(day.cash_in),
                cash_out=format_dollars(day.cash_out),
                cash_marks=cash_marks(day),
            )
        )
    return rows


def tonights_markers(table: Table) -> list[MarkerRow]:
    markers = (
        Marker.objects.filter(slip__table=table, slip__gaming_day=today())
        .select_related("slip", "player__user")
        .order_by("-id")
    )
    return [
        MarkerRow(
            number=m.slip.number,
            slip=m.slip_id,
            name=m.player.name,
            amount=format_dollars(m.amount),
            outstanding=format_dollars(m.outstanding),
            state="Waiting for the dealer's signature"
            if m.slip.status == SlipStatus.PENDING
            else STATUS_WORDS.get(SlipStatus(m.slip.status), m.slip.status),
        )
        for m in markers
    ]


def markers_context(request: HttpRequest, table: Table, flash: Flash | None = None) -> dict[str, Any]:
    return {
        "table": table,
        "dealer": staff_name(table.dealer) if table.dealer else "",
        "is_open": table.status == TableStatus.OPEN,
        "rows": credit_rows(table),
        "markers": tonights_markers(table),
        "may_issue": may(request.user, "marker.issue", table=table),
        "flash": flash,
    }


def _table(table_id: int) -> Table:
    return found(Table.objects.select_related("dealer").filter(pk=table_id), "No such table.")


@signed_in_get
def table_markers(request: HttpRequest, table_id: int) -> HttpResponse:
    require_pit(request.user)
    table = _table(table_id)
    return render_screen(
        request, "pit/markers.html#live", "pit/markers.html", markers_context(request, table)
    )


@signed_in_post
def issue(request: HttpRequest, table_id: int) -> HttpResponse:
    """A pit boss issues a marker at the table: the receipt says who, how much, and who signs."""
    require_pit(request.user)
    table = _table(table_id)
    flash, _, status = tap_flash(request, "marker", partial(_issue, request, table))
    context = markers_context(request, table, flash)
    return render_screen(request, "pit/markers.html#live", "pit/markers.html", context, status=status)


def _issue(request: HttpRequest, table: Table) -> dict[str, Any]:
    asked = forms.checked(MarkerForm(request.POST)).cleaned_data
    marker = issue_marker(
        actor=actor_of(request), table_id=table.pk, player_id=asked["player"], amount=asked["amount"]
    )
    player = marker.player
    left = credit_summary(player=player).available
    signer = staff_name(table.dealer) if table.dealer else "the table's dealer"
    return receipt(
        f"Marker {marker.slip.number}: {format_dollars(marker.amount)} in chips to {player.name} "
        f"at {table.name}.",
        f"The chips left the tray; {signer} signs the marker at the table.",
        f"{player.name} has {format_dollars(left)} of credit left.",
        stays=True,
    )
