"""The card room's result-keyed games end to end through the HTTP API (GAMES.md "Other games").

The dealer keys one ``result``; the round settles stakes at once, wallet to wallet, out of
each player's reserve hold (``reserve_chips`` chips). Every wallet is checked to the cent
against numbers worked out by hand (arithmetic in the comments). Seats 1-4 hold p1-p4;
p1 deals the first round, so its order from the dealer's left is p2, p3, p4, p1, and the
deal moves one seat left each round.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.models import Player
from ledger.selectors import get_trial_balance
from tables.games.stakes import ENGINE, required_reserve
from tables.models import Round
from tables.replay import check_round
from tables.services import seat_player
from tests.factories import ApiFloor, PlayerFactory, TableFactory, open_table_for, table_money
from tests.tables.api_tables import SeatedTable, moved

STAKE = 100
BUY_IN = 5_000
TRAY = 10_000


class StakesTable(SeatedTable):
    def __init__(
        self,
        floor: ApiFloor,
        rules: dict[str, Any],
        *,
        ante: int = STAKE,
        buy_ins: tuple[int, ...] = (BUY_IN,) * 4,
        max_bet: int = 1_000,
    ) -> None:
        super().__init__(
            floor, game="stakes", ante=ante, rules=rules, buy_ins=buy_ins, inventory=TRAY, max_bet=max_bet
        )

    def start(self) -> dict[str, Any]:
        return self.floor.start_round(self.id, "manual")

    def result(self, round_id: int, result: dict[str, Any], status: int = 200) -> Any:
        return self.floor.act(round_id, {"type": "result", **result}, status=status)

    def scores(self, **by_index: int) -> dict[str, int]:
        """``scores(p1=10, p2=7, …)`` keyed by player id, as JSON keys are strings."""
        return {str(self.players[int(key[1:]) - 1]): n for key, n in by_index.items()}

    def wallets(self) -> list[int]:
        money = table_money(self.id, self.players)
        return [money[f"wallet:{p}"] for p in self.players]

    def assert_sound(self, start: dict[str, int]) -> None:
        money = table_money(self.id, self.players)
        assert sum(money.values()) == sum(start.values())
        assert money["tray"] == TRAY
        assert money["rake"] == 0
        for round_ in Round.objects.filter(table_id=self.id):
            assert check_round(round_).ok
        trial = get_trial_balance()
        assert trial.total_debits == trial.total_credits


def test_first_out_every_other_player_pays_the_winner_one_stake(floor: ApiFloor) -> None:
    t = StakesTable(floor, {"variant": "Crazy Eights"})
    p1, p2, p3, p4 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    assert round_["state"]["variant_name"] == "Crazy Eights"
    assert round_["state"]["settle"] == "first_out"
    assert round_["players"] == [p2, p3, p4, p1]
    # The reserve (30 chips = 3 000) is held and shows in play until the result.
    assert t.balances() == dict.fromkeys(t.players, (2_000, 3_000))
    round_ = t.result(round_["id"], {"winner": p3})
    assert round_["status"] == "settled"
    assert moved(round_) == [
        ("win", t.wallet[p2], t.wallet[p3], 100),
        ("win", t.wallet[p4], t.wallet[p3], 100),
        ("win", t.wallet[p1], t.wallet[p3], 100),
    ]
    assert t.balances() == {p1: (4_900, 0), p2: (4_900, 0), p3: (5_300, 0), p4: (4_900, 0)}
    t.assert_sound(start)


def test_loser_pays_each_other_player_from_the_dealers_left_in_full_whatever_reserve_chips_say(
    floor: ApiFloor,
) -> None:
    t = StakesTable(floor, {"variant": "old_maid", "reserve_chips": 3}, ante=200)
    p1, p2, p3, p4 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    assert round_["state"]["settle"] == "loser_pays"
    # The loser owes three stakes (600), more than the 3 chips (300): the reserve is 600.
    assert t.balances() == dict.fromkeys(t.players, (4_400, 600))
    # p2 holds the Old Maid and pays 200 to p3, p4 and p1 in turn.
    round_ = t.result(round_["id"], {"loser": p2})
    assert moved(round_) == [
        ("win", t.wallet[p2], t.wallet[p3], 200),
        ("win", t.wallet[p2], t.wallet[p4], 200),
        ("win", t.wallet[p2], t.wallet[p1], 200),
    ]
    assert t.balances() == {p1: (5_200, 0), p2: (4_400, 0), p3: (5_200, 0), p4: (5_200, 0)}
    # Round 2 (p2 deals; order p3, p4, p1, p2): p1 loses and pays p3, p4 and p2.
    round_ = t.start()
    assert round_["players"] == [p3, p4, p1, p2]
    round_ = t.result(round_["id"], {"loser": p1})
    assert [m[2] for m in moved(round_)] == [t.wallet[p3], t.wallet[p4], t.wallet[p2]]
    assert t.wallets() == [4_600, 4_600, 5_400, 5_400]
    t.assert_sound(start)


def test_high_score_single_winner_and_tied_winners_share_with_the_odd_cent_from_the_dealers_left(
    floor: ApiFloor,
) -> None:
    # One-cent chips and a 101-cent stake, so a shared stake has odd cents; reserve 1 000.
    t = StakesTable(floor, {"variant": "gops", "chip": 1, "reserve_chips": 1_000}, ante=101)
    p1, p2, p3, p4 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    assert round_["state"]["settle"] == "high_score"
    round_ = t.result(round_["id"], {"scores": t.scores(p1=40, p2=52, p3=13, p4=0)})
    assert round_["state"]["winners"] == [p2]
    assert sorted(moved(round_)) == sorted(("win", t.wallet[p], t.wallet[p2], 101) for p in (p3, p4, p1))
    assert t.wallets() == [4_899, 5_303, 4_899, 4_899]

    # Round 2: p2 deals, so the order is p3, p4, p1, p2. p4, p1 and p2 tie on 10; p3 pays
    # one stake, 101 = 3 x 33 + 2: the odd cents go to p4 then p1, the first tied players
    # from the dealer's left.
    round_ = t.start()
    assert round_["players"] == [p3, p4, p1, p2]
    round_ = t.result(round_["id"], {"scores": t.scores(p1=10, p2=10, p3=7, p4=10)})
    assert round_["state"]["winners"] == [p4, p1, p2]
    assert moved(round_) == [
        ("win", t.wallet[p3], t.wallet[p4], 34),
        ("win", t.wallet[p3], t.wallet[p1], 34),
        ("win", t.wallet[p3], t.wallet[p2], 33),
    ]
    assert t.wallets() == [4_933, 5_336, 4_798, 4_933]

    # Round 3 (p3 deals): everybody ties, so nobody pays.
    round_ = t.result(t.start()["id"], {"scores": t.scores(p1=3, p2=3, p3=3, p4=3)})
    assert round_["status"] == "settled"
    assert moved(round_) == []
    assert t.wallets() == [4_933, 5_336, 4_798, 4_933]
    t.assert_sound(start)


def test_fifty_one_a_tie_with_the_stop_caller_goes_to_the_other_player(floor: ApiFloor) -> None:
    t = StakesTable(floor, {"variant": "Fifty-One"}, buy_ins=(BUY_IN,) * 3)
    p1, p2, p3 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    # p1 called Stop and ties p2 on 51: p2 wins, so p1 and p3 each pay p2 a stake.
    round_ = t.result(round_["id"], {"scores": t.scores(p1=51, p2=51, p3=30), "stop": p1})
    assert round_["state"]["winners"] == [p2]
    assert sorted(moved(round_)) == sorted(
        [("win", t.wallet[p3], t.wallet[p2], 100), ("win", t.wallet[p1], t.wallet[p2], 100)]
    )
    # Round 2: a Stop caller with the higher score still wins.
    round_ = t.result(t.start()["id"], {"scores": t.scores(p1=20, p2=48, p3=40), "stop": p2})
    assert round_["state"]["winners"] == [p2]
    assert t.wallets() == [4_800, 5_400, 4_800]
    t.assert_sound(start)


def test_points_everyone_pays_the_top_scorer_the_difference_rounded_down_and_ties_share(
    floor: ApiFloor,
) -> None:
    # A 25-cent chip: the default point value is one chip per 100 points, i.e. 0.25 cent a
    # point, rounded down to the cent for each payer. Reserve 30 chips = 750.
    t = StakesTable(floor, {"variant": "500 Rummy", "chip": 25}, ante=100)
    p1, p2, p3, p4 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    assert round_["state"]["settle"] == "points"
    round_ = t.result(round_["id"], {"scores": t.scores(p1=523, p2=400, p3=77, p4=-20)})
    # p2: 123 x 25 / 100 = 30.75 -> 30; p3: 446 -> 111.5 -> 111; p4: 543 -> 135.75 -> 135.
    assert sorted(moved(round_)) == sorted(
        [
            ("win", t.wallet[p2], t.wallet[p1], 30),
            ("win", t.wallet[p3], t.wallet[p1], 111),
            ("win", t.wallet[p4], t.wallet[p1], 135),
        ]
    )
    assert t.wallets() == [5_276, 4_970, 4_889, 4_865]

    # Round 2 (order p3, p4, p1, p2): p4 and p2 share the top (300). p1 owes 50 x 0.25 =
    # 12.5 -> 12, p3 owes 4 000 x 0.25 = 1 000 but its reserve is 750: paid in part.
    # 12 + 750 = 762 split from the dealer's left: p4 381, p2 381.
    round_ = t.result(t.start()["id"], {"scores": t.scores(p1=250, p2=300, p3=-3_700, p4=300)})
    assert round_["state"]["winners"] == [p4, p2]
    paid = {(s["from"], s["to"]): 0 for s in round_["settlements"]}
    for s in round_["settlements"]:
        paid[(s["from"], s["to"])] += s["amount"]
    assert sum(a for (f, _), a in paid.items() if f == t.wallet[p3]) == 750
    assert sum(a for (f, _), a in paid.items() if f == t.wallet[p1]) == 12
    assert sum(a for (_, to), a in paid.items() if to == t.wallet[p4]) == 381
    assert sum(a for (_, to), a in paid.items() if to == t.wallet[p2]) == 381
    assert t.wallets() == [5_264, 5_351, 4_139, 5_246]
    assert t.balances()[p3] == (4_139, 0)
    t.assert_sound(start)


def test_a_stake_above_reserve_chips_is_held_whole_and_a_wallet_short_of_it_sits_out_told_why(
    floor: ApiFloor,
) -> None:
    """Issue 20: ante $50 against the default 30 chips ($30) paid a first_out winner $30 each."""
    t = StakesTable(
        floor, {"variant": "page_one"}, ante=5_000, max_bet=10_000, buy_ins=(20_000,) * 3 + (4_000,)
    )
    p1, p2, p3, p4 = t.players
    start = table_money(t.id, t.players)
    round_ = t.start()
    # The reserve is one stake, $50: p4's $40 covers the 30 chips but not the stake.
    assert round_["players"] == [p2, p3, p1]
    name = Player.objects.get(pk=p4).name
    assert round_["sat_out"] == [
        {
            "player": p4,
            "name": name,
            "reserve": 5_000,
            "available": 4_000,
            "message": f"{name} is not dealt in: the reserve for this round is $50.00 "
            "and their wallet has $40.00 available.",
        }
    ]
    assert t.balances() == {p1: (15_000, 5_000), p2: (15_000, 5_000), p3: (15_000, 5_000), p4: (4_000, 0)}
    round_ = t.result(round_["id"], {"winner": p2})
    assert t.wallets() == [15_000, 30_000, 15_000, 4_000]  # the winner is paid the whole stake twice
    assert floor.round(round_["id"]) == round_
    t.assert_sound(start)


def test_results_are_checked_and_a_refused_result_moves_nothing(floor: ApiFloor) -> None:
    t = StakesTable(floor, {"variant": "gops"}, buy_ins=(BUY_IN, BUY_IN, BUY_IN, 2_000))
    p1, p2, p3, p4 = t.players
    stranger = floor.new_player(buy_in=BUY_IN)
    start = table_money(t.id, t.players)
    round_ = t.start()
    rid = round_["id"]
    # p4's $20 cannot cover the 30-chip reserve: seated, but not dealt in.
    assert round_["players"] == [p2, p3, p1]
    assert t.balances() == {p1: (2_000, 3_000), p2: (2_000, 3_000), p3: (2_000, 3_000), p4: (2_000, 0)}
    refused = [
        {"scores": {**t.scores(p1=1, p2=2, p3=3), str(stranger): 9}},  # not seated here
        {"scores": {**t.scores(p1=1, p2=2, p3=3), str(p4): 9}},  # seated, not dealt in
        {"scores": t.scores(p1=1, p2=2)},  # p3's score is missing
        {"scores": {**t.scores(p1=1, p2=2), str(p3): "3"}},  # not a whole number
        {"winner": p1},  # Gops settles by high score
        {"scores": t.scores(p1=1, p2=2, p3=3), "stop": p1},  # Stop is Fifty-One's
        {},
    ]
    for result in refused:
        assert t.result(rid, result, 400)["error"]["code"] == "illegal_action"
    assert floor.round(rid) == round_
    round_ = t.result(rid, {"scores": t.scores(p1=1, p2=2, p3=3)})
    assert round_["state"]["winners"] == [p3]
    after = t.wallets()
    assert after == [4_900, 4_900, 5_200, 2_000]
    # A second result is refused as illegal (400), and nothing moves.
    again = t.result(rid, {"scores": t.scores(p1=3, p2=2, p3=1)}, 400)
    assert again["error"]["code"] == "illegal_action"
    assert floor.round(rid) == round_
    assert t.wallets() == after
    t.assert_sound(start)
    # A percent rake is taken from a pot as it is won; these games have none, so it is refused.
    body = {
        "name": "Stakes with a percent rake",
        "game": "stakes",
        "min_bet": 100,
        "max_bet": 1_000,
        "ante": 100,
    }
    body["rules"] = {"variant": "gops", "rake": {"kind": "percent", "percent": 5, "cap": 25}}
    assert floor.post(floor.pit_boss, "tables", body, 400)["error"]["code"] == "bad_rules"


MODES = {
    "first_out": ({"variant": "page_one", "reserve_chips": 3}, 100),
    "loser_pays": ({"variant": "old_maid", "reserve_chips": 2}, 100),
    "high_score": ({"variant": "concentration", "chip": 1, "reserve_chips": 10}, 7),
    "points": ({"variant": "trex", "point_value": 7, "reserve_chips": 3}, 100),
}


@pytest.fixture
def mode_tables(floor: ApiFloor) -> dict[str, tuple[int, list[int], int]]:
    """A table per settle mode with four well-funded players (made through the services)."""
    tables = {}
    for mode, (rules, ante) in MODES.items():
        chip = rules.get("chip", 100)
        table = TableFactory(
            actor=floor.pit_boss,
            dealer=floor.dealer,
            game="stakes",
            min_bet=chip,
            max_bet=1_000,
            ante=ante,
            rules=rules,
        )
        open_table_for(table, inventory=0)
        players = [
            PlayerFactory(actor=floor.cashier, funded=100_000, username=f"prop-{uuid.uuid4().hex[:12]}").pk
            for _ in range(4)
        ]
        for player in players:
            seat_player(actor=floor.dealer, table_id=table.pk, player_id=player)
        reserve = required_reserve(ENGINE.validate_rules(rules), stake=ante, players=len(players))
        tables[mode] = (table.pk, players, reserve)
    return tables


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_any_result_conserves_chips_and_nobody_pays_more_than_their_reserve(
    floor: ApiFloor, mode_tables: dict[str, tuple[int, list[int], int]], data: st.DataObject
) -> None:
    mode = data.draw(st.sampled_from(sorted(MODES)))
    table_id, players, reserve = mode_tables[mode]
    if mode == "first_out":
        result: dict[str, Any] = {"winner": data.draw(st.sampled_from(players))}
    elif mode == "loser_pays":
        result = {"loser": data.draw(st.sampled_from(players))}
    else:
        scores = data.draw(st.lists(st.integers(-100, 100), min_size=4, max_size=4))
        result = {"scores": {str(p): n for p, n in zip(players, scores, strict=True)}}
    before = table_money(table_id, players)
    round_ = floor.start_round(table_id, "manual")
    round_ = floor.act(round_["id"], {"type": "result", **result})
    after = table_money(table_id, players)
    assert round_["status"] == "settled"
    assert sum(after.values()) == sum(before.values())
    for player in players:
        lost = before[f"wallet:{player}"] - after[f"wallet:{player}"]
        assert lost <= reserve
        assert after[f"wallet:{player}"] >= 0
        paid = sum(s["amount"] for s in round_["settlements"] if s["player"] == player)
        assert paid <= reserve
    assert check_round(Round.objects.get(pk=round_["id"])).ok
