"""Issue 44 item 20: the pit boss got 403 on ``/pit/alerts/``.

API.md lets a pit boss and an auditor read the alerts (``GET /api/v1/alerts``); the page said
auditors only (``SCREENS["audit_alerts"]``). Now both may open it; it stays read only, and the
pit boss's nav keeps one "Alerts", the pit's own list, where they resolve them.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from casino.permissions import screens_for
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.services import save_findings
from tests import factories
from tests.console.conftest import Floor
from tests.console.test_views import text

pytestmark = pytest.mark.django_db


@pytest.fixture
def short_count(floor: Floor) -> None:
    finding = Finding(
        kind="short_count",
        severity="high",
        subject="session:1",
        summary=f"{floor.faro.name} closed $200.00 short of the ledger (threshold $25.00).",
        evidence={"variance": -20_000},
        table_id=floor.faro.pk,
    )
    save_findings(detector="trays", day=gaming_day_for(), findings=[finding])


def test_a_pit_boss_reads_the_alerts_page(floor: Floor, short_count: None, as_user: Any) -> None:
    page = as_user(floor.pit_boss).get("/pit/alerts/")

    assert page.status_code == 200
    assert "Alerts (1 open)" in text(page)
    assert "Faro c closed $200.00 short of the ledger" in text(page)
    assert "/resolve/" not in text(page)  # read only: resolved in the pit
    assert 'href="/pit/#alerts-title">the pit view</a>' in text(page)


def test_the_auditor_still_reads_it_and_no_one_else(floor: Floor, short_count: None, as_user: Any) -> None:
    auditor = as_user(floor.auditor).get("/pit/alerts/")
    assert auditor.status_code == 200
    assert "Faro c closed $200.00 short" in text(auditor)
    assert 'href="/pit/#alerts-title"' not in text(auditor)  # the pit is not the auditor's screen
    admin = factories.staff(Role.ADMIN, username="calertsadmin")
    for user in (floor.dealer, floor.cashier, admin):  # API.md's GET /alerts: pit_boss, auditor
        assert as_user(user).get("/pit/alerts/").status_code == 403, user.role


def test_the_pit_bosss_nav_has_one_alerts_the_pits_own(floor: Floor) -> None:
    alerts = [screen for screen in screens_for(floor.pit_boss) if screen.label == "Alerts"]
    assert [(screen.url_name, screen.fragment) for screen in alerts] == [("pit:home", "alerts-title")]
    assert [screen.url_name for screen in screens_for(floor.auditor)] == ["audit:index", "pit:alerts"]
