"""The simulated floor's tables: each game's limits, antes, opening bankroll and seats.

Shared by the night that opens the tables and the injector that adds tables of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    label: str
    min_bet: int
    max_bet: int
    ante: int
    opening: int
    seats: tuple[int, int]
    rules: dict[str, Any] = field(default_factory=dict)


SPECS: dict[str, GameSpec] = {
    "faro": GameSpec("Faro", 500, 50_000, 0, 2_000_000, (3, 7)),
    "farmer": GameSpec(
        "Farmer", 100, 5_000, 500, 0, (3, 6), {"rake": {"kind": "percent", "percent": 5, "cap": 500}}
    ),
    "fan_tan": GameSpec(
        "Fan Tan", 100, 5_000, 100, 0, (3, 6), {"rake": {"kind": "percent", "percent": 5, "cap": 500}}
    ),
    "newmarket": GameSpec("Newmarket", 100, 5_000, 100, 0, (3, 6)),
    "tonk": GameSpec("Tonk", 100, 10_000, 500, 0, (2, 4)),
    "stakes": GameSpec("Card room", 100, 5_000, 200, 0, (2, 5)),
}
STAKES_VARIANTS = ("page_one", "old_maid", "gops", "fifty_one", "piquet", "crazy_eights", "500_rummy")
# Faro is the house game: half the tables, the rest spread over the player-pot games.
GAME_MIX = ("faro", "farmer", "faro", "fan_tan", "faro", "newmarket", "faro", "tonk", "faro", "stakes")
