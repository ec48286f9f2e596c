"""GAMES.md "Leaving", over HTTP: a Faro punter comes and goes between turns; a pot-game player
dealt in stays until the round settles (issue 20 item 8)."""

from __future__ import annotations

from casino.models import Player
from tables.games.base import Settlement, wallet
from tables.models import Round
from tables.replay import check_round
from tables.rounds import _wallets_of
from tests.factories import ApiFloor


def test_a_faro_punter_with_nothing_on_the_layout_leaves_mid_deal(floor: ApiFloor) -> None:
    table = floor.open_table(game="faro", min_bet=100, max_bet=10_000, inventory=1_000_000)
    stays, leaves = floor.new_player(buy_in=50_000), floor.new_player(buy_in=50_000)
    floor.seat(table["id"], stays)
    floor.seat(table["id"], leaves)
    round_id = floor.start_round(table["id"], "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    floor.act(round_id, {"type": "bet", "player": leaves, "ranks": ["K"], "amount": 1_000})
    floor.act(round_id, {"type": "bet", "player": stays, "ranks": ["9"], "amount": 1_000})
    dealer = floor.client(floor.dealer)

    # With a bet on the layout: refused, and the message names the player and the way out.
    refused = dealer.delete(f"/api/v1/tables/{table['id']}/seats/{leaves}")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "chips_in_play"
    floor.act(round_id, {"type": "turn", "cards": ["KH", "5S"]})  # the K loses: nothing left on the layout

    # Between two turns, with nothing on the layout: the punter leaves and the deal goes on.
    assert dealer.delete(f"/api/v1/tables/{table['id']}/seats/{leaves}").status_code == 204
    after = floor.act(round_id, {"type": "turn", "cards": ["2C", "9S"]})
    assert after["status"] == "in_play"
    gone = floor.act(round_id, {"type": "bet", "player": leaves, "ranks": ["Q"], "amount": 1_000}, status=400)
    assert gone["error"]["code"] == "not_seated"
    assert check_round(Round.objects.get(pk=round_id)).ok


def test_a_pot_game_player_dealt_in_cannot_leave_mid_round(floor: ApiFloor) -> None:
    table = floor.open_table(game="fan_tan", min_bet=100, max_bet=1_000, ante=100, inventory=50_000)
    players = [floor.new_player(buy_in=10_000) for _ in range(3)]
    for seat, player in enumerate(players, start=1):
        floor.seat(table["id"], player, seat)
    floor.start_round(table["id"], "electronic")
    response = floor.client(floor.dealer).delete(f"/api/v1/tables/{table['id']}/seats/{players[0]}")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "chips_in_play"


def test_a_settlement_for_a_player_no_longer_seated_still_finds_their_wallet(floor: ApiFloor) -> None:
    """A round action reads the seated players' wallets with the round's lock; one it pays who has
    left the table (no game does so today) has their wallet read apart, not a missing code."""
    seated, gone = floor.new_player(buy_in=1_000), floor.new_player(buy_in=1_000)
    codes = dict(Player.objects.filter(pk__in=[seated, gone]).values_list("pk", "wallet__code"))
    moved = [
        Settlement("win", "tray:1", wallet(seated), 100, seated),
        Settlement("win", "tray:1", wallet(gone), 100, gone),
    ]
    assert _wallets_of(moved, seated={seated: codes[seated]}) == codes
