"""The registry: every game has an engine, and table rules are bounded before any engine sees them."""

from __future__ import annotations

import pytest

from tables.games.errors import IllegalAction
from tables.games.registry import ENGINE_MODULES, RULE_NUMBER_MAX, engine_for, validate_rules


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_every_game_has_an_engine_whose_defaults_validate(game: str) -> None:
    engine = engine_for(game)
    assert engine.validate_rules({}) == validate_rules(game, None)


@pytest.mark.parametrize(
    ("game", "rules"),
    [
        ("faro", {"call_turn_pays": 10**30}),
        ("fan_tan", {"reserve_chips": RULE_NUMBER_MAX + 1}),
        ("newmarket", {"rake": {"kind": "percent", "percent": 5, "cap": 10**12}}),
    ],
)
def test_absurd_rule_numbers_are_refused_before_the_engine(game: str, rules: dict[str, object]) -> None:
    with pytest.raises(IllegalAction) as refused:
        validate_rules(game, rules)
    assert refused.value.code == "bad_rules"


def test_unknown_game_is_refused() -> None:
    with pytest.raises(IllegalAction) as refused:
        engine_for("roulette")
    assert refused.value.code == "unknown_game"
