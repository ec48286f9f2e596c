"""The pit view: every table at a glance (polled every 5 s), fills and credits to ask for,
credits to release (never one's own) and every fill and credit pending or in transit, limits,
relief dealers to swap in, dealers' corrections to approve, and detection's open alerts. What
waits for the pit shows as counts that open their lists, so the table cards come first.

Each table's card carries tonight's hourly win/hold chart, its dealer's pace and its occupancy
(``tables.console.pit.figures``, from the ratings rows), refreshed with the same partial.

Approvals, limit changes, dealer swaps, corrections and alert resolutions go through the same
services as the API's (``tables.services``, fills and credits through
``tables.console.books.transit``, ``tables.corrections``, ``tables.detection.services``),
once per form token.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.text import capfirst

from casino.models import Role
from casino.money import format_dollars
from casino.permissions import actor_of, may, may_open, role_of
from casino.selectors import people_named, staff_name
from casino.signed_in import signed_in_get, signed_in_post
from tables import services
from tables.console import forms
from tables.console.access import found, require_pit, require_screen
from tables.console.books.transit import transit_decision, transit_rows
from tables.console.dealer.corrections import pending_rows
from tables.console.limits import change_limits_work
from tables.console.pit.floor import CardForms, floor_cards
from tables.console.taps import Flash, receipt, render_screen, tap_flash
from tables.corrections import approve_correction, refuse_correction
from tables.detection.models import Alert
from tables.detection.selectors import count_open_alerts, list_open_alerts
from tables.detection.services import resolve_alert as resolve_alert_service
from tables.detection.words import evidence_brief
from tables.models import Correction, RoundStatus, Table
from tables.selectors import tables_named
from tables.slips.models import SlipStatus

ALERTS_SHOWN = 20


def alert_rows(alerts: list[Alert]) -> list[tuple[Alert, str, str, str]]:
    """Each alert as the pit reads it: its kind, its summary and a glance at its evidence
    (``tables.detection.words``), in words: names of people and tables, not ids (one read of
    each for the whole list, summaries and glances together)."""
    texts = [alert.summary for alert in alerts] + [evidence_brief(a.kind, a.evidence) for a in alerts]
    named = tables_named(people_named(texts))
    summaries, briefs = named[: len(alerts)], named[len(alerts) :]
    return [
        (alert, capfirst(alert.kind.replace("_", " ")), summary, brief)
        for alert, summary, brief in zip(alerts, summaries, briefs, strict=True)
    ]


def pit_context(request: HttpRequest, flash: Flash | None = None) -> dict[str, Any]:
    """A tap's answer (``flash``) renders the floor afresh; a poll may share a copy up to 5 s old
    (``pit_floor.FLOOR_FRESH_SECONDS``)."""
    card_forms = CardForms(
        can_request_tray=may(request.user, "tray.request"),
        can_change_limits=may(request.user, "table.limits"),
        can_use_admin=may_open(request.user, "admin"),
        can_assign_dealer=may(request.user, "table.assign"),
    )
    return {
        "floor": floor_cards(request, card_forms, fresh=flash is not None),
        "transit": (transit := transit_rows(actor_of(request))),
        "pending_count": sum(row.slip.status == SlipStatus.PENDING for row in transit),
        "corrections": pending_rows(),
        "can_decide_corrections": may(request.user, "correction.decide"),
        "flash": flash,
        "alerts": alert_rows(list_open_alerts(limit=ALERTS_SHOWN)),
        "alerts_open": count_open_alerts(),
        "can_resolve": role_of(request.user) == Role.PIT_BOSS,
        "can_use_admin": card_forms.can_use_admin,
        "poll_seconds": settings.CONSOLE_POLL_SECONDS,
    }


@signed_in_get
def pit_screen(request: HttpRequest, template: str) -> HttpResponse:
    """The pit's page, or (``pit/_live.html``, from its URL) the part its poll refreshes."""
    require_pit(request.user)
    return render(request, template, pit_context(request))


def _pit_tap(request: HttpRequest, form: str, work: Callable[[], dict[str, Any]]) -> HttpResponse:
    """Run a tap's ``work`` (read its form, make its one service call, return its receipt) once per
    form token; the pit's live part answers, the floor rendered afresh, with the receipt or the
    refusal."""
    require_pit(request.user)
    flash, _, status = tap_flash(request, form, work)
    return render_screen(
        request, "pit/_live.html", "pit/pit.html", pit_context(request, flash), status=status
    )


@signed_in_post
def decide(request: HttpRequest, request_id: int, verdict: str) -> HttpResponse:
    """Release or refuse a credit (or, for a cashier, issue or refuse a fill): the slip's first
    signature, never the requester's."""
    return _pit_tap(request, f"request-{request_id}", transit_decision(request, request_id, verdict))


@signed_in_post
def tray_request(request: HttpRequest, table_id: int) -> HttpResponse:
    """A pit boss asks for a fill or a credit from the floor; someone else must approve it."""
    return _pit_tap(request, f"tray-{table_id}", partial(_ask_tray, request, table_id))


def _ask_tray(request: HttpRequest, table_id: int) -> dict[str, Any]:
    asked = forms.checked(forms.TrayRequestForm(request.POST)).cleaned_data
    made = services.request_tray_change(
        actor=actor_of(request), table_id=table_id, kind=asked["kind"], amount=asked["amount"]
    )
    return receipt(
        f"{asked['kind'].title()} of {format_dollars(made.amount)} requested for {made.table.name}.",
        f"Slip {made.number}: nothing moves until "
        + ("the cage issues it." if made.kind == "fill" else "another pit boss releases it."),
    )


@signed_in_post
def limits(request: HttpRequest, table_id: int) -> HttpResponse:
    return _pit_tap(request, f"limits-{table_id}", partial(change_limits_work, request, table_id))


@signed_in_post
def assign_dealer(request: HttpRequest, table_id: int) -> HttpResponse:
    """A pit boss swaps a relief dealer in at a table: the API's assign, once per form token."""
    table = found(Table.objects.select_related("dealer").filter(pk=table_id), "No such table.")
    return _pit_tap(request, f"dealer-{table_id}", partial(_assign, request, table))


def _assign(request: HttpRequest, table: Table) -> dict[str, Any]:
    chosen = forms.checked(forms.DealerForm(request.POST)).cleaned_data["dealer"]
    dealer = services.assign_dealer(actor=actor_of(request), table_id=table.pk, dealer_id=chosen).dealer
    assert dealer is not None  # assign_dealer has just set it
    before = f"Before: {staff_name(table.dealer)}." if table.dealer else "It had no dealer before."
    return receipt(f"{staff_name(dealer)} now deals {table.name}.", before)


@signed_in_post
def resolve_alert(request: HttpRequest, alert_id: int) -> HttpResponse:
    """A pit boss closes a detector's alert with a note (the API's resolve, once per form token)."""
    alert = found(Alert.objects.filter(pk=alert_id), "No such alert.")
    return _pit_tap(request, f"alert-{alert.pk}", partial(_resolve, request, alert))


def _resolve(request: HttpRequest, alert: Alert) -> dict[str, Any]:
    note = forms.checked(forms.NoteForm(request.POST)).cleaned_data["note"]
    resolve_alert_service(actor=actor_of(request), alert_id=alert.pk, note=note)
    return receipt(f"Resolved: {alert.summary}", f"Note: {note.strip()}")


@signed_in_post
def decide_correction(request: HttpRequest, correction_id: int, verdict: str) -> HttpResponse:
    """The pit's approve or refuse: a second person, never the one who asked."""
    correction = found(
        Correction.objects.select_related("round__table").filter(pk=correction_id), "No such correction."
    )
    return _pit_tap(
        request, f"correction-{correction_id}", partial(_decide_correction, request, correction, verdict)
    )


def _decide_correction(request: HttpRequest, correction: Correction, verdict: str) -> dict[str, Any]:
    table, deal = correction.round.table.name, correction.round.number
    if verdict == "approve":
        round_ = approve_correction(actor=actor_of(request), correction_id=correction.pk)
        after = "voided" if round_.status == RoundStatus.VOID else "refolded; play goes on"
        return receipt(
            f"Approved: the correction of {table} deal #{deal}.",
            f"The voided chips went back where they came from; the deal is {after}.",
        )
    note = forms.checked(forms.NoteForm(request.POST)).cleaned_data["note"]
    refuse_correction(actor=actor_of(request), correction_id=correction.pk, note=note)
    return receipt(f"Refused: the correction of {table} deal #{deal}.", "Nothing moved.")


@signed_in_get
def alerts_page(request: HttpRequest) -> HttpResponse:
    """Detection's open alerts, read only, for those who may read them (API.md: auditors and pit
    bosses); a pit boss resolves them in the pit, which this page links to."""
    require_screen(request.user, "audit_alerts")
    context = {
        "alerts": alert_rows(list_open_alerts(limit=ALERTS_SHOWN)),
        "alerts_open": count_open_alerts(),
        "can_resolve": False,
        "can_open_pit": may_open(request.user, "floor"),
    }
    return render(request, "pit/alerts.html", context)
