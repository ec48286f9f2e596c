"""Evidence across days: the statistical rules read a rolling window of gaming days
(``DETECTION["WINDOW_DAYS"]``), so a cheat too thin to show in one day shows within the week,
and the alert cites the window and its rounds.

Deals are dealt through the real services (a stacked electronic deck, the injector's way:
a seed whose deck splits often) and then moved back to earlier gaming days by their end time,
which is all the window reads.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

import pytest
from django.utils import timezone

from ledger.gaming_day import gaming_day_for
from tables.detection.base import Window
from tables.detection.detectors import faro
from tables.games.cards import FULL_DECK, rank_of
from tables.games.shoe import shuffle
from tables.models import Round
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.console.conftest import Floor, build_floor

pytestmark = pytest.mark.django_db


def stacked_seed(index: int, min_splits: int = 5) -> str:
    """The first seed after ``index`` whose deck has ``min_splits`` splits (a fair deck: 1.47)."""
    for i in range(index * 10_000, index * 10_000 + 10_000):
        seed = hashlib.sha256(f"window:{i}".encode()).hexdigest()
        deck = shuffle(FULL_DECK, seed)
        if sum(rank_of(deck[1 + 2 * k]) == rank_of(deck[2 + 2 * k]) for k in range(25)) >= min_splits:
            return seed
    raise AssertionError("no stacked seed found")


def deal_out(floor: Floor, seed: str) -> Round:
    round_ = start_round(actor=floor.dealer, table_id=floor.faro.pk, shoe="electronic", seed=seed)
    for _ in range(25):
        round_ = apply_round_action(
            actor=floor.dealer, round_id=round_.pk, action={"type": round_.state["next_action"]}
        )
    assert round_.status == "settled"
    return round_


@pytest.fixture
def stacked_week() -> tuple[Floor, dict[int, int]]:
    """One stacked deal on each of the last six gaming days and one nine days back: round -> days ago."""
    floor = build_floor("w")
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk)
    ago = {}
    for index, days_back in enumerate((9, 5, 4, 3, 2, 1, 0)):
        round_ = deal_out(floor, stacked_seed(index))
        Round.objects.filter(pk=round_.pk).update(ended_at=timezone.now() - dt.timedelta(days=days_back))
        ago[round_.pk] = days_back
    return floor, ago


def split_rate_alerts(settings: Any, days: int) -> list[faro.Finding]:
    settings.DETECTION = {**settings.DETECTION, "WINDOW_DAYS": days}
    findings = faro.detect(Window.for_day(gaming_day_for()))
    return [f for f in findings if f.kind == "faro_split_rate"]


def test_one_day_is_too_thin_but_the_week_shows_the_stacker(
    stacked_week: tuple[Floor, dict[int, int]], settings: Any
) -> None:
    floor, ago = stacked_week
    assert split_rate_alerts(settings, 1) == []  # one deal today: fewer than SPLIT_MIN_DEALS

    [alert] = split_rate_alerts(settings, 7)
    today = gaming_day_for()
    evidence = alert.evidence
    in_window = sorted(pk for pk, back in ago.items() if back < 7)
    assert alert.dealer_id == floor.dealer.pk
    assert evidence["deals"] == 6  # the deal nine days back is outside the window
    assert evidence["rounds"] == in_window
    assert evidence["round_links"] == [f"/api/v1/rounds/{pk}" for pk in in_window]
    assert evidence["window"] == {
        "first_day": (today - dt.timedelta(days=6)).isoformat(),
        "last_day": today.isoformat(),
        "days": 7,
        "first_day_with_rounds": (today - dt.timedelta(days=5)).isoformat(),
        "last_day_with_rounds": today.isoformat(),
    }
    assert evidence["p_value"] < 1e-6
    assert evidence["fdr"] == settings.DETECTION["FDR"]
    assert evidence["p_value"] <= evidence["q_value"] <= evidence["fdr"]
    assert "over 7 days" in alert.summary


def test_a_window_reaching_back_further_counts_the_older_deal(
    stacked_week: tuple[Floor, dict[int, int]], settings: Any
) -> None:
    [alert] = split_rate_alerts(settings, 10)
    assert alert.evidence["deals"] == 7
    assert (
        alert.evidence["window"]["first_day_with_rounds"]
        == (gaming_day_for() - dt.timedelta(days=9)).isoformat()
    )


def test_stacked_deals_hiding_in_a_low_total_stand_out_by_their_count() -> None:
    # Test seed 116's stacker at half rate over a week: 5 stacked deals of 6 splits among 21, his
    # fair deals running low (14 splits in 16 against 23.5 expected), so the total, 44 against
    # 30.9, is only at p 0.013; five deals with 5 or more splits (a fair deck: P = 0.015 each) are
    # not luck.
    week = [1, 0, 0, 6, 2, 2, 0, 6, 2, 1, 2, 6, 0, 0, 1, 6, 1, 2, 0, 6, 0]
    tested = faro._rate_tests([{"splits": splits} for splits in week])
    total, extreme = tested.p_total, tested.p_extreme
    assert 0.01 < total < 0.02
    assert extreme < 1e-4
    # one deal of 5 among 21 fair-looking ones is nothing
    tested = faro._rate_tests([{"splits": splits} for splits in [5] + [1] * 20])
    total, extreme = tested.p_total, tested.p_extreme
    assert min(total, extreme) > 0.2
