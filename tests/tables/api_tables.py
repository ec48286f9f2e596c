"""What the end-to-end round tests through the HTTP API share: a game's table opened with its
punters bought in and seated, the settlements an answer lists, and the ledger's own check.

Each game's test module subclasses ``SeatedTable`` with the actions and money of its game;
opening, seating, acting and reading balances are the same calls for every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

from casino.models import Player
from ledger.selectors import get_trial_balance
from tests.factories import ApiFloor

Step = tuple[str, int, str | None]
"""One player's action keyed by type, with its card or None: ("hit", player, "6H"), ("pass", player, None)."""


class SeatedTable:
    """A ``game`` table opened by the pit with punters bought in for ``buy_ins`` and seated in
    seats 1, 2, 3 … in that order."""

    def __init__(
        self,
        floor: ApiFloor,
        *,
        game: str,
        ante: int,
        buy_ins: Sequence[int],
        inventory: int,
        rules: dict[str, Any] | None = None,
        min_bet: int = 100,
        max_bet: int = 1_000,
    ) -> None:
        self.floor = floor
        table = floor.open_table(
            game=game, min_bet=min_bet, max_bet=max_bet, ante=ante, rules=rules, inventory=inventory
        )
        self.id = int(table["id"])
        self.players = [floor.new_player(buy_in=amount) for amount in buy_ins]
        for seat, player in enumerate(self.players, start=1):
            floor.seat(self.id, player, seat)

    @cached_property
    def wallet(self) -> dict[int, str]:
        """{player: the code of the player's wallet account}."""
        return dict(Player.objects.filter(pk__in=self.players).values_list("pk", "wallet__code"))

    def act(self, round_id: int, action: dict[str, Any], status: int = 200) -> Any:
        return self.floor.act(round_id, action, status=status)

    def take_turns(self, round_id: int, steps: Sequence[Step]) -> dict[str, Any]:
        """Each step as one action of the round, in order; the round after the last."""
        round_: dict[str, Any] = {}
        for kind, player, card in steps:
            action: dict[str, Any] = {"type": kind, "player": player}
            if card is not None:
                action["card"] = card
            round_ = self.act(round_id, action)
        return round_

    def balances(self) -> dict[int, tuple[int, int]]:
        """{player: (available, in_play)} from GET /players/{id}/balance, each total checked."""
        out = {}
        for player in self.players:
            body = self.floor.balance(player)
            assert body["total"] == body["available"] + body["in_play"]
            out[player] = (body["available"], body["in_play"])
        return out


def moved(round_: dict[str, Any], since: int = 0) -> list[tuple[str, str, str, int]]:
    """The settlements of ``round_`` after the first ``since``, as (kind, from, to, amount) in
    posting order (an action's answer lists what it made; a GET lists them all)."""
    return [(s["kind"], s["from"], s["to"], s["amount"]) for s in round_["settlements"][since:]]


def assert_ledger_sound() -> None:
    """Debits equal credits and every account's balance adds up to nothing."""
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits
    assert sum(row.balance for row in trial.rows) == 0
