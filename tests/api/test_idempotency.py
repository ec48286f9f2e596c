"""``Idempotency-Key`` on every money-moving POST: a retry replays, a changed body is refused.

The cases run against the shared floor of ``tests/api/world.py``; the race of concurrent
retries is in ``test_idempotency_race.py`` (it needs committed data, so a module of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import ActionLog, IdempotencyRecord
from ledger.models import Account, Entry, Transfer
from tables.models import TableSession
from tables.slips.models import Slip, SlipSignature
from tests.api.world import ENDPOINTS, World
from tests.factories import staff, token_for

# Every money-moving POST, who sends it, and another body for the same key.
MONEY_POSTS: dict[str, tuple[str, Callable[[World], Any]]] = {
    "POST /cage/buy-ins": ("cashier", lambda w: {"player": w.player_self.pk, "amount": 10_001}),
    "POST /cage/cash-outs": ("cashier", lambda w: {"player": w.player_other.pk, "amount": 5_000}),
    "POST /tables/{id}/fills": ("dealer_assigned", lambda w: {"amount": 20_000}),
    "POST /tables/{id}/credits": ("dealer_assigned", lambda w: {"amount": 6_000}),
    "POST /tables/{id}/fills/{id}/approve": ("cashier", lambda w: {"password": "different"}),
    "POST /tables/{id}/credits/{id}/approve": ("pit_boss", lambda w: {"password": "different"}),
    "POST /tables/{id}/open": ("dealer_assigned", lambda w: {"opening_inventory": 90_000}),
    "POST /tables/{id}/close": ("dealer_assigned", lambda w: {"closing_inventory": 90_000}),
    "POST /tables/{id}/cash-buy-ins": (
        "dealer_assigned",
        lambda w: {"player": w.player_self.pk, "amount": 5_001},
    ),
}


def _state(world: World) -> tuple[Any, ...]:
    """Everything of the shared floor a money-moving POST could change."""
    tables = [world.open_table, world.closed_table]
    accounts = [world.player_self.wallet_id, world.player_other.wallet_id, *(t.tray_id for t in tables)]
    return (
        Transfer.objects.filter(entries__account_id__in=accounts).distinct().count(),
        Entry.objects.filter(account_id__in=accounts).count(),
        list(Account.objects.filter(pk__in=accounts).order_by("pk").values_list("balance", "held")),
        list(Slip.objects.filter(table__in=tables).order_by("pk").values_list("status", flat=True)),
        SlipSignature.objects.filter(slip__table__in=tables).count(),
        list(
            TableSession.objects.filter(table__in=tables).order_by("pk").values_list("closed_at", flat=True)
        ),
        ActionLog.objects.filter(actor__in=world.users.values()).count(),
    )


@pytest.mark.parametrize("endpoint", list(MONEY_POSTS))
@pytest.mark.django_db
def test_same_key_same_body_replays_and_moves_nothing(world: World, endpoint: str) -> None:
    role, _ = MONEY_POSTS[endpoint]
    key = {"Idempotency-Key": f"retry-{endpoint}"}
    before = _state(world)

    first = ENDPOINTS[endpoint].send(world, role, headers=key)
    after_first = _state(world)
    again = ENDPOINTS[endpoint].send(world, role, headers=key)

    assert first.status_code in {200, 201}, first.content
    assert after_first != before  # the first request did something
    assert again.status_code == first.status_code
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert _state(world) == after_first


@pytest.mark.parametrize("endpoint", list(MONEY_POSTS))
@pytest.mark.django_db
def test_same_key_other_body_is_409(world: World, endpoint: str) -> None:
    role, other_body = MONEY_POSTS[endpoint]
    key = {"Idempotency-Key": f"conflict-{endpoint}"}
    first = ENDPOINTS[endpoint].send(world, role, headers=key)
    assert first.status_code in {200, 201}
    after_first = _state(world)

    response = ENDPOINTS[endpoint].send(world, role, body=other_body(world), headers=key)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_conflict"
    assert _state(world) == after_first


@pytest.mark.django_db
def test_a_failed_first_attempt_stores_nothing(world: World) -> None:
    """A 409 is not remembered: once the player has the chips, the same retry goes through."""
    cashier = world.client("cashier")
    body = {"player": world.player_self.pk, "amount": 60_000}
    key = {"Idempotency-Key": "cash-out-7"}

    refused = cashier.post("/api/v1/cage/cash-outs", body, format="json", headers=key)
    cashier.post("/api/v1/cage/buy-ins", {"player": world.player_self.pk, "amount": 10_000}, format="json")
    retried = cashier.post("/api/v1/cage/cash-outs", body, format="json", headers=key)

    assert refused.status_code == 409
    assert retried.status_code == 201
    assert "Idempotent-Replayed" not in retried
    assert retried.json()["balance"] == 0


@pytest.mark.django_db
def test_keys_belong_to_the_user_who_sent_them(world: World) -> None:
    second = staff("cashier")
    second_cashier = APIClient()
    second_cashier.credentials(HTTP_AUTHORIZATION=f"Token {token_for(second)}")
    body = {"player": world.player_self.pk, "amount": 1_000}
    key = {"Idempotency-Key": "shift-start"}
    wallet = Account.objects.get(pk=world.player_self.wallet_id).balance

    one = world.client("cashier").post("/api/v1/cage/buy-ins", body, format="json", headers=key)
    two = second_cashier.post("/api/v1/cage/buy-ins", body, format="json", headers=key)

    assert (one.status_code, two.status_code) == (201, 201)
    assert one.json()["transfer_id"] != two.json()["transfer_id"]
    assert Account.objects.get(pk=world.player_self.wallet_id).balance == wallet + 2_000
    records = IdempotencyRecord.objects.filter(key="shift-start", user__in=[world.users["cashier"], second])
    assert sorted(records.values_list("user_id", flat=True)) == sorted([world.users["cashier"].pk, second.pk])


@pytest.mark.django_db
def test_approval_replayed_after_the_request_was_decided(world: World) -> None:
    """A retried approval gets the stored 200, not the 409 a fresh second approval would get."""
    url = f"/api/v1/tables/{world.open_table.pk}/fills/{world.fill.pk}/approve"
    key = {"Idempotency-Key": "approve-fill"}

    first = world.client("cashier").post(url, {}, format="json", headers=key)
    retry = world.client("cashier").post(url, {}, format="json", headers=key)
    fresh = world.client("cashier").post(url, {}, format="json")

    assert (first.status_code, retry.status_code, fresh.status_code) == (200, 200, 409)
    assert retry.json() == first.json()
    assert first.json()["status"] == "issued"
    assert fresh.json()["error"]["code"] == "already_decided"
    assert Transfer.objects.filter(kind="fill_issue", meta__slip=world.fill.pk).count() == 1
    assert SlipSignature.objects.filter(slip=world.fill).count() == 1
