"""A tap's answer writes its URLs and CSRF fields without a ``reverse`` or a masking per form
(issue 22): the URLs are still Django's, and the CSRF token still one the middleware accepts."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware, rotate_token
from django.test import RequestFactory
from django.urls import get_script_prefix, reverse, set_script_prefix

from tables.console.dealer.panel_markup import csrf_input, csrf_token
from tables.console.paths import path_to, per_table


def test_a_kept_path_is_djangos_own_and_follows_the_script_prefix() -> None:
    assert path_to("console:faro", 3, 41, "turn") == reverse("console:faro", args=[3, 41, "turn"])
    assert path_to("console:faro", 3, 41, "bet") == "/console/tables/3/rounds/41/faro/bet/"
    before = get_script_prefix()
    set_script_prefix("/casino/")
    try:
        assert path_to("console:faro", 3, 41, "turn") == "/casino/console/tables/3/rounds/41/faro/turn/"
    finally:
        set_script_prefix(before)
    assert path_to("console:faro", 3, 41, "turn") == "/console/tables/3/rounds/41/faro/turn/"


def test_a_per_table_path_puts_each_id_where_reverse_does() -> None:
    to_tray = per_table("pit:tray")
    assert [to_tray(table) for table in (1, 22, 987)] == [reverse("pit:tray", args=[t]) for t in (1, 22, 987)]


def _view(request: HttpRequest) -> HttpResponse:
    return HttpResponse()


def _accepted(request: HttpRequest, token: str) -> bool:
    """Whether Django's CSRF middleware lets a POST carrying ``token`` through."""
    post = RequestFactory().post("/x", {"csrfmiddlewaretoken": token})
    post.COOKIES["csrftoken"] = request.META["CSRF_COOKIE"]
    return CsrfViewMiddleware(_view).process_view(post, _view, (), {}) is None


def test_an_answer_masks_its_csrf_token_once_and_again_after_the_secret_rotates() -> None:
    request = RequestFactory().get("/console/")
    first = csrf_token(request)
    assert csrf_token(request) == first
    assert f'value="{first}"' in csrf_input(request)
    assert _accepted(request, first)
    rotate_token(request)  # signing in gives the session a new secret
    rotated = csrf_token(request)
    assert rotated != first
    assert _accepted(request, rotated)
    assert not _accepted(request, first)
