"""A second simulated night on the first night's floor (``bench/run-detection --days N``).

Each night is dealt in a past gaming day of its own (``simulate_night(day=...)``); the second
finds the first's tables, dealers and players, opens the closed tables again, and its injector
picks the same cheaters (``cast_seed``) while the cards come from its own seed, and counts its
exact shares (every other deal stacked) on from the first night.
"""

from __future__ import annotations

import datetime as dt
import random

import pytest

from casino.models import Player, User
from ledger.gaming_day import gaming_day_for
from tables.models import Round, Seat, Table, TableStatus
from tables.simulation.night import NightConfig, simulate_night

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("system_accounts")]  # a flush takes the cage

CAST_SEED = 41
INJECT = {"split_stacker": 0.5, "fill_abuser": 1.0, "structurer": 1.0}


def night(seed: int) -> NightConfig:
    return NightConfig(
        tables=2, players=8, rounds=1, seed=seed, cast_seed=CAST_SEED, games=("faro",), inject=INJECT
    )


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
    first = simulate_night(night(CAST_SEED), day=first_day)
    after_first = cast()
    first_rounds = list(Round.objects.all())
    second = simulate_night(night(42), day=second_day)

    assert cast() == after_first  # nobody and no table new
    assert second.table_ids == first.table_ids
    assert first.truth is not None
    assert second.truth is not None
    assert [s["subjects"] for s in second.truth["scenarios"]] == [
        s["subjects"] for s in first.truth["scenarios"]
    ]
    assert (first.truth["gaming_day"], second.truth["gaming_day"]) == (
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
        for truth in (first.truth, second.truth)
    ]
    assert [stats.get("stacked", 0) for stats in stacker] == [0, 1]
    # Closed again at the end of the night, nobody seated: the next night opens them afresh.
    assert set(Table.objects.values_list("status", flat=True)) == {TableStatus.CLOSED}
    assert not Seat.objects.filter(left_at__isnull=True).exists()
