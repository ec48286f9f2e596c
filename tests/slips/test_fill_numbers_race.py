"""Issue 46, "Done when": 50 concurrent fill requests across 10 tables get 50 consecutive
numbers, none shared, and the series misses nothing.

Each request is an HTTP call on a thread of its own (its own database connection). The race is
made certain: the series counters are locked until all 50 requests wait on a lock (five per
table queue on their table's row, the first of each on the counter), then let go at once.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from tables.slips.models import Slip, SlipKind
from tests.deploy.test_faults import held
from tests.factories import ApiFloor, staff, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

TABLES = 10
REQUESTS = 50


def _waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def test_fifty_fills_at_ten_tables_at_once_are_numbered_one_to_fifty() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=0)["id"] for _ in range(TABLES)
    ]
    tokens = [token_for(floor.dealer), token_for(floor.pit_boss), token_for(staff("pit_boss"))]
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def ask(index: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[index % len(tokens)]}")
            body = {"amount": 1_000 + index}
            response = client.post(f"/api/v1/tables/{tables[index % TABLES]}/fills", body, format="json")
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(REQUESTS)]
    with held("LOCK TABLE tables_slipcounter IN SHARE ROW EXCLUSIVE MODE"):
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
    assert [status for status, _ in answers] == [201] * REQUESTS, answers
    year = timezone.now().year
    numbers = sorted(body["number"] for _, body in answers)
    assert numbers == [f"F-{year}-{n:06d}" for n in range(1, REQUESTS + 1)]
    by_table = {table: sum(1 for _, body in answers if body["table"] == table) for table in tables}
    assert set(by_table.values()) == {REQUESTS // TABLES}
    # Each number is on the slip with its own amount: no two requests got one slip.
    amounts = {body["number"]: body["amount"] for _, body in answers}
    assert dict(Slip.objects.filter(kind=SlipKind.FILL).values_list("number", "amount")) == amounts
    assert len(set(amounts.values())) == REQUESTS
    series = floor.get(staff("auditor"), f"slips/series?kind=fill&year={year}")
    assert (series["first"], series["last"]) == (numbers[0], numbers[-1])
    assert (series["issued"], series["void"], series["missing"]) == (REQUESTS, 0, [])
