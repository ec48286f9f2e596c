"""The ratings sweep: settled rounds with no stats are rated, in bounded batches, once.

A round's own task is sent after commit; when the broker is down that send is given up
(casino.task_sending) and this beat task is what rates the round. The outage itself, with a
real Redis stopped and a real worker, is tests/deploy/test_broker_outage.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tables.ratings.models import RoundStat
from tables.ratings.services import rate_unrated_rounds
from tests.factories import ApiFloor

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("system_accounts")]

NOW = timedelta(0)


def settled_rounds(floor: ApiFloor, count: int) -> list[int]:
    """Card-room rounds settled by one result each (in a test transaction: no task is sent)."""
    table = floor.open_table(
        game="stakes", min_bet=100, max_bet=1_000, ante=300, rules={"variant": "old_maid"}, inventory=0
    )
    players = [floor.new_player(buy_in=50_000) for _ in range(3)]
    for seat, player in enumerate(players, start=1):
        floor.seat(table["id"], player, seat)
    rounds = []
    for _ in range(count):
        round_id = int(floor.start_round(table["id"], "manual")["id"])
        assert floor.act(round_id, {"type": "result", "loser": players[0]})["status"] == "settled"
        rounds.append(round_id)
    return rounds


def test_the_sweep_rates_unrated_settled_rounds_in_batches_after_the_grace_and_only_once(
    settings: Any,
) -> None:
    floor = ApiFloor()
    rounds = settled_rounds(floor, 3)
    live = int(floor.start_round(floor.table_ids[0], "manual")["id"])
    assert not RoundStat.objects.exists()

    assert rate_unrated_rounds() == 0, "just settled: left to their own task for the grace period"
    settings.RATINGS_SWEEP_BATCH = 2
    assert rate_unrated_rounds(grace=NOW) == 2, "at most a batch per run, oldest first"
    assert set(RoundStat.objects.values_list("round_id", flat=True)) == set(rounds[:2])
    assert rate_unrated_rounds(grace=NOW) == 1
    assert rate_unrated_rounds(grace=NOW) == 0, "every settled round rated: nothing left"
    assert set(RoundStat.objects.values_list("round_id", flat=True)) == set(rounds)
    assert not RoundStat.objects.filter(round_id=live).exists(), "a live round is never rated"

    RoundStat.objects.filter(round_id=rounds[0]).delete()
    settings.RATINGS_SWEEP_LOOKBACK_HOURS = 0
    assert rate_unrated_rounds(grace=NOW) == 0, "older than the lookback: rebuild_ratings's job"
