"""The ratings task on a real Celery worker (Redis broker and result backend, not eager mode).

Settling a round commits, and only then (``transaction.on_commit`` in ``tables.rounds.finish_round``)
sends ``rate_round_task``; the worker thread rates the round in its own database connection.
Sending the task again, or twice at once, rewrites the same rows (the task is idempotent,
which ``acks_late`` redelivery needs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.tasks import rate_round_task
from tests.factories import ApiFloor

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

BUY_IN = 50_000


def snapshot(round_id: int) -> tuple[Any, ...]:
    stat = RoundStat.objects.filter(round_id=round_id).values().first()
    players = [
        {k: v for k, v in row.items() if k != "id"}
        for row in RoundPlayerStat.objects.filter(round_id=round_id).order_by("player_id").values()
    ]
    return stat, players


def test_a_settled_round_is_rated_by_the_worker_and_the_task_is_idempotent(
    ratings_worker: Any, wait_until: Callable[..., None]
) -> None:
    floor = ApiFloor()
    # A card-room round settles as soon as its result is keyed.
    table = floor.open_table(
        game="stakes", min_bet=100, max_bet=1_000, ante=300, rules={"variant": "old_maid"}, inventory=0
    )
    players = [floor.new_player(buy_in=BUY_IN) for _ in range(3)]
    for seat, player in enumerate(players, start=1):
        floor.seat(table["id"], player, seat)
    round_ = floor.start_round(table["id"], "manual")
    rid = int(round_["id"])
    assert not RoundStat.objects.filter(round_id=rid).exists()
    settled = floor.act(rid, {"type": "result", "loser": players[0]})
    assert settled["status"] == "settled"
    wait_until(lambda: RoundStat.objects.filter(round_id=rid).exists(), what=f"round {rid}'s stat")
    first = snapshot(rid)
    stat, rows = first
    assert (stat["handle"], stat["win"], stat["decisions"]) == (600, 0, 1)  # the loser pays 300 twice
    assert [(r["player_id"], r["handle"], r["result"]) for r in rows] == [
        (players[0], 600, -600),
        (players[1], 0, 300),
        (players[2], 0, 300),
    ]
    assert all(r["seat_id"] is not None for r in rows)

    # Delivered again (a redelivery after a crash, a second send): the same rows.
    assert rate_round_task.delay(rid).get(timeout=60) is True
    assert snapshot(rid) == first
    results = [rate_round_task.delay(rid) for _ in range(3)]
    assert [r.get(timeout=60) for r in results] == [True, True, True]
    assert snapshot(rid) == first
    assert RoundStat.objects.filter(round_id=rid).count() == 1

    # A round that is still live is not rated; one that does not exist is a no-op.
    live = floor.start_round(table["id"], "manual")
    assert rate_round_task.delay(int(live["id"])).get(timeout=60) is False
    assert not RoundStat.objects.filter(round_id=live["id"]).exists()
    assert rate_round_task.delay(10**9).get(timeout=60) is False


def test_a_faro_deal_is_rated_by_the_worker_when_its_last_turn_commits(
    ratings_worker: Any, wait_until: Callable[..., None]
) -> None:
    floor = ApiFloor()
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=500_000)
    punter = floor.new_player(buy_in=BUY_IN)
    floor.seat(table["id"], punter, 1)
    round_ = floor.start_round(table["id"], "electronic")
    rid = int(round_["id"])
    floor.act(rid, {"type": "bet", "player": punter, "ranks": ["5"], "amount": 1_000})
    while round_["state"]["next_action"] == "turn":
        round_ = floor.act(rid, {"type": "turn"})
        assert not RoundStat.objects.filter(round_id=rid).exists()  # nothing before the deal ends
    floor.act(rid, {"type": "last_turn"})
    wait_until(lambda: RoundStat.objects.filter(round_id=rid).exists(), what="the deal's stat")
    stat, (row,) = snapshot(rid)
    assert stat["decisions"] == 25
    assert (row["player_id"], row["handle"], row["bets"]) == (punter, 1_000, 1)
    assert row["decisions"] >= 1
    assert row["theo_milli"] > 0
    assert rate_round_task.delay(rid).get(timeout=60) is True
    assert snapshot(rid) == (stat, [row])
