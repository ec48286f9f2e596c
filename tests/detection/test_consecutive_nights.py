"""A second simulated night on the first night's floor (``bench/run-detection --days N``).

Each night is dealt in a past gaming day of its own (``simulate_night(day=...)``); the second
finds the first's tables, dealers and players, opens the closed tables again, and its injector
picks the same cheaters (``Injector(cast_seed=...)``) while the cards come from its own seed, and counts its
exact shares (every other deal stacked) on from the first night.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from bench.cheats.inject import Injector
from casino.models import Player, User
from ledger.gaming_day import gaming_day_for
from tables.models import Round, Seat, Table, TableStatus
from tables.simulation.night import NightConfig, NightSummary, simulate_night

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("system_accounts")]  # a flush takes the cage

CAST_SEED = 41
INJECT = {"split_stacker": 0.5, "fill_abuser": 1.0, "structurer": 1.0}


def night(seed: int, day: dt.date) -> tuple[NightSummary, dict[str, Any]]:
    """The cast's night of ``seed`` dealt in ``day``, and its ground truth."""
    injector = Injector(INJECT, cast_seed=CAST_SEED)
    config = NightConfig(tables=2, players=8, rounds=1, seed=seed, games=("faro",))
    summary = simulate_night(config, day=day, hooks=injector)
    return summary, injector.truth()


def cast() -> dict[str, list[int]]:
    return {
        "tables": sorted(Table.objects.values_list("pk", flat=True)),
        "staff": sorted(User.objects.exclude(role="player").values_list("pk", flat=True)),
        "players": sorted(Player.objects.values_list("pk", flat=True)),
    }


def days_dealt(rounds: list[Round]) -> set[dt.date]:
    return {gaming_day_for(r.ended_at) for r in rounds if r.ended_at is not None}


def test_the_second_night_plays_the_same_cast_and_cheaters_in_the_next_gaming_day() -> None:
    # The premise: the second night's seed alone would draw other cheaters than the cast seed.
    pools = []
    for seed in (CAST_SEED, 42):
        pool = list(range(8))
        random.Random(f"inject:{seed}").shuffle(pool)
        pools.append(pool)
    assert pools[0] != pools[1]

    yesterday = gaming_day_for() - dt.timedelta(days=1)
    first_day, second_day = yesterday - dt.timedelta(days=1), yesterday
    first, first_truth = night(CAST_SEED, first_day)
    after_first = cast()
    first_rounds = list(Round.objects.all())
    second, second_truth = night(42, second_day)

    assert cast() == after_first  # nobody and no table new
    assert second.table_ids == first.table_ids
    assert [s["subjects"] for s in second_truth["scenarios"]] == [
        s["subjects"] for s in first_truth["scenarios"]
    ]
    assert (first_truth["gaming_day"], second_truth["gaming_day"]) == (
        first_day.isoformat(),
        second_day.isoformat(),
    )
    second_rounds = list(Round.objects.exclude(pk__in=[r.pk for r in first_rounds]))
    assert first_rounds
    assert second_rounds
    assert days_dealt(first_rounds) == {first_day}
    assert days_dealt(second_rounds) == {second_day}
    assert not {r.seed for r in first_rounds} & {r.seed for r in second_rounds}  # other cards
    # Every other deal stacked over the nights: the stacker's one deal a night, the second stacked.
    stacker = [
        next(item["stats"] for item in truth["scenarios"] if item["scenario"] == "split_stacker")
        for truth in (first_truth, second_truth)
    ]
    assert [stats.get("stacked", 0) for stats in stacker] == [0, 1]
    # Closed again at the end of the night, nobody seated: the next night opens them afresh.
    assert set(Table.objects.values_list("status", flat=True)) == {TableStatus.CLOSED}
    assert not Seat.objects.filter(left_at__isnull=True).exists()
