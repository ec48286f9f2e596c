"""Who may use which screen: dealers the console (their own tables), pit staff the pit view.

A refusal renders a polite page, never a stack trace; an expired session on an htmx request
sends the browser to the sign-in page instead of swapping it into the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from casino.errors import NotFound
from casino.models import User
from casino.permissions import SCREENS, may_open
from tables.models import Table
from tables.selectors import table_with_seats


class NotAllowed(Exception):
    """This person may not see this screen; ``message`` says why, politely."""

    def __init__(self, message: str, *, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


View = Callable[..., HttpResponse]


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


def actor_of(request: HttpRequest) -> User:
    """The signed-in person (``signed_in`` has already turned anonymous visitors away)."""
    return cast(User, request.user)


def forbidden(request: HttpRequest, message: str, *, status: int = 403) -> HttpResponse:
    response = render(
        request, "console/forbidden.html", {"message": message, "status": status}, status=status
    )
    return reswap(retarget(response, "body"), "innerHTML") if getattr(request, "htmx", False) else response


def require_dealer(user: Any) -> None:
    if not may_open(user, "tables"):
        raise NotAllowed("The dealer console is for dealers. Pit bosses and cashiers use the pit view.")


def dealer_table(user: Any, table_id: int) -> Table:
    """The table, if it is assigned to this dealer: dealers see only their own tables. Read with
    its tray and seats, not its session, which the dealer's screens do not show."""
    require_dealer(user)
    table = table_with_seats(table_id)
    if table is None:
        raise NotFound("No such table.")
    if table.dealer_id != user.pk:
        raise NotAllowed(f"{table.name} is not assigned to you. Ask the pit boss to assign it.")
    return table


def require_pit(user: Any) -> None:
    if not may_open(user, "floor"):
        raise NotAllowed("The pit view is for pit bosses and cashiers.")


def require_screen(user: Any, screen: str) -> None:
    """Only the roles ``casino.permissions.SCREENS`` lists for ``screen`` may open it."""
    if not may_open(user, screen):
        raise NotAllowed(f"{SCREENS[screen].label} is not a screen of this account.")
