"""The pit view's Alerts panel: open alerts with their evidence, resolved by a pit boss in place."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.test import Client

from casino.models import Role, User
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.services import save_findings
from tables.models import Alert, AlertStatus, Table
from tests import factories

pytestmark = pytest.mark.django_db


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alert(table: Table, dealer: User) -> Alert:
    save_findings(
        detector="trays",
        day=gaming_day_for(),
        findings=[
            Finding(
                kind="short_count",
                severity="high",
                subject="session:1",
                summary=f"Table {table.pk} closed $200.00 short of the ledger (threshold $25.00).",
                evidence={"session": 1, "variance": -20_000, "threshold": 2_500, "fills": [1, 2]},
                table_id=table.pk,
                dealer_id=dealer.pk,
            )
        ],
    )
    return Alert.objects.get()


def test_alerts_name_the_players_and_dealers_their_summaries_give_by_id(
    pit_boss: User, auditor: User, player: Any, other_player: Any, dealer: User, table: Table
) -> None:
    save_findings(
        detector="collusion",
        day=gaming_day_for(),
        findings=[
            Finding(
                kind="chip_flow",
                severity="medium",
                subject=f"pair:{player.pk}:{other_player.pk}",
                summary=f"Player {player.pk} paid player {other_player.pk} in 12 of 48 rounds ($24.00).",
                evidence={"shared_rounds": 48},
                table_id=table.pk,
                player_id=other_player.pk,
            ),
            Finding(
                kind="dealer_affinity",
                severity="high",
                subject=f"player:{player.pk}:dealer:{dealer.pk}",
                summary=f"Player {player.pk} won 9 of 10 rounds dealt by dealer {dealer.pk} ($90.00).",
                evidence={"rounds_with_dealer": 10},
                table_id=table.pk,
                dealer_id=dealer.pk,
                player_id=player.pk,
            ),
        ],
    )
    for page in (
        as_user(pit_boss).get("/pit/live/", HTTP_HX_REQUEST="true").content.decode(),
        as_user(auditor).get("/pit/alerts/").content.decode(),
    ):
        assert f"{player.name} paid {other_player.name} in 12 of 48 rounds ($24.00)." in page
        assert f"{player.name} won 9 of 10 rounds dealt by dealer {dealer.name} ($90.00)." in page
        assert "Chip flow" in page
        assert "Dealer affinity" in page
        assert "chip_flow" not in page
        assert f"Player {player.pk} " not in page


def test_the_polled_partial_lists_open_alerts_with_their_evidence(
    pit_boss: User, alert: Alert, table: Table
) -> None:
    page = as_user(pit_boss).get("/pit/live/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="alerts-panel"' in page
    assert "Alerts (1 open)" in page
    assert "Short count" in page
    assert "short_count" not in page
    assert "closed $200.00 short of the ledger" in page
    assert "variance -20000 · threshold 2500" in page  # plain numbers of the evidence, not the lists
    assert table.name in page
    assert f'action="/pit/alerts/{alert.pk}/resolve/"' in page
    assert "/pit/live/" in as_user(pit_boss).get("/pit/").content.decode()


def test_a_cashier_sees_alerts_but_cannot_resolve_them(alert: Alert) -> None:
    cashier = factories.staff(Role.CASHIER)
    page = as_user(cashier).get("/pit/live/").content.decode()
    assert "closed $200.00 short" in page
    assert f"/pit/alerts/{alert.pk}/resolve/" not in page
    reply = as_user(cashier).post(
        f"/pit/alerts/{alert.pk}/resolve/", {"token": secrets.token_urlsafe(18), "note": "x"}
    )
    assert reply.status_code == 403
    alert.refresh_from_db()
    assert alert.status == AlertStatus.OPEN


def test_a_pit_boss_resolves_from_the_pit_once_per_form(pit_boss: User, alert: Alert) -> None:
    client = as_user(pit_boss)
    body: dict[str, Any] = {
        "token": secrets.token_urlsafe(18),
        "note": "Recounted: a $200 chip under the float.",
    }
    reply = client.post(f"/pit/alerts/{alert.pk}/resolve/", body, HTTP_HX_REQUEST="true")
    assert reply.status_code == 200
    page = reply.content.decode()
    assert "Resolved:" in page
    assert "No open alerts." in page
    alert.refresh_from_db()
    assert alert.status == AlertStatus.RESOLVED
    assert alert.note.startswith("Recounted")
    again = client.post(f"/pit/alerts/{alert.pk}/resolve/", body, HTTP_HX_REQUEST="true")  # a double tap
    assert again.status_code == 200
    other = client.post(
        f"/pit/alerts/{alert.pk}/resolve/",
        {**body, "token": secrets.token_urlsafe(18)},
        HTTP_HX_REQUEST="true",
    )
    assert other.status_code == 409
    assert "already resolved" in other.content.decode()


def test_an_empty_note_is_refused_in_place(pit_boss: User, alert: Alert) -> None:
    reply = as_user(pit_boss).post(
        f"/pit/alerts/{alert.pk}/resolve/",
        {"token": secrets.token_urlsafe(18), "note": " "},
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 400
    assert "Say what you found" in reply.content.decode()
    alert.refresh_from_db()
    assert alert.status == AlertStatus.OPEN


def test_a_missing_alert_is_404(pit_boss: User) -> None:
    reply = as_user(pit_boss).post(
        "/pit/alerts/999999/resolve/", {"token": secrets.token_urlsafe(18), "note": "x"}
    )
    assert reply.status_code == 404
