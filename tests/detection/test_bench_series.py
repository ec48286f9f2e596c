"""Scoring a series of consecutive nights (``bench/run-detection --days N``): pure, no database.

A finding is a distinct (kind, subject) of a series, so a subject alerted night after night
counts once for precision; a spec's nights to detect is the first night it matched; clean
false findings are per table-night.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.detection_bench import checkpoints, merge_nights, merge_truths, score, table_rows


def alert(kind: str, **subject: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "detector": "",
        "table": subject.get("table"),
        "dealer": subject.get("dealer"),
        "player": subject.get("player"),
        "pair": None,
        "summary": f"{kind} {subject}",
    }


def truth(fills: int) -> dict[str, Any]:
    """A stacker (dealer 7) and a fill abuser (dealer 8) whose fill pair is expected from 3 fills."""
    fill_pair = {"kind": "fill_pair", "dealer": 8}
    return {
        "gaming_day": f"2026-11-0{fills}",
        "scenarios": [
            {
                "scenario": "split_stacker",
                "rate": 0.25,
                "subjects": {"dealer": 7, "table": 1},
                "expected": [{"kind": "faro_split_rate", "dealer": 7}],
                "tolerated": [{"kind": "hold_anomaly", "dealer": 7}],
                "stats": {"stacked": 1},
            },
            {
                "scenario": "fill_abuser",
                "rate": 0.5,
                "subjects": {"dealer": 8, "table": 2},
                "expected": [{"kind": "fill_unexplained", "dealer": 8}] + ([fill_pair] if fills >= 3 else []),
                "tolerated": [] if fills >= 3 else [fill_pair],
                "stats": {"fills": fills},
            },
        ],
    }


def night(injected: bool, tables: int, alerts: list[dict[str, Any]], fills: int = 0) -> dict[str, Any]:
    return {
        "seed": 1,
        "injected": injected,
        "tables": tables,
        "alerts": alerts,
        "truth": truth(fills) if injected else None,
    }


@pytest.fixture
def scored() -> dict[str, Any]:
    stacker = alert("faro_split_rate", dealer=7)
    injected = merge_nights(
        [
            night(True, 6, [], fills=2),
            night(
                True,
                6,
                [stacker, alert("hold_anomaly", table=3), alert("fill_unexplained", dealer=8)],
                fills=3,
            ),
            night(
                True,
                6,
                [
                    stacker,
                    alert("hold_anomaly", table=3),
                    alert("hold_anomaly", dealer=7),
                    alert("fill_pair", dealer=8),
                ],
                fills=1,
            ),
        ]
    )
    clean = merge_nights(
        [
            night(False, 4, [alert("hold_anomaly", table=5)]),
            night(False, 4, [alert("hold_anomaly", table=5), alert("faro_split_rate", dealer=2)]),
        ]
    )
    return score([clean, injected])


def test_a_subject_alerted_on_several_nights_is_one_finding(scored: dict[str, Any]) -> None:
    faro, hold = scored["by_detector"]["faro"], scored["by_detector"]["hold"]
    assert (faro["alerts"], faro["true"], faro["findings"], faro["true_findings"]) == (3, 2, 2, 1)
    # the false table-3 hold on two nights and the clean table-5 hold on two: one finding each
    assert (hold["alerts"], hold["true"], hold["findings"], hold["true_findings"]) == (5, 1, 3, 1)
    assert (hold["clean_alerts"], hold["clean_findings"]) == (2, 1)


def test_nights_to_detect_is_the_first_night_a_spec_matched(scored: dict[str, Any]) -> None:
    trays = scored["by_detector"]["trays"]
    # fill_pair was tolerated on night 1 (two fills) and expected from night 2 (three): expected
    assert (trays["expected"], trays["found"], trays["days_to_detect"]) == (2, 2, [2, 3])
    assert scored["by_kind"]["faro_split_rate"]["days_to_detect"] == [2]
    assert sorted(scored["total"]["days_to_detect"]) == [2, 2, 3]
    assert scored["misses"] == []


def test_clean_false_findings_are_counted_per_table_night(scored: dict[str, Any]) -> None:
    assert scored["clean_tables"] == 8  # 4 tables on 2 nights
    assert (scored["clean_findings"], scored["clean_alerts"]) == (2, 3)
    assert scored["false_findings_per_50"] == pytest.approx(12.5)
    assert scored["false_per_50"] == pytest.approx(18.75)
    nights_of = {
        (f["kind"], f["table"], f["dealer"], f["injected"]): f["nights"] for f in scored["false_findings"]
    }
    assert nights_of == {
        ("hold_anomaly", 3, None, True): [2, 3],
        ("hold_anomaly", 5, None, False): [1, 2],
        ("faro_split_rate", None, 2, False): [2],
    }


def test_the_series_table_prints_findings_and_nights_to_detect(scored: dict[str, Any]) -> None:
    rows = table_rows({"trays": scored["by_detector"]["trays"]}, days=3)
    assert "found by night 1 / 3" in rows[0]
    assert rows[2].startswith(
        "| trays | 2 | 2 | 2 | 1.00 [0.34, 1.00] | 2 | 2 | 1.00 [0.34, 1.00] | 2.5, 3 | 0 / 2 |"
    )
    assert checkpoints(7) == [1, 3, 7]
    assert checkpoints(5) == [1, 3, 5]


def test_a_series_whose_cheaters_change_is_refused() -> None:
    first, second = truth(1), truth(1)
    second["scenarios"][0]["subjects"] = {"dealer": 9, "table": 1}
    with pytest.raises(ValueError, match="split_stacker: the cheaters changed"):
        merge_truths([first, second])
