"""No API answer is kept by a browser or a proxy: they carry balances and personal data.

A cage kiosk or a shared floor tablet must not show yesterday's balance from its cache, nor
leave a player's transactions on disk. One middleware marks every ``/api/`` response
``Cache-Control: no-store`` (Django's ``add_never_cache_headers``), so no view can forget it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

API_PREFIX = "/api/"


class NoStoreApiMiddleware:
    """``Cache-Control: no-store`` (and the rest of "never cache") on every API response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path_info.startswith(API_PREFIX):
            add_never_cache_headers(response)
        return response
