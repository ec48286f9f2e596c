"""Brute-force protection on every sign-in path: the API token, the console and the admin.

Each test runs against all three doors. Failures count per account, never per client address
(``casino.login_guard`` on django-axes): a floor's dealers share one address, and wrong
passwords from it must not keep the floor out. A lockout refuses even the right password,
expires, and grows up to a bound; an admin or a pit boss unlocks it in the admin; correct
sign-ins cost nothing; signing out is never refused. The address recorded with a failure is
``REMOTE_ADDR`` unless the peer is a trusted proxy (``casino.client_address``).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from axes.models import AccessAttempt, AccessAttemptExpiration, AccessLog
from django.conf import settings as django_settings
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from casino.api.authentication import token_digest
from casino.models import ActionLog, ApiToken, Role, User
from tests.factories import PASSWORD, staff, token_for

pytestmark = pytest.mark.usefixtures("reset_login_failures")

TOKEN_URL = "/api/v1/auth/token"
ATTACKER = "203.0.113.66"
FLOOR = "198.51.100.20"  # the NAT address a whole floor of dealers signs in from
ELSEWHERE = "192.0.2.10"


@dataclass(frozen=True)
class Door:
    """One sign-in path, and how to read its three answers: signed in, wrong, locked out."""

    name: str
    send: Callable[[str, str, dict[str, str]], HttpResponse]
    signed_in_status: int
    wrong_status: int

    def attempt(self, username: str, password: str, address: str, forwarded: str | None = None) -> str:
        meta = {"REMOTE_ADDR": address}
        if forwarded is not None:
            meta["HTTP_X_FORWARDED_FOR"] = forwarded
        response = self.send(username, password, meta)
        if response.status_code == self.signed_in_status:
            return "in"
        if response.status_code == self.wrong_status:
            return "wrong"
        assert response.status_code == 429, (self.name, response.status_code, response.content[:500])
        message = _lockout_message(response)
        assert re.search(r"try again in \d+ minutes?", message), message
        return "locked"


def _lockout_message(response: HttpResponse) -> str:
    if response["Content-Type"].startswith("application/json"):
        body = response.json()  # type: ignore[attr-defined]
        assert body["error"]["code"] == "locked_out"
        return str(body["error"]["message"])
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "Too many sign-in attempts" in page
    assert "<html" in page  # a whole page in the site's style, not axes' bare text
    return page


def _api(username: str, password: str, meta: dict[str, str]) -> HttpResponse:
    response = APIClient().post(
        TOKEN_URL, {"username": username, "password": password}, format="json", **meta
    )
    if response.status_code == 400:
        assert response.json()["error"]["code"] == "invalid_credentials"
    return response


def _console(username: str, password: str, meta: dict[str, str]) -> HttpResponse:
    response = Client().post("/console/login/", {"username": username, "password": password}, **meta)  # type: ignore[arg-type]
    if response.status_code == 200:
        assert "do not match" in response.content.decode()
    return response


def _admin(username: str, password: str, meta: dict[str, str]) -> HttpResponse:
    response = Client().post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
        **meta,  # type: ignore[arg-type]
    )
    if response.status_code == 200:
        assert "Please enter the correct" in response.content.decode()
    return response


DOORS = [
    pytest.param(Door("api", _api, 200, 400), id="api"),
    pytest.param(Door("console", _console, 302, 200), id="console"),
    pytest.param(Door("admin", _admin, 302, 200), id="admin"),
]
PER_USERNAME = django_settings.LOGIN_FAILURES_PER_USERNAME


def _person() -> User:
    """Someone every door lets in (the admin wants ``is_staff``)."""
    return staff(Role.PIT_BOSS, is_staff=True)


def _nobody() -> str:
    return f"nobody-{secrets.token_hex(4)}"


def _forget_all_failures() -> None:
    """As if every lockout's time had passed."""
    AccessAttemptExpiration.objects.update(expires_at=timezone.now() - timedelta(seconds=1))


@pytest.fixture
def production_token_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 20/min per address that the token endpoint's old ScopedRateThrottle had in production,
    success or not. No throttle is left on it, so this must change nothing."""
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"token": "20/min"})


# --------------------------------------------------------------------------- lockouts


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_a_run_of_wrong_passwords_is_cut_off_and_then_the_right_one_is_refused(door: Door) -> None:
    """The issue's 400 guesses all got an answer; 100 (20 times the limit) show the same here."""
    person, bystander = _person(), _person()

    outcomes = [door.attempt(person.username, f"guess-{n}", ATTACKER) for n in range(100)]

    assert outcomes[: PER_USERNAME - 1] == ["wrong"] * (PER_USERNAME - 1)
    assert set(outcomes[PER_USERNAME - 1 :]) == {"locked"}  # the password is never checked again
    assert door.attempt(person.username, PASSWORD, ATTACKER) == "locked"
    assert door.attempt(person.username, PASSWORD, ELSEWHERE) == "locked"  # the account is locked
    assert door.attempt(bystander.username, PASSWORD, ATTACKER) == "in"  # the address is not
    assert door.attempt(bystander.username, PASSWORD, ELSEWHERE) == "in"
    assert not ApiToken.objects.filter(user=person).exists()


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_a_lockout_expires(door: Door) -> None:
    person = _person()
    for n in range(PER_USERNAME):
        door.attempt(person.username, f"guess-{n}", ATTACKER)
    assert door.attempt(person.username, PASSWORD, ELSEWHERE) == "locked"

    _forget_all_failures()

    assert door.attempt(person.username, PASSWORD, ELSEWHERE) == "in"


@pytest.mark.django_db
def test_each_further_limit_of_failures_doubles_the_lockout_up_to_an_hour() -> None:
    person = _person()
    base = int(django_settings.LOGIN_LOCKOUT.total_seconds() // 60)
    waits = []
    for _ in range(5):
        for n in range(PER_USERNAME):
            response = _api(person.username, f"guess-{n}", {"REMOTE_ADDR": ATTACKER})
        assert response.status_code == 429
        waits.append(int(re.findall(r"try again in (\d+) minutes", response.json()["error"]["message"])[0]))

    assert timedelta(hours=1) == django_settings.LOGIN_LOCKOUT_MAX
    assert waits == [base, 2 * base, 4 * base, 60, 60]  # 15, 30, 60, then never more than an hour
    expires = AccessAttemptExpiration.objects.get().expires_at - timezone.now()
    assert timedelta(minutes=59) < expires <= timedelta(minutes=60)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_wrong_passwords_from_a_floors_address_never_keep_the_other_staff_out(door: Door) -> None:
    """Issue 44: 100 wrong passwords against two accounts from the floor's address locked 25
    other staff signing in from it out for 480 minutes. Only the two accounts are locked."""
    attacked = [_person(), _person()]
    floor_staff = [_person() for _ in range(25)]
    attacked_at = timezone.now()

    outcomes = [door.attempt(attacked[n % 2].username, f"guess-{n}", FLOOR) for n in range(100)]
    with time_machine.travel(attacked_at + timedelta(minutes=1), tick=False):
        signed_in = [door.attempt(person.username, PASSWORD, FLOOR) for person in floor_staff]
        still_locked = [door.attempt(person.username, PASSWORD, FLOOR) for person in attacked]

    assert outcomes.count("wrong") == 2 * (PER_USERNAME - 1)
    assert signed_in == ["in"] * 25
    assert still_locked == ["locked", "locked"]
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {p.username for p in attacked}
    # The attacked accounts' lockout is bounded: past LOGIN_LOCKOUT_MAX they sign in again.
    with time_machine.travel(attacked_at + timedelta(minutes=59), tick=False):
        assert door.attempt(attacked[0].username, PASSWORD, ELSEWHERE) == "locked"
    with time_machine.travel(attacked_at + timedelta(minutes=121), tick=False):
        assert [door.attempt(person.username, PASSWORD, FLOOR) for person in attacked] == ["in", "in"]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_failures_against_many_usernames_lock_only_those_accounts(door: Door) -> None:
    person, sprayed = _person(), _person()

    outcomes = [door.attempt(_nobody(), "guess", ATTACKER) for _ in range(60)]
    outcomes += [door.attempt(sprayed.username, "guess", ATTACKER) for _ in range(PER_USERNAME)]

    assert outcomes == ["wrong"] * (60 + PER_USERNAME - 1) + ["locked"]
    assert door.attempt(person.username, PASSWORD, ATTACKER) == "in"
    assert door.attempt(sprayed.username, PASSWORD, ELSEWHERE) == "locked"


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
@pytest.mark.usefixtures("production_token_rate")
def test_correct_sign_ins_cost_nothing_so_a_floor_signs_in_at_shift_change(door: Door) -> None:
    dealers = [_person() for _ in range(10)]

    outcomes = [door.attempt(dealer.username, PASSWORD, FLOOR) for _ in range(3) for dealer in dealers]
    # Successes neither count nor wash out failures: a few typos stay under the limit.
    typos = [door.attempt(dealers[0].username, "typo", FLOOR) for _ in range(PER_USERNAME - 1)]
    after = door.attempt(dealers[0].username, PASSWORD, FLOOR)

    assert outcomes == ["in"] * 30
    assert typos == ["wrong"] * (PER_USERNAME - 1)
    assert after == "in"
    assert AccessAttempt.objects.get().failures_since_start == PER_USERNAME - 1
    assert not AccessLog.objects.exists()  # a success writes nothing


# --------------------------------------------------------------------------- signing out


@pytest.mark.django_db
@pytest.mark.usefixtures("production_token_rate")
def test_api_sign_out_is_never_refused_and_revokes() -> None:
    person = _person()
    token = _api(person.username, PASSWORD, {"REMOTE_ADDR": FLOOR}).json()["token"]  # type: ignore[attr-defined]
    for _ in range(30):  # the old shared quota is spent, and the account is locked out
        _api(person.username, "guess", {"REMOTE_ADDR": FLOOR})
    assert Door("api", _api, 200, 400).attempt(person.username, PASSWORD, FLOOR) == "locked"

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.delete(TOKEN_URL, REMOTE_ADDR=FLOOR)

    assert response.status_code == 204
    assert ApiToken.objects.get(digest=token_digest(token)).revoked_at is not None
    assert client.get("/api/v1/me", REMOTE_ADDR=FLOOR).status_code == 401


@pytest.mark.django_db
def test_console_sign_out_works_while_the_account_is_locked_out() -> None:
    person = _person()
    client = Client(REMOTE_ADDR=FLOOR)
    assert (
        client.post("/console/login/", {"username": person.username, "password": PASSWORD}).status_code == 302
    )
    for _ in range(PER_USERNAME):
        _console(person.username, "guess", {"REMOTE_ADDR": FLOOR})
    assert Door("console", _console, 302, 200).attempt(person.username, PASSWORD, FLOOR) == "locked"

    response = client.post("/console/logout/")

    assert response.status_code == 302
    assert client.get("/console/")["Location"].startswith("/console/login/")


# --------------------------------------------------------------------------- the client's address


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_a_made_up_x_forwarded_for_from_an_untrusted_peer_is_ignored(door: Door, settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["10.20.0.0/16"]  # a proxy of ours exists, but the peer is not it

    outcomes = [
        door.attempt(_nobody(), "guess", ATTACKER, forwarded=f"198.51.100.{n + 1}, 10.20.0.{n + 1}")
        for n in range(10)
    ]

    assert outcomes == ["wrong"] * 10
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_address_it_saw_is_the_client(door: Door, settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["10.20.0.0/16"]
    proxy, client = "10.20.0.5", "198.51.100.7"

    # The client writes whatever it likes on the left; the proxy appends the address it saw.
    made_up = [f"192.0.2.{n}, {client}" for n in range(1, 11)]
    outcomes = [door.attempt(_nobody(), "guess", proxy, forwarded=forwarded) for forwarded in made_up]

    assert outcomes == ["wrong"] * 10
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {client}


@pytest.mark.django_db
def test_the_audit_log_records_the_client_behind_a_trusted_proxy(settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["10.20.0.5"]
    cashier = staff(Role.CASHIER)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_for(cashier)}")

    response = api.post(
        "/api/v1/players",
        {"username": f"belle-{secrets.token_hex(3)}", "password": "a-long-Passphrase-7", "name": "Belle"},
        format="json",
        REMOTE_ADDR="10.20.0.5",
        HTTP_X_FORWARDED_FOR="198.51.100.9",
    )

    assert response.status_code == 201, response.content
    assert ActionLog.objects.filter(actor=cashier).latest("pk").remote_addr == "198.51.100.9"


# --------------------------------------------------------------------------- unlocking in the admin

PEOPLE = "/admin/casino/user/"


def _locked_dealer() -> User:
    dealer = staff(Role.DEALER, name="Dana Dealer")
    for n in range(PER_USERNAME):
        _api(dealer.username, f"guess-{n}", {"REMOTE_ADDR": ATTACKER})
    assert Door("api", _api, 200, 400).attempt(dealer.username, PASSWORD, FLOOR) == "locked"
    return dealer


def _admin_as(role: str) -> Client:
    browser = Client()
    browser.force_login(staff(role, is_staff=True))
    return browser


def _unlock(browser: Client, *people: User) -> HttpResponse:
    return browser.post(PEOPLE, {"action": "unlock_sign_in", "_selected_action": [p.pk for p in people]})


@pytest.mark.parametrize("role", [Role.PIT_BOSS, Role.ADMIN])
@pytest.mark.django_db
def test_a_pit_boss_or_an_admin_unlocks_an_account_in_the_admin(role: str) -> None:
    dealer, bystander = _locked_dealer(), _person()
    browser = _admin_as(role)

    listed = browser.get(PEOPLE, {"sign_in": "locked"})
    assert listed.status_code == 200
    page = listed.content.decode()
    assert dealer.username in page
    assert "Locked out (6 failures)" in page  # 5 wrong, then the right one refused
    assert bystander.username not in page  # the filter shows only locked accounts
    assert "Unlock sign-in for the selected people" in page

    response = _unlock(browser, dealer)

    assert response.status_code == 302
    assert "Unlocked sign-in for Dana Dealer." in browser.get(response["Location"]).content.decode()
    assert Door("api", _api, 200, 400).attempt(dealer.username, PASSWORD, FLOOR) == "in"
    logged = ActionLog.objects.get(action="sign_in.unlocked")
    assert (logged.actor.role, logged.object_id) == (role, str(dealer.pk))  # type: ignore[union-attr]


@pytest.mark.django_db
def test_a_pit_boss_sees_the_people_list_but_no_persons_page() -> None:
    dealer = _locked_dealer()
    browser = _admin_as(Role.PIT_BOSS)

    assert browser.get(f"{PEOPLE}{dealer.pk}/change/").status_code == 403
    assert f'href="{PEOPLE}{dealer.pk}/change/' not in browser.get(PEOPLE).content.decode()
    browser.post(PEOPLE, {"action": "delete_selected", "_selected_action": [dealer.pk], "post": "yes"})
    assert User.objects.filter(pk=dealer.pk).exists()  # unlocking is all a pit boss may do here


@pytest.mark.parametrize("role", [Role.CASHIER, Role.DEALER, Role.AUDITOR])
@pytest.mark.django_db
def test_no_one_else_may_unlock(role: str) -> None:
    dealer = _locked_dealer()
    browser = _admin_as(role)

    assert browser.get(PEOPLE).status_code == 403
    _unlock(browser, dealer)

    assert Door("api", _api, 200, 400).attempt(dealer.username, PASSWORD, FLOOR) == "locked"
    assert not ActionLog.objects.filter(action="sign_in.unlocked").exists()
