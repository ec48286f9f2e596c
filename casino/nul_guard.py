"""A NUL character in a page's query string or form data: a 400 page in words, before any view.

PostgreSQL can neither store nor compare text holding NUL (``\\x00``), so a search box given
``%00`` (``/cage/?q=%00``, the console's seat search) reached the database and answered 500.
The API already refuses NUL with its JSON 400 (``casino.api.parsers`` for bodies, its fields
and its cursor for queries) and keeps doing so; this middleware is the same rule for every
other path, in one place, so no HTML form or query has to remember it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django_htmx.http import reswap, retarget

from casino.error_pages import is_api

NUL = "\x00"
MESSAGE = (
    "What was sent holds a NUL character, an invisible control character that usually comes "
    "from pasting or from a scanner. Casekeeper cannot search for or store it, so nothing was "
    "done. Go back, type the text again and send it once more."
)


def holds_nul(data: QueryDict) -> bool:
    """Whether any field name or value holds NUL."""
    return any(NUL in name or any(NUL in value for value in values) for name, values in data.lists())


def nul_refusal(request: HttpRequest) -> HttpResponse:
    """400, in the style of the page asked for; an htmx request gets it in place of the screen."""
    admin = request.path.startswith("/admin/")
    template = "errors/admin_bad_text.html" if admin else "errors/bad_text.html"
    context = {"message": MESSAGE, "title": "Text Casekeeper cannot read"}
    response = render(request, template, context, status=400)
    return reswap(retarget(response, "body"), "innerHTML") if getattr(request, "htmx", False) else response


class NulRefusalMiddleware:
    """After sessions, authentication and htmx (the page greets the person signed in), before
    CSRF's check and any view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request) and (holds_nul(request.GET) or holds_nul(request.POST)):
            return nul_refusal(request)
        return self.get_response(request)
