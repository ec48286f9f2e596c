"""Which engine plays which game. Imported lazily so one game's module loads only when used."""

from __future__ import annotations

import importlib
from typing import Any

from tables.games.base import Engine
from tables.games.errors import IllegalAction

ENGINE_MODULES: dict[str, str] = {
    "faro": "tables.games.faro",
    "farmer": "tables.games.farmer",
    "fan_tan": "tables.games.fan_tan",
    "newmarket": "tables.games.newmarket",
    "tonk": "tables.games.tonk",
    "stakes": "tables.games.stakes",
}

# The house banks these games (GAMES.md): a player's stake is only what lies on the layout, so
# they may come and go between any two actions. Everything else is a pot or stakes game.
HOUSE_BANKED_GAMES = frozenset({"faro"})


def is_house_banked(game: str) -> bool:
    return game in HOUSE_BANKED_GAMES


def engine_for(game: str) -> Engine[Any]:
    module_path = ENGINE_MODULES.get(game)
    if module_path is None:
        raise IllegalAction("unknown_game", f"'{game}' is not a game (one of {', '.join(ENGINE_MODULES)}).")
    engine: Engine[Any] = importlib.import_module(module_path).ENGINE
    return engine


# No house rule needs a number this large (chips, payouts, percents, minutes): a cap here
# keeps absurd values (10**30 to 1) from reaching money arithmetic in any engine.
RULE_NUMBER_MAX = 10**9


def validate_rules(game: str, rules: Any) -> dict[str, Any]:
    """The table's rules with the game's defaults filled in; unknown or bad keys are refused."""
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise IllegalAction("bad_rules", "rules must be an object.")
    _check_numbers(rules, path="rules")
    return engine_for(game).validate_rules(rules)


def _check_numbers(value: Any, *, path: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, path=f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_numbers(item, path=f"{path}[{index}]")
    elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > RULE_NUMBER_MAX:
        raise IllegalAction("bad_rules", f"{path} is out of range (at most {RULE_NUMBER_MAX}).")
