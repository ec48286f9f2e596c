"""A scripted Faro sitting through the HTTP API, rated exactly (API.md "Ratings and floor analytics").

The dealer keys every card (manual shoe), so each bet's fate is fixed by the test. Every figure
of the rating row is worked out here by hand from the issue's definitions (compute.py's
docstring): handle = chips the punter put on the layout, bets = bets and calls placed, decisions
= turns dealt while the punter had chips on the layout, result = the wallet's net, theo = each
bet's amount x its exact lifetime edge given the cards live when it was placed. The edges come
from tests/ratings/exact.py (brute-force enumeration of where the covered cards can lie), never
from ``tables.games.faro_edge``. Rounds are rated by calling ``rate_round`` directly (a plain
``django_db`` test never runs on-commit hooks, so no task is sent).
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

import pytest
from django.conf import settings

from casino.models import Player
from tables.models import Round, Seat
from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.ratings.services import rate_round
from tests.factories import ApiFloor, token_for
from tests.ratings.exact import call_exact, single_rank_lifetime, target_bet_exact

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = tuple(rank + suit for suit in ("S", "H", "D", "C") for rank in RANKS)
BUY_IN = 100_000
TRAY = 1_000_000


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


class ManualDeal:
    """One manual-shoe round: keys cards, remembers what has left the shoe."""

    def __init__(self, floor: ApiFloor, table: int) -> None:
        self.floor = floor
        self.round = floor.start_round(table, "manual")
        self.dealt: list[str] = []

    @property
    def id(self) -> int:
        return int(self.round["id"])

    @property
    def state(self) -> dict[str, Any]:
        return self.round["state"]

    def act(self, action: dict[str, Any]) -> None:
        self.round = self.floor.act(self.id, action)

    def bet(self, player: int, amount: int, **placement: Any) -> None:
        self.act({"type": "bet", "player": player, "amount": amount, **placement})

    def call(self, player: int, order: list[str], amount: int) -> None:
        self.act({"type": "call_turn", "player": player, "order": order, "amount": amount})

    def soda(self, card: str) -> None:
        self.act({"type": "soda", "card": card})
        self.dealt.append(card)

    def turn(self, banker: str, player: str) -> None:
        self.act({"type": "turn", "cards": [banker, player]})
        self.dealt += [banker, player]

    def deal_down_to(self, last_three: list[str]) -> None:
        """Key the rest of the deck in canonical order, two at a time, until three cards are left."""
        rest = [c for c in DECK if c not in self.dealt and c not in last_three]
        for i in range(0, len(rest), 2):
            self.turn(rest[i], rest[i + 1])
        assert self.state["cards_remaining"] == 3
        assert self.state["next_action"] == "last_turn"

    def last_turn(self, cards: list[str]) -> None:
        self.act({"type": "last_turn", "cards": cards})
        assert self.round["status"] == "settled"

    def left(self) -> dict[str, int]:
        """What the casekeeper shows live now, rank by rank."""
        return {rank: int(row["left"]) for rank, row in self.state["casekeeper"].items()}


def ratings(client: Any, player: int | str, **query: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/players/{player}/ratings", query)
    assert response.status_code == 200, response.content
    return response.json()


def player_client(player_id: int) -> Any:
    from rest_framework.test import APIClient

    client = APIClient()
    user = Player.objects.get(pk=player_id).user
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def stat_of(round_id: int, player: int) -> tuple[int, int, int, int, int]:
    row = RoundPlayerStat.objects.get(round_id=round_id, player_id=player)
    return row.handle, row.result, row.bets, row.decisions, row.theo_milli


def test_a_scripted_faro_sitting_is_rated_exactly(floor: ApiFloor) -> None:
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=TRAY)
    tid = int(table["id"])
    kate, wyatt = floor.new_player(buy_in=BUY_IN), floor.new_player(buy_in=BUY_IN)
    floor.seat(tid, kate, 1)
    floor.seat(tid, wyatt, 2)

    # ---------------------------------------------------------------- round 1
    deal = ManualDeal(floor, tid)
    assert deal.state["cards_remaining"] == 52
    deal.bet(kate, 1_000, ranks=["K"])  # (1) before the soda: 4 kings among 52 cards
    deal.bet(wyatt, 1_000, ranks=["9"])
    deal.soda("3D")
    deal.turn("9S", "KH")  # kate's K wins 1 000 and rides; wyatt's 9 loses
    assert deal.state["cards_remaining"] == 49
    deal.bet(kate, 2_000, ranks=["Q"])  # (2) 4 queens among 49
    deal.turn("QD", "QC")  # a split: the bank takes 1 000, 1 000 rides on the Q
    assert deal.state["latest_turn"]["split"] is True
    even_left = deal.left()  # 47 cards: 3 kings, 2 queens, 3 threes, 3 nines, 4 of the rest
    assert sum(even_left.values()) == deal.state["cards_remaining"] == 47
    deal.bet(kate, 500, target="even")  # (3) decided by the next turn
    deal.turn("2S", "4H")  # the player's card is a 4: even wins 500, the stake comes back
    deal.turn("KS", "5D")  # the K loses: 1 000 to the bank
    deal.turn("QS", "6C")  # the Q loses: its last 1 000 to the bank
    assert [b for b in deal.state["bets"] if b["player"] == kate] == []
    last = ["7C", "8D", "JS"]
    deal.deal_down_to(last)
    deal.call(kate, ["7", "8", "J"], 1_000)  # (4) three different ranks, right: 4 to 1
    deal.call(wyatt, ["8", "7", "J"], 500)  # wrong
    deal.last_turn(last)
    first = deal.id

    # ---------------------------------------------------------------- round 2
    deal = ManualDeal(floor, tid)
    deal.soda("2D")
    deal.bet(kate, 600, ranks=["A"])  # (5) 4 aces among 51 cards
    deal.bet(wyatt, 500, target="odd")
    deal.turn("AH", "5C")  # the A loses 600; odd wins (a 5)
    last = ["9H", "7C", "9D"]
    deal.deal_down_to(last)
    assert deal.state["can_call_turn"]
    deal.call(kate, ["9", "7", "9"], 500)  # (6) a cat-hop, right: 2 to 1
    deal.last_turn(last)
    second = deal.id

    for round_id in (first, second):
        assert rate_round(round_id=round_id) is not None

    # Kate's bets, by hand:
    #   round 1: K 1 000 + Q 2 000 + even 500 + call 1 000 = 4 500 handle, 4 bets
    #            result: +1 000 (K wins) - 1 000 (split) + 500 (even) - 1 000 (K loses)
    #                    - 1 000 (Q loses) + 4 000 (call at 4 to 1) = +2 500
    #            decisions: turns 1-5 (chips down) and the last turn (the call) = 6
    #   round 2: A 600 + call 500 = 1 100 handle, 2 bets
    #            result: -600 (A loses) + 1 000 (cat-hop at 2 to 1) = +400
    #            decisions: turn 1 (the A) and the last turn (the call) = 2
    theo_r1 = (
        1_000 * single_rank_lifetime(4, 52)
        + 2_000 * single_rank_lifetime(4, 49)
        + 500 * target_bet_exact("even", even_left)
        + 1_000 * call_exact(["7", "8", "J"], ["7C", "8D", "JS"], 4)  # = 1/6
    )
    theo_r2 = 600 * single_rank_lifetime(4, 51) + 500 * call_exact(["9", "7", "9"], ["9H", "7C", "9D"], 2)
    assert call_exact(["7", "8", "J"], ["7C", "8D", "JS"], 4) == Fraction(1, 6)
    assert call_exact(["9", "7", "9"], ["9H", "7C", "9D"], 2) == 0

    h, r, b, d, t = stat_of(first, kate)
    assert (h, r, b, d) == (4_500, 2_500, 4, 6)
    assert abs(Fraction(t, 1000) - theo_r1) <= Fraction(3, 1000)  # each bet's theo kept to 1/1000 cent
    h, r, b, d, t = stat_of(second, kate)
    assert (h, r, b, d) == (1_100, 400, 2, 2)
    assert abs(Fraction(t, 1000) - theo_r2) <= Fraction(2, 1000)
    # Wyatt: 9 1 000 + call 500 in round 1 (both lose); odd 500 in round 2 (wins).
    assert stat_of(first, wyatt)[:4] == (1_500, -1_500, 2, 2)  # turn 1 (the 9) and the last turn
    assert stat_of(second, wyatt)[:4] == (500, 500, 1, 1)

    # The table's rounds: 25 decisions a deal; the house's win is the tray's net.
    one, two = RoundStat.objects.get(round_id=first), RoundStat.objects.get(round_id=second)
    assert (one.handle, one.win, one.decisions) == (4_500 + 1_500, -2_500 + 1_500, 25)
    assert (two.handle, two.win, two.decisions) == (1_100 + 500, -400 - 500, 25)

    # Kate gets up; her sitting is stretched to 95½ minutes so "minutes" is not 0.
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{kate}"), 204)
    seat = Seat.objects.get(player_id=kate, table_id=tid)
    assert seat.left_at is not None
    Seat.objects.filter(pk=seat.pk).update(seated_at=seat.left_at - dt.timedelta(minutes=95, seconds=30))

    theo = theo_r1 + theo_r2
    expected = {
        "table": tid,
        "game": "faro",
        "minutes": 95,
        "decisions": 6 + 2,
        "handle": 4_500 + 1_100,
        "average_bet": (4_500 + 1_100) // (4 + 2),  # 933
        "theo": round(theo),
        "result": 2_500 + 400,
        "comp_points": int(theo * Fraction(str(settings.COMP_RATE))),
    }
    # 33.937 (K) + 72.731 (Q) + 45.791 (even) + 166.667 (call) + 20.948 (A) = 340.074 cents, rounded
    # once for the row; comp points = theo x COMP_RATE, rounded down.
    assert expected["theo"] == 340
    for client in (floor.client(floor.pit_boss), player_client(kate)):
        body = ratings(client, kate)
        assert body["next"] is None
        (row,) = body["results"]
        assert {key: row[key] for key in expected} == expected
        assert row["ended"] is not None
        assert dt.datetime.fromisoformat(row["ended"]) - dt.datetime.fromisoformat(row["started"]) == (
            dt.timedelta(minutes=95, seconds=30)
        )
    assert ratings(player_client(kate), "me")["results"] == body["results"]

    # Rating a round again changes nothing (the task may be delivered twice).
    before = list(RoundPlayerStat.objects.order_by("round_id", "player_id").values())
    for round_id in (first, second):
        rate_round(round_id=round_id)
    after = list(RoundPlayerStat.objects.order_by("round_id", "player_id").values())
    assert [{k: v for k, v in row.items() if k != "id"} for row in after] == [
        {k: v for k, v in row.items() if k != "id"} for row in before
    ]


def test_a_punter_who_sits_down_during_the_deal_is_rated_on_that_sitting(floor: ApiFloor) -> None:
    """Faro punters come and go during a deal; a late arrival's bets and wins still count."""
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=TRAY)
    tid = int(table["id"])
    early, late = floor.new_player(buy_in=BUY_IN), floor.new_player(buy_in=BUY_IN)
    floor.seat(tid, early, 1)
    deal = ManualDeal(floor, tid)
    deal.soda("3D")
    deal.turn("9S", "KH")
    floor.seat(tid, late, 2)  # sits down after the deal began
    deal.bet(late, 1_000, ranks=["J"])  # 4 jacks among 49
    deal.turn("5S", "JH")  # wins 1 000, rides
    deal.turn("JD", "6C")  # loses 1 000
    deal.deal_down_to(["7C", "8D", "QS"])
    deal.last_turn(["7C", "8D", "QS"])
    rate_round(round_id=deal.id)

    seat = Seat.objects.get(player_id=late, table_id=tid)
    assert seat.seated_at > Round.objects.get(pk=deal.id).started_at
    row = RoundPlayerStat.objects.get(round_id=deal.id, player_id=late)
    assert (row.seat_id, row.handle, row.result, row.bets, row.decisions) == (seat.pk, 1_000, 0, 1, 2)
    assert abs(Fraction(row.theo_milli, 1000) - 1_000 * single_rank_lifetime(4, 49)) <= Fraction(1, 1000)
    (rated,) = ratings(floor.client(floor.pit_boss), late)["results"]
    assert (rated["handle"], rated["result"], rated["decisions"], rated["theo"]) == (1_000, 0, 2, 36)
    assert not RoundPlayerStat.objects.filter(round_id=deal.id, player_id=early).exists()  # never bet


def test_a_bet_taken_down_before_any_turn_earns_no_theo_handle_or_bet(floor: ApiFloor) -> None:
    """Place-and-withdraw between turns risks nothing, so it must not earn comps.

    The punter bets 1 000 on the Q and takes it down before the next turn; then bets 1 000 on
    the J, which faces a turn and is decided. Only the jack bet counts.
    """
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=TRAY)
    tid = int(table["id"])
    punter_id = floor.new_player(buy_in=BUY_IN)
    floor.seat(tid, punter_id, 1)
    deal = ManualDeal(floor, tid)
    deal.soda("3D")
    deal.bet(punter_id, 1_000, ranks=["Q"])
    (queen,) = [bet["id"] for bet in deal.state["bets"]]
    deal.act({"type": "remove_bet", "bet": queen})
    deal.bet(punter_id, 1_000, ranks=["J"])  # 4 jacks among 51
    deal.turn("JD", "6C")  # the jack loses
    deal.deal_down_to(["7C", "8D", "QS"])
    deal.last_turn(["7C", "8D", "QS"])
    rate_round(round_id=deal.id)

    row = RoundPlayerStat.objects.get(round_id=deal.id, player_id=punter_id)
    assert (row.handle, row.result, row.bets, row.decisions) == (1_000, -1_000, 1, 1)
    assert abs(Fraction(row.theo_milli, 1000) - 1_000 * single_rank_lifetime(4, 51)) <= Fraction(1, 1000)


def test_a_punter_who_leaves_mid_deal_is_rated_at_once_for_what_was_decided(floor: ApiFloor) -> None:
    """Issue 44: a Faro punter who gets up mid-deal, nothing of theirs on the layout, sees their
    sitting rated at once (not at the last turn); the punter still playing is not touched, and
    once the deal is over and rated nothing is counted twice."""
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=TRAY)
    tid = int(table["id"])
    kate, wyatt = floor.new_player(buy_in=BUY_IN), floor.new_player(buy_in=BUY_IN)
    floor.seat(tid, kate, 1)
    floor.seat(tid, wyatt, 2)
    boss = floor.client(floor.pit_boss)
    deal = ManualDeal(floor, tid)
    deal.soda("3D")
    deal.bet(kate, 1_000, ranks=["K"])  # 4 kings among 51
    deal.bet(wyatt, 1_000, ranks=["9"])
    deal.turn("9S", "KH")  # kate's K wins 1 000 and rides; wyatt's 9 loses
    deal.bet(kate, 2_000, ranks=["Q"])  # 4 queens among 49
    deal.bet(wyatt, 500, ranks=["5"])
    deal.turn("QD", "QC")  # a split: the bank takes 1 000 of the Q, 1 000 rides
    deal.turn("KS", "5D")  # the K loses 1 000; wyatt's 5 wins 500 and rides
    deal.turn("QS", "6C")  # the Q loses its last 1 000: nothing of kate's is on the layout
    (wyatt_before,) = ratings(boss, wyatt)["results"]
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{kate}"), 204)
    assert Round.objects.get(pk=deal.id).status == "in_play"

    # Kate, by hand: handle K 1 000 + Q 2 000 in 2 bets; result +1 000 - 1 000 (split)
    # - 1 000 (K) - 1 000 (Q); decisions: the 4 turns she had chips down for.
    theo = 1_000 * single_rank_lifetime(4, 51) + 2_000 * single_rank_lifetime(4, 49)
    expected = {
        "handle": 3_000,
        "result": -2_000,
        "average_bet": 1_500,
        "decisions": 4,
        "theo": round(theo),
        "comp_points": int(theo * Fraction(str(settings.COMP_RATE))),
    }
    assert expected["theo"] == 108  # 34.914 (K) + 72.731 (Q) cents, rounded once
    figures = list(expected)
    (left,) = ratings(boss, kate)["results"]
    assert {key: left[key] for key in figures} == expected
    assert left["ended"] is not None
    (mine,) = ratings(player_client(kate), "me")["results"]
    assert mine == left
    # Wyatt plays on: his sitting reads as it did before kate got up (nothing rated mid-deal).
    (wyatt_now,) = ratings(boss, wyatt)["results"]
    assert wyatt_now == wyatt_before
    assert (wyatt_now["handle"], wyatt_now["result"], wyatt_now["decisions"]) == (0, 0, 0)

    last = ["7C", "8D", "JS"]
    deal.deal_down_to(last)  # (5S, 6S) comes up third: wyatt's 5 loses its 500
    deal.last_turn(last)
    (settled,) = ratings(boss, kate)["results"]
    assert settled == left  # settled, its rating task not run yet: the same figures
    assert rate_round(round_id=deal.id) is not None
    assert rate_round(round_id=deal.id) is not None  # a task delivered twice
    (rated,) = ratings(boss, kate)["results"]
    assert rated == left  # the rows now count the deal, once
    seat = Seat.objects.get(player_id=kate, table_id=tid)
    h, r, b, d, t = stat_of(deal.id, kate)
    assert (h, r, b, d) == (3_000, -2_000, 2, 4)
    assert RoundPlayerStat.objects.get(round_id=deal.id, player_id=kate).seat_id == seat.pk
    assert abs(Fraction(t, 1000) - theo) <= Fraction(2, 1000)
    # Wyatt: 9 1 000 (lost), 5 500 (won 500, then lost 500).
    (wyatt_rated,) = ratings(boss, wyatt)["results"]
    assert (wyatt_rated["handle"], wyatt_rated["result"]) == (1_500, -1_000)
    assert stat_of(deal.id, wyatt)[:3] == (1_500, -1_000, 2)
