"""A round's answer is shaped without DRF's per-field machinery (issue 22): it must render what
DRF's own field-by-field rendering of ``RoundOutputSerializer``'s declared fields renders."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from tables.api.round_views import RoundOutputSerializer, settlement_rows
from tables.models import Round
from tables.selectors import list_round_settlements
from tests.factories import ApiFloor


def both_renderings(round_: Round) -> tuple[bytes, bytes]:
    """(the fast shape, DRF's generic ``Serializer.to_representation``) of ``round_``, as JSON bytes."""
    rows = settlement_rows(list_round_settlements(round_id=round_.pk))
    serializer = RoundOutputSerializer(round_, context={"settlements": rows, "settlements_count": len(rows)})
    generic = serializers.Serializer.to_representation(serializer, round_)
    render = JSONRenderer().render
    return render(serializer.data), render(generic)


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


def test_a_round_renders_as_drf_renders_its_declared_fields(floor: ApiFloor) -> None:
    table = floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=1_000_000)
    players = [floor.new_player(buy_in=100_000) for _ in range(2)]
    for player in players:
        floor.seat(int(table["id"]), player)
    answer = floor.start_round(int(table["id"]), "manual")
    round_id = int(answer["id"])

    fast, generic = both_renderings(Round.objects.get(pk=round_id))
    assert fast == generic
    assert b'"ended_at":null' in fast

    answer = floor.act(round_id, {"type": "bet", "player": players[0], "ranks": ["Q"], "amount": 700})
    floor.act(round_id, {"type": "soda", "card": "3D", "version": answer["version"]})
    stored = Round.objects.get(pk=round_id)
    fast, generic = both_renderings(stored)
    assert fast == generic
    assert b'"settlements_count":1' in fast

    # A settled round (its end time set) with a player who sat out, told why.
    stored.status, stored.ended_at = "settled", stored.started_at
    stored.context = {**stored.context, "sat_out": [{"player": players[1], "message": "short"}]}
    fast, generic = both_renderings(stored)
    assert fast == generic
    assert b'"sat_out":[{"player":' in fast
    assert stored.started_at.utcoffset() is not None


def test_an_action_answers_with_the_same_shape_as_a_read(floor: ApiFloor) -> None:
    table = floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=1_000_000)
    player = floor.new_player(buy_in=100_000)
    floor.seat(int(table["id"]), player)
    round_id = int(floor.start_round(int(table["id"]), "manual")["id"])

    answer: dict[str, Any] = floor.act(
        round_id, {"type": "bet", "player": player, "ranks": ["K"], "amount": 500}
    )
    read = floor.round(round_id)

    assert list(answer) == list(read)
    assert answer == read  # one settlement so far: the action's list is the round's
