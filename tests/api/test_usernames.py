"""Usernames made through the API pass Django's own rules and may not fake a taken name."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.test import Client
from rest_framework.test import APIClient

from casino.models import User
from casino.services import check_username, create_player
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


# Issue 44 item 5: the Latin lookalikes a cashier mistakes for one another (I, l and 1; O and 0;
# rn and m) beside an existing name, refused with the existing account named in words.
LATIN_LOOKALIKES = [
    ("player.1", "Pat Doe", "pIayer.1"),  # capital i
    ("player.1", "Pat Doe", "player.l"),
    ("player.1", "Pat Doe", "p1ayer.1"),
    ("player.1", "Pat Doe", "pIayer.I"),
    ("bob.o", "Bob Oakes", "b0b.0"),
    ("mike", "Mike Ames", "rnike"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize(("taken", "name", "lookalike"), LATIN_LOOKALIKES)
def test_a_latin_lookalike_of_a_taken_name_is_refused_naming_its_owner(
    login: Login, admin: User, endpoint: str, taken: str, name: str, lookalike: str
) -> None:
    create_player(actor=admin, username=taken, password=STRONG, name=name)

    response = _create(login(admin), endpoint, lookalike)

    _assert_username_refused(response, f"looks like the existing username {taken!r} ({name}, player)")
    assert not User.objects.filter(username=lookalike).exists()


@pytest.mark.django_db
def test_the_refusal_names_a_staff_account_by_its_role(login: Login, admin: User) -> None:
    staff("pit_boss", username="sam.1", name="Sam Hill")

    response = _create(login(admin), "/api/v1/staff", "saml.I")

    assert response.status_code == 201, response.content  # "saml.I" does not look like "sam.1"
    response = _create(login(admin), "/api/v1/staff", "sam.l")
    _assert_username_refused(response, "looks like the existing username 'sam.1' (Sam Hill, pit boss)")


@pytest.mark.django_db
@pytest.mark.parametrize("honest", ["player.2", "player.i", "player.11", "payer.1", "rnike.m"])
def test_names_that_do_not_look_alike_are_accepted(login: Login, admin: User, honest: str) -> None:
    create_player(actor=admin, username="player.1", password=STRONG, name="Pat Doe")
    create_player(actor=admin, username="mike", password=STRONG, name="Mike Ames")

    assert _create(login(admin), "/api/v1/players", honest).status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("lookalike", ["player.l", "pIayer.1", "p1ayer.1"])
def test_the_admin_refuses_a_latin_lookalike_when_adding_and_renaming(admin: User, lookalike: str) -> None:
    create_player(actor=admin, username="player.1", password=STRONG, name="Pat Doe")
    other = create_player(actor=admin, username="quinn", password=STRONG, name="Quinn").user
    browser = Client()
    browser.force_login(staff("admin", is_staff=True, is_superuser=True))

    added = browser.post(
        "/admin/casino/user/add/",
        {"username": lookalike, "usable_password": "true", "password1": STRONG, "password2": STRONG},
    )
    renamed = browser.post(f"/admin/casino/user/{other.pk}/change/", {"username": lookalike})

    for page in (added, renamed):
        assert page.status_code == 200
        errors = str(page.context["adminform"].form.errors["username"])
        assert "looks like the existing username &#x27;player.1&#x27; (Pat Doe, player)" in errors, errors
    assert not User.objects.filter(username=lookalike).exists()
    other.refresh_from_db()
    assert other.username == "quinn"


@pytest.mark.django_db
def test_the_migration_refills_the_skeletons_stored_before(login: Login, admin: User) -> None:
    """A name stored with the old skeleton is found as a lookalike once the migration has run."""
    migration = importlib.import_module("casino.migrations.0006_username_skeletons_latin_lookalikes")
    create_player(actor=admin, username="player.1", password=STRONG, name="Pat Doe")
    User.objects.filter(username="player.1").update(username_skeleton="player.1")  # as stored before
    assert check_username("player.l") == "player.l"  # the stale skeleton hides the lookalike

    migration.refill_skeletons(django_apps, None)

    assert User.objects.get(username="player.1").username_skeleton == "player.l"
    _assert_username_refused(_create(login(admin), "/api/v1/players", "player.l"), "'player.1' (Pat Doe")
