"""Screens that keep polling keep finding the shared floor: a worker renders the next copy.

A poll served a copy older than ``settings.PIT_FLOOR_REFRESH_SECONDS`` sends
``refresh_pit_floor_task``; a real Celery worker (tests/celery_support.py) renders the floor and
shares it, so the next poll within the ``FLOOR_FRESH_SECONDS`` bound reads it instead of
rendering, and shows what changed since the first copy.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache

from tables import services
from tables.console.pit.floor import FLOOR_FRESH_SECONDS, forget_shared_floor
from tables.slips.services import sign_slip
from tests.celery_support import worker_on
from tests.console.conftest import Floor, build_floor
from tests.console.test_pit_shared_floor import PIT_BOSS_FORMS, copy_age, copy_began, poll, tray_shown
from tests.waiting import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_an_aging_copy_is_rendered_again_by_a_worker_and_the_next_poll_reads_it(
    as_user: Any, task_queue: str
) -> None:
    floor: Floor = build_floor("r")
    floor.open_faro()
    boss = as_user(floor.pit_boss)
    poll(boss)  # the process's first request loads templates and URLs
    with worker_on(task_queue):
        forget_shared_floor()
        first, rendered = poll(boss)
        began = copy_began()
        assert tray_shown(first, floor.faro) == "$10,000.00"
        fill = services.request_tray_change(
            actor=floor.dealer, table_id=floor.faro.pk, kind="fill", amount=50_000
        )
        services.approve_tray_request(
            actor=floor.cashier, table_id=floor.faro.pk, request_id=fill.pk, kind="fill"
        )
        for signer in (floor.dealer, floor.pit_boss):  # the fill reaches the tray
            sign_slip(actor=signer, slip_id=fill.pk)

        wait_for(
            lambda: copy_age() > settings.PIT_FLOOR_REFRESH_SECONDS,
            timeout=settings.PIT_FLOOR_REFRESH_SECONDS + 10,
            what="the shared copy to age past the refresh point",
        )
        aging, queries = poll(boss)
        assert time.time() - began <= FLOOR_FRESH_SECONDS, "too slow to judge: the copy expired"
        assert queries < rendered  # served the copy: still the old tray
        assert tray_shown(aging, floor.faro) == "$10,000.00"

        wait_for(lambda: copy_began() != began, timeout=10, what="a worker's copy to replace the aging one")
        refreshed, queries = poll(boss)

    assert copy_began() > began
    assert queries < rendered  # read, not rendered: no poll paid for the render
    assert tray_shown(refreshed, floor.faro) == "$10,500.00"
    assert cache.get(f"{PIT_BOSS_FORMS.key}:refreshing") is None  # the next aging copy may ask again
