"""Issue 48: markers racing for the last dollars of one credit line never overdraw it.

Six $300.00 markers for one player with a $1,000.00 line are asked for at once at two tables, each
an HTTP call on a thread of its own (its own database connection). The race is made certain: the
credit lines' table is locked until all six requests wait on a lock (two on the line, four on
their table's row), then let go. The line's row serialises them: three go through, three are
refused with 409 credit_limit, and the ledger owes exactly $900.00.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from casino.models import Role
from ledger.models import Account
from tables.accounts import receivable_code
from tables.credit.models import Marker
from tables.credit.services import set_credit_line
from tests.deploy.test_faults import held
from tests.factories import ApiFloor, PlayerFactory, staff, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

REQUESTS = 6


def _waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def test_six_markers_at_once_draw_no_more_than_the_line() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=500_000)["id"] for _ in range(2)
    ]
    player = PlayerFactory(name="Doc Holliday")
    set_credit_line(actor=staff(Role.ADMIN), player=player, limit=100_000)
    token = token_for(floor.pit_boss)
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def ask(index: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            body = {"player": player.pk, "amount": 30_000}
            response = client.post(f"/api/v1/tables/{tables[index % 2]}/markers", body, format="json")
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(REQUESTS)]
    with held("LOCK TABLE tables_creditline IN EXCLUSIVE MODE"):
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while _waiting_for_a_lock() < REQUESTS:
            assert time.monotonic() < deadline, f"only {_waiting_for_a_lock()} of {REQUESTS} requests wait"
            time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)

    assert not errors, errors
    assert sorted(status for status, _ in answers) == [201] * 3 + [409] * 3, answers
    refused = [body["error"] for status, body in answers if status == 409]
    assert {e["code"] for e in refused} == {"credit_limit"}
    assert Marker.objects.count() == 3
    assert Account.objects.get(code=receivable_code(player.pk)).balance == 90_000
