"""Concurrent retries of one buy-in with one ``Idempotency-Key`` make exactly one transfer.

The threads need to see each other's committed rows, so this runs with a real transaction
per request (``transaction=True``) and in a module with no shared, rolled-back floor.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from casino.models import ActionLog, IdempotencyRecord, Player, User
from ledger.models import Account, Transfer
from tests.factories import PlayerFactory, staff, token_for


@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_make_one_transfer() -> None:
    """Eight clients send the same buy-in with one key at the same moment: one transfer."""
    cashier: User = staff("cashier")
    player: Player = PlayerFactory(actor=cashier)
    token = token_for(cashier)
    threads_n = 8
    barrier = threading.Barrier(threads_n)
    results: list[tuple[int, Any, str | None]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def retry() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=30)
            response = client.post(
                "/api/v1/cage/buy-ins",
                {"player": player.pk, "amount": 25_000},
                format="json",
                headers={"Idempotency-Key": "till-42"},
            )
            with lock:
                results.append((response.status_code, response.json(), response.get("Idempotent-Replayed")))
        except BaseException as error:  # reported below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not errors
    assert [status for status, _, _ in results] == [201] * threads_n
    transfer_ids = {body["transfer_id"] for _, body, _ in results}
    assert len(transfer_ids) == 1
    assert all(body["balance"] == 25_000 for _, body, _ in results)
    assert sorted(replayed or "" for _, _, replayed in results) == [""] + ["true"] * (threads_n - 1)
    made = Transfer.objects.filter(kind="buy_in", meta__player=player.pk)
    assert [transfer.pk for transfer in made] == list(transfer_ids)
    assert Account.objects.get(pk=player.wallet_id).balance == 25_000
    assert ActionLog.objects.filter(action="cage.buy_in", actor=cashier).count() == 1
    assert IdempotencyRecord.objects.get(key="till-42", user=cashier).status_code == 201
