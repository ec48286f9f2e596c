"""Query parameters read by one parser (casino.days) and lists filtered by FilterSets (issue 19, item 6).

Before, each endpoint parsed its own: ``?date=20261122`` or ``?day=2026-W47-1`` were days on
some endpoints and 400s on others, and ``?table=٧`` (an Arabic-Indic seven) was table 7.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.services import save_findings
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db
Login = Callable[[Any], APIClient]

# (url with {value}, a role that may call it, the parameter)
DAY_PARAMETERS = {
    "hourly date": ("/api/v1/tables/{table}/hourly?date={value}", Role.PIT_BOSS, "date"),
    "performance date": ("/api/v1/dealers/{dealer}/performance?date={value}", Role.PIT_BOSS, "date"),
    "alerts day": ("/api/v1/alerts?day={value}", Role.PIT_BOSS, "day"),
    "ratings from": ("/api/v1/players/{player}/ratings?from={value}", Role.PIT_BOSS, "from"),
    "ratings to": ("/api/v1/players/{player}/ratings?to={value}", Role.PIT_BOSS, "to"),
    "trial balance as_of": ("/api/v1/ledger/trial-balance?as_of={value}", Role.AUDITOR, "as_of"),
}
LENIENT_DAYS = ["20261122", "2026-W47-1"]  # days to date.fromisoformat: 2026-11-22, 2026-11-16


@pytest.mark.parametrize("value", LENIENT_DAYS)
@pytest.mark.parametrize("name", sorted(DAY_PARAMETERS))
def test_a_day_is_written_one_way_on_every_endpoint(
    login: Login, name: str, value: str, table: Table, dealer: User, player: Player
) -> None:
    url, role, parameter = DAY_PARAMETERS[name]
    client = login(factories.staff(role))

    response = client.get(url.format(value=value, table=table.pk, dealer=dealer.pk, player=player.pk))

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["fields"] == {parameter: value}
    assert "2026-11-22" in error["message"]  # says how to write it
    canonical = client.get(url.format(value="2026-11-22", table=table.pk, dealer=dealer.pk, player=player.pk))
    assert canonical.status_code == 200, canonical.content


def _alert(table: Table, player: Player, kind: str = "structuring") -> None:
    save_findings(
        detector="aml",
        day=gaming_day_for(),
        findings=[
            Finding(
                kind=kind,
                severity="medium",
                subject=f"player:{player.pk}:{table.pk}",
                summary="2 cash-ins just under the CTR line.",
                table_id=table.pk,
                player_id=player.pk,
            )
        ],
    )


@pytest.mark.parametrize("value", ["\u0667", "+7", "07", "7.0", "0", "-7", str(2**63)])
def test_the_alerts_table_filter_takes_an_id_as_the_paths_do(
    login: Login, pit_boss: User, table: Table, player: Player, value: str
) -> None:
    _alert(table, player)

    response = login(pit_boss).get("/api/v1/alerts", {"table": value})

    assert response.status_code == 400, response.content
    assert response.json()["error"]["fields"] == {"table": value}


def test_the_alerts_filters_combine(login: Login, pit_boss: User, table: Table, player: Player) -> None:
    other = factories.TableFactory()
    _alert(table, player)
    _alert(other, player, kind="chip_walking")
    client = login(pit_boss)

    def kinds(**query: Any) -> list[str]:
        response = client.get("/api/v1/alerts", query)
        assert response.status_code == 200, response.content
        return [row["kind"] for row in response.json()["results"]]

    assert kinds() == ["chip_walking", "structuring"]
    assert kinds(table=table.pk) == ["structuring"]
    assert kinds(table=other.pk, kind="chip_walking", status="open", day=gaming_day_for().isoformat()) == [
        "chip_walking"
    ]
    assert kinds(table=other.pk, kind="structuring") == []
    assert kinds(status="", kind="", day="", table="") == ["chip_walking", "structuring"]  # empty: no filter


def test_the_schema_documents_every_filter(login: Login, auditor: User) -> None:
    schema = login(auditor).get("/api/v1/schema", {"format": "json"}).json()

    def parameters(path: str) -> dict[str, dict[str, Any]]:
        return {p["name"]: p for p in schema["paths"][path]["get"]["parameters"] if p["in"] == "query"}

    alerts = parameters("/api/v1/alerts")
    assert {"status", "kind", "day", "table", "cursor", "limit"} <= set(alerts)
    assert alerts["status"]["schema"]["enum"] == ["open", "resolved"]
    assert "structuring" in alerts["kind"]["schema"]["enum"]
    assert alerts["day"]["schema"] == {"type": "string", "format": "date"}
    assert alerts["table"]["schema"]["type"] == "integer"
    ratings = parameters("/api/v1/players/{player_id}/ratings")
    assert {"from", "to"} <= set(ratings)
    assert "exclusive" in ratings["to"]["description"]
    hourly = parameters("/api/v1/tables/{table_id}/hourly")
    assert hourly["date"]["schema"]["format"] == "date"
    assert "as_of" in parameters("/api/v1/ledger/trial-balance")
