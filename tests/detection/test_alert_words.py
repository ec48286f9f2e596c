"""Issue 44 item 16: alerts say what happened in words.

The pit's glance at an alert's evidence read "requested by 3", "ratio 0.5", "table 4",
"session 16 · transfer 1601": ids and fractions. The summaries said "6 fill(s)", "over 1 gaming
day(s)", "p = 3.2e-05", "0 min before" and, for a chip flow, "7 paid 12" with no word a name
could go in. The glance is now picked per kind (``tables.detection.words``) and writes people and
tables as the references the summaries use, which the screen names; fractions are percentages.
"""

from __future__ import annotations

import re

import pytest

from tables.detection.base import counted, minutes_words, one_in
from tables.detection.data import RoundResults
from tables.detection.detectors import collusion
from tables.detection.kinds import ALERT_KINDS
from tables.detection.words import GLANCE, evidence_brief
from tests.detection.conftest import DetectedNight
from tests.detection.test_chip_flow import A, B, C, D, shuffled, table_of_four

SCIENTIFIC = re.compile(r"\d(?:\.\d+)?e[-+]?\d")
# an id with no word before it: "requested by 3 ·"; "at 3 tables" is a count (its noun follows) and
# "from 90%" a share
BARE_ID = re.compile(r"\b(?:by|at|from|to) \d+(?![\d,.]*\d|%| [a-z])")


def test_a_chance_reads_as_one_in_so_many() -> None:
    assert one_in(0.00032) == "1 in 3,100"
    assert one_in(0.5) == "1 in 2"
    assert one_in(4.5e-7) == "1 in 2.2 million"
    assert one_in(2e-10) == "1 in 5 billion"
    assert one_in(1e-13) == one_in(0.0) == "less than 1 in a trillion"
    assert one_in(1.0) == "certain"


def test_counts_and_minutes_read_in_words() -> None:
    assert [counted(1, "fill"), counted(6, "fill"), counted(1, "gaming day")] == [
        "1 fill",
        "6 fills",
        "1 gaming day",
    ]
    assert [minutes_words(1), minutes_words(75), minutes_words(600)] == [
        "under a minute",
        "1 minute",
        "10 minutes",
    ]


def test_every_kind_the_floor_raises_has_a_glance() -> None:
    assert set(GLANCE) == set(ALERT_KINDS)


@pytest.mark.parametrize(
    ("kind", "evidence", "glance"),
    [
        (
            "fill_unexplained",
            {"ratio": 0.5, "total": 3_000_000, "requested_by": 54, "fills": [{"fill": 1}]},
            "filled $30,000.00 · requested by staff 54 · tray at 50% of its opening or more",
        ),
        (
            "fill_pair",
            {"days": 7, "fills": 6, "share": 1.0, "total": 3_000_000, "approved_by": 50, "requested_by": 54},
            "requested by staff 54 · approved by staff 50 · 6 fills · 100% of the requester's · "
            "total $30,000.00",
        ),
        (
            "credit_before_close",
            {"amount": 500_000, "credit": 8, "session": 16, "transfer": 1601, "approved_by": 50,
             "requested_by": 54, "seconds_before_close": 1, "closing_variance": -12_500},
            "credit $5,000.00 · requested by staff 54 · approved by staff 50 · under a minute before the "
            "count · closing variance −$125.00",
        ),
        (
            "faro_split_deal",
            {"round": 57, "table": 4, "shoe": "electronic", "splits": 7, "expected": 1.471,
             "p_value": 0.00054},
            "7 splits · a fair deck averages 1.471 · chance 1 in 1,900",
        ),
        (
            "minimal_play_cash_out",
            {"ratio": 0.0066, "handle": 33_000, "result": -15_000, "cash_in": 4_984_200,
             "cash_out": 4_969_200, "threshold_ratio": 0.1},
            "cashed out $49,692.00 · bought in $49,842.00 · handle $330.00 · handle 0.66% of the "
            "cash-out · alert under 10%",
        ),
        ("chip_flow", {"from_player": 7, "to_player": 12, "net_a_to_b": 2_400, "shared_rounds": 48},
         "from player 7 · to player 12 · net $24.00 · 48 shared rounds"),
        ("short_count", {"session": 1, "variance": -20_000, "threshold": 2_500, "fills": [1, 2]},
         "variance −$200.00 · threshold $25.00"),
    ],
)  # fmt: skip
def test_the_glance_writes_money_people_and_fractions_in_words(
    kind: str, evidence: dict[str, object], glance: str
) -> None:
    assert evidence_brief(kind, evidence) == glance


def test_a_chip_flow_summary_gives_both_players_as_players() -> None:
    """ "7 paid 12" had no "player" before the ids, so no name could be put in their place."""
    rounds: list[RoundResults] = table_of_four(shuffled({A: 16, B: 47, C: 31, D: 32}, seed=1), seed=1)
    findings = [c.finding for c in collusion.chip_flows(rounds) if c.finding is not None]
    summary = next(f.summary for f in findings if f.evidence["pair"] == [A, B])
    assert summary.startswith(f"Player {A} paid player {B} in 47 of ")
    assert f"; player {B} paid player {A} in 16 (" in summary


@pytest.mark.django_db  # the night is built in the test database
def test_every_alert_of_a_night_with_cheats_reads_in_words(injected: DetectedNight) -> None:
    kinds = set()
    for alert in injected.alerts:
        summary, glance = alert["summary"], evidence_brief(alert["kind"], alert["evidence"])
        kinds.add(alert["kind"])
        for text in (summary, glance):
            assert "(s)" not in text, text
            assert not SCIENTIFIC.search(text), text
            assert not BARE_ID.search(text), text  # "requested by 3", "at 4": an id with no word
            assert " 0 min " not in text, text
            assert not re.search(r"\b(?:ratio|share) 0\.\d", text), text
        assert "_" not in glance, glance  # no evidence key as a word
        if GLANCE[alert["kind"]]:
            assert glance, alert
        if alert["kind"] in ("faro_split_deal", "faro_impossible_state"):
            assert f" at table {alert['table']}" in summary, summary  # the screen names it
    assert {"fill_unexplained", "credit_before_close", "faro_split_deal", "chip_flow"} <= kinds
