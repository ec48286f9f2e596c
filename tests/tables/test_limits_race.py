"""A limit change racing bets: every answer is a 200 or a clean 4xx, never a 500 (issue 44).

A bet the new limits refuse is logged (``log_refused_action``) after its transaction, while
the next bets run. That log's row points at the round and the table; PostgreSQL checked those
keys at COMMIT round first, so against a bet holding the table and waiting for the round it
deadlocked, and one of the two answered 500. Every writer now takes the table, then the round.

Threads send real requests to real PostgreSQL (``transaction=True``) and meet at a barrier,
as tests/api/test_idempotency_race.py does. The minimum flips between $5 and $20 at every race,
so the $10 bets land on either side of a change.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tables.models import LimitChange, RefusedAction, RoundAction
from tests.factories import ApiFloor, token_for
from tests.tables.api_tables import assert_ledger_sound

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

RACES = 50
PLAYERS = 3
STAKE = 1_000
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

Sent = tuple[str, str, str, str, Any]  # what, whose token, HTTP method, path, body


class Answers:
    """What every racing request got back, gathered from the threads."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, int, Any]] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()

    def send(self, barrier: threading.Barrier, sent: Sent) -> None:
        kind, token, method, path, body = sent
        try:
            client = APIClient(raise_request_exception=False)  # a server error is a 500, as live
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=30)
            response = getattr(client, method)(path, body, format="json")
            answer = response.json() if response.content else None
            with self._lock:
                self.rows.append((kind, response.status_code, answer))
        except BaseException as error:  # reported below, in the test's own thread
            with self._lock:
                self.errors.append(error)
        finally:
            connection.close()

    def of(self, kind: str) -> list[tuple[int, Any]]:
        return [(status, body) for k, status, body in self.rows if k == kind]


def race_once(answers: Answers, requests: list[Sent]) -> None:
    """Send ``requests`` from threads that start together; wait for every answer."""
    barrier = threading.Barrier(len(requests))
    threads = [threading.Thread(target=answers.send, args=(barrier, sent)) for sent in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)


def test_fifty_limit_changes_racing_three_bets_answer_no_500_and_log_each_refusal() -> None:
    floor = ApiFloor()
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=1_000_000)["id"]
    players = [floor.new_player(buy_in=1_000_000) for _ in range(PLAYERS)]
    for player in players:
        floor.seat(table, player)
    round_id = floor.start_round(table, "electronic")["id"]
    dealer, pit_boss = token_for(floor.dealer), token_for(floor.pit_boss)
    answers = Answers()

    for race in range(RACES):
        limits = {"min_bet": 2_000 if race % 2 == 0 else 500, "max_bet": 20_000}
        requests: list[Sent] = [("limits", pit_boss, "patch", f"/api/v1/tables/{table}/limits", limits)]
        for n, player in enumerate(players):
            rank = RANKS[(race + n) % len(RANKS)]
            bet = {"type": "bet", "player": player, "ranks": [rank], "amount": STAKE}
            requests.append(("bet", dealer, "post", f"/api/v1/rounds/{round_id}/actions", bet))
        race_once(answers, requests)

    assert not answers.errors, answers.errors
    statuses = sorted(status for _, status, _ in answers.rows)
    assert len(statuses) == RACES * (PLAYERS + 1)
    assert [status for status in statuses if status >= 500] == []
    assert [status for status, _ in answers.of("limits")] == [200] * RACES
    bets = answers.of("bet")
    placed = [body for status, body in bets if status == 200]
    refused = [body["error"] for status, body in bets if status != 200]
    assert {status for status, _ in bets} <= {200, 400}
    assert placed, "some bets went through"
    assert refused, "some bets met a $20 minimum"
    assert {error["code"] for error in refused} == {"below_minimum"}
    assert all(error["message"] == "The table minimum is $20.00." for error in refused)
    # Each refusal logged once; each bet that went through was legal under the limits it met.
    assert RefusedAction.objects.filter(round_id=round_id, code="below_minimum").count() == len(refused)
    recorded = RoundAction.objects.filter(round_id=round_id, payload__type="bet")
    assert recorded.count() == len(placed)
    assert all(action.payload["limits"]["min_bet"] <= STAKE for action in recorded)
    assert LimitChange.objects.filter(table_id=table).count() == RACES
    floor.assert_rounds_replay()
    assert_ledger_sound()
