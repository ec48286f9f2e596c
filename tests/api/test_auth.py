"""Tokens: issued for a username and password, expiring and revocable.

Brute-force protection (lockouts, not a rate limit) is tests/casino/test_login_guard.py's.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from rest_framework.test import APIClient

from casino.api.authentication import token_digest
from casino.models import ApiToken, Role, User
from tests.factories import PASSWORD, staff

TOKEN_URL = "/api/v1/auth/token"


def _signed_in(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _assert_error(response: object, status: int, code: str) -> None:
    assert response.status_code == status, response.content  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    assert isinstance(body["error"]["fields"], dict)


@pytest.mark.django_db
def test_token_for_username_and_password(api: APIClient, pit_boss: User) -> None:
    response = api.post(TOKEN_URL, {"username": pit_boss.username, "password": PASSWORD}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"token", "role"}
    assert body["role"] == "pit_boss"
    stored = ApiToken.objects.get(user=pit_boss)
    assert stored.digest == token_digest(body["token"])
    assert body["token"] not in stored.digest  # only the digest is kept
    me = _signed_in(body["token"]).get("/api/v1/me")
    assert me.status_code == 200
    assert me.json() == {
        "id": pit_boss.pk,
        "username": pit_boss.username,
        "name": pit_boss.name,
        "role": "pit_boss",
        "player": None,
    }


@pytest.mark.django_db
def test_superuser_signs_in_as_admin(api: APIClient) -> None:
    User.objects.create_superuser(username="root", password=PASSWORD, email="root@example.com")

    response = api.post(TOKEN_URL, {"username": "root", "password": PASSWORD}, format="json")

    assert response.status_code == 200
    assert response.json()["role"] == "admin"


@pytest.mark.django_db
def test_player_me_names_their_player(api: APIClient, player: object) -> None:
    response = api.post(TOKEN_URL, {"username": player.user.username, "password": PASSWORD}, format="json")  # type: ignore[attr-defined]

    assert response.json()["role"] == "player"
    me = _signed_in(response.json()["token"]).get("/api/v1/me").json()
    assert me["player"] == player.pk  # type: ignore[attr-defined]
    assert me["role"] == "player"


@pytest.mark.parametrize(
    "body",
    [
        {"username": "dealer-x", "password": "wrong-password"},
        {"username": "nobody", "password": PASSWORD},
        {"username": "DEALER-X", "password": "wrong"},
    ],
    ids=["wrong password", "unknown user", "wrong case and password"],
)
@pytest.mark.django_db
def test_wrong_credentials_are_400(api: APIClient, body: dict[str, str]) -> None:
    staff(Role.DEALER, username="dealer-x")

    response = api.post(TOKEN_URL, body, format="json")

    _assert_error(response, 400, "invalid_credentials")
    assert not ApiToken.objects.filter(user__username="dealer-x").exists()


@pytest.mark.parametrize(
    "body", [{}, {"username": "dealer-x"}, {"password": PASSWORD}, {"username": None, "password": PASSWORD}]
)
@pytest.mark.django_db
def test_missing_credentials_are_400(api: APIClient, body: dict[str, object]) -> None:
    response = api.post(TOKEN_URL, body, format="json")

    _assert_error(response, 400, "invalid")
    assert set(response.json()["error"]["fields"]) & {"username", "password"}


@pytest.mark.django_db
def test_disabled_account_gets_no_token_and_loses_its_tokens(api: APIClient) -> None:
    user = staff(Role.CASHIER)
    response = api.post(TOKEN_URL, {"username": user.username, "password": PASSWORD}, format="json")
    token = response.json()["token"]
    user.is_active = False
    user.save(update_fields=["is_active"])

    again = api.post(TOKEN_URL, {"username": user.username, "password": PASSWORD}, format="json")

    _assert_error(again, 400, "invalid_credentials")
    _assert_error(_signed_in(token).get("/api/v1/me"), 401, "authentication_failed")


@pytest.mark.parametrize(
    "header",
    [None, "Token", "Token not-a-real-token", "Token a b", "Bearer whatever"],
    ids=["none", "keyword only", "unknown token", "three words", "other scheme"],
)
@pytest.mark.django_db
def test_no_valid_token_is_401(header: str | None) -> None:
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)

    response = client.get("/api/v1/me")

    assert response.status_code == 401
    assert response.json()["error"]["code"] in {"not_authenticated", "authentication_failed"}
    assert response["WWW-Authenticate"].startswith("Token")


@pytest.mark.django_db
def test_tokens_expire_after_the_ttl(api: APIClient, cashier: User) -> None:
    before = timezone.now()
    token = api.post(TOKEN_URL, {"username": cashier.username, "password": PASSWORD}, format="json").json()[
        "token"
    ]
    stored = ApiToken.objects.get(digest=token_digest(token))
    assert (
        before + django_settings.TOKEN_TTL <= stored.expires_at <= timezone.now() + django_settings.TOKEN_TTL
    )
    assert _signed_in(token).get("/api/v1/me").status_code == 200

    stored.expires_at = timezone.now() - timedelta(seconds=1)
    stored.save(update_fields=["expires_at"])

    _assert_error(_signed_in(token).get("/api/v1/me"), 401, "authentication_failed")


@pytest.mark.django_db
def test_revoking_a_token_signs_out_that_token_only(api: APIClient, cashier: User) -> None:
    credentials = {"username": cashier.username, "password": PASSWORD}
    first = api.post(TOKEN_URL, credentials, format="json").json()["token"]
    second = api.post(TOKEN_URL, credentials, format="json").json()["token"]

    response = _signed_in(first).delete(TOKEN_URL)

    assert response.status_code == 204
    assert ApiToken.objects.get(digest=token_digest(first)).revoked_at is not None
    _assert_error(_signed_in(first).get("/api/v1/me"), 401, "authentication_failed")
    _assert_error(_signed_in(first).delete(TOKEN_URL), 401, "authentication_failed")
    assert _signed_in(second).get("/api/v1/me").status_code == 200


@pytest.mark.django_db
def test_revoking_without_a_token_is_401(api: APIClient) -> None:
    _assert_error(api.delete(TOKEN_URL), 401, "not_authenticated")
