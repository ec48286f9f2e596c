"""Days at the edge of the calendar are a 400 (or an empty answer), never a 500.

Every endpoint that takes a day or a moment from the client computes a gaming day's bounds,
which reach into the next day; 9999-12-31 has no next day in Python. Found by probing the
endpoints with the calendar's first and last days.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import Role, User
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db

Login = Callable[[Any], APIClient]

OUT_OF_RANGE_DAYS = ["9999-12-31", "0001-01-01"]
OUT_OF_RANGE_MOMENTS = ["9999-12-31T23:59:59", "1899-12-31T23:00:00Z"]


@pytest.fixture
def table(system_accounts: None) -> Table:
    return factories.TableFactory()


# name: (method, url with {value}, a role that may call it, whether it also takes a datetime)
ENDPOINTS: dict[str, tuple[str, str, str, bool]] = {
    "trial balance as_of": ("get", "/api/v1/ledger/trial-balance?as_of={value}", Role.AUDITOR, True),
    "hourly date": ("get", "/api/v1/tables/{table}/hourly?date={value}", Role.PIT_BOSS, False),
    "performance date": ("get", "/api/v1/dealers/{dealer}/performance?date={value}", Role.PIT_BOSS, False),
    "ratings from": ("get", "/api/v1/players/{player}/ratings?from={value}", Role.PIT_BOSS, True),
    "ratings to": ("get", "/api/v1/players/{player}/ratings?to={value}", Role.PIT_BOSS, True),
    "alerts day": ("get", "/api/v1/alerts?day={value}", Role.PIT_BOSS, False),
    "report": ("get", "/api/v1/gaming-days/{value}/report", Role.AUDITOR, False),
    "close": ("post", "/api/v1/gaming-days/{value}/close", Role.AUDITOR, False),
}
CASES = [
    (name, value)
    for name, (*_, takes_moment) in sorted(ENDPOINTS.items())
    for value in OUT_OF_RANGE_DAYS + (OUT_OF_RANGE_MOMENTS if takes_moment else [])
]


@pytest.mark.parametrize(("name", "value"), CASES)
def test_a_day_outside_the_calendar_is_a_400(
    login: Login, name: str, value: str, table: Table, dealer: User, player: Any
) -> None:
    method, url, role, _ = ENDPOINTS[name]
    client = login(factories.staff(role))

    response = getattr(client, method)(
        url.format(value=value, table=table.pk, dealer=dealer.pk, player=player.pk)
    )

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert "between 1900-01-01 and 9998-12-31" in error["message"]
    assert set(error) == {"code", "message", "fields"}


@pytest.mark.parametrize("url", ["/audit/9999-12-31/", "/audit/0001-01-01/"])
def test_the_audit_pages_answer_a_day_outside_the_calendar_with_not_found(url: str, auditor: User) -> None:
    client = APIClient()
    client.force_login(auditor)

    response = client.get(url)

    assert response.status_code == 404
