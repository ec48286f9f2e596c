"""Fan Tan rounds end to end through the HTTP API: antes, reserves, passes, penalties, the pot.

A manual shoe lets the test decide every card, so the balances below are fixed numbers
worked out by hand from GAMES.md "Fan Tan" and "Common to all games" (the arithmetic is
in the comments). An electronic round is checked for conservation and replay instead.
Fan Tan is a player-pot game: the tray never moves and the house earns only the rake.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from ledger.selectors import get_trial_balance
from tables.games.cards import FULL_DECK
from tables.games.shoe import shuffle
from tables.models import Round
from tables.replay import check_round
from tests.factories import ApiFloor, play_out, table_money, without_settlements
from tests.tables.api_tables import SeatedTable, Step, moved

ANTE = 100  # one chip
CHIP = 100
BUY_IN = 10_000
TRAY = 50_000


class FanTanTable(SeatedTable):
    """A Fan Tan table ($1 ante) with punters in seats 1, 2, 3 … bought in as given."""

    def __init__(
        self, floor: ApiFloor, *, rules: dict[str, Any], buy_ins: Sequence[int] = (BUY_IN,) * 3
    ) -> None:
        super().__init__(floor, game="fan_tan", ante=ANTE, rules=rules, buy_ins=buy_ins, inventory=TRAY)
        self.pot = f"pot:{self.id}:main"

    def money(self) -> dict[str, int]:
        return table_money(self.id, self.players)


def assert_conserved(before: dict[str, int], after: dict[str, int]) -> None:
    assert sum(after.values()) == sum(before.values())
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits


def assert_replays(*round_ids: int) -> None:
    for rid in round_ids:
        result = check_round(Round.objects.get(pk=rid))
        assert result.ok, result.problems


def cards(text: str) -> list[str]:
    return text.split()


# The whole deck keyed by hand. Seats 1-3 = p1, p2, p3; p1 deals, so the deal (and play)
# goes p2, p3, p1: 52 = 18 + 17 + 17, and the two short hands (p3, p1) ante a chip more.
P3_HAND = cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 7H 7D 7C 8C")
P2_HAND = cards("AH 2H 3H 4H 5H 6H 8H 9H 10H JH QH KH AD 2D 3D 4D 5D 6D")
P1_HAND = cards("8D 9D 10D JD QD KD AC 2C 3C 4C 5C 6C 9C 10C JC QC KC")


def test_known_hands_an_illegal_pass_with_held_sevens_and_a_capped_percent_rake(floor: ApiFloor) -> None:
    t = FanTanTable(floor, rules={"rake": {"kind": "percent", "percent": 5, "cap": 300}})
    p1, p2, p3 = t.players
    w1, w2, w3 = (t.wallet[p] for p in t.players)
    before = t.money()

    round_ = floor.start_round(t.id, "manual")
    rid = round_["id"]
    state = round_["state"]
    assert (state["dealer"], state["order"], round_["players"]) == (p1, [p2, p3, p1], [p2, p3, p1])
    assert [(p["player"], p["reserve_left"]) for p in state["players"]] == [
        (p2, 3_000),
        (p3, 3_000),
        (p1, 3_000),
    ]
    # Antes: p2 (18 cards) one chip; p3 and p1 (17 cards) two chips. Pot 100 + 200 + 200 = 500.
    assert state["pot"] == 500
    assert sorted(moved(round_)) == sorted(
        [("ante", w2, t.pot, 100), ("ante", w3, t.pot, 200), ("ante", w1, t.pot, 200)]
    )
    # Reserve = antes + 30 chips, held; what the antes left of it shows as in play.
    # p2: 10 000 - (100 + 3 000) available; p1, p3: 10 000 - (200 + 3 000).
    assert t.balances() == {p1: (6_800, 3_000), p2: (6_900, 3_000), p3: (6_800, 3_000)}

    hands = {str(p2): P2_HAND, str(p3): P3_HAND, str(p1): P1_HAND}
    doubled = {**hands, str(p1): [*P1_HAND[:-1], "AS"]}  # AS is p3's
    assert t.act(rid, {"type": "deal", "hands": doubled}, 400)["error"]["code"] == "card_not_in_shoe"
    short = {**hands, str(p2): P2_HAND[:-1]}
    assert t.act(rid, {"type": "deal", "hands": short}, 400)["error"]["code"] == "illegal_action"
    round_ = t.act(rid, {"type": "deal", "hands": hands})
    assert (round_["state"]["tracking"], round_["state"]["turn"]) == ("full", p2)
    assert all(p["hand"] is None for p in round_["state"]["players"])  # hands stay hidden

    # T1 p2 holds no 7 and no spade: a fair pass, one chip. T2 p3 opens spades. T3 p1 passes.
    round_ = t.take_turns(
        rid, [("pass", p2, None), ("play", p3, "7S"), ("pass", p1, None), ("pass", p2, None)]
    )
    refused = [
        ({"type": "play", "player": p1, "card": "8S"}, "not_your_turn"),
        ({"type": "play", "player": p3, "card": "9S"}, "bad_placement"),  # 8S must come first
        ({"type": "play", "player": p3, "card": "6H"}, "illegal_action"),  # p2 holds it
        ({"type": "penalty", "player": p2}, "illegal_action"),  # known hands are charged at once
    ]
    for action, code in refused:
        assert t.act(rid, action, 400)["error"]["code"] == code
    assert without_settlements(floor.round(rid)) == without_settlements(round_)  # nothing moved

    # T5: p3 passes though 8S, 6S and three sevens are playable: an illegal pass. The pass
    # chip and three more go to the pot; for each 7 held (7S is already down) five chips to
    # the holder of its 6 and five to the holder of its 8, unless p3 holds it (8C):
    # 7H -> 6H p2, 8H p2; 7D -> 6D p2, 8D p1; 7C -> 6C p1. 100 + 300 + 5 x 500 = 2 900.
    round_ = t.act(rid, {"type": "pass", "player": p3})
    assert moved(round_) == [
        ("pass", w3, t.pot, 100),
        ("illegal_pass", w3, t.pot, 300),
        ("seven_held", w3, w2, 500),
        ("seven_held", w3, w2, 500),
        ("seven_held", w3, w2, 500),
        ("seven_held", w3, w1, 500),
        ("seven_held", w3, w1, 500),
    ]
    # Pot: 500 antes + 300 (p2 twice, p1 once) + 400 = 1 200; p3's reserve: 3 000 - 2 900 = 100.
    assert round_["state"]["pot"] == 1_200
    left = {p["player"]: p["reserve_left"] for p in round_["state"]["players"]}
    assert left == {p2: 2_800, p3: 100, p1: 2_900}
    # The five-chip payments land in p1's and p2's wallets (available), not their reserves.
    assert t.balances() == {p1: (7_800, 2_900), p2: (8_400, 2_800), p3: (6_800, 100)}

    steps: list[Step] = [("pass", p1, None)]
    for card in ["8S", "9S", "10S", "JS", "QS", "KS", "6S", "5S", "4S", "3S", "2S", "AS"]:
        steps += [("pass", p2, None), ("play", p3, card), ("pass", p1, None)]  # nothing else is open
    steps += [("pass", p2, None), ("play", p3, "7H"), ("pass", p1, None)]
    steps += [("play", p2, "8H"), ("play", p3, "7D"), ("play", p1, "8D")]
    steps += [("play", p2, "9H"), ("play", p3, "7C"), ("play", p1, "9D")]
    steps += [("play", p2, "10H")]
    round_ = t.take_turns(rid, steps)
    assert round_["status"] == "in_play"
    round_ = t.act(rid, {"type": "play", "player": p3, "card": "8C"})  # p3's last card

    assert round_["status"] == "settled"
    assert round_["state"]["winner"] == p3
    assert {p["player"]: len(p["hand"]) for p in round_["state"]["players"]} == {p2: 15, p3: 0, p1: 15}
    # p2 and p1 passed 15 times each (1 500 apiece) and hold 15 cards (1 500 apiece), which
    # uses up exactly the 3 000 left of each reserve. Pot: 500 + 1 500 + 1 500 + 400 +
    # 1 500 + 1 500 = 6 900; 5 % is 345, capped at 300 for the house; p3 takes 6 600.
    assert moved(round_) == [
        ("cards_left", w2, t.pot, 1_500),
        ("cards_left", w1, t.pot, 1_500),
        ("rake", t.pot, "rake", 300),
        ("pot", t.pot, w3, 6_600),
    ]
    # p1: 10 000 - 200 - 1 500 + 1 000 - 1 500 = 7 800
    # p2: 10 000 - 100 - 1 500 + 1 500 - 1 500 = 8 400
    # p3: 10 000 - 200 - 2 900 + 6 600 = 13 500; the reserves are released.
    assert t.balances() == {p1: (7_800, 0), p2: (8_400, 0), p3: (13_500, 0)}
    after = t.money()
    assert after == {**before, f"wallet:{p1}": 7_800, f"wallet:{p2}": 8_400, f"wallet:{p3}": 13_500} | {
        "pot:main": 0,
        "rake": 300,
    }
    assert_conserved(before, after)
    assert t.act(rid, {"type": "pass", "player": p2}, 409)["error"]["code"] == "round_over"

    # Round 2, electronic: the deal moves one seat left (p2 deals, p3 gets the 18th card).
    before = after
    round_ = floor.start_round(t.id, "electronic")
    rid2 = round_["id"]
    state = round_["state"]
    assert (state["dealer"], state["order"], state["pot"]) == (p2, [p3, p1, p2], 500)
    assert t.balances() == {
        p1: (7_800 - 3_200, 3_000),
        p2: (8_400 - 3_200, 3_000),
        p3: (13_500 - 3_100, 3_000),
    }
    assert t.act(rid2, {"type": "deal", "hands": hands}, 400)["error"]["code"] == "illegal_action"
    round_ = play_out(floor, rid2, ["deal", "play", "pass"])
    assert round_["status"] == "settled"
    round_ = floor.round(rid2)  # GET lists every settlement of the round
    after = t.money()
    assert_conserved(before, after)
    assert after["pot:main"] == 0
    assert after["tray"] == TRAY

    # Every wallet moved by exactly what the settlements say, nobody beyond their reserve,
    # and the winner took the pot less 5 % (floored) capped at 300.
    reserve = {p3: 3_100, p1: 3_200, p2: 3_200}
    code_of = {code: p for p, code in t.wallet.items()}
    net = dict.fromkeys(t.players, 0)
    paid = dict.fromkeys(t.players, 0)
    pot_in = 0
    for s in round_["settlements"]:
        if s["from"] in code_of:
            net[code_of[s["from"]]] -= s["amount"]
            paid[code_of[s["from"]]] += s["amount"]
        if s["to"] in code_of:
            net[code_of[s["to"]]] += s["amount"]
        pot_in += s["amount"] if s["to"] == t.pot else 0
    assert all(paid[p] <= reserve[p] for p in t.players)
    assert {p: after[f"wallet:{p}"] - before[f"wallet:{p}"] for p in t.players} == net
    winner = round_["state"]["winner"]
    rake = min(pot_in * 5 // 100, 300)
    assert after["rake"] - before["rake"] == rake
    assert [s["amount"] for s in round_["settlements"] if s["kind"] == "pot"] == [pot_in - rake]
    assert [s["to"] for s in round_["settlements"] if s["kind"] == "pot"] == [t.wallet[winner]]

    verify = floor.get(floor.pit_boss, f"rounds/{rid2}/verify")
    seed = verify["server_seed"]
    assert verify["commitment"] == round_["commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    deck = list(shuffle(FULL_DECK, seed))
    assert verify["deck"] == deck
    for i, shown in enumerate(round_["state"]["players"]):  # dealt one at a time from the dealer's left
        assert set(shown["hand"]) <= set(deck[i::3])
    assert_replays(rid, rid2)

    # Closing: both pots were won, so nothing is split; the summary shows the house's rake.
    summary = floor.close_table(t.id, TRAY)
    assert summary["pot_splits"] == []
    assert summary["rake"] == 300 + rake
    assert (summary["win"], summary["variance"]) == (0, 0)
    assert t.money() == after


def test_count_only_penalties_are_paid_in_part_and_a_short_wallet_is_not_dealt_in(floor: ApiFloor) -> None:
    """reserve_chips 20: each reserve is the antes plus $20, and payments stop there."""
    rules = {"reserve_chips": 20, "rake": {"kind": "percent", "percent": 5, "cap": None}}
    t = FanTanTable(floor, rules=rules, buy_ins=(BUY_IN, BUY_IN, BUY_IN, 1_000))
    p1, p2, p3, p4 = t.players
    w1, w2, w3 = (t.wallet[p] for p in (p1, p2, p3))
    before = t.money()

    round_ = floor.start_round(t.id, "manual")
    rid = round_["id"]
    # p4's $10 cannot cover a reserve (an ante + 20 chips = 2 100 at four players): not dealt in.
    # Three play: p2 18 cards (ante 100), p3 and p1 17 (ante 200); reserves 2 100 / 2 200.
    assert round_["players"] == [p2, p3, p1]
    assert round_["state"]["pot"] == 500
    assert t.balances() == {p1: (7_800, 2_000), p2: (7_900, 2_000), p3: (7_800, 2_000), p4: (1_000, 0)}
    assert t.act(rid, {"type": "pass", "player": p4}, 400)["error"]["code"] == "illegal_action"

    round_ = t.act(rid, {"type": "deal"})  # no hands: count-only tracking
    assert round_["state"]["tracking"] == "count"
    assert [p["cards"] for p in round_["state"]["players"]] == [18, 17, 17]
    round_ = t.take_turns(rid, [("pass", p2, None), ("play", p3, "7S"), ("pass", p1, None)])
    assert t.act(rid, {"type": "play", "player": p2, "card": "9S"}, 400)["error"]["code"] == "bad_placement"
    passer_holds = {
        "type": "penalty",
        "player": p1,
        "seven": "7D",
        "six_holder": p1,
    }  # nothing due to oneself
    assert t.act(rid, passer_holds, 400)["error"]["code"] == "illegal_action"
    assert (
        t.act(rid, {"type": "penalty", "player": p3}, 400)["error"]["code"] == "illegal_action"
    )  # never passed
    assert without_settlements(floor.round(rid)) == without_settlements(round_)

    # The dealer catches p1's pass: p1 held 7D, with 6D in p2's hand and 8D in p3's.
    # Three chips to the pot, five to each holder: 1 300 of the 1 900 left -> 600 left.
    round_ = t.act(
        rid, {"type": "penalty", "player": p1, "seven": "7D", "six_holder": p2, "eight_holder": p3}
    )
    assert moved(round_) == [
        ("illegal_pass", w1, t.pot, 300),
        ("seven_held", w1, w2, 500),
        ("seven_held", w1, w3, 500),
    ]
    again = {"type": "penalty", "player": p1, "seven": "7D", "six_holder": p2}
    assert t.act(rid, again, 400)["error"]["code"] == "illegal_action"  # one penalty per pass

    # p3 runs out 17 cards; p2 and p1 pass every turn (p2 17 times in all, p1 16).
    steps: list[Step] = []
    for card in ["8S", "9S", "10S", "JS", "QS", "KS", "6S", "5S", "4S", "3S", "2S", "AS", "7H", "8H", "9H"]:
        steps += [("pass", p2, None), ("play", p3, card), ("pass", p1, None)]
    steps += [("pass", p2, None)]
    round_ = t.take_turns(rid, steps)
    # p1's 600 paid six more passes; the nine after that were paid with nothing (in part).
    assert {p["player"]: p["reserve_left"] for p in round_["state"]["players"]} == {p2: 300, p3: 2_000, p1: 0}
    assert floor.balance(p1)["in_play"] == 0  # p1's reserve is spent while the round is live
    round_ = t.act(rid, {"type": "play", "player": p3, "card": "10H"})
    assert round_["status"] == "settled"
    # Cards left: p2 owes 18 chips but has 300 left, p1 owes 17 and has nothing left.
    # Pot: 500 + 1 700 (p2's passes) + 700 (p1's) + 300 (penalty) + 300 = 3 500.
    # Rake 5 % = 175, uncapped; p3 takes 3 325.
    assert moved(round_) == [
        ("cards_left", w2, t.pot, 300),
        ("rake", t.pot, "rake", 175),
        ("pot", t.pot, w3, 3_325),
    ]
    # p1: 10 000 - 2 200 (the whole reserve)          =  7 800
    # p2: 10 000 - 2 100 (the whole reserve) + 500   =  8 400
    # p3: 10 000 - 200 + 500 + 3 325                 = 13 625; p4 untouched.
    assert t.balances() == {p1: (7_800, 0), p2: (8_400, 0), p3: (13_625, 0), p4: (1_000, 0)}
    after = t.money()
    assert after["pot:main"] == 0
    assert after["rake"] == 175
    assert after["tray"] == TRAY
    assert_conserved(before, after)
    assert_replays(rid)
