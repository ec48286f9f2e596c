"""The ``chip_flow`` rule on rounds built by hand: a week of a card-room table at half rates.

The rule reads only settled rounds' results (``RoundResults``), so these tests build them directly
(no database): 7 nights of 18 rounds, the bench's half-rate week. "Flagged" means what
``collusion.detect`` raises: the pair's finding, picked by Benjamini–Hochberg at ``FDR`` over every
pair the rule tested.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

import pytest

from tables.detection.data import RoundResults
from tables.detection.detectors import collusion
from tables.detection.stats import benjamini_hochberg

A, B, C, D, E, F = 1, 2, 3, 4, 5, 6
WEEK = 7 * 18
DAY = dt.date(2026, 11, 20)


def first_out(round_id: int, players: list[int], winner: int, rng: random.Random) -> RoundResults:
    """A first-out round (Page One): each loser pays the winner 1-5 cards of $1."""
    results = {p: -100 * rng.randint(1, 5) for p in players if p != winner}
    results[winner] = -sum(results.values())
    return stakes_round(round_id, 1, results)


def points(round_id: int, scores: dict[int, int]) -> RoundResults:
    """A points round (Piquet, 10 cents a point): each player pays the top scorer (top - own) points."""
    top = max(scores.values())
    tops = [p for p, s in scores.items() if s == top]
    results = {p: -10 * (top - s) for p, s in scores.items() if s != top}
    for p in tops:
        results[p] = -sum(results.values()) // len(tops)
    return stakes_round(round_id, 2, results)


def stakes_round(round_id: int, table_id: int, results: dict[int, int]) -> RoundResults:
    """A settled stakes round of the week (18 a day) with these net results."""
    return RoundResults(
        round_id=round_id,
        table_id=table_id,
        game="stakes",
        dealer_id=1,
        number=round_id,
        day=DAY + dt.timedelta(days=round_id // 18),
        results=results,
    )


def table_of_four(winners: list[int], seed: int) -> list[RoundResults]:
    """A, B, C and D play ``len(winners)`` first-out rounds, won in that order."""
    rng = random.Random(seed)
    return [first_out(i, [A, B, C, D], w, rng) for i, w in enumerate(winners)]


def shuffled(counts: dict[int, int], seed: int) -> list[int]:
    winners = [p for p, n in counts.items() for _ in range(n)]
    random.Random(seed).shuffle(winners)
    return winners


def flagged(rounds: list[RoundResults]) -> dict[tuple[int, int], dict[str, Any]]:
    """The pairs ``detect`` would alert on (finding and BH) -> their evidence."""
    candidates = collusion.chip_flows(rounds)
    hits = benjamini_hochberg([c.p_value for c in candidates], 0.01)
    return {
        tuple(c.finding.evidence["pair"]): c.finding.evidence
        for c, hit in zip(candidates, hits, strict=True)
        if hit and c.finding is not None
    }


@pytest.fixture(autouse=True)
def detection_defaults(settings: Any) -> None:
    settings.DETECTION = {
        **settings.DETECTION,
        "FDR": 0.01,
        "FLOW_MIN_SHARED": 36,
        "FLOW_P": 0.003,
        "FLOW_LUCK_P": 0.2,
        "FLOW_TOP_P": 0.001,
        "FLOW_TOP_ELSEWHERE_P": 0.05,
        "FLOW_MIN_AMOUNT": 1_000,
    }


def test_soft_play_half_the_time_for_a_week_is_flagged() -> None:
    # 126 rounds, each player's fair share 31.5 wins; A hands half of its wins (16 of 32) to B.
    rounds = table_of_four(shuffled({A: 16, B: 47, C: 31, D: 32}, seed=1), seed=1)
    hits = flagged(rounds)
    assert list(hits) == [(A, B)]
    evidence = hits[(A, B)]
    assert evidence["by_wins"] is True
    assert evidence["rounds_a_paid_b"] == 47
    assert evidence["rounds_b_paid_a"] == 16
    assert evidence["direction_p_value"] < 1e-4
    # A's wins in the rounds B did not win are short too: not B's luck
    assert evidence["a_wins_when_b_did_not_win"] == 16
    assert evidence["a_expected_wins_when_b_did_not_win"] == pytest.approx(79 / 3, abs=0.01)
    assert evidence["luck_p_value"] <= 0.2


def test_a_soft_player_at_rate_one_raises_one_alert_naming_the_other_payees() -> None:
    # A hands every win to B, so A never wins and pays C and D one way as well (A -> C and A -> D
    # are real departures, with no luck to blame: A is short in every round). One cause, one alert:
    # A -> B, the flow B is paid most often in (B takes A's wins and his own), naming C and D.
    rounds = table_of_four(shuffled({A: 0, B: 63, C: 31, D: 32}, seed=7), seed=7)
    hits = flagged(rounds)
    assert list(hits) == [(A, B)]
    assert hits[(A, B)]["by_wins"] is True
    assert sorted(hits[(A, B)]["also_paid_one_way"]) == [C, D]
    # A -> C and A -> D stay in Benjamini-Hochberg's family, each a departure on its own
    tested = collusion.chip_flows(rounds)
    assert sum(1 for c in tested if c.p_value < 1e-6) == 3


def test_soft_play_is_not_flagged_in_a_day() -> None:
    rounds = table_of_four(shuffled({A: 2, B: 7, C: 5, D: 4}, seed=2), seed=2)
    assert len(rounds) == 18 < 36  # fewer shared rounds than FLOW_MIN_SHARED: not tested
    assert collusion.chip_flows(rounds) == []


def dumping_week(*, seed: int, dumps: Callable[[int, dict[int, int]], bool]) -> list[RoundResults]:
    """A week of points rounds at a table of four where A dumps to B whenever ``dumps(i, scores)``:
    A scores 0 and B tops by 100-200 points; every other round is honest, scores drawn alike."""
    rng = random.Random(seed)
    rounds = []
    for i in range(WEEK):
        scores = {p: rng.randint(0, 200) for p in (A, B, C, D)}
        if dumps(i, scores):
            scores[A], scores[B] = 0, max(scores.values()) + rng.randint(100, 200)
        rounds.append(points(i, scores))
    return rounds


def test_a_dumper_sending_a_quarter_of_the_rounds_back_is_flagged() -> None:
    # X dumps to Y in 36 of the week's rounds (X scores 0 and Y tops); the other 90 are honest,
    # every score drawn alike and the top scorer paid by the rest, so X tops about a quarter of
    # them: about a third of the rounds either paid the other go back, over the old 20 % cut.
    x, y = A, B
    hits = flagged(dumping_week(seed=3, dumps=lambda i, scores: i % 7 < 2))
    assert list(hits) == [(x, y)]
    evidence = hits[(x, y)]
    assert evidence["by_amounts"] is True
    back = evidence["rounds_b_paid_a"] / (evidence["rounds_a_paid_b"] + evidence["rounds_b_paid_a"])
    assert back >= 0.25
    assert evidence["top_payer_p_value"] <= 0.001
    assert evidence["top_payer_p_value_to_others"] > 0.05
    assert evidence["net_a_to_b"] == evidence["amount_a_to_b"] - evidence["amount_b_to_a"] > 0


def test_a_dumpers_one_way_flows_to_his_table_mates_are_the_dumping_not_pairs() -> None:
    # At rate 1 X scores 0 whenever X or Y would top, so X hardly ever wins and pays C and D one
    # way as well; only the pair X -> Y is alerted, and its finding names the others.
    x, y = A, B
    hits = flagged(
        dumping_week(seed=6, dumps=lambda i, scores: max(scores[x], scores[y]) == max(scores.values()))
    )
    assert list(hits) == [(x, y)]
    assert hits[(x, y)]["by_amounts"] is True
    assert sorted(hits[(x, y)]["also_paid_one_way"]) == [C, D]


def test_a_lucky_players_table_mates_are_not_flagged(settings: Any) -> None:
    # B wins twice the fair share, from A, C and D alike (each 22 of 126).
    rounds = table_of_four(shuffled({A: 22, B: 60, C: 22, D: 22}, seed=4), seed=4)
    assert flagged(rounds) == {}
    # without the luck test the direction alone (60 to 22) would flag every table-mate of B
    settings.DETECTION = {**settings.DETECTION, "FLOW_LUCK_P": 1.0}
    assert set(flagged(rounds)) == {(A, B), (C, B), (D, B)}


def test_a_clean_table_raises_nothing() -> None:
    # Six players, four a round, a fair winner each round, two weeks of rounds.
    rng = random.Random(5)
    rounds = []
    for i in range(2 * WEEK):
        players = rng.sample([A, B, C, D, E, F], 4)
        rounds.append(first_out(i, players, rng.choice(players), rng))
    candidates = collusion.chip_flows(rounds)
    assert len(candidates) == 30  # every ordered pair shared enough rounds to be tested
    assert flagged(rounds) == {}
