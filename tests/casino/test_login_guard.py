"""Brute-force protection on every sign-in path: the API token, the console and the admin.

Each test runs against all three doors. Failures count per username and per client address
(``casino.login_guard`` on django-axes); a lockout refuses even the right password, expires,
and grows; correct sign-ins cost nothing; signing out is never refused. The client address
is ``REMOTE_ADDR`` unless the peer is a trusted proxy (``casino.client_address``).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
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
PER_ADDRESS = django_settings.LOGIN_FAILURES_PER_ADDRESS


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
    assert door.attempt(person.username, PASSWORD, ELSEWHERE) == "locked"  # the username is locked
    assert door.attempt(bystander.username, PASSWORD, ATTACKER) == "locked"  # so is the address
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
def test_each_further_limit_of_failures_doubles_the_lockout() -> None:
    person = _person()
    base = int(django_settings.LOGIN_LOCKOUT.total_seconds() // 60)
    waits = []
    for _ in range(4):
        for n in range(PER_USERNAME):
            response = _api(person.username, f"guess-{n}", {"REMOTE_ADDR": ATTACKER})
        assert response.status_code == 429
        waits.append(int(re.findall(r"try again in (\d+) minutes", response.json()["error"]["message"])[0]))

    assert waits == [base, 2 * base, 4 * base, 8 * base]
    expires = AccessAttemptExpiration.objects.get().expires_at - timezone.now()
    assert timedelta(minutes=8 * base - 1) < expires <= timedelta(minutes=8 * base)


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_failures_from_one_address_lock_it_out_for_every_username(door: Door) -> None:
    person = _person()

    outcomes = [door.attempt(_nobody(), "guess", ATTACKER) for _ in range(PER_ADDRESS + 5)]

    assert outcomes[: PER_ADDRESS - 1] == ["wrong"] * (PER_ADDRESS - 1)
    assert set(outcomes[PER_ADDRESS - 1 :]) == {"locked"}
    assert door.attempt(person.username, PASSWORD, ATTACKER) == "locked"
    assert door.attempt(person.username, PASSWORD, ELSEWHERE) == "in"


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
    for _ in range(30):  # the old shared quota is spent, and the address is locked out
        _api(_nobody(), "guess", {"REMOTE_ADDR": FLOOR})
    assert Door("api", _api, 200, 400).attempt(person.username, PASSWORD, FLOOR) == "locked"

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.delete(TOKEN_URL, REMOTE_ADDR=FLOOR)

    assert response.status_code == 204
    assert ApiToken.objects.get(digest=token_digest(token)).revoked_at is not None
    assert client.get("/api/v1/me", REMOTE_ADDR=FLOOR).status_code == 401


@pytest.mark.django_db
def test_console_sign_out_works_while_the_address_is_locked_out() -> None:
    person = _person()
    client = Client(REMOTE_ADDR=FLOOR)
    assert (
        client.post("/console/login/", {"username": person.username, "password": PASSWORD}).status_code == 302
    )
    for _ in range(PER_ADDRESS):
        _console(_nobody(), "guess", {"REMOTE_ADDR": FLOOR})

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
        for n in range(100)
    ]

    assert outcomes[: PER_ADDRESS - 1] == ["wrong"] * (PER_ADDRESS - 1)
    assert set(outcomes[PER_ADDRESS - 1 :]) == {"locked"}
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_address_it_saw_is_the_client(door: Door, settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["10.20.0.0/16"]
    proxy, client, neighbour = "10.20.0.5", "198.51.100.7", "198.51.100.8"
    person = _person()

    # The client writes whatever it likes on the left; the proxy appends the address it saw.
    outcomes = [
        door.attempt(_nobody(), "guess", proxy, forwarded=f"192.0.2.{n % 250 + 1}, {client}")
        for n in range(PER_ADDRESS)
    ]

    assert outcomes == ["wrong"] * (PER_ADDRESS - 1) + ["locked"]
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {client}
    assert door.attempt(person.username, PASSWORD, proxy, forwarded=client) == "locked"
    assert door.attempt(person.username, PASSWORD, proxy, forwarded=neighbour) == "in"


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
