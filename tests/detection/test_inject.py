"""The injection scenarios' parsing and the stacked deck (no database)."""

from __future__ import annotations

import hashlib

import pytest

from tables.simulation.inject import SCENARIOS, STACK_MIN_SPLITS, deal_splits, parse_inject
from tables.simulation.night import Night, NightConfig


def test_scenarios_parse_with_rates() -> None:
    assert parse_inject("split_stacker:0.5, colluders:1,dumper") == {
        "split_stacker": 0.5,
        "colluders": 1.0,
        "dumper": 1.0,
    }
    assert parse_inject("") == {}
    assert set(SCENARIOS) >= {
        "split_stacker",
        "colluders",
        "dumper",
        "structurer",
        "fill_abuser",
        "short_count",
    }


@pytest.mark.parametrize("text", ["tarot:1", "colluders:0", "colluders:1.5", "colluders:x"])
def test_bad_scenarios_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_inject(text)


def test_a_clean_night_has_no_injector() -> None:
    assert Night(NightConfig()).injector is None
    assert Night(NightConfig(inject={"dumper": 1.0})).injector is not None


def test_fair_decks_average_the_textbook_splits_and_stacked_candidates_exist() -> None:
    seeds = [hashlib.sha256(f"fair:{i}".encode()).hexdigest() for i in range(2000)]
    splits = [deal_splits(seed) for seed in seeds]
    assert sum(splits) / len(splits) == pytest.approx(25 / 17, abs=0.08)
    assert any(s >= STACK_MIN_SPLITS for s in splits)  # a stacker finds one among 2000 candidates


@pytest.mark.parametrize(
    ("options", "message"),
    [({"inject": "tarot:1"}, "Unknown scenario"), ({"truth": "truth.json"}, "--truth needs --inject")],
)
def test_simulate_night_refuses_bad_injection_options(options: dict[str, str], message: str) -> None:
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match=message):
        call_command("simulate_night", verbosity=0, **options)
