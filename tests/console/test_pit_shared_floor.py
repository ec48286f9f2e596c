"""Pit screens share the rendered floor for at most ``FLOOR_FRESH_SECONDS`` (5 s), and each
answer's forms stay its own.

``tables.console.pit.floor`` keeps the table cards one poll rendered in the shared cache, with the
moment its reads began; another poll within ``FLOOR_FRESH_SECONDS`` of that moment gets the same
cards with its own CSRF and one-time form tokens filled in. A pit tap's answer always renders.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from casino.models import Role
from tables import services
from tables.console.pit.floor import FLOOR_FRESH_SECONDS, CardForms, forget_shared_floor
from tables.models import Table
from tables.slips.services import sign_slip
from tests import factories
from tests.console.conftest import Floor
from tests.console.test_views import text
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db

LIVE = "/pit/live/"
PIT_BOSS_FORMS = CardForms(
    can_request_tray=True, can_change_limits=True, can_use_admin=True, can_assign_dealer=True
)


def copy_began() -> float:
    """The moment the pit boss's shared copy's reads began (epoch seconds, as the floor keeps it)."""
    kept = cache.get(PIT_BOSS_FORMS.key)
    assert kept is not None, "no shared copy"
    return float(kept[0])


def copy_age() -> float:
    """How old the pit boss's shared copy is, as ``floor_cards`` judges it; infinite once it is gone."""
    kept = cache.get(PIT_BOSS_FORMS.key)
    return math.inf if kept is None else time.time() - float(kept[0])


def card(page: str, table: Table) -> str:
    found = re.search(rf'aria-labelledby="pit-table-{table.pk}">(.*?)</article>', page, re.S)
    assert found is not None, f"no card for {table.name}"
    return found.group(1)


def tray_shown(page: str, table: Table) -> str:
    found = re.search(r"<dt>Tray</dt><dd>(.*?)</dd>", card(page, table))
    assert found is not None
    return found.group(1)


def limits_form(page: str, table: Table) -> dict[str, str]:
    """The hidden fields of ``table``'s limits form as this answer carries them."""
    form = re.search(rf'<form[^>]*action="/pit/tables/{table.pk}/limits/".*?</form>', page, re.S)
    assert form is not None
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(0)))
    assert set(fields) == {"csrfmiddlewaretoken", "token"}
    return fields


def poll(client: Client) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(LIVE, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    return text(answer), len(queries)


def test_a_change_reaches_every_pit_screen_within_the_bound(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    boss = as_user(floor.pit_boss)
    poll(boss)  # the process's first request loads templates and URLs: not part of the bound
    forget_shared_floor()
    began = time.monotonic()
    first, rendered = poll(boss)
    assert tray_shown(first, floor.faro) == "$10,000.00"
    fill = services.request_tray_change(
        actor=floor.dealer, table_id=floor.faro.pk, kind="fill", amount=50_000
    )
    services.approve_tray_request(
        actor=floor.cashier, table_id=floor.faro.pk, request_id=fill.pk, kind="fill"
    )
    for signer in (floor.dealer, floor.pit_boss):  # the fill reaches the tray
        sign_slip(actor=signer, slip_id=fill.pk)

    shared, queries = poll(boss)
    assert time.monotonic() - began < FLOOR_FRESH_SECONDS  # else this poll would have rendered
    assert queries < rendered  # the floor's reads and figures were not made again
    assert tray_shown(shared, floor.faro) == "$10,000.00"  # the copy, not yet FLOOR_FRESH_SECONDS old

    wait_for(
        lambda: copy_age() > FLOOR_FRESH_SECONDS,
        timeout=FLOOR_FRESH_SECONDS + 10,
        what=f"the shared copy to be older than {FLOOR_FRESH_SECONDS} s",
    )
    later, queries = poll(boss)
    assert queries == rendered
    assert tray_shown(later, floor.faro) == "$10,500.00"


def test_each_answer_has_its_own_tokens_and_a_tap_answer_renders_afresh(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    first = as_user(floor.pit_boss)
    second = Client(enforce_csrf_checks=True)
    second.force_login(factories.staff(Role.PIT_BOSS))
    page_a, rendered = poll(first)
    page_b, shared = poll(second)
    assert shared < rendered
    assert "<pit-" not in page_b  # every slot filled
    tokens_a = re.findall(r'name="token" value="([^"]+)"', page_a)
    tokens_b = re.findall(r'name="token" value="([^"]+)"', page_b)
    assert len(tokens_b) == len(set(tokens_b)) >= 2  # a token per form: tray and limits at least
    assert not set(tokens_a) & set(tokens_b)

    fields = limits_form(page_b, floor.faro)
    answer = second.post(
        f"/pit/tables/{floor.faro.pk}/limits/",
        {**fields, "min_bet": "10", "max_bet": "600"},
        HTTP_HX_REQUEST="true",
    )

    assert answer.status_code == 200, text(answer)  # the CSRF check passed with the filled slot
    floor.faro.refresh_from_db()
    assert (floor.faro.min_bet, floor.faro.max_bet) == (1_000, 60_000)
    assert "<dt>Limits</dt><dd>$10.00 – $600.00</dd>" in card(text(answer), floor.faro)
    again = second.post(
        f"/pit/tables/{floor.faro.pk}/limits/",
        {**fields, "min_bet": "10", "max_bet": "600"},
        HTTP_HX_REQUEST="true",
    )
    assert "already done" in text(again)  # the same form token: replayed, not posted twice
    polled, queries = poll(first)  # the tap's answer shared the floor it rendered
    assert queries == shared
    assert "<dt>Limits</dt><dd>$10.00 – $600.00</dd>" in card(polled, floor.faro)
