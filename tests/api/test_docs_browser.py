"""Issue 21 item 9: the Swagger UI at /api/v1/docs works with no internet.

It loaded its files from a CDN, so on a floor without internet the page was blank. Its files
now come from drf-spectacular-sidecar through our static files. Chromium is allowed to reach
the live server only; the page must render its operations and ask no other host for anything,
on a tablet (landscape or upright) and on a phone, with no sideways scrolling of the page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser import EVERY_SIZE, no_sideways_scroll, on_screen, open_page, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@EVERY_SIZE
def test_swagger_ui_renders_its_operations_offline(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    page = open_page(browser, live_server, viewport)
    here = {"127.0.0.1", urlsplit(live_server.url).hostname}  # the live server says "localhost"
    blocked: list[str] = []

    def only_this_server(route: Any) -> None:
        if urlsplit(route.request.url).hostname in here:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_server)
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text) if "Refused to" in message.text else None)

    page.goto("/api/v1/docs")
    page.locator(".swagger-ui .info .title").filter(has_text="Casekeeper API").wait_for()
    players = page.locator(".opblock-summary-path", has_text="/api/v1/players").first
    players.wait_for()
    assert players.is_visible()
    assert page.locator(".opblock").count() > 20
    width = viewport["width"]
    players.scroll_into_view_if_needed()
    on_screen(players)
    # Opening an operation shows its parameters: the UI's own script runs, not just its markup.
    players.click()
    opened = page.locator(".opblock.is-open").first
    # The body draws its sections after it appears; wait for the heading rather than read too early.
    opened.locator(".opblock-body .opblock-title", has_text="Parameters").wait_for()
    assert "Parameters" in opened.inner_text()
    no_sideways_scroll(page)
    shot(page, f"api-docs-{width}x{viewport['height']}")
    assert blocked == []
    assert refused == []
    styles = page.evaluate("[...document.styleSheets].map(s => s.href).filter(Boolean)")
    assert styles
    assert all(urlsplit(href).hostname in here for href in styles)
