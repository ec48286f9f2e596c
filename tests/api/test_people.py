"""People: staff and players are created by the right roles; players see only themselves."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, Role, User
from casino.services import buy_in, cash_out
from ledger.models import AccountPurpose

STRONG = "zebra-lantern-quartz-97"
Login = Callable[[Any], APIClient]


@pytest.mark.django_db
def test_admin_creates_staff_who_can_sign_in(login: Login, admin: User, api: APIClient) -> None:
    body = {"username": "ann", "password": STRONG, "name": "Ann Marsh", "role": "cashier"}

    response = login(admin).post("/api/v1/staff", body, format="json")

    assert response.status_code == 201
    created = User.objects.get(username="ann")
    assert response.json() == {"id": created.pk, "username": "ann", "name": "Ann Marsh", "role": "cashier"}
    assert created.role == Role.CASHIER
    assert created.check_password(STRONG)
    assert not hasattr(created, "player") or not Player.objects.filter(user=created).exists()
    token = api.post("/api/v1/auth/token", {"username": "ann", "password": STRONG}, format="json")
    assert token.json()["role"] == "cashier"
    log = ActionLog.objects.get(action="staff.created", object_id=str(created.pk))
    assert (log.actor, log.object_type, log.object_id, log.data) == (
        admin,
        "user",
        str(created.pk),
        {"role": "cashier"},
    )


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("short1", "too short"),
        ("password123", "too common"),
        ("48213975", "entirely numeric"),
        ("ann-marsh", "similar"),
    ],
)
@pytest.mark.django_db
def test_weak_passwords_are_refused_by_djangos_validators(
    login: Login, admin: User, cashier: User, password: str, reason: str
) -> None:
    staff_body = {"username": "ann-marsh", "password": password, "name": "Ann", "role": "dealer"}
    player_body = {"username": "ann-marsh", "password": password, "name": "Ann"}

    for client, url, body in (
        (login(admin), "/api/v1/staff", staff_body),
        (login(cashier), "/api/v1/players", player_body),
    ):
        response = client.post(url, body, format="json")
        assert response.status_code == 400, reason
        error = response.json()["error"]
        assert error["code"] == "invalid"
        assert error["fields"]["password"]

    assert not User.objects.filter(username__istartswith="ann-marsh").exists()


@pytest.mark.django_db
def test_cashier_creates_player_with_a_wallet(login: Login, cashier: User) -> None:
    response = login(cashier).post(
        "/api/v1/players", {"username": "lucky", "password": STRONG, "name": "Lucky Lou"}, format="json"
    )

    assert response.status_code == 201
    player = Player.objects.select_related("user", "wallet").get(user__username="lucky")
    assert response.json() == {"id": player.pk, "username": "lucky", "name": "Lucky Lou"}
    assert player.user.role == Role.PLAYER
    assert (player.wallet.purpose, player.wallet.balance, player.wallet.holder) == (
        AccountPurpose.WALLET,
        0,
        f"user:{player.user_id}",
    )
    assert ActionLog.objects.filter(action="player.created", actor=cashier, object_id=str(player.pk)).exists()


@pytest.mark.django_db
def test_usernames_are_unique_ignoring_case(login: Login, cashier: User, player: Player) -> None:
    response = login(cashier).post(
        "/api/v1/players",
        {"username": player.user.username.upper(), "password": STRONG, "name": "Twin"},
        format="json",
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "username_taken"
    assert User.objects.filter(username__iexact=player.user.username).count() == 1


@pytest.mark.django_db
def test_player_reads_own_profile_and_balance(login: Login, player: Player, cashier: User) -> None:
    buy_in(actor=cashier, player=player, amount=12_500)
    client = login(player.user)

    profile = client.get(f"/api/v1/players/{player.pk}")
    balance = client.get(f"/api/v1/players/{player.pk}/balance")

    assert profile.json() == {"id": player.pk, "username": player.user.username, "name": player.user.name}
    body = balance.json()
    assert {k: body[k] for k in ("player", "available", "in_play", "total")} == {
        "player": player.pk,
        "available": 12_500,
        "in_play": 0,
        "total": 12_500,
    }
    as_of = datetime.fromisoformat(body["as_of"])  # ISO 8601 with a time zone (API.md)
    assert as_of.tzinfo is not None
    assert abs(as_of - timezone.now()) < timedelta(minutes=5)


@pytest.mark.parametrize("suffix", ["", "/balance", "/transactions"])
@pytest.mark.django_db
def test_me_stands_for_the_signed_in_player(
    login: Login, player: Player, other_player: Player, suffix: str
) -> None:
    as_me = login(player.user).get(f"/api/v1/players/me{suffix}")
    as_id = login(player.user).get(f"/api/v1/players/{player.pk}{suffix}")

    assert as_me.status_code == 200
    assert _without_time(as_me.json()) == _without_time(as_id.json())


def _without_time(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "as_of"}


@pytest.mark.parametrize("suffix", ["", "/balance", "/transactions"])
@pytest.mark.django_db
def test_a_player_never_sees_another_player(
    login: Login, player: Player, other_player: Player, cashier: User, suffix: str
) -> None:
    buy_in(actor=cashier, player=other_player, amount=5_000)

    response = login(player.user).get(f"/api/v1/players/{other_player.pk}{suffix}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert str(other_player.pk) not in response.json()["error"]["message"]
    assert "5000" not in response.content.decode()


@pytest.mark.django_db
def test_me_is_404_for_staff(login: Login, pit_boss: User) -> None:
    response = login(pit_boss).get("/api/v1/players/me/balance")

    assert response.status_code == 404


@pytest.mark.django_db
def test_transactions_newest_first_signed_from_the_wallet(
    login: Login, player: Player, cashier: User
) -> None:
    first = buy_in(actor=cashier, player=player, amount=10_000)
    second = cash_out(actor=cashier, player=player, amount=3_000)

    response = login(player.user).get("/api/v1/players/me/transactions")

    assert response.status_code == 200
    body = response.json()
    assert body["next"] is None
    rows = body["results"]
    assert [(r["transfer_id"], r["kind"], r["amount"], r["balance_after"]) for r in rows] == [
        (second.pk, "cash_out", -3_000, 7_000),
        (first.pk, "buy_in", 10_000, 10_000),
    ]
    assert rows[0]["table"] is None
    assert rows[0]["round"] is None
    assert rows[0]["memo"].startswith("Cash-out")
    assert set(rows[0]) == {"transfer_id", "at", "kind", "amount", "balance_after", "table", "round", "memo"}


@pytest.mark.django_db
def test_transactions_are_cursor_paginated(login: Login, player: Player, cashier: User) -> None:
    amounts = [1_000, 2_000, 3_000]
    for amount in amounts:
        buy_in(actor=cashier, player=player, amount=amount)
    client = login(cashier)

    page = client.get(f"/api/v1/players/{player.pk}/transactions?limit=2").json()
    rest = client.get(page["next"]).json()

    assert [r["amount"] for r in page["results"]] == [3_000, 2_000]
    assert [r["amount"] for r in rest["results"]] == [1_000]
    assert rest["next"] is None
    garbage = client.get(f"/api/v1/players/{player.pk}/transactions?cursor=garbage")
    assert (garbage.status_code, garbage.json()["error"]["code"]) == (400, "invalid_cursor")  # issue 18


@pytest.mark.django_db
def test_staff_search_players(login: Login, pit_boss: User, player: Player, other_player: Player) -> None:
    response = login(pit_boss).get("/api/v1/players", {"search": player.user.username})

    assert response.status_code == 200
    assert [row["id"] for row in response.json()] == [player.pk]
