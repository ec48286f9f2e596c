"""Usernames made through the API pass Django's own rules and may not fake a taken name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from casino.models import User
from casino.services import create_player
from tests.factories import staff

Login = Callable[[Any], APIClient]
STRONG = "a-long-Passphrase-7"
CYRILLIC_A = "\u0430"  # а, CYRILLIC SMALL LETTER A


def _create(client: APIClient, endpoint: str, username: str) -> Any:
    body: dict[str, str] = {"username": username, "password": STRONG, "name": "Someone"}
    if endpoint == "/api/v1/staff":
        body["role"] = "dealer"
    return client.post(endpoint, body, format="json")


def _assert_username_refused(response: Any, words: str) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "username" in error["fields"]
    assert words in error["message"]


ENDPOINTS = ["/api/v1/players", "/api/v1/staff"]


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("username", ["../etc passwd", "<b>x</b>"])
def test_djangos_username_validator_applies(login: Login, admin: User, endpoint: str, username: str) -> None:
    response = _create(login(admin), endpoint, username)

    _assert_username_refused(response, "Enter a valid username")
    assert not User.objects.filter(username=username).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_cyrillic_lookalike_of_a_taken_name_is_refused(login: Login, admin: User, endpoint: str) -> None:
    create_player(actor=admin, username="alice", password=STRONG, name="Alice")
    lookalike = CYRILLIC_A + "lice"
    assert lookalike != "alice"

    response = _create(login(admin), endpoint, lookalike)

    _assert_username_refused(response, "looks like the existing username 'alice'")
    assert not User.objects.filter(username=lookalike).exists()


@pytest.mark.django_db
def test_a_name_all_in_cyrillic_that_looks_latin_is_refused(login: Login, admin: User) -> None:
    create_player(actor=admin, username="ace", password=STRONG, name="Ace")

    response = _create(login(admin), "/api/v1/players", "\u0430\u0441\u0435")  # асе

    _assert_username_refused(response, "looks like the existing username 'ace'")


@pytest.mark.django_db
def test_mixed_scripts_that_fake_each_other_are_refused(login: Login, admin: User) -> None:
    response = _create(login(admin), "/api/v1/players", "p" + CYRILLIC_A + "ypal")

    _assert_username_refused(response, "mixes letters of different scripts")


@pytest.mark.django_db
def test_honest_unicode_names_and_fullwidth_forms(login: Login, admin: User) -> None:
    client = login(admin)
    assert _create(client, "/api/v1/players", "иван").status_code == 201
    assert _create(client, "/api/v1/players", "josé.garcía").status_code == 201

    # NFKC, as Django's user creation: fullwidth "ｉｖａｎ" is stored as "ivan", then "IVAN" is taken.
    created = _create(client, "/api/v1/players", "ｉｖａｎ")
    assert created.status_code == 201
    assert created.json()["username"] == "ivan"
    assert _create(client, "/api/v1/players", "IVAN").json()["error"]["code"] == "username_taken"


@pytest.mark.django_db
def test_the_admin_refuses_the_same_lookalike(admin: User) -> None:
    create_player(actor=admin, username="alice", password=STRONG, name="Alice")
    browser = Client()
    browser.force_login(staff("admin", is_staff=True, is_superuser=True))

    page = browser.post(
        "/admin/casino/user/add/",
        {
            "username": CYRILLIC_A + "lice",
            "usable_password": "true",
            "password1": STRONG,
            "password2": STRONG,
        },
    )

    assert page.status_code == 200
    assert "looks like the existing username" in str(page.context["adminform"].form.errors["username"])
    assert not User.objects.filter(username=CYRILLIC_A + "lice").exists()
