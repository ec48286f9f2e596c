"""Errors Django answers itself, outside DRF's handler: JSON on ``/api/``, HTML pages elsewhere.

DRF renders what its views raise (casino/api/exceptions.py). Everything else — a URL no
route matches, a bad Host header, a body over the size limit read outside a view, an uncaught
exception, the database going away — reaches Django's ``handler400/403/404/500``, whose
defaults are HTML. API clients get the documented ``{"error": {"code", "message"}}`` body
with a JSON content type instead; only the console, pit, audit and admin pages render HTML.

A database that cannot be reached is an outage, not a bug: ``503 unavailable`` with a
``Retry-After``, never a 500. ``DatabaseUnavailableMiddleware`` catches it from any view, the
500 handler from anywhere else (a session saved by a middleware, say).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults

from casino.api.exceptions import TOO_LARGE, TOO_LARGE_MESSAGE
from casino.database_errors import is_database_unavailable
from casino.errors import error_body

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: JSON on /api/, a readable page elsewhere (rendered without the DB)."""
    if is_api(request):
        body = error_body(
            "unavailable",
            "The service cannot reach its database just now. Try again in a few seconds; "
            "a request sent with an Idempotency-Key is safe to repeat.",
        )
        response: HttpResponse = JsonResponse(body, status=503)
    else:
        html = loader.render_to_string("errors/unavailable.html", {"retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """Turns a database connection failure raised by any view (DRF's included) into a 503."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_database_unavailable(exception):
            return None
        logger.warning("Database unavailable: %s %s: %s", request.method, request.path, exception)
        return unavailable(request)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, TOO_LARGE):
        return JsonResponse(error_body("too_large", TOO_LARGE_MESSAGE), status=413)
    if isinstance(exception, DisallowedHost):
        return JsonResponse(
            error_body("bad_host", "This service does not answer to that Host name."), status=400
        )
    return JsonResponse(error_body("bad_request", "The request could not be read."), status=400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return JsonResponse(error_body("forbidden", "You may not do this."), status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A URL no route matches (``/api/v1/tables/abc``) answers in the API's error shape too."""
    if not is_api(request):
        return defaults.page_not_found(request, exception or Http404())
    return JsonResponse(error_body("not_found", "No such endpoint or id."), status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django calls this inside its ``except`` block, so the exception is still at hand."""
    if is_database_unavailable(sys.exc_info()[1]):
        return unavailable(request)
    if not is_api(request):
        return defaults.server_error(request)
    body = error_body(
        "server_error",
        "Something went wrong on our side and the request did not complete. "
        "It has been logged; a request sent with an Idempotency-Key is safe to repeat.",
    )
    return JsonResponse(body, status=500)
