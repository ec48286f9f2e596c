"""System exceptions and the staff access review (API.md "Evidence"): each change that alters how
the floor runs or undoes what was recorded is listed for its day with who and when, and every
staff account with its role and the changes to it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from casino.models import ActionLog, Role, User
from ledger.gaming_day import gaming_day_for
from tables.services import change_limits
from tests.factories import staff, token_for

pytestmark = pytest.mark.django_db


def _exceptions(client: Any, **query: str) -> Any:
    return client.get("/api/v1/exceptions", {"day": gaming_day_for().isoformat(), **query})


def test_a_limit_change_and_a_lockout_are_listed_with_who_and_when(
    login: Any, auditor: User, pit_boss: User, table: Any, reset_login_failures: None
) -> None:
    change_limits(actor=pit_boss, table_id=table.pk, min_bet=200, max_bet=20_000)
    victim = staff(Role.DEALER, username="locked-dealer")
    for _ in range(6):
        Client(REMOTE_ADDR="10.1.2.3").post(
            "/api/v1/auth/token", {"username": victim.username, "password": "no"}
        )

    response = _exceptions(login(auditor))

    assert response.status_code == 200, response.content
    rows = response.json()["results"]
    kinds = {row["kind"]: row for row in rows}
    limits = kinds["limit_change"]
    assert limits["by"] == {"id": pit_boss.pk, "username": pit_boss.username, "name": pit_boss.name}
    assert limits["details"]["new"] == {"min_bet": 200, "max_bet": 20_000}
    assert limits["object"] == {"type": "table", "id": str(table.pk)}
    assert limits["at"]
    lockout = kinds["lockout"]
    assert lockout["object"] == {"type": "user", "id": str(victim.pk)}
    assert lockout["details"] == {"username": victim.username}
    assert all(row["kind"] != "seat" for row in rows)
    assert (
        not ActionLog.objects.filter(action="sign_in.locked_out").exclude(object_id=str(victim.pk)).exists()
    )


def test_ordinary_actions_are_not_exceptions_and_a_bad_day_is_a_400(login: Any, auditor: User) -> None:
    ActionLog.objects.record(actor=auditor, action="seat.taken", obj=auditor)
    client = login(auditor)

    listed = _exceptions(client).json()["results"]
    assert [row for row in listed if row["action"] == "seat.taken"] == []
    assert {row["kind"] for row in listed} <= {"credentials_revoked"}  # the fixtures' passwords
    bad = client.get("/api/v1/exceptions", {"day": "yesterday"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "bad_date"
    assert client.get("/api/v1/exceptions").status_code == 400


def _as_posted(form: Any) -> dict[str, Any]:
    """A bound admin form's values as its page would post them back."""
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue
        if value is True:
            data[name] = "on"
        elif isinstance(value, dt.datetime):
            data[f"{name}_0"], data[f"{name}_1"] = value.date().isoformat(), value.time().isoformat()
        else:
            data[name] = value
    return data


def test_a_role_changed_in_the_admin_is_logged_with_who_and_reviewed(login: Any, auditor: User) -> None:
    admin = staff(Role.ADMIN, username="superadmin", is_staff=True, is_superuser=True)
    dealer = staff(Role.DEALER, username="promoted")
    browser = Client()
    browser.force_login(admin)
    page = browser.get(f"/admin/casino/user/{dealer.pk}/change/")
    assert page.status_code == 200
    form = _as_posted(page.context["adminform"].form)
    form["role"] = Role.PIT_BOSS
    saved = browser.post(f"/admin/casino/user/{dealer.pk}/change/", form)
    assert saved.status_code == 302, saved.context["adminform"].form.errors if saved.context else saved
    dealer.refresh_from_db()
    assert dealer.role == Role.PIT_BOSS

    exceptions = _exceptions(login(auditor)).json()["results"]
    role_change = next(row for row in exceptions if row["kind"] == "role_change")
    assert role_change["by"]["username"] == admin.username
    assert role_change["details"] == {"role": [Role.DEALER, Role.PIT_BOSS]}
    assert any(
        row["kind"] == "setting_change" and row["by"]["username"] == admin.username for row in exceptions
    )

    review = login(auditor).get("/api/v1/staff/access-review")
    assert review.status_code == 200
    person = next(p for p in review.json() if p["user"]["id"] == dealer.pk)
    assert person["role"] == Role.PIT_BOSS
    assert person["active"] is True
    assert person["created"]
    changed = [c for c in person["role_changes"] if c["action"] == "staff.role_changed"]
    assert changed == [
        {"at": changed[0]["at"], "action": "staff.role_changed", "by": admin.username,
         "changes": {"role": [Role.DEALER, Role.PIT_BOSS]}}
    ]  # fmt: skip


def test_the_access_review_lists_every_staff_account_and_no_player(
    login: Any, admin: User, auditor: User, player: Any
) -> None:
    client = login(admin)
    client.get("/api/v1/me")  # a sign-in by token is not a session: last_sign_in stays as it was

    review = client.get("/api/v1/staff/access-review")

    assert review.status_code == 200
    users = {p["user"]["id"]: p for p in review.json()}
    assert admin.pk in users
    assert auditor.pk in users
    assert player.user_id not in users
    assert set(users[admin.pk]) == {"user", "role", "created", "last_sign_in", "active", "role_changes"}
    assert token_for(auditor)
