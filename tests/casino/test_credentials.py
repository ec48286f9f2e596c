"""A changed password, account or role ends every token and session; tokens note their use."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from casino.api.authentication import token_digest
from casino.celery import app as celery_app
from casino.models import ActionLog, ApiToken, Role, User
from casino.services import TOKEN_USE_RESOLUTION, issue_token, purge_expired_tokens
from casino.tasks import purge_expired_tokens_task
from tests.celery_support import worker_on
from tests.factories import PASSWORD, staff

ME = "/api/v1/me"
CONSOLE = "/console/"


def _api(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _console(user: User) -> Client:
    client = Client()
    client.force_login(user)
    assert client.get(CONSOLE).status_code == 200
    return client


def _change_password(user: User) -> None:
    user.set_password("a-brand-new-Passphrase-9")
    user.save()


def _deactivate_and_reactivate(user: User) -> None:
    """Reactivating must not bring the old credentials back: they were revoked, not paused."""
    user.is_active = False
    user.save()
    user.is_active = True
    user.save()


def _promote(user: User) -> None:
    user.role = Role.PIT_BOSS
    user.save()


CHANGES: dict[str, Callable[[User], None]] = {
    "password": _change_password,
    "deactivation": _deactivate_and_reactivate,
    "role": _promote,
}


@pytest.mark.django_db
@pytest.mark.parametrize("change", CHANGES)
def test_a_credential_change_refuses_old_tokens_and_sessions(change: str) -> None:
    dealer = staff(Role.DEALER)
    token = issue_token(user=dealer)
    api = _api(token)
    assert api.get(ME).status_code == 200
    console = _console(dealer)

    CHANGES[change](User.objects.get(pk=dealer.pk))

    assert api.get(ME).status_code == 401
    reply = console.get(CONSOLE)
    assert reply.status_code == 302
    assert reply["Location"].startswith(settings.LOGIN_URL)
    assert ApiToken.objects.get(digest=token_digest(token)).revoked_at is not None
    assert ActionLog.objects.filter(action="user.credentials_revoked", object_id=str(dealer.pk)).exists()


@pytest.mark.django_db
def test_manage_py_changepassword_revokes(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.contrib.auth.management.commands import changepassword

    dealer = staff(Role.DEALER)
    api = _api(issue_token(user=dealer))
    console = _console(dealer)
    monkeypatch.setattr(
        changepassword.Command, "_get_pass", lambda self, prompt="": "a-brand-new-Passphrase-9"
    )

    call_command("changepassword", dealer.username, stdout=None)

    assert api.get(ME).status_code == 401
    assert console.get(CONSOLE).status_code == 302


@pytest.mark.django_db
def test_the_admin_revokes_on_password_deactivation_and_role() -> None:
    browser = Client()
    browser.force_login(staff(Role.ADMIN, is_staff=True, is_superuser=True))
    dealer = staff(Role.DEALER)
    change_url = f"/admin/casino/user/{dealer.pk}/change/"
    unchanged = {
        "username": dealer.username,
        "name": dealer.name,
        "role": Role.DEALER,
        "is_active": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "10:00:00",
    }

    api = _api(issue_token(user=dealer))
    reply = browser.post(
        f"/admin/casino/user/{dealer.pk}/password/",
        {"password1": "a-brand-new-Passphrase-9", "password2": "a-brand-new-Passphrase-9"},
    )
    assert reply.status_code == 302
    assert api.get(ME).status_code == 401

    api = _api(issue_token(user=dealer))
    assert browser.post(change_url, {**unchanged, "role": Role.CASHIER}).status_code == 302
    assert User.objects.get(pk=dealer.pk).role == Role.CASHIER
    assert api.get(ME).status_code == 401

    api = _api(issue_token(user=dealer))
    deactivated = {key: value for key, value in unchanged.items() if key not in {"is_active", "role"}}
    assert browser.post(change_url, {**deactivated, "role": Role.CASHIER}).status_code == 302
    assert not User.objects.get(pk=dealer.pk).is_active
    assert api.get(ME).status_code == 401


@pytest.mark.django_db
def test_a_login_or_a_name_change_revokes_nothing() -> None:
    dealer = staff(Role.DEALER)
    api = _api(issue_token(user=dealer))
    before = ActionLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    assert (
        APIClient()
        .post("/api/v1/auth/token", {"username": dealer.username, "password": PASSWORD})
        .status_code
        == 200
    )
    dealer.name = "Doc Holliday"
    dealer.save()

    assert api.get(ME).status_code == 200
    assert not ActionLog.objects.filter(pk__gt=before, action="user.credentials_revoked").exists()


@pytest.mark.django_db
def test_last_used_at_is_written_at_most_once_a_minute() -> None:
    dealer = staff(Role.DEALER)
    key = issue_token(user=dealer)
    tokens = ApiToken.objects.filter(digest=token_digest(key))
    tokens.update(last_used_at=None)
    api = _api(key)

    api.get(ME)
    first = tokens.get().last_used_at
    assert first is not None

    with CaptureQueriesContext(connection) as queries:
        api.get(ME)
    assert tokens.get().last_used_at == first
    assert not [q for q in queries.captured_queries if q["sql"].startswith('UPDATE "casino_apitoken"')]

    tokens.update(last_used_at=first - TOKEN_USE_RESOLUTION)
    api.get(ME)
    again = tokens.get().last_used_at
    assert again is not None
    assert again > first


def _tokens(user: User) -> dict[str, ApiToken]:
    now = timezone.now()
    made = {}
    for kind, expires, revoked in (
        ("expired", now - timedelta(seconds=1), None),
        ("expired_revoked", now - timedelta(hours=1), now - timedelta(hours=2)),
        ("live", now + timedelta(hours=1), None),
        ("live_revoked", now + timedelta(hours=1), now),
    ):
        made[kind] = ApiToken.objects.create(
            digest=token_digest(uuid.uuid4().hex), user=user, expires_at=expires, revoked_at=revoked
        )
    return made


@pytest.mark.django_db
def test_purge_removes_only_expired_tokens() -> None:
    made = _tokens(staff(Role.DEALER))

    assert purge_expired_tokens() == 2

    left = set(ApiToken.objects.filter(pk__in=[t.pk for t in made.values()]).values_list("pk", flat=True))
    assert left == {made["live"].pk, made["live_revoked"].pk}


def test_beat_purges_tokens_with_a_task_the_worker_knows() -> None:
    celery_app.loader.import_default_modules()
    entry = settings.CELERY_BEAT_SCHEDULE["purge-expired-tokens"]
    assert entry["task"] == purge_expired_tokens_task.name
    for scheduled in settings.CELERY_BEAT_SCHEDULE.values():
        assert scheduled["task"] in celery_app.tasks, scheduled


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_the_purge(task_queue: str) -> None:
    made = _tokens(staff(Role.DEALER))

    with worker_on(task_queue):
        assert purge_expired_tokens_task.delay().get(timeout=60) == 2

    assert not ApiToken.objects.filter(pk=made["expired"].pk).exists()
    assert ApiToken.objects.filter(pk=made["live"].pk).exists()
