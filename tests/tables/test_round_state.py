"""The one fold of a round (tables.round_state): steps numbered by seq, the cache's catch-up."""

from __future__ import annotations

from typing import Any

from tables.games.registry import engine_for
from tables.models import Round
from tables.replay import check_round
from tables.round_state import engine_state, fold
from tables.state_cache import STATE_CACHE
from tests.factories import ApiFloor

BUY_IN = 100_000
TRAY = 1_000_000


def faro_deal(floor: ApiFloor, punters: int = 2) -> tuple[int, int, list[int]]:
    """A manual-shoe Faro table with ``punters`` seated and a deal started: (table, round, players)."""
    table = int(floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=TRAY)["id"])
    players = [floor.new_player(buy_in=BUY_IN) for _ in range(punters)]
    for player in players:
        floor.seat(table, player)
    return table, int(floor.start_round(table, "manual")["id"]), players


def bet(player: int, rank: str) -> dict[str, Any]:
    return {"type": "bet", "player": player, "ranks": [rank], "amount": 500}


def test_the_observer_sees_the_opening_then_each_action_by_its_seq(floor: ApiFloor) -> None:
    """Voided actions leave gaps in the seqs: a step keeps its seq, not its position."""
    _table, round_id, (p1, p2) = faro_deal(floor)
    round_ = Round.objects.get(pk=round_id)
    steps: list[tuple[int, str | None, int]] = []

    def observe(seq: int, payload: Any, before: Any, after: Any, moved: Any) -> None:
        steps.append((seq, payload["type"] if payload else None, len(moved)))
        assert before is None if payload is None else before is not after

    state = fold(round_, [(1, bet(p1, "K")), (3, bet(p2, "Q")), (7, {"type": "soda", "card": "3D"})], observe)

    assert steps == [(0, None, 0), (1, "bet", 1), (3, "bet", 1), (7, "soda", 0)]
    assert [b["ranks"] for b in engine_for("faro").public_state(state)["bets"]] == [["K"], ["Q"]]


def test_engine_state_catches_a_kept_state_up_or_folds_it_all_when_the_cache_is_off(
    floor: ApiFloor, settings: Any, django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any
) -> None:
    _table, round_id, (p1, p2) = faro_deal(floor)
    floor.act(round_id, bet(p1, "K"))
    with django_capture_on_commit_callbacks(execute=True):
        STATE_CACHE.put(Round.objects.get(pk=round_id), fold(Round.objects.get(pk=round_id)))
    floor.act(round_id, bet(p2, "Q"))
    round_ = Round.objects.get(pk=round_id)
    public = engine_for("faro").public_state

    with django_assert_num_queries(1):  # the one action after the kept version
        caught_up = engine_state(round_)
    assert public(caught_up) == round_.state

    settings.ROUND_STATE_CACHE_SIZE = 0
    with django_assert_num_queries(1):  # every action, folded from the start
        folded = engine_state(round_)
    assert public(folded) == round_.state
    assert folded is not caught_up


def test_a_punter_who_sits_down_mid_deal_replays(floor: ApiFloor) -> None:
    """The replay check names wallets from the settlements, not from the seats at the deal (as the
    audit and ratings did): a Faro punter may sit down and bet after the deal began."""
    table, round_id, (p1,) = faro_deal(floor, punters=1)
    floor.act(round_id, bet(p1, "K"))
    latecomer = floor.new_player(buy_in=BUY_IN)
    floor.seat(table, latecomer)
    floor.act(round_id, bet(latecomer, "Q"))

    result = check_round(Round.objects.get(pk=round_id))
    assert result.ok, result.problems
