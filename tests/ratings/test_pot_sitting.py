"""Pot and stakes games rated exactly: theo is the rake the player paid (API.md, the issue).

A Farmer table with a percent rake, keyed from a manual shoe: the player who wins the farm pays
the rake out of it, and that is their theo. A card-room table with a time rake: every seated
player pays per period (``tables.rake.charge_time_rake`` with moments in the future), which
``Seat.time_rake_paid`` keeps and the sitting's theo adds. Handle, bets, decisions and result
follow compute.py's docstring: a pot game's deal is one decision and one bet; its handle is
everything paid out of the wallet; the result is the wallet's net over the round.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from tables.models import Seat
from tables.rake import charge_time_rake
from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.ratings.services import rate_round
from tests.factories import ApiFloor

ANTE = 500
BUY_IN = 20_000


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


def rows(floor: ApiFloor, player: int) -> list[dict[str, Any]]:
    return floor.get(floor.pit_boss, f"players/{player}/ratings")["results"]


def figures(row: dict[str, Any]) -> tuple[int, int, int, int, int, int, int]:
    keys = ("decisions", "handle", "average_bet", "theo", "result", "comp_points", "minutes")
    a, b, c, d, e, f, g = (int(row[k]) for k in keys)
    return a, b, c, d, e, f, g


def test_farmer_with_a_percent_rake_the_farm_winner_pays_it(floor: ApiFloor, settings: Any) -> None:
    settings.COMP_RATE = 0.25
    rake = {"kind": "percent", "percent": 5, "cap": 500}
    table = floor.open_table(
        game="farmer", min_bet=100, max_bet=10_000, ante=ANTE, rules={"rake": rake}, inventory=0
    )
    tid = int(table["id"])
    p1, p2, p3 = players = [floor.new_player(buy_in=BUY_IN) for _ in range(3)]
    for seat, player in enumerate(players, start=1):
        floor.seat(tid, player, seat)
    round_ = floor.start_round(tid, "manual")
    rid = int(round_["id"])
    assert round_["state"]["farm"] == 3 * ANTE
    floor.act(rid, {"type": "farmer", "player": p1})
    floor.act(rid, {"type": "deal", "cards": {str(p2): "10S", str(p3): "5H", str(p1): "2C"}})
    for action in (
        {"type": "hit", "player": p2, "card": "6H"},  # 10 + 6 = 16: the farm
        {"type": "stay", "player": p2},
        {"type": "hit", "player": p3, "card": "KS"},  # 15
        {"type": "stay", "player": p3},
        {"type": "hit", "player": p1, "card": "3D"},  # 5
    ):
        floor.act(rid, action)
    settled = floor.act(rid, {"type": "stay", "player": p1})
    assert settled["status"] == "settled"
    # By hand: the farm is 3 x 500 = 1 500; 5 % rake = 75 (under the 500 cap) leaves p2 1 425.
    # p2 antes 500 and takes 1 425: result +925, handle 500, theo 75 (the rake out of p2's win).
    # p1 and p3 ante 500 each and win nothing: result -500, theo 0. (No 16 for them, nobody busts.)
    kinds = sorted((s["kind"], s["amount"]) for s in settled["settlements"] if s["kind"] in {"rake", "pot"})
    assert kinds == [("pot", 1_425), ("rake", 75)]
    rate_round(round_id=rid)

    stat = RoundStat.objects.get(round_id=rid)
    assert (stat.handle, stat.win, stat.decisions, stat.theo_milli) == (1_500, 75, 1, 75_000)
    by_player = {
        r.player_id: (r.handle, r.result, r.bets, r.decisions, r.theo_milli)
        for r in RoundPlayerStat.objects.filter(round_id=rid)
    }
    assert by_player == {
        p1: (500, -500, 1, 1, 0),
        p2: (500, 925, 1, 1, 75_000),
        p3: (500, -500, 1, 1, 0),
    }
    (row,) = rows(floor, p2)
    # decisions 1, handle 500, average bet 500 / 1, theo 75, result +925, comps 75 x 0.25 = 18
    assert figures(row) == (1, 500, 500, 75, 925, 18, 0)
    assert (row["table"], row["game"], row["ended"]) == (tid, "farmer", None)
    (row,) = rows(floor, p3)
    assert figures(row) == (1, 500, 500, 0, -500, 0, 0)

    # The hour's figures: handle 1 500, the house's win is the rake alone (the pot is the players').
    hours = floor.get(floor.pit_boss, f"tables/{tid}/hourly")["hours"]
    assert sum(h["handle"] for h in hours) == 1_500
    assert sum(h["win"] for h in hours) == 75
    assert [h["hold"] for h in hours if h["handle"]] == [0.05]


def test_a_time_raked_sitting_adds_the_rake_it_paid_to_theo(floor: ApiFloor, settings: Any) -> None:
    settings.COMP_RATE = 0.5
    rake = {"kind": "time", "amount": 150, "minutes": 30}
    table = floor.open_table(
        game="stakes",
        min_bet=100,
        max_bet=1_000,
        ante=200,
        rules={"variant": "page_one", "rake": rake},
        inventory=0,
    )
    tid = int(table["id"])
    p1, p2, p3 = players = [floor.new_player(buy_in=BUY_IN) for _ in range(3)]
    for seat, player in enumerate(players, start=1):
        floor.seat(tid, player, seat)
    sat = min(Seat.objects.filter(table_id=tid).values_list("seated_at", flat=True))

    charge_time_rake(now=sat)  # period 1 at sit-down: 150 each
    round_ = floor.start_round(tid, "manual")
    settled = floor.act(round_["id"], {"type": "result", "winner": p2})
    assert settled["status"] == "settled"
    rate_round(round_id=int(round_["id"]))
    charge_time_rake(now=sat + dt.timedelta(minutes=65))  # periods 2 and 3: 300 more each
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{p3}"), 204)
    charge_time_rake(now=sat + dt.timedelta(minutes=95))  # period 4 for those still seated
    assert dict(Seat.objects.filter(table_id=tid).values_list("player_id", "time_rake_paid")) == {
        p1: 600,
        p2: 600,
        p3: 450,
    }

    # By hand (page one, first out): p1 and p3 pay p2 one stake (200) each.
    #   p2: handle 0 (paid nothing out of the wallet), result +400, theo = time rake 600,
    #       comps 600 x 0.5 = 300.
    #   p1: handle 200, result -200, theo 600, comps 300; p3: theo 450 (left before period 4), 225.
    # The time rake is a fee, not a bet: it is neither handle nor part of the round's result.
    assert figures(rows(floor, p2)[0])[:6] == (1, 0, 0, 600, 400, 300)
    assert figures(rows(floor, p1)[0])[:6] == (1, 200, 200, 600, -200, 300)
    (left,) = rows(floor, p3)
    assert figures(left)[:6] == (1, 200, 200, 450, -200, 225)
    assert left["ended"] is not None
    assert rows(floor, p1)[0]["ended"] is None
    assert timezone.now() - dt.datetime.fromisoformat(rows(floor, p1)[0]["started"]) < dt.timedelta(minutes=5)
