"""Screens behind a session sign-in: the console's, the pit's, the cage's and the auditors'.

A refusal renders a polite page, never a stack trace; an expired session on an htmx request
sends the browser to the sign-in page instead of swapping it into the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from casino.errors import NotFound

View = Callable[..., HttpResponse]


class NotAllowed(Exception):
    """This person may not see this screen; ``message`` says why, politely."""

    def __init__(self, message: str, *, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def signed_in(view: View) -> View:
    """Require a session; turn ``NotAllowed`` and missing objects into a polite page."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            if getattr(request, "htmx", False):
                response = HttpResponse(status=204)
                response["HX-Redirect"] = settings.LOGIN_URL
                return response
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        try:
            return view(request, *args, **kwargs)
        except NotAllowed as refusal:
            return forbidden(request, refusal.message, status=refusal.status)
        except NotFound as missing:
            return forbidden(request, missing.message, status=404)

    return wrapper


def signed_in_get(view: View) -> View:
    """A screen read: GET only (any other method is answered 405), then ``signed_in``."""
    return require_GET(signed_in(view))


def signed_in_post(view: View) -> View:
    """A tap: POST only (any other method is answered 405), then ``signed_in``."""
    return require_POST(signed_in(view))


def forbidden(request: HttpRequest, message: str, *, status: int = 403) -> HttpResponse:
    response = render(request, "errors/forbidden.html", {"message": message, "status": status}, status=status)
    return reswap(retarget(response, "body"), "innerHTML") if getattr(request, "htmx", False) else response
