"""Brute-force protection for every sign-in (API token, console, admin), on django-axes.

Every path signs in through ``django.contrib.auth.authenticate(request, …)``, so axes' backend
(first in ``AUTHENTICATION_BACKENDS``) sees them all and its database handler records each
failure in PostgreSQL (no cache: sign-in keeps working while Redis is down). This module
holds the floor's policy on top of it:

- failures are counted per account (username) only, never per client address: a floor's
  dealers share one address behind NAT, so anyone on that network could otherwise lock the
  whole floor out with wrong passwords;
- an account that reaches ``LOGIN_FAILURES_PER_USERNAME`` is locked out; every further
  attempt while locked out (even the right password) counts too, and each further limit's
  worth of failures doubles the lockout, up to ``LOGIN_LOCKOUT_MAX``;
- a failure is forgotten when its lockout time has passed (axes' per-row expiration), or at
  once when an admin or a pit boss unlocks the account in the admin (``unlock``);
- a successful sign-in neither counts nor erases anything.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.db.models import IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from rest_framework.request import Request

from casino.errors import DomainError, error_body


class LoginLockedOut(DomainError):
    code = "locked_out"
    status = 429


def _live_attempts() -> QuerySet[AccessAttempt]:
    """Failure rows whose lockout time has not passed yet."""
    return AccessAttempt.objects.filter(
        Q(expiration__isnull=True) | Q(expiration__expires_at__gt=timezone.now())
    )


def account_failures(username: str | None) -> int:
    """Failures of this account not yet forgotten, from any address."""
    if username is None:
        return 0
    total = _live_attempts().filter(username=username).aggregate(total=Sum("failures_since_start"))["total"]
    return int(total or 0)


def account_failures_column() -> Coalesce:
    """``account_failures`` of each row's ``username``, for annotating a query of users."""
    per_account = (
        _live_attempts()
        .filter(username=OuterRef("username"))
        .values("username")
        .annotate(total=Sum("failures_since_start"))
        .values("total")
    )
    return Coalesce(Subquery(per_account, output_field=IntegerField()), 0)


def is_locked_out(failures: int) -> bool:
    return failures >= settings.LOGIN_FAILURES_PER_USERNAME


def locked_out_usernames() -> QuerySet[AccessAttempt]:
    """The usernames locked out now, as a subquery (``username__in=``)."""
    return (
        _live_attempts()
        .values("username")
        .annotate(total=Sum("failures_since_start"))
        .filter(total__gte=settings.LOGIN_FAILURES_PER_USERNAME)
        .values("username")
    )


def lockout_for(failures: int) -> timedelta:
    """``LOGIN_LOCKOUT`` up to twice the limit, then doubled for each further limit's worth of
    failures, at most ``LOGIN_LOCKOUT_MAX``."""
    base, ceiling = settings.LOGIN_LOCKOUT, settings.LOGIN_LOCKOUT_MAX
    doublings = max(0, failures // settings.LOGIN_FAILURES_PER_USERNAME - 1)
    if doublings >= 32:
        return ceiling
    return min(base * 2**doublings, ceiling)


def lockout_time(request: HttpRequest | Request | None = None) -> timedelta:
    """``AXES_COOLOFF_TIME``: how long failures are remembered, which is how long a lockout lasts."""
    if request is None or not hasattr(request, "axes_ip_address"):  # set by axes before it asks
        return settings.LOGIN_LOCKOUT
    username = get_client_username(request, getattr(request, "axes_credentials", None))
    return lockout_for(account_failures(username))


class LoginGuardHandler(AxesDatabaseHandler):
    """axes' database handler, counting an account's failures until each row's own expiry."""

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        return account_failures(get_client_username(request, credentials))


def unlock(username: str) -> int:
    """Forget every failure of this account (from any address): it may sign in at once."""
    return int(reset(username=username))


def lockout_message(request: HttpRequest | Request) -> str:
    minutes = max(1, math.ceil(lockout_time(request).total_seconds() / 60))
    unit = "minute" if minutes == 1 else "minutes"
    return (
        f"Too many failed sign-ins for this account; try again in {minutes} {unit}, "
        "or ask a pit boss to unlock it."
    )


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
