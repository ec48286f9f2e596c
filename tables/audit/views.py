"""The auditors' page in the console: /audit/ and /audit/<date>/ (session sign-in).

Auditors and pit bosses read the report here, download the PDF and CSV (the API's files,
which accept the same session), and can ask for the close-and-audit of a day. Auditors also see
the day's signed checkpoint, download its records and the checkpoint, and the command to check them.
"""

from __future__ import annotations

import datetime as dt
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino import days
from casino.errors import NotFound, ValidationFailed
from casino.models import Role
from casino.permissions import SCREENS, actor_of, role_of
from casino.signed_in import NotAllowed, View, signed_in
from ledger.errors import ServiceError
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import ClosedGamingDay
from tables.audit.charts import all_charts
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.render_pdf import local_time, report_context
from tables.audit.selectors import get_liveness, list_open_tables, list_recent_reports
from tables.audit.services import request_audit
from tables.evidence.keys import known_keys
from tables.evidence.models import Checkpoint
from tables.evidence.selectors import list_checkpoints, verify_command

AUDIT_ROLES = SCREENS["audit"].who  # the nav and this check read one table
CHART_CACHE_SECONDS = 3600
CHART_DPI = 110  # the page's charts; the PDF draws its own finer


KEY_STATES = {"current": "the casino's current key", "retired": "a key the casino has since retired"}


def auditors_only(view: View) -> View:
    """Signed in (else the sign-in page), and an auditor or a pit boss (else a polite 403)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if role_of(request.user) not in AUDIT_ROLES:
            raise NotAllowed("Audit reports are for auditors and pit bosses.")
        return view(request, *args, **kwargs)

    return signed_in(wrapper)


def _day(value: str) -> dt.date | None:
    """The day in a URL or a form (``casino.days``), or None for anything else."""
    try:
        return days.parse_day(value, field="day")
    except ValidationFailed:
        return None


@require_GET
@auditors_only
def index(request: HttpRequest) -> HttpResponse:
    wanted = _day(request.GET.get("day", ""))
    if wanted is not None:
        return HttpResponseRedirect(reverse("audit:report", args=[wanted.isoformat()]))
    today = gaming_day_for()
    reports = list(list_recent_reports())
    signed = (
        list_checkpoints(days=[r.gaming_day for r in reports])
        if role_of(request.user) == Role.AUDITOR
        else {}
    )
    for report in reports:
        report.checkpoint = signed.get(report.gaming_day)  # type: ignore[attr-defined]
    return render(
        request,
        "audit/index.html",
        {
            "reports": reports,
            "today": today,
            "yesterday": today - dt.timedelta(days=1),
            "evidence": bool(signed),
        },
    )


def _report_context(report: AuditReport) -> dict[str, Any]:
    """Charts take a second to draw; a finished report never changes, so they are cached (only
    they: the rest of the page is quick, and is never read from an older release's cache)."""
    stamp = report.finished_at.timestamp() if report.finished_at else 0
    key = f"audit-charts:{report.pk}:{report.runs}:{stamp}"
    charts: dict[str, str] | None = cache.get(key)
    if charts is None:
        charts = all_charts(report.data, dpi=CHART_DPI)
        cache.set(key, charts, CHART_CACHE_SECONDS)
    return report_context(report.data, charts=charts)


def day_in_path(view: View) -> View:
    """The URL's ``<day>`` as a date, or a 404 page that says what a date looks like."""

    @wraps(view)
    def wrapper(request: HttpRequest, day: str) -> HttpResponse:
        gaming_day = _day(day)
        if gaming_day is None:
            raise NotFound(f"'{day}' is not a date (YYYY-MM-DD).")
        return view(request, gaming_day)

    return wrapper


@require_GET
@auditors_only
@day_in_path
def report_page(request: HttpRequest, gaming_day: dt.date) -> HttpResponse:
    report = AuditReport.objects.filter(gaming_day=gaming_day).first()
    context = _page_context(gaming_day, report)
    context.update(
        running=report is not None and report.status in (AuditStatus.QUEUED, AuditStatus.RUNNING),
        liveness=get_liveness(report) if report is not None else None,
    )
    if report is not None and report.status == AuditStatus.DONE:
        context.update(_report_context(report))
    # The evidence is the auditor's (API.md): a pit boss reads the report without it.
    context["evidence"] = _evidence_context(gaming_day) if role_of(request.user) == Role.AUDITOR else None
    return render(request, "audit/report.html", context)


def _evidence_context(gaming_day: dt.date) -> dict[str, Any] | None:
    """The day's signed checkpoint as the page shows it, with its files and the command to check them."""
    checkpoint = Checkpoint.objects.filter(gaming_day=gaming_day).first()
    if checkpoint is None:
        return None
    state = known_keys().get(checkpoint.key_id)
    day = gaming_day.isoformat()
    return {
        "at": local_time(checkpoint.at),
        "records": checkpoint.records,
        "root": checkpoint.root,
        "key_id": checkpoint.key_id,
        "key_state": KEY_STATES.get(state or "", "a key this casino does not list"),
        "previous_day": checkpoint.document.get("previous_day"),
        "previous_root": checkpoint.previous_root,
        "export_url": reverse("evidence-export", args=[day]),
        "checkpoint_url": reverse("evidence-checkpoint", args=[day]),
        "command": verify_command(gaming_day),
    }


def _page_context(gaming_day: dt.date, report: AuditReport | None) -> dict[str, Any]:
    """What the close form needs: before the rollover, the open tables an early close waits for."""
    _start, end = gaming_day_bounds(gaming_day)
    day_over = end <= dt.datetime.now(tz=dt.UTC)
    return {
        "day": gaming_day,
        "row": report,
        "ends_at": local_time(end),
        "zone": settings.CASINO_TIME_ZONE,
        "day_over": day_over,
        "open_tables": [] if day_over else list_open_tables(),
        "day_closed": ClosedGamingDay.objects.filter(day=gaming_day).exists(),
        "api_report": reverse("gaming-day-report", args=[gaming_day.isoformat()]),
    }


def _early_close_confirmed(request: HttpRequest, gaming_day: dt.date) -> bool | None:
    """The day typed back: True if it matches, None if nothing was typed, False if it differs.

    One checkbox is too easy to tick: an early close stops every transfer until the rollover.
    """
    typed = request.POST.get("confirm_day", "").strip()
    if not typed:
        return None
    return typed == gaming_day.isoformat()


@require_POST
@auditors_only
@day_in_path
def close_day(request: HttpRequest, gaming_day: dt.date) -> HttpResponse:
    confirmed = _early_close_confirmed(request, gaming_day)
    try:
        if confirmed is False:
            raise ValidationFailed(
                f"To close early, type the gaming day exactly as {gaming_day.isoformat()}; "
                "nothing was closed.",
                fields={"confirm_day": gaming_day.isoformat()},
            )
        request_audit(day=gaming_day, actor=actor_of(request), force=bool(confirmed))
    except ServiceError as error:
        context = _page_context(gaming_day, AuditReport.objects.filter(gaming_day=gaming_day).first())
        context["error"] = error.message
        return render(request, "audit/report.html", context, status=409 if error.status == 409 else 400)
    return HttpResponseRedirect(reverse("audit:report", args=[gaming_day.isoformat()]))
