"""The console, pit and audit pages carry a strict Content-Security-Policy, and obey it.

The header comes from Django's own middleware (``SECURE_CSP``): scripts only from our own
static files (no inline script, no handler attribute, no eval), no <style> blocks, no plugins,
no framing. The pages themselves are checked too: a policy that the markup breaks would
only show up as a dead button in the browser (tests/console/test_csp_browser.py looks there).
"""

from __future__ import annotations

import datetime as dt
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from ledger.gaming_day import gaming_day_for
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tables.rounds import start_round
from tables.services import seat_player
from tests.console.conftest import Floor

pytestmark = pytest.mark.django_db


def _policy(response: Any) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


class _InlineCode(HTMLParser):
    """Collects what a strict policy refuses: inline scripts, handler attributes, <style>."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append(f"inline <script> {names}")
        if tag == "style":
            self.found.append("<style> block")
        for name, _ in attrs:
            if name.startswith(("on", "hx-on", "data-hx-on")):
                self.found.append(f"<{tag} {name}=…>")
            if name.startswith("hx-") and "js:" in (names.get(name) or ""):
                self.found.append(f"<{tag} {name}> evaluates code")
        trigger = names.get("hx-trigger") or ""
        if "[" in trigger:
            self.found.append(f"<{tag} hx-trigger={trigger!r}> filter needs eval")


def _inline_code(html: str) -> list[str]:
    parser = _InlineCode()
    parser.feed(html)
    return parser.found


def _assert_strict(response: Any) -> None:
    assert response.status_code == 200, response.content[:300]
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    header = response["Content-Security-Policy"]
    assert "unsafe-eval" not in header
    assert "'unsafe-inline'" not in " ".join(
        value for name, values in policy.items() if name != "style-src-attr" for value in values
    )
    assert _inline_code(response.content.decode()) == []


def _finished_audit(floor: Floor) -> str:
    day = gaming_day_for() - dt.timedelta(days=1)
    report = AuditReport.objects.create(
        gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=floor.auditor
    )
    run_audit(report_id=report.pk)
    return day.isoformat()


def test_console_pit_and_audit_pages_are_strict(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    for player in (floor.kate, floor.wyatt):
        seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=player.pk)
    start_round(actor=floor.dealer, table_id=floor.faro.pk, shoe="manual")
    dealer, boss, auditor = as_user(floor.dealer), as_user(floor.pit_boss), as_user(floor.auditor)
    day = _finished_audit(floor)
    pages = [
        (Client(), "/console/login/"),
        (dealer, "/console/"),
        (dealer, f"/console/tables/{floor.faro.pk}/"),
        (as_user(floor.kate.user), "/console/me/"),
        (boss, "/pit/"),
        (auditor, "/audit/"),
        (auditor, f"/audit/{day}/"),
    ]
    for client, url in pages:
        _assert_strict(client.get(url))
    # The htmx partials that swap into those pages carry no inline code either.
    for client, url in [(boss, "/pit/live/"), (dealer, f"/console/tables/{floor.faro.pk}/")]:
        partial = client.get(url, HTTP_HX_REQUEST="true")
        assert _inline_code(partial.content.decode()) == []


def test_a_refusal_page_is_strict_too(floor: Floor, as_user: Any) -> None:
    response = as_user(floor.auditor).get("/pit/")
    assert response.status_code == 403
    assert _policy(response)["script-src"] == ["'self'"]


def test_the_swagger_page_runs_no_inline_script() -> None:
    page = Client().get("/api/v1/docs")
    policy = _policy(page)
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "unsafe-eval" not in page["Content-Security-Policy"]
    assert [found for found in _inline_code(page.content.decode()) if "<style>" not in found] == []
