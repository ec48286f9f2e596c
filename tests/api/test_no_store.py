"""API answers that carry balances or personal data are never cached (``Cache-Control: no-store``).

One middleware (casino/api/caching.py) marks every /api/ response, errors included, so a
shared floor tablet or a proxy never keeps a player's balance or transactions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils.cache import get_max_age

from casino.models import Player, User
from ledger.gaming_day import gaming_day_for
from tables.audit.models import AuditReport
from tables.audit.services import run_audit

pytestmark = pytest.mark.django_db


def _no_store(response: Any) -> None:
    directives = {part.strip() for part in response["Cache-Control"].split(",")}
    assert "no-store" in directives, response["Cache-Control"]
    assert "private" in directives
    assert get_max_age(response) == 0


def test_personal_and_money_answers_are_not_stored(
    login: Any, player: Player, cashier: User, auditor: User, pit_boss: User
) -> None:
    day = gaming_day_for() - dt.timedelta(days=1)
    report = AuditReport.objects.create(
        gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor
    )
    run_audit(report_id=report.pk)
    me, cage, audit, boss = login(player.user), login(cashier), login(auditor), login(pit_boss)
    answers = {
        "me": me.get("/api/v1/me"),
        "player": me.get(f"/api/v1/players/{player.pk}"),
        "balance": me.get("/api/v1/players/me/balance"),
        "transactions": me.get(f"/api/v1/players/{player.pk}/transactions"),
        "ratings": me.get(f"/api/v1/players/{player.pk}/ratings"),
        "players": boss.get("/api/v1/players"),
        "buy-in": cage.post("/api/v1/cage/buy-ins", {"player": player.pk, "amount": 5_000}, format="json"),
        "cash-out": cage.post(
            "/api/v1/cage/cash-outs", {"player": player.pk, "amount": 1_000}, format="json"
        ),
        "trial balance": audit.get("/api/v1/ledger/trial-balance"),
        "report": audit.get(f"/api/v1/gaming-days/{day}/report"),
        "report csv": audit.get(f"/api/v1/gaming-days/{day}/report", {"format": "csv"}),
    }
    for name, response in answers.items():
        assert response.status_code in {200, 201}, (name, response.content[:200])
        _no_store(response)


def test_refusals_are_not_stored_either(login: Any, player: Player, other_player: Player) -> None:
    response = login(other_player.user).get(f"/api/v1/players/{player.pk}/balance")
    assert response.status_code == 404
    _no_store(response)
