"""Issue 44 item 20, in Chromium at 1280×800 and 810×1080: the sign-in page says where each role lands.

It said "pit bosses and cashiers to the pit view", but a cashier lands on the cage. Its words now
come from the one table of role homes (``casino.permissions.SCREENS``, via ``role_home``), and this
test signs in as every role to check that each lands on the screen the page names.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from casino.models import Role
from tests import factories
from tests.browser import PORTRAIT, TABLET, on_screen, open_page, sign_in
from tests.console.conftest import PASSWORD, Floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLAIM = re.compile(r"(?P<roles>[^;.]+?) go to (?P<screen>[^;.]+)")
ROLE_WORDS = {
    "dealers": Role.DEALER,
    "pit bosses": Role.PIT_BOSS,
    "cashiers": Role.CASHIER,
    "auditors": Role.AUDITOR,
    "admins": Role.ADMIN,
    "count teams": Role.COUNT_TEAM,
    "players": Role.PLAYER,
}


def claims(text: str) -> dict[str, str]:
    """Role → the screen the sentence says it goes to ("Pit bosses and admins go to Floor")."""
    said = {}
    for claim in CLAIM.finditer(text):
        for words in claim["roles"].strip().lower().split(" and "):
            said[ROLE_WORDS[words]] = claim["screen"].strip()
    return said


def test_the_claims_are_read_as_meant() -> None:
    old = "Dealers go to their tables; pit bosses and cashiers to the pit view."
    assert claims(old) == {Role.DEALER: "their tables"}
    assert claims("Dealers go to My tables; pit bosses and admins go to Floor.") == {
        Role.DEALER: "My tables",
        Role.PIT_BOSS: "Floor",
        Role.ADMIN: "Floor",
    }


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_every_role_lands_on_the_screen_the_sign_in_page_names(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    people = {
        Role.DEALER: world.dealer.username,
        Role.PIT_BOSS: world.pit_boss.username,
        Role.CASHIER: world.cashier.username,
        Role.AUDITOR: world.auditor.username,
        Role.ADMIN: factories.staff(Role.ADMIN, username="badmin", name="Ada Admin").username,
        Role.COUNT_TEAM: factories.staff(Role.COUNT_TEAM, username="counter", name="Cora Count").username,
        Role.PLAYER: world.kate.user.username,
    }
    page = open_page(browser, live_server, viewport)
    page.goto("/console/login/")
    sentence = page.locator(".login p").first
    on_screen(sentence)
    said = claims(sentence.inner_text())
    assert set(said) == set(people), sentence.inner_text()
    assert said[Role.CASHIER] == "Cage"
    page.context.close()
    for role, username in people.items():
        page = open_page(browser, live_server, viewport)
        sign_in(page, username, PASSWORD)
        page.wait_for_url(lambda url: "/login/" not in url)
        landed = page.locator("[data-testid=role-nav] a[aria-current=page]")
        assert landed.inner_text() == said[role], (role, page.url)
        page.context.close()
