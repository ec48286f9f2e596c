"""``manage.py rebuild_ratings`` gives the numbers the incremental task gave, to the cent.

A simulated night (``tables.simulation.night``: every game, players coming and going, dealers
rotating, fills) runs with a real worker rating each round as it settles. Then every
``RoundStat`` / ``RoundPlayerStat`` row and the three endpoints' JSON for every player, table
and dealer are snapshotted, everything is rebuilt from the ledger's settlements and the
rounds' actions, and the snapshot is taken again: they must be equal. The players' results
are also checked against the ledger itself (their wallets' entries at the tables).
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone
from rest_framework.test import APIClient

from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_for
from ledger.models import Entry
from tables.models import DealerShift, Round, RoundStatus, Table
from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.simulation.night import NightConfig, simulate_night
from tests.factories import staff, token_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_commits", "system_accounts"),
]


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def every_page(client: APIClient, path: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    url: str | None = path
    while url:
        response = client.get(url, {"limit": 7} if url == path else None)
        assert response.status_code == 200, response.content
        body = response.json()
        rows += body["results"]
        url = body["next"]
    return rows


def snapshot(client: APIClient) -> dict[str, Any]:
    day = gaming_day_for().isoformat()
    stats = [dict(row) for row in RoundStat.objects.order_by("round_id").values()]
    players = [
        {k: v for k, v in row.items() if k != "id"}
        for row in RoundPlayerStat.objects.order_by("round_id", "player_id").values()
    ]
    ratings = {
        player: every_page(client, f"/api/v1/players/{player}/ratings")
        for player in Player.objects.order_by("pk").values_list("pk", flat=True)
    }
    hourly = {
        table: client.get(f"/api/v1/tables/{table}/hourly", {"date": day}).json()
        for table in Table.objects.order_by("pk").values_list("pk", flat=True)
    }
    dealers = {
        dealer: client.get(f"/api/v1/dealers/{dealer}/performance", {"date": day}).json()
        for dealer in User.objects.filter(role=Role.DEALER).order_by("pk").values_list("pk", flat=True)
    }
    return {"stats": stats, "players": players, "ratings": ratings, "hourly": hourly, "dealers": dealers}


def test_rebuild_gives_the_incremental_numbers_for_a_simulated_night(
    ratings_worker: Any, wait_until: Callable[..., None]
) -> None:
    summary = simulate_night(NightConfig(tables=10, players=30, rounds=2, seed=3))
    settled = Round.objects.filter(status=RoundStatus.SETTLED)
    assert summary.rounds == settled.count() > 0
    games = set(settled.values_list("game", flat=True))
    assert {"faro", "farmer", "fan_tan"} <= games, games
    wait_until(
        lambda: RoundStat.objects.count() == settled.count(),
        timeout=300,
        what="the worker to rate every round",
    )
    # Dealers' shifts still open would make "minutes" grow between the two snapshots.
    DealerShift.objects.filter(ended_at__isnull=True).update(ended_at=timezone.now())
    boss = client_for(staff(Role.PIT_BOSS))

    incremental = snapshot(boss)
    assert RoundPlayerStat.objects.exists()
    assert not RoundPlayerStat.objects.filter(seat__isnull=True).exists()
    assert any(rows for rows in incremental["ratings"].values())
    assert any(h["handle"] for hours in incremental["hourly"].values() for h in hours["hours"])
    assert any(d["decisions"] for d in incremental["dealers"].values())

    out = StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert f"Rebuilt ratings for {settled.count()} settled rounds." in out.getvalue()
    assert snapshot(boss) == incremental

    # Every player's rated result is their wallet's net over the rounds' transfers, from the
    # ledger's entries. (An unwon pot split at closing is not a round's: the ratings leave it out.)
    for player in Player.objects.select_related("wallet"):
        ledger = (
            Entry.objects.filter(account=player.wallet, transfer__meta__has_key="round")
            .exclude(transfer__kind="pot_split")
            .aggregate(s=Sum("amount"))["s"]
        )
        rated = RoundPlayerStat.objects.filter(player=player).aggregate(s=Sum("result"))["s"]
        assert (rated or 0) == (ledger or 0), player.pk
        by_sitting = sum(row["result"] for row in incremental["ratings"][player.pk])
        assert by_sitting == (ledger or 0)
    # The tables' win: the trays' play plus the rake, round by round.
    assert sum(s["win"] for s in incremental["stats"]) == sum(
        h["win"] for hours in incremental["hourly"].values() for h in hours["hours"]
    )
