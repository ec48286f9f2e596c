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


def engine_for(game: str) -> Engine:
    module_path = ENGINE_MODULES.get(game)
    if module_path is None:
        raise IllegalAction("unknown_game", f"'{game}' is not a game (one of {', '.join(ENGINE_MODULES)}).")
    engine: Engine = importlib.import_module(module_path).ENGINE
    return engine


def validate_rules(game: str, rules: Any) -> dict[str, Any]:
    """The table's rules with the game's defaults filled in; unknown or bad keys are refused."""
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise IllegalAction("bad_rules", "rules must be an object.")
    return engine_for(game).validate_rules(rules)
