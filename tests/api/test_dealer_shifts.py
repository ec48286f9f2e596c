"""``GET /api/v1/tables/{id}/dealers`` (issue 44, an addition to API.md): who dealt a table when.

One history, two doors: the API's assign and the pit's dealer form both call
``tables.services.assign_dealer``, whose shifts this lists newest first, the one still running
with ``ended_at`` null.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from casino.models import Player, User
from tables.models import DealerShift, Table

Login = Callable[[Any], APIClient]

pytestmark = pytest.mark.django_db


def _dealers(table: Table) -> str:
    return f"/api/v1/tables/{table.pk}/dealers"


def test_the_api_lists_the_shifts_both_doors_wrote(
    login: Login, pit_boss: User, table: Table, dealer: User, other_dealer: User
) -> None:
    boss = login(pit_boss)
    assigned = boss.post(f"/api/v1/tables/{table.pk}/assign", {"dealer": other_dealer.pk}, format="json")
    assert assigned.status_code == 200
    pit = Client()
    pit.force_login(pit_boss)
    swapped = pit.post(
        f"/pit/tables/{table.pk}/dealer/",
        {"dealer": dealer.pk, "token": secrets.token_urlsafe(18)},
        HTTP_HX_REQUEST="true",
    )
    assert swapped.status_code == 200

    response = boss.get(_dealers(table))

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["next"] is None
    shifts = list(DealerShift.objects.filter(table=table).order_by("-pk"))
    assert [row["id"] for row in body["results"]] == [shift.pk for shift in shifts]
    assert [(row["dealer"], row["dealer_name"]) for row in body["results"]] == [
        (dealer.pk, dealer.name or dealer.username),
        (other_dealer.pk, other_dealer.name or other_dealer.username),
        (dealer.pk, dealer.name or dealer.username),
    ]
    now, before, first = body["results"]
    assert now["ended_at"] is None
    assert before["ended_at"] is not None
    assert first["ended_at"] is not None
    assert {row["table"] for row in body["results"]} == {table.pk}
    assert now["assigned_by"] == before["assigned_by"] == pit_boss.pk
    assert set(now) == {"id", "table", "dealer", "dealer_name", "started_at", "ended_at", "assigned_by"}


def test_only_those_who_read_dealers_performance_read_the_history(
    login: Login,
    table: Table,
    pit_boss: User,
    auditor: User,
    admin: User,
    dealer: User,
    cashier: User,
    player: Player,
) -> None:
    assert login(auditor).get(_dealers(table)).status_code == 200
    for user in (admin, dealer, cashier, player.user):
        refused = login(user).get(_dealers(table))
        assert refused.status_code == 403, user.role
        assert refused.json()["error"]["code"] == "forbidden"
    missing = login(pit_boss).get("/api/v1/tables/999999/dealers")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert login(pit_boss).get(_dealers(table), {"limit": "0"}).status_code == 400
    paged = login(pit_boss).get(_dealers(table), {"limit": "1"}).json()
    assert len(paged["results"]) == 1
