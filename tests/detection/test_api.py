"""GET /api/v1/alerts and POST /api/v1/alerts/{id}/resolve (API.md "Gaming days, audits, alerts")."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, Role, User
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.models import Alert, AlertStatus
from tables.detection.services import save_findings
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db
Login = Callable[[Any], APIClient]
FIELDS = {"id", "kind", "severity", "table", "player", "dealer", "evidence", "status", "at"}


@pytest.fixture
def alerts(table: Table, dealer: User, player: Player) -> list[Alert]:
    """Three findings saved the way the detectors' service saves them, oldest first."""
    day = gaming_day_for()
    save_findings(
        detector="faro",
        day=day,
        findings=[
            Finding(
                kind="faro_split_rate",
                severity="high",
                subject=f"dealer:{dealer.pk}",
                summary="19 splits in 6 Faro deals.",
                evidence={"deals": 6, "splits": 19, "z": 4.5, "rounds": [{"round": 1, "splits": 6}]},
                table_id=table.pk,
                dealer_id=dealer.pk,
            )
        ],
    )
    save_findings(
        detector="aml",
        day=day,
        findings=[
            Finding(
                kind="structuring",
                severity="medium",
                subject=f"player:{player.pk}",
                summary="2 cash-ins just under the CTR line.",
                evidence={"cash_in": {"count": 2, "total": 1_900_000}},
                player_id=player.pk,
            ),
            Finding(
                kind="chip_walking",
                severity="high",
                subject=f"player:{player.pk}",
                summary="Walked with chips.",
                evidence={"cash_in": 700_000, "unredeemed": 690_000},
                player_id=player.pk,
            ),
        ],
    )
    return list(Alert.objects.order_by("pk"))


def test_pit_bosses_and_auditors_list_alerts_newest_first(
    login: Login, pit_boss: User, auditor: User, alerts: list[Alert], table: Table, dealer: User
) -> None:
    for user in (pit_boss, auditor):
        reply = login(user).get("/api/v1/alerts")
        assert reply.status_code == 200
        body = reply.json()
        assert body["next"] is None
        assert [a["id"] for a in body["results"]] == [a.pk for a in reversed(alerts)]
        assert set(body["results"][0]) >= FIELDS
    split = next(a for a in reply.json()["results"] if a["kind"] == "faro_split_rate")
    assert split["table"] == table.pk
    assert split["dealer"] == dealer.pk
    assert split["player"] is None
    assert split["evidence"]["splits"] == 19
    assert split["status"] == "open"
    assert split["severity"] == "high"
    assert dt.datetime.fromisoformat(split["at"]).tzinfo is not None


def test_the_list_is_cursor_paginated(login: Login, pit_boss: User, alerts: list[Alert]) -> None:
    client = login(pit_boss)
    first = client.get("/api/v1/alerts?limit=2").json()
    assert len(first["results"]) == 2
    assert first["next"]
    second = client.get(first["next"]).json()
    assert [a["id"] for a in first["results"] + second["results"]] == [a.pk for a in reversed(alerts)]
    assert second["next"] is None


def test_filters_by_status_and_kind(login: Login, pit_boss: User, alerts: list[Alert]) -> None:
    client = login(pit_boss)
    assert [a["kind"] for a in client.get("/api/v1/alerts?kind=structuring").json()["results"]] == [
        "structuring"
    ]
    assert (
        client.post(f"/api/v1/alerts/{alerts[0].pk}/resolve", {"note": "Checked the shoe."}).status_code
        == 200
    )
    resolved = client.get("/api/v1/alerts?status=resolved").json()["results"]
    assert [a["id"] for a in resolved] == [alerts[0].pk]
    assert {a["id"] for a in client.get("/api/v1/alerts?status=open").json()["results"]} == {
        alerts[1].pk,
        alerts[2].pk,
    }
    day = gaming_day_for().isoformat()
    assert len(client.get(f"/api/v1/alerts?day={day}&status=open&kind=chip_walking").json()["results"]) == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [("status=closed", "status"), ("kind=tarot", "kind"), ("day=tomorrow", "day"), ("table=x", "table")],
)
def test_bad_filters_are_400(login: Login, pit_boss: User, query: str, field: str) -> None:
    reply = login(pit_boss).get(f"/api/v1/alerts?{query}")
    assert reply.status_code == 400
    assert field in reply.json()["error"]["fields"]


@pytest.mark.parametrize("role", [Role.DEALER, Role.CASHIER, Role.ADMIN])
def test_other_staff_may_not_list_alerts(login: Login, alerts: list[Alert], role: str) -> None:
    reply = login(factories.staff(role)).get("/api/v1/alerts")
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "forbidden"


def test_players_and_strangers_are_refused(login: Login, api: APIClient, player: Player) -> None:
    assert login(player.user).get("/api/v1/alerts").status_code == 403
    assert api.get("/api/v1/alerts").status_code == 401


def test_a_pit_boss_resolves_an_alert_with_a_note_once(
    login: Login, pit_boss: User, alerts: list[Alert]
) -> None:
    client = login(pit_boss)
    alert = alerts[1]
    reply = client.post(f"/api/v1/alerts/{alert.pk}/resolve", {"note": "  Known regular; CTR on file.  "})
    assert reply.status_code == 200
    body = reply.json()
    assert body["id"] == alert.pk
    assert body["status"] == "resolved"
    assert body["note"] == "Known regular; CTR on file."
    assert body["resolved_by"] == pit_boss.pk
    alert.refresh_from_db()
    assert alert.status == AlertStatus.RESOLVED
    assert alert.resolved_at is not None
    assert ActionLog.objects.filter(action="alert.resolved", object_id=str(alert.pk), actor=pit_boss).exists()

    twice = client.post(f"/api/v1/alerts/{alert.pk}/resolve", {"note": "again"})
    assert twice.status_code == 409
    assert twice.json()["error"]["code"] == "already_resolved"
    alert.refresh_from_db()
    assert alert.note == "Known regular; CTR on file."


@pytest.mark.parametrize("body", [{}, {"note": ""}, {"note": "   "}, {"note": 5}, {"note": "x" * 2001}])
def test_a_resolution_needs_a_note(login: Login, pit_boss: User, alerts: list[Alert], body: Any) -> None:
    reply = login(pit_boss).post(f"/api/v1/alerts/{alerts[0].pk}/resolve", body, format="json")
    assert reply.status_code == 400
    assert "note" in reply.json()["error"]["fields"]
    alerts[0].refresh_from_db()
    assert alerts[0].status == AlertStatus.OPEN


def test_resolving_a_missing_alert_is_404(login: Login, pit_boss: User) -> None:
    reply = login(pit_boss).post("/api/v1/alerts/999999/resolve", {"note": "?"})
    assert reply.status_code == 404
    assert reply.json()["error"]["code"] == "not_found"
    assert login(pit_boss).post("/api/v1/alerts/abc/resolve", {"note": "?"}).status_code == 404


@pytest.mark.parametrize("role", [Role.AUDITOR, Role.DEALER, Role.CASHIER, Role.ADMIN])
def test_only_a_pit_boss_resolves(login: Login, alerts: list[Alert], role: str) -> None:
    reply = login(factories.staff(role)).post(f"/api/v1/alerts/{alerts[0].pk}/resolve", {"note": "fine"})
    assert reply.status_code == 403
    alerts[0].refresh_from_db()
    assert alerts[0].status == AlertStatus.OPEN


def test_the_same_finding_saved_again_updates_one_row(alerts: list[Alert], dealer: User) -> None:
    day = gaming_day_for()
    again = Finding(
        kind="faro_split_rate",
        severity="medium",
        subject=f"dealer:{dealer.pk}",
        summary="20 splits in 7 Faro deals.",
        evidence={"deals": 7, "splits": 20},
        dealer_id=dealer.pk,
    )
    assert save_findings(detector="faro", day=day, findings=[again]) == (0, 1)
    row = Alert.objects.get(kind="faro_split_rate")
    assert row.pk == alerts[0].pk
    assert row.detections == 2
    assert row.evidence == {"deals": 7, "splits": 20}
    assert row.severity == "medium"
    other_day = save_findings(detector="faro", day=day - dt.timedelta(days=1), findings=[again])
    assert other_day == (1, 0)


def test_the_schema_describes_both_endpoints(login: Login, pit_boss: User) -> None:
    schema = login(pit_boss).get("/api/v1/schema?format=json").json()
    assert "get" in schema["paths"]["/api/v1/alerts"]
    assert "post" in schema["paths"]["/api/v1/alerts/{alert_id}/resolve"]
