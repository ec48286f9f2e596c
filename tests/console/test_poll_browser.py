"""Issue 44 item 20, in Chromium at 1280×800 and 810×1080: a console page that polls logs no errors.

The Faro bet form's chips poll the table's limits every ``CONSOLE_POLL_SECONDS``. The poll
inherited the form's ``hx-disabled-elt="find button[type=submit]"``, found no button inside
itself and htmx logged an error on every poll; the browser also logged the 404 of /favicon.ico.
Playwright's clock stands in for the waits: each tick of one interval fires one poll, answered
before the next.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from tests.browser import PORTRAIT, TABLET, dealer_at_faro, live_faro_deal, open_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLL = "/amounts/"
CYCLES = 3


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_a_live_faro_deal_open_for_a_few_polls_logs_no_error(
    browser: Any, live_server: Any, world: Any, viewport: dict[str, int]
) -> None:
    live_faro_deal(world)
    page = open_page(browser, live_server, viewport)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.clock.install()
    dealer_at_faro(page, world)
    page.get_by_test_id("bet-amounts").wait_for()
    answers = []
    for _ in range(CYCLES):
        with page.expect_response(lambda response: POLL in response.url) as polled:
            page.clock.run_for(settings.CONSOLE_POLL_SECONDS * 1000)
        answers.append(polled.value.status)
    assert answers == [204] * CYCLES  # the limits did not change: nothing to swap
    assert errors == []
