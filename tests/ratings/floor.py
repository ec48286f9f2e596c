"""Small floors for the ratings tests, made through the services: card-room tables and their rounds."""

from __future__ import annotations

from typing import Any, cast

from casino.models import Player, User
from tables import services
from tables.models import Seat, Table
from tables.ratings.services import rate_round
from tables.rounds import apply_round_action, start_round
from tests import factories

STAKE = 200


def punter(cashier: User, **kwargs: Any) -> Player:
    """A player made and bought in through the services (``tests.factories.PlayerFactory``)."""
    return cast(Player, factories.PlayerFactory(actor=cashier, **kwargs))


def stakes_table(pit_boss: User, dealer: User, *, name: str | None = None) -> Table:
    """An open card-room table (page one: first out, every other player pays one stake)."""
    extra = {"name": name} if name else {}
    table = factories.TableFactory(
        actor=pit_boss,
        dealer=dealer,
        game="stakes",
        min_bet=100,
        max_bet=1_000,
        ante=STAKE,
        rules={"variant": "page_one"},
        **extra,
    )
    factories.open_table_for(table, inventory=0)
    return cast(Table, table)


def play(table: Table, players: list[Player], *, rounds: int, new_sitting_each_round: bool) -> list[int]:
    """Card-room rounds settled by their result and rated; optionally everyone stands up after each."""
    assert table.dealer is not None
    made = []
    for number in range(rounds):
        for seat, player in enumerate(players, start=1):
            if not Seat.objects.filter(table=table, player=player, left_at__isnull=True).exists():
                services.seat_player(actor=table.dealer, table_id=table.pk, player_id=player.pk, seat=seat)
        round_ = start_round(actor=table.dealer, table_id=table.pk, shoe="manual")
        winner = players[number % len(players)]
        apply_round_action(
            actor=table.dealer, round_id=round_.pk, action={"type": "result", "winner": winner.pk}
        )
        rate_round(round_id=round_.pk)
        made.append(round_.pk)
        if new_sitting_each_round:
            for player in players:
                services.unseat_player(actor=table.dealer, table_id=table.pk, player_id=player.pk)
    return made
