"""Issue 21 item 6: each role lands where its work is, with a nav bar of what it may use.

The auditor used to sign in to "Not for this account" (whose "Back to the start" looped), and
the pit boss's admin links answered a bare 403. Now each role signs in to its home, its nav
lists exactly its screens (casino.permissions.SCREENS), every nav link and every link on those
pages answers 200, and the pit boss's admin links open read-only admin views.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from casino.models import Role, User
from casino.permissions import screens_for
from tables.services import seat_player
from tests import factories
from tests.browser import PHONE, PORTRAIT, TABLET, open_page, shot, sign_in
from tests.console.conftest import Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [TABLET, PORTRAIT, PHONE]

# What each role should see: its home (where sign-in lands) and its nav, as the issue asks.
EXPECTED = {
    "dealer": ("/console/", ["My tables"]),
    "pit_boss": ("/pit/", ["Floor", "Approvals", "Corrections", "Alerts", "Audit days", "Admin"]),
    "cashier": ("/cage/", ["Cage", "Floor"]),
    "auditor": ("/audit/", ["Audit days", "Alerts"]),
    "admin": ("/pit/", ["Floor", "Approvals", "Corrections", "Alerts", "Admin"]),
    "count_team": ("/count/", ["Count room"]),
}

NAV_LINKS = """() => [...document.querySelectorAll('[data-testid=role-nav] a')].map(a => {
    const r = a.getBoundingClientRect();
    return {label: a.textContent.trim(), href: a.getAttribute('href'),
            left: r.left, right: r.right, top: r.top, bottom: r.bottom};
})"""
PAGE_LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"


def _staff(world: Floor) -> dict[str, User]:
    admin = factories.staff(Role.ADMIN, username="badmin", name="Ada Admin")
    people = {
        "dealer": world.dealer,
        "pit_boss": world.pit_boss,
        "cashier": world.cashier,
        "auditor": world.auditor,
        "admin": admin,
        "count_team": factories.staff(Role.COUNT_TEAM, username="counter", name="Cora Count"),
    }
    for user in (world.pit_boss, admin):  # as casino.services.create_staff makes them
        user.is_staff = True
        user.save()
    return people


def _own(href: str) -> str | None:
    """A link's path on this site (fragment dropped), or None for another site or a bare anchor."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _status(page: Any, path: str) -> int:
    """The status a link ends on (a redirect followed, as the browser would: /console/ → home).

    The crawl asks for the status, not the speed: a page that renders charts for the first time
    in a busy parallel run may take longer than the 10 s a tap is given."""
    return int(page.request.get(path, timeout=60_000).status)


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_each_role_lands_on_its_home_with_its_nav_and_no_link_is_refused(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    people = _staff(world)
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    for role, user in people.items():
        home, labels = EXPECTED[role]
        assert [screen.label for screen in screens_for(user)] == labels  # the nav is the policy table
        page = open_page(browser, live_server, viewport)
        sign_in(page, user.username)
        page.wait_for_url(f"**{home}")
        assert urlsplit(page.url).path == home
        assert "Not for this account" not in page.inner_text("body")
        nav = page.evaluate(NAV_LINKS)
        assert [link["label"] for link in nav] == labels, role
        for link in nav:  # every item on screen without scrolling
            assert link["left"] >= 0, (role, link)
            assert link["right"] <= viewport["width"], (role, link)
            assert link["top"] >= 0, (role, link)
            assert link["bottom"] <= viewport["height"], (role, link)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], role
        shot(page, f"role-home-{role}-{viewport['width']}")

        # Every nav link answers 200, and so does every link on the pages they open (one level).
        crawled: dict[str, int] = {}
        for link in nav:
            target = _own(link["href"])
            assert target is not None
            crawled[target] = _status(page, target)
            page.goto(link["href"])
            for href in page.evaluate(PAGE_LINKS):
                path = _own(href)
                if path is not None and path not in crawled:
                    crawled[path] = _status(page, path)
        refused = {path: status for path, status in crawled.items() if status != 200}
        assert refused == {}, (role, refused)
        if role == "pit_boss":  # the pit's admin links: read-only admin views, not a 403
            admin_links = [path for path in crawled if path.startswith("/admin/tables/")]
            assert len(admin_links) >= 4, crawled
        page.context.close()


def test_the_pit_bosss_admin_is_read_only(browser: Any, live_server: Any, world: Floor) -> None:
    """The admin views the pit links open show the rows and offer no way to change them."""
    _staff(world)
    page = open_page(browser, live_server)
    sign_in(page, world.pit_boss.username)
    page.wait_for_url("**/pit/")
    page.get_by_test_id("pit-table").filter(has=page.locator(f"#pit-table-{world.faro.pk}")).locator(
        "summary"
    ).click()
    page.get_by_role("link", name=f"Open {world.faro.name} in the admin").click()
    page.wait_for_url(f"**/admin/tables/table/{world.faro.pk}/change/")
    assert page.get_by_role("heading", name="View table").is_visible()
    assert page.locator("input[type=submit][name=_save]").count() == 0
    # The people list, to unlock a locked-out account (issue 44); a person's page stays the admin's.
    assert _status(page, "/admin/casino/user/") == 200
    assert _status(page, f"/admin/casino/user/{world.dealer.pk}/change/") == 403
    assert _status(page, "/admin/tables/table/add/") == 403


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_refusal_leads_back_home_not_round_in_a_loop(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    page = open_page(browser, live_server, viewport)
    sign_in(page, world.auditor.username)
    page.wait_for_url("**/audit/")
    page.goto("/pit/")
    assert page.get_by_role("heading", name="Not for this account").is_visible()
    page.get_by_role("link", name="Back to the start").click()
    page.wait_for_url("**/audit/")
    assert page.get_by_role("heading", name="End-of-night audits").is_visible()
    page.get_by_test_id("role-nav").get_by_role("link", name="Alerts").click()
    page.wait_for_url("**/pit/alerts/")
    assert page.get_by_role("heading", name="Open alerts").is_visible()
    assert page.get_by_role("button", name="Resolve").count() == 0  # read only for an auditor
    shot(page, f"role-auditor-alerts-{viewport['width']}")
