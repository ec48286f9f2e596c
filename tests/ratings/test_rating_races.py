"""Rating a settled round while the dealer keeps acting on it: no deadlock, a clear 409.

A round action locks the table, then the round (``tables.locks`` order). ``rate_round`` used
to lock only the round; its stat rows point at the table, and PostgreSQL checks those
foreign keys at COMMIT with a share lock on the table row, which the action held while it
waited for the round: a deadlock, and the action a 500. The rating now takes the same locks
in the same order (table, then round), so the action waits for it and then answers
``round_over``. The interleaving is made certain here: the rating's transaction is held open
until the action is seen waiting for a lock, and only then commits.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.ratings.services import rate_round
from tests.factories import ApiFloor, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]


def settled_faro_deal(floor: ApiFloor) -> int:
    """A Faro deal with one bet, dealt to its last turn through the API; returns the round id."""
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=500_000)
    punter = floor.new_player(buy_in=50_000)
    floor.seat(table["id"], punter, 1)
    round_ = floor.start_round(table["id"], "electronic")
    rid = int(round_["id"])
    round_ = floor.act(rid, {"type": "bet", "player": punter, "ranks": ["5"], "amount": 1_000})
    while round_["state"]["next_action"] == "turn":
        round_ = floor.act(rid, {"type": "turn"})
    assert floor.act(rid, {"type": "last_turn"})["status"] == "settled"
    return rid


def waiting_for_a_lock(exclude: set[int]) -> set[int]:
    """Sessions on the test database that are waiting for a lock (other than ``exclude``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return {row[0] for row in cursor.fetchall()} - exclude


def test_an_action_racing_the_rating_of_its_round_gets_round_over_and_neither_deadlocks(
    task_queue: str,
) -> None:
    floor = ApiFloor()
    rid = settled_faro_deal(floor)
    token = token_for(floor.dealer)
    rated, commit = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def rate() -> None:
        try:
            with transaction.atomic():  # the task's transaction, kept open until the action waits
                outcome["stat"] = rate_round(round_id=rid)
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_backend_pid()")
                    outcome["rating_pid"] = cursor.fetchone()[0]
                rated.set()
                assert commit.wait(timeout=60), "never told to commit"
        except BaseException as error:  # reported below, in the test's own thread
            outcome["rating_error"] = error
        finally:
            rated.set()
            connection.close()

    def act() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            response = client.post(f"/api/v1/rounds/{rid}/actions", {"type": "turn"}, format="json")
            outcome["action"] = (response.status_code, response.json())
        except BaseException as error:
            outcome["action_error"] = error
        finally:
            connection.close()

    rating = threading.Thread(target=rate)
    rating.start()
    assert rated.wait(timeout=60)
    assert "rating_error" not in outcome, outcome
    action = threading.Thread(target=act)
    action.start()
    deadline = time.monotonic() + 60
    while not waiting_for_a_lock({outcome["rating_pid"]}) and action.is_alive():
        assert time.monotonic() < deadline, "the action neither waited nor finished"
        time.sleep(0.02)
    commit.set()  # the rating commits while the action waits: its foreign keys are checked now
    rating.join(timeout=60)
    action.join(timeout=60)

    assert "rating_error" not in outcome, outcome.get("rating_error")
    assert "action_error" not in outcome, outcome.get("action_error")
    status, body = outcome["action"]
    assert (status, body["error"]["code"]) == (409, "round_over"), body
    assert outcome["stat"] is not None
    assert RoundStat.objects.filter(round_id=rid).count() == 1
    assert RoundPlayerStat.objects.filter(round_id=rid).count() == 1
