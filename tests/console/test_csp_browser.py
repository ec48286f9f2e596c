"""Chromium reports no Content-Security-Policy violation on the console, the pit, the audit pages
or the admin, while htmx still searches, swaps and polls under the strict policy.

A violation shows up twice: as a console message ("Refused to …") and as a
``securitypolicyviolation`` event, which a script added before the page's own collects.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from tables.services import seat_player
from tests import factories
from tests.browser import confirmed, open_page, sign_in
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="csp", more_tables=True)


def _watched(browser: Any, live_server: Any) -> tuple[Any, list[str]]:
    page = open_page(browser, live_server)
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text)
            if "Refused to" in message.text or "Content Security Policy" in message.text
            else None
        ),
    )
    page.add_init_script(COLLECT_VIOLATIONS)
    return page, refused


def _violations(page: Any) -> list[str]:
    return list(page.evaluate("window.__cspViolations || []"))


def test_no_csp_violation_while_htmx_swaps_and_polls(
    browser: Any,
    live_server: Any,
    world: Floor,
) -> None:
    world.open_faro()
    admin = factories.staff(Role.ADMIN, username="cspadmin", is_staff=True, is_superuser=True)
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.wyatt.pk)

    # The dealer: sign in, open the table screen, seat a player through htmx's search and swap.
    page, refused = _watched(browser, live_server)
    sign_in(page, world.dealer.username)
    page.get_by_role("heading", name="Your tables").wait_for()
    page.goto(f"/console/tables/{world.faro.pk}/")
    page.get_by_label("Seat a player: search by name").fill("Kate")
    page.get_by_role("button", name=f"Seat {world.kate.name}").click()
    confirmed(page, "Seated Kate")
    assert page.locator("#seats .seat-list li").count() == 2
    assert (refused, _violations(page)) == ([], [])

    # The pit boss: the pit polls its partial (no eval in the trigger), and skips a poll while
    # someone types into one of its forms (console.js answers htmx:confirm).
    boss, refused = _watched(browser, live_server)
    sign_in(boss, world.pit_boss.username)
    boss.get_by_role("heading", name="The pit").wait_for()
    with boss.expect_request(lambda request: "/pit/live/" in request.url, timeout=15_000):
        pass
    cancelled = """() => {
        const live = document.getElementById("pit-live");
        const ask = () => !live.dispatchEvent(new CustomEvent("htmx:confirm",
            {bubbles: true, cancelable: true, detail: {elt: live, verb: "get"}}));
        const before = ask();
        const input = live.querySelector("input[name=min_bet]");
        input.dispatchEvent(new Event("input", {bubbles: true}));
        return [before, ask()];
    }"""
    assert boss.evaluate(cancelled) == [False, True]
    assert (refused, _violations(boss)) == ([], [])

    # The admin's own pages run under the same policy.
    site, refused = _watched(browser, live_server)
    sign_in(site, admin.username)
    site.goto("/admin/")
    site.get_by_role("link", name="Tables").first.wait_for()
    site.goto("/admin/tables/table/")
    site.get_by_role("link", name=world.faro.name).click()
    site.locator("#table_form").wait_for()
    assert (refused, _violations(site)) == ([], [])

    # The auditor's pages.
    audit, refused = _watched(browser, live_server)
    sign_in(audit, world.auditor.username)
    audit.goto("/audit/")
    audit.get_by_role("heading", name="End-of-night audits").wait_for()
    audit.get_by_role("button", name="Open").click()
    audit.locator("main.audit-page").wait_for()
    assert audit.locator(".audit-page").evaluate("el => getComputedStyle(el).maxWidth") == "1280px"
    assert (refused, _violations(audit)) == ([], [])
