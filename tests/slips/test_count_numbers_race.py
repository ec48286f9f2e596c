"""Issue 46 item 3 under concurrency: racing counts at several tables take consecutive numbers.

Twenty count requests at five tables start together, each through the API on a connection of
its own. Each locks its own table, so the tables' locks do not serialise them; the series'
counter row does. The race is made certain as in tests/tables/test_unique_races.py: the action
log, written after the slip, is locked until every request waits (the first for that lock, the
others for the counter's row or their table's).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from tables.slips.models import Slip, SlipKind
from tables.slips.selectors import account_for_series
from tests.factories import ApiFloor, token_for
from tests.tables.test_unique_races import race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

TABLES = 5
COUNTS = 20


def test_twenty_racing_counts_at_five_tables_take_twenty_consecutive_numbers() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=100_000)["id"]
        for _ in range(TABLES)
    ]
    tokens = [token_for(floor.dealer), token_for(floor.pit_boss)]
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def count(n: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[n % 2]}")
            body = {"count": {"10000": 10}, "reason": "spot_check" if n % 3 else "shift_change"}
            response = client.post(f"/api/v1/tables/{tables[n % TABLES]}/counts", body, format="json")
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    race([threading.Thread(target=count, args=(n,)) for n in range(COUNTS)])

    assert not errors, errors
    assert [status for status, _ in answers] == [201] * COUNTS
    year = timezone.now().year
    numbers = sorted(body["number"] for _, body in answers)
    assert numbers == [f"S-{year}-{n:06d}" for n in range(1, COUNTS + 1)]
    assert Slip.objects.filter(kind=SlipKind.COUNT).count() == COUNTS
    per_table = sorted(Slip.objects.filter(kind=SlipKind.COUNT, table_id=t).count() for t in tables)
    assert per_table == [COUNTS // TABLES] * TABLES
    series = account_for_series(kind=SlipKind.COUNT, year=year)
    assert (series.issued, series.void, series.missing, series.last) == (COUNTS, 0, [], numbers[-1])
