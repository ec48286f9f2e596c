"""Reads the detectors share: settled rounds of a window with each player's result in them.

The results are the ratings' rows (``RoundPlayerStat``): ``run_detectors`` rates the window's
unrated rounds first, so a detector only reads.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ledger.gaming_day import gaming_day_for
from tables.detection.base import Window
from tables.models import Round, RoundStatus
from tables.ratings.models import RoundPlayerStat


@dataclass(slots=True)
class RoundResults:
    """One settled round: who dealt it, who was dealt in, and each player's net result."""

    round_id: int
    table_id: int
    game: str
    dealer_id: int
    number: int
    day: dt.date  # the gaming day it ended in
    results: dict[int, int] = field(default_factory=dict)  # player -> net cents
    handles: dict[int, int] = field(default_factory=dict)

    @property
    def winners(self) -> list[int]:
        return [p for p, r in self.results.items() if r > 0]

    @property
    def losers(self) -> list[int]:
        return [p for p, r in self.results.items() if r < 0]


def settled_rounds(window: Window) -> list[RoundResults]:
    """The window's settled rounds (by when they ended) with their players' results, oldest first."""
    rounds = Round.objects.filter(
        status=RoundStatus.SETTLED, ended_at__gte=window.start, ended_at__lt=window.end
    )
    by_id = {
        pk: RoundResults(
            round_id=pk,
            table_id=table_id,
            game=game,
            dealer_id=dealer_id,
            number=number,
            day=gaming_day_for(ended_at),
        )
        for pk, table_id, game, dealer_id, number, ended_at in rounds.order_by("ended_at", "pk").values_list(
            "pk", "table_id", "game", "started_by_id", "number", "ended_at"
        )
    }
    for round_id, player_id, result, handle in RoundPlayerStat.objects.filter(
        round_id__in=list(by_id)
    ).values_list("round_id", "player_id", "result", "handle"):
        by_id[round_id].results[player_id] = result
        by_id[round_id].handles[player_id] = handle
    return list(by_id.values())
