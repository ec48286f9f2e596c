"""Unique-constraint races answer as the service's check would: a 409, never a 500.

One player seated at twenty tables at the same moment: one seat, nineteen clear 409s.

Each request locks its own table, so the tables' locks do not serialise them; the check
"already seated?" passes in all of them and the partial unique index
``tables_player_in_one_seat`` stops all but the first insert. The losers used to get the
``IntegrityError`` as a 500; they now get ``already_seated`` as the check would have given.

The races are made certain: the action log, written after the row, is locked until every
request waits (the first for that lock, the others for the first one's row in the index).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from casino.models import ActionLog, Role
from tables.models import Seat, Table
from tests import factories
from tests.deploy.test_faults import held
from tests.factories import ApiFloor, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

RACERS = 20


def waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def race(threads: list[threading.Thread]) -> None:
    """Start the requests with the action log locked; let them go once every one of them waits."""
    with held("LOCK TABLE casino_auditlog IN SHARE ROW EXCLUSIVE MODE"):
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while waiting_for_a_lock() < len(threads):
            assert time.monotonic() < deadline, f"only {waiting_for_a_lock()} of {len(threads)} requests wait"
            time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)


def test_twenty_racing_seatings_of_one_player_seat_them_once_and_refuse_the_rest_with_409() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=0)["id"] for _ in range(RACERS)
    ]
    player = floor.new_player(buy_in=0)
    token = token_for(floor.dealer)
    barrier = threading.Barrier(RACERS)
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def seat(table_id: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=60)
            response = client.post(f"/api/v1/tables/{table_id}/seats", {"player": player}, format="json")
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    race([threading.Thread(target=seat, args=(table_id,)) for table_id in tables])

    assert not errors, errors
    assert sorted(status for status, _ in answers) == [201] + [409] * (RACERS - 1)
    refusals = [body["error"] for status, body in answers if status == 409]
    assert {error["code"] for error in refusals} == {"already_seated"}
    assert all("already seated" in error["message"] for error in refusals)
    seated = Seat.objects.filter(player_id=player, left_at__isnull=True)
    assert seated.count() == 1
    assert ActionLog.objects.filter(action="seat.taken").count() == 1


def test_two_pit_bosses_naming_two_tables_alike_at_once_get_one_table_and_a_409() -> None:
    floor = ApiFloor()
    tokens = [token_for(floor.pit_boss), token_for(factories.staff(Role.PIT_BOSS))]
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []

    def create(token: str) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            body = {"name": "Faro 1", "game": "faro", "min_bet": 500, "max_bet": 20_000}
            response = client.post("/api/v1/tables", body, format="json")
            answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            errors.append(error)
        finally:
            connection.close()

    race([threading.Thread(target=create, args=(token,)) for token in tokens])

    assert not errors, errors
    assert sorted(status for status, _ in answers) == [201, 409]
    assert [body["error"]["code"] for status, body in answers if status == 409] == ["name_taken"]
    assert Table.objects.filter(name="Faro 1").count() == 1
