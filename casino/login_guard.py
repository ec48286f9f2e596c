"""Brute-force protection for every sign-in (API token, console, admin), on django-axes.

Every path signs in through ``django.contrib.auth.authenticate(request, …)``, so axes' backend
(first in ``AUTHENTICATION_BACKENDS``) sees them all and its database handler records each
failure in PostgreSQL (no cache: sign-in keeps working while Redis is down). This module
holds the floor's policy on top of it:

- failures are counted per username and per client address (``casino.client_address``), with
  a larger allowance per address, because a floor's dealers share one address behind NAT;
- a client that reaches either limit is locked out; every further attempt while locked out
  (even the right password) counts too, and each further limit's worth of failures doubles
  the lockout, up to ``LOGIN_LOCKOUT_MAX``;
- a failure is forgotten when its lockout time has passed (axes' per-row expiration), and
  a successful sign-in neither counts nor erases anything (so it cannot wash an address).
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Q, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from rest_framework.request import Request

from casino.errors import DomainError, error_body


class LoginLockedOut(DomainError):
    code = "locked_out"
    status = 429


def _failure_counts(request: HttpRequest | Request, credentials: dict[str, Any] | None) -> tuple[int, int]:
    """Failures not yet forgotten: (for this username, from this address)."""
    username = get_client_username(request, credentials)
    live = AccessAttempt.objects.filter(
        Q(expiration__isnull=True) | Q(expiration__expires_at__gt=timezone.now())
    )
    address = getattr(request, "axes_ip_address", None)  # set by axes before it asks
    counts = live.aggregate(
        by_username=Sum("failures_since_start", filter=Q(username=username)),
        by_address=Sum("failures_since_start", filter=Q(ip_address=address)),
    )
    return counts["by_username"] or 0, counts["by_address"] or 0


def _strikes(request: HttpRequest | Request, credentials: dict[str, Any] | None) -> int:
    """Failures in units of the username limit (the address's count scaled down to it), so that
    ``strikes >= LOGIN_FAILURES_PER_USERNAME`` exactly when either limit is reached."""
    by_username, by_address = _failure_counts(request, credentials)
    per_username, per_address = settings.LOGIN_FAILURES_PER_USERNAME, settings.LOGIN_FAILURES_PER_ADDRESS
    return max(by_username, by_address * per_username // per_address)


def lockout_time(request: HttpRequest | Request | None = None) -> timedelta:
    """``AXES_COOLOFF_TIME``: how long failures are remembered, which is how long a lockout lasts.

    ``LOGIN_LOCKOUT`` up to twice the limit, then doubled for each further limit's worth of
    failures, at most ``LOGIN_LOCKOUT_MAX``.
    """
    base, ceiling = settings.LOGIN_LOCKOUT, settings.LOGIN_LOCKOUT_MAX
    if request is None or not hasattr(request, "axes_ip_address"):
        return base
    strikes = _strikes(request, getattr(request, "axes_credentials", None))
    doublings = max(0, strikes // settings.LOGIN_FAILURES_PER_USERNAME - 1)
    if doublings >= 32:
        return ceiling
    return min(base * 2**doublings, ceiling)


class LoginGuardHandler(AxesDatabaseHandler):
    """axes' database handler, with separate limits per username and per address."""

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        return _strikes(request, credentials)


def lockout_message(request: HttpRequest | Request) -> str:
    minutes = max(1, math.ceil(lockout_time(request).total_seconds() / 60))
    unit = "minute" if minutes == 1 else "minutes"
    return f"Too many failed sign-ins for this account or address; try again in {minutes} {unit}."


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the refusal in the style of the page that was asked for."""
    message = lockout_message(request)
    if request.path.startswith("/api/"):
        return JsonResponse(error_body(LoginLockedOut.code, message), status=LoginLockedOut.status)
    template = (
        "casino/admin_locked_out.html" if request.path.startswith("/admin/") else "console/locked_out.html"
    )
    return render(request, template, {"message": message, "title": "Too many sign-in attempts"}, status=429)
