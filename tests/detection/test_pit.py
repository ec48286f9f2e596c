"""The pit view's Alerts panel: open alerts with their evidence, resolved by a pit boss in place."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.test import Client

from casino.models import Role, User
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.models import Alert, AlertStatus
from tables.detection.services import save_findings
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def raise_alert(
    detector: str, kind: str, subject: str, summary: str, evidence: dict[str, Any], **ids: int
) -> None:
    """One open alert, as a detector's finding saved for today."""
    finding = Finding(kind=kind, severity="high", subject=subject, summary=summary, evidence=evidence, **ids)
    save_findings(detector=detector, day=gaming_day_for(), findings=[finding])


@pytest.fixture
def alert(table: Table, dealer: User) -> Alert:
    raise_alert(
        "trays",
        "short_count",
        "session:1",
        f"Table {table.pk} closed $200.00 short of the ledger (threshold $25.00).",
        {"session": 1, "variance": -20_000, "threshold": 2_500, "fills": [1, 2]},
        table_id=table.pk,
        dealer_id=dealer.pk,
    )
    return Alert.objects.get()


def test_alerts_name_the_players_and_staff_their_summaries_give_by_id(
    pit_boss: User, auditor: User, player: Any, other_player: Any, dealer: User, table: Table
) -> None:
    raise_alert(
        "collusion",
        "chip_flow",
        f"pair:{player.pk}:{other_player.pk}",
        f"Player {player.pk} paid player {other_player.pk} in 12 of 48 rounds ($24.00).",
        {"shared_rounds": 48, "net_a_to_b": 2_400},
        table_id=table.pk,
        player_id=other_player.pk,
    )
    raise_alert(
        "collusion",
        "dealer_affinity",
        f"player:{player.pk}:dealer:{dealer.pk}",
        f"Player {player.pk} won 9 of 10 rounds dealt by dealer {dealer.pk} ($90.00).",
        {"rounds_with_dealer": 10},
        table_id=table.pk,
        dealer_id=dealer.pk,
        player_id=player.pk,
    )
    raise_alert(
        "trays",
        "fill_pair",
        f"pair:{dealer.pk}:{pit_boss.pk}",
        f"3 fills ($300.00) requested by staff {dealer.pk} were all approved by staff {pit_boss.pk} "
        "(100% of the requester's fills).",
        {"fills": 3},
        table_id=table.pk,
        dealer_id=dealer.pk,
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
        assert f"requested by {dealer.name} were all approved by {pit_boss.name} (100%" in page
        assert "net $24.00 · 48 shared rounds" in page  # collusion's money in dollars


def test_the_polled_partial_lists_open_alerts_with_their_evidence(
    pit_boss: User, alert: Alert, table: Table
) -> None:
    page = as_user(pit_boss).get("/pit/live/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="alerts-panel"' in page
    assert "Alerts (1 open)" in page
    assert "Short count" in page
    assert "short_count" not in page
    assert f"{table.name} closed $200.00 short of the ledger" in page  # the table by name, not id
    assert f"Table {table.pk} " not in page
    # the kind's figures from the evidence, not the lists nor the ids; its money in dollars, never cents
    assert "variance −$200.00 · threshold $25.00" in page
    assert "session 1" not in page
    assert "20000" not in page
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
