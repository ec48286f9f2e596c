"""Issue 48: two cashiers' buy-ins for one player at once cannot both slip under the $10,000 line.

Each buy-in is an HTTP call on a thread of its own (its own database connection, real PostgreSQL).
The race is made certain: the day-totals table is locked until every request waits on it, then let
go at once. The player's day-totals row then serialises them: each reads the total the one before
it left.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from casino.cash.models import CashDay, CashRefusal, CashTransaction
from casino.models import Role
from ledger.gaming_day import gaming_day_for
from tests.deploy.test_faults import held
from tests.factories import PlayerFactory, staff, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

REQUESTS = 10
AMOUNT = 150_000  # $1,500.00: six make $9,000.00, a seventh would pass $10,000.00


def _waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def test_buy_ins_at_once_from_two_cashiers_stop_at_the_ctr_line() -> None:
    cashiers = [staff(Role.CASHIER), staff(Role.CASHIER)]
    player = PlayerFactory(actor=cashiers[0])
    tokens = [token_for(cashier) for cashier in cashiers]
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def buy(index: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[index % 2]}")
            response = client.post(
                "/api/v1/cage/buy-ins", {"player": player.pk, "amount": AMOUNT}, format="json"
            )
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=buy, args=(index,)) for index in range(REQUESTS)]
    with held("LOCK TABLE casino_cashday IN SHARE ROW EXCLUSIVE MODE"):
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
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] * 6 + [409] * 4, answers
    assert {body["error"]["code"] for status, body in answers if status == 409} == {"identification_required"}
    day = CashDay.objects.get(player=player, gaming_day=gaming_day_for())
    assert (day.cash_in, day.cash_out) == (6 * AMOUNT, 0)
    made = CashTransaction.objects.filter(player=player).order_by("pk")  # the order they took the lock
    assert [line.amount for line in made] == [AMOUNT] * 6
    assert [line.mtl for line in made] == [False, False, True, False, False, False]  # $4,500 passes $3,000
    assert all(line.transfer_id is not None for line in made)
    assert CashRefusal.objects.filter(player=player).count() == 4
    assert (
        sorted(CashRefusal.objects.filter(player=player).values_list("day_total", flat=True)) == [900_000] * 4
    )
    player.wallet.refresh_from_db()
    assert player.wallet.balance == 6 * AMOUNT
