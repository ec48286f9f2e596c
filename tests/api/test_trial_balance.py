"""GET /api/v1/ledger/trial-balance (API.md "Gaming days, audits, alerts"): auditors only.

Transfers are posted at chosen moments through the ledger service, then read back through the
API: now (stored balances) and as of a moment or a gaming day (summed from entries).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from casino.models import Role, User
from ledger.models import AccountKind, AccountPurpose
from ledger.selectors import get_trial_balance
from ledger.services import Leg, open_account, post_transfer
from tests import factories

pytestmark = pytest.mark.django_db

URL = "/api/v1/ledger/trial-balance"
Login = Callable[[Any], APIClient]


def casino_time(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(settings.CASINO_TIME_ZONE))


DAY = dt.date(2026, 3, 14)
ROLLOVER = settings.GAMING_DAY_ROLLOVER_HOUR


@pytest.fixture
def accounts() -> tuple[str, str]:
    """A bank that may go negative and a wallet, both fresh."""
    bank = open_account(
        code="tb:bank", kind=AccountKind.ASSET, purpose=AccountPurpose.HOUSE_BANK, must_not_go_negative=False
    )
    wallet = open_account(code="tb:wallet", kind=AccountKind.LIABILITY, purpose=AccountPurpose.WALLET)
    return bank.code, wallet.code


def row(body: dict[str, Any], code: str) -> dict[str, Any]:
    return next(item for item in body["accounts"] if item["account"] == code)


def test_an_auditor_gets_every_account_and_equal_totals(
    login: Login, auditor: User, accounts: tuple[str, str]
) -> None:
    bank, wallet = accounts
    post_transfer(key="tb-1", kind="buy_in", legs=[Leg(bank, wallet, 5_000)])
    post_transfer(key="tb-2", kind="bet", legs=[Leg(wallet, bank, 1_200)])

    response = login(auditor).get(URL)

    assert response.status_code == 200
    body = response.json()
    assert row(body, wallet) == {
        "account": wallet,
        "kind": "liability",
        "purpose": "wallet",
        "debits": 1_200,
        "credits": 5_000,
        "balance": 3_800,
    }
    assert row(body, bank)["balance"] == -3_800
    assert body["total_debits"] == body["total_credits"]
    assert sum(item["balance"] for item in body["accounts"]) == 0
    assert body["as_of"] is None
    expected = get_trial_balance()
    assert [item["account"] for item in body["accounts"]] == [r.account for r in expected.rows]
    assert body["total_debits"] == expected.total_debits


def test_as_of_a_moment_counts_the_entries_up_to_and_including_it(
    login: Login, auditor: User, accounts: tuple[str, str]
) -> None:
    bank, wallet = accounts
    first, second = casino_time(DAY, 20), casino_time(DAY, 22)
    post_transfer(key="tb-early", kind="buy_in", legs=[Leg(bank, wallet, 700)], at=first)
    post_transfer(key="tb-late", kind="buy_in", legs=[Leg(bank, wallet, 300)], at=second)
    client = login(auditor)

    at_first = client.get(URL, {"as_of": first.isoformat()}).json()
    between = client.get(URL, {"as_of": "2026-03-14T21:00:00"}).json()  # no zone: casino time
    before = client.get(URL, {"as_of": casino_time(DAY, 19).isoformat()}).json()

    assert row(at_first, wallet)["credits"] == 700
    assert row(between, wallet)["credits"] == 700
    assert dt.datetime.fromisoformat(between["as_of"]) == casino_time(DAY, 21)
    nothing_yet = row(before, wallet)
    assert (nothing_yet["debits"], nothing_yet["credits"], nothing_yet["balance"]) == (0, 0, 0)
    for body in (at_first, between, before):
        assert body["total_debits"] == body["total_credits"]


def test_as_of_a_gaming_day_means_the_end_of_that_day(
    login: Login, auditor: User, accounts: tuple[str, str]
) -> None:
    """The gaming day rolls over at the configured hour, not at midnight."""
    bank, wallet = accounts
    next_day = DAY + dt.timedelta(days=1)
    post_transfer(key="tb-evening", kind="buy_in", legs=[Leg(bank, wallet, 100)], at=casino_time(DAY, 23))
    post_transfer(
        key="tb-small-hours",
        kind="buy_in",
        legs=[Leg(bank, wallet, 20)],
        at=casino_time(next_day, ROLLOVER - 1),
    )
    post_transfer(
        key="tb-next-day", kind="buy_in", legs=[Leg(bank, wallet, 3)], at=casino_time(next_day, ROLLOVER)
    )

    body = login(auditor).get(URL, {"as_of": DAY.isoformat()}).json()

    assert row(body, wallet)["credits"] == 120  # the evening and the small hours, not the next day
    assert dt.datetime.fromisoformat(body["as_of"]) == casino_time(next_day, ROLLOVER) - dt.timedelta(
        microseconds=1
    )


@pytest.mark.parametrize("value", ["yesterday", "2026-13-01", "14/03/2026", "2026-03-14T25:00"])
def test_a_malformed_as_of_is_a_400_in_the_error_shape(login: Login, auditor: User, value: str) -> None:
    response = login(auditor).get(URL, {"as_of": value})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "as_of must be a date like 2026-11-22" in error["message"]
    assert error["fields"] == {"as_of": value}


@pytest.mark.parametrize("role", [Role.ADMIN, Role.PIT_BOSS, Role.DEALER, Role.CASHIER])
def test_only_auditors_may_read_it(login: Login, role: str) -> None:
    response = login(factories.staff(role)).get(URL)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"


def test_players_and_strangers_may_not_read_it(login: Login, player: Any) -> None:
    assert login(player.user).get(URL).status_code == 403
    assert APIClient().get(URL).status_code == 401
