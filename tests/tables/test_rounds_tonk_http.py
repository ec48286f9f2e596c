"""Tonk rounds end to end through the HTTP API: reserves, drops caught or not, tonks, the deal.

Stakes move wallet to wallet out of each player's reserve hold; there is no pot and the
tray never moves. Manual shoes with keyed hands give fixed numbers worked out by hand
from GAMES.md "Tonk" (A=1, J/Q/K=10; arithmetic in the comments); electronic rounds are
checked for conservation, the verified deck and replay.
"""

from __future__ import annotations

import itertools
from typing import Any

from ledger.selectors import get_trial_balance
from tables.games.cards import FULL_DECK
from tables.games.shoe import shuffle
from tables.models import Round
from tables.replay import check_round
from tests.factories import ApiFloor, play_out, table_money
from tests.tables.api_tables import SeatedTable, moved

STAKE = 100
BUY_IN = 5_000
TRAY = 50_000


class TonkTable(SeatedTable):
    def __init__(
        self, floor: ApiFloor, rules: dict[str, Any], buy_ins: tuple[int, ...] = (BUY_IN,) * 3
    ) -> None:
        super().__init__(floor, game="tonk", ante=STAKE, rules=rules, buy_ins=buy_ins, inventory=TRAY)

    def deal(self, hands: dict[int, list[str]], upcard: str, status: int = 200) -> dict[str, Any]:
        """Start a manual round and key every hand and the upcard (full tracking)."""
        round_ = self.floor.start_round(self.id, "manual")
        body = {"type": "deal", "hands": {str(p): cards for p, cards in hands.items()}, "upcard": upcard}
        return self.act(round_["id"], body, status)


def test_single_penalty_caught_drop_deal_tonks_a_drawn_deal_and_a_tonk_out(floor: ApiFloor) -> None:
    t = TonkTable(floor, {})  # caught_drop_pays 1, deal tonk "50_or_11"
    p1, p2, p3 = t.players
    w1, w2, w3 = (t.wallet[p] for p in t.players)
    start = table_money(t.id, t.players)

    # Round 1: p1 deals; p2 is first. Reserve (1 + 1) x 100 x (3 - 1) = 400, held.
    round_ = t.deal(
        {
            p2: ["AS", "2S", "3D", "4C", "5H"],
            p3: ["AH", "2H", "3S", "4D", "2C"],
            p1: ["AD", "2D", "3C", "4S", "5S"],
        },
        "KS",
    )
    rid = round_["id"]
    assert (round_["state"]["dealer"], round_["state"]["players"], round_["state"]["turn"]) == (
        p1,
        [p2, p3, p1],
        p2,
    )
    assert moved(round_) == []
    assert t.balances() == dict.fromkeys(t.players, (BUY_IN - 400, 400))
    refused = [
        ({"type": "drop", "player": p3}, "not_your_turn"),
        ({"type": "discard", "player": p2, "card": "AS"}, "illegal_action"),  # draw first
        ({"type": "drop", "player": p2, "totals": {str(p2): 15, str(p3): 12, str(p1): 14}}, "illegal_action"),
        ({"type": "draw", "player": p2, "from": "stock", "card": "KS"}, "card_not_in_shoe"),  # the upcard
    ]
    for action, code in refused:
        assert t.act(rid, action, 400)["error"]["code"] == code
    # p2 drops on 15 (1+2+3+4+5) but p3 holds 12 (1+2+3+4+2) and p1 15: caught. p2 pays one
    # stake to each player at or below 15 (p3, p1); then everyone not lowest (p2, p1) pays
    # the lowest, p3, one stake.
    round_ = t.act(rid, {"type": "drop", "player": p2})
    assert round_["status"] == "settled"
    assert (round_["state"]["outcome"], round_["state"]["winners"]) == ("caught_drop", [p3])
    assert round_["state"]["totals"] == {str(p2): 15, str(p3): 12, str(p1): 15}
    assert moved(round_) == [
        ("penalty", w2, w3, 100),
        ("penalty", w2, w1, 100),
        ("win", w2, w3, 100),
        ("win", w1, w3, 100),
    ]
    assert t.balances() == {p1: (5_000, 0), p2: (4_700, 0), p3: (5_300, 0)}

    # Round 2: p2 deals; p1 is dealt exactly 50 (K Q J 10 10): a tonk on the deal. Each
    # other player pays two stakes and the round ends at once.
    round_ = t.deal(
        {
            p3: ["2H", "3H", "4H", "5H", "6H"],
            p1: ["KS", "QS", "JS", "10S", "10H"],
            p2: ["2C", "3C", "4C", "5C", "6C"],
        },
        "9D",
    )
    assert round_["state"]["players"] == [p3, p1, p2]
    assert (round_["status"], round_["state"]["outcome"]) == ("settled", "deal_tonk")
    assert moved(round_) == [("win", w3, w1, 200), ("win", w2, w1, 200)]

    # Round 3: p3 deals; p1 holds 6 (11 or less) and p2 holds 50: two tonks, a drawn deal.
    round_ = t.deal(
        {
            p1: ["AS", "AH", "AD", "AC", "2S"],
            p2: ["KH", "QH", "JH", "10D", "10C"],
            p3: ["3S", "4S", "5S", "6S", "7S"],
        },
        "9H",
    )
    assert round_["state"]["players"] == [p1, p2, p3]
    assert (round_["status"], round_["state"]["outcome"], round_["state"]["redeal"]) == (
        "settled",
        "drawn_deal",
        True,
    )
    assert moved(round_) == []
    assert t.balances() == {p1: (5_400, 0), p2: (4_500, 0), p3: (5_100, 0)}

    # Round 4: the new deal keeps p3 as dealer. p1 draws 9♣, spreads 2-3-4♠ and 9-9-9 and
    # has no card left: a tonk out, two stakes from each.
    round_ = t.deal(
        {
            p1: ["2S", "3S", "4S", "9H", "9D"],
            p2: ["KC", "QC", "JC", "8C", "7D"],
            p3: ["KD", "QD", "JD", "8D", "8H"],
        },
        "5C",
    )
    rid = round_["id"]
    assert (round_["state"]["dealer"], round_["state"]["turn"]) == (p3, p1)
    t.act(rid, {"type": "draw", "player": p1, "from": "stock", "card": "9C"})
    bad_spread = {"type": "spread", "player": p1, "cards": ["9H", "9D", "2S"]}
    assert t.act(rid, bad_spread, 400)["error"]["code"] == "illegal_action"
    t.act(rid, {"type": "spread", "player": p1, "cards": ["2S", "3S", "4S"]})
    round_ = t.act(rid, {"type": "spread", "player": p1, "cards": ["9H", "9D", "9C"]})
    assert (round_["status"], round_["state"]["outcome"]) == ("settled", "tonk_out")
    assert moved(round_) == [("win", w2, w1, 200), ("win", w3, w1, 200)]
    # p1: 5 000 + 0 + 400 + 0 + 400 = 5 800; p2: 5 000 - 300 - 200 - 200 = 4 300;
    # p3: 5 000 + 300 - 200 - 200 = 4 900.
    assert t.balances() == {p1: (5_800, 0), p2: (4_300, 0), p3: (4_900, 0)}
    money = table_money(t.id, t.players)
    assert money == {**start, f"wallet:{p1}": 5_800, f"wallet:{p2}": 4_300, f"wallet:{p3}": 4_900}
    for round_ in Round.objects.filter(table_id=t.id):
        assert check_round(round_).ok


def test_double_penalty_caught_drop_pays_every_tied_lowest_and_a_short_wallet_sits_out(
    floor: ApiFloor,
) -> None:
    t = TonkTable(
        floor, {"caught_drop_pays": 2, "deal_tonk": "49_or_50", "slap": False}, (BUY_IN,) * 3 + (500,)
    )
    p1, p2, p3, p4 = t.players
    w1, w2, w3 = (t.wallet[p] for p in (p1, p2, p3))
    start = table_money(t.id, t.players)

    # p4's $5 covers neither (2 + 1) x 100 x 3 = 900 nor, once out, 600: p4 is not dealt in.
    round_ = t.deal(
        {
            p2: ["3D", "3C", "4S", "4H", "4D"],
            p3: ["AS", "AH", "2S", "2H", "3S"],
            p1: ["AD", "AC", "2D", "2C", "3H"],
        },
        "KD",
    )
    rid = round_["id"]
    assert round_["state"]["players"] == [p2, p3, p1]
    assert t.balances() == {p1: (4_400, 600), p2: (4_400, 600), p3: (4_400, 600), p4: (500, 0)}
    assert t.act(rid, {"type": "drop", "player": p4}, 400)["error"]["code"] == "illegal_action"
    # p2 drops on 18 (3+3+4+4+4); p3 and p1 both hold 9: caught. The double penalty: two
    # stakes to each of them; then p2 pays the tied lowest one stake each. 600: the whole reserve.
    round_ = t.act(rid, {"type": "drop", "player": p2})
    assert (round_["state"]["outcome"], round_["state"]["winners"]) == ("caught_drop", [p3, p1])
    assert moved(round_) == [
        ("penalty", w2, w3, 200),
        ("penalty", w2, w1, 200),
        ("win", w2, w3, 100),
        ("win", w2, w1, 100),
    ]
    assert t.balances() == {p1: (5_300, 0), p2: (4_400, 0), p3: (5_300, 0), p4: (500, 0)}

    # Round 2: p2 deals. Under "49_or_50" p1's 8 is no tonk, p3's 49 (K Q J 10 9) is.
    round_ = t.deal(
        {
            p3: ["KS", "QS", "JS", "10S", "9S"],
            p1: ["AH", "2H", "3H", "AC", "AD"],
            p2: ["2C", "3C", "4C", "5C", "6C"],
        },
        "7D",
    )
    assert round_["state"]["players"] == [p3, p1, p2]
    assert (round_["state"]["outcome"], round_["state"]["winners"]) == ("deal_tonk", [p3])
    assert moved(round_) == [("win", w1, w3, 200), ("win", w2, w3, 200)]
    # p1: 5 000 + 300 - 200 = 5 100; p2: 5 000 - 600 - 200 = 4 200; p3: 5 000 + 300 + 400 = 5 700.
    assert t.balances() == {p1: (5_100, 0), p2: (4_200, 0), p3: (5_700, 0), p4: (500, 0)}

    # Round 3: p3 deals; p1 drops on 7 (no tonk under "49_or_50"), lowest strictly: one
    # stake from each.
    round_ = t.deal(
        {
            p1: ["AS", "AH", "AD", "2S", "2H"],
            p2: ["5C", "6C", "7C", "8C", "9C"],
            p3: ["KH", "QH", "2D", "3D", "4D"],
        },
        "JC",
    )
    assert round_["state"]["players"] == [p1, p2, p3]
    round_ = t.act(round_["id"], {"type": "drop", "player": p1})
    assert (round_["state"]["outcome"], round_["state"]["totals"]) == (
        "drop",
        {str(p1): 7, str(p2): 35, str(p3): 29},
    )
    assert moved(round_) == [("win", w2, w1, 100), ("win", w3, w1, 100)]
    assert t.balances() == {p1: (5_300, 0), p2: (4_100, 0), p3: (5_600, 0), p4: (500, 0)}
    money = table_money(t.id, t.players)
    assert sum(money.values()) == sum(start.values())
    assert money["tray"] == TRAY
    for round_ in Round.objects.filter(table_id=t.id):
        assert check_round(round_).ok


def test_electronic_rounds_deal_the_committed_deck_conserve_chips_and_replay(floor: ApiFloor) -> None:
    t = TonkTable(floor, {})
    reserve = 2 * STAKE * 2
    dealers = []
    for _ in range(3):
        before = table_money(t.id, t.players)
        round_ = floor.start_round(t.id, "electronic")
        rid = round_["id"]
        order = round_["state"]["players"]
        dealers.append(round_["state"]["dealer_seat"])
        round_ = play_out(floor, rid, ["deal", "drop"])  # the first player drops before drawing
        assert round_["status"] == "settled"
        after = table_money(t.id, t.players)
        assert sum(after.values()) == sum(before.values())
        code_of = {code: p for p, code in t.wallet.items()}
        net = dict.fromkeys(t.players, 0)
        for s in round_["settlements"]:
            net[code_of[s["from"]]] -= s["amount"]
            net[code_of[s["to"]]] += s["amount"]
        assert {p: after[f"wallet:{p}"] - before[f"wallet:{p}"] for p in t.players} == net
        assert all(-loss <= reserve for loss in net.values())
        deck = floor.get(floor.pit_boss, f"rounds/{rid}/verify")["deck"]
        assert deck == list(shuffle(FULL_DECK, Round.objects.get(pk=rid).seed))
        hands = round_["state"][
            "hands"
        ]  # shown: a drop (or a tonk on the deal) ends the round before any draw
        assert hands == {str(p): [deck[i + 3 * k] for k in range(5)] for i, p in enumerate(order)}
        assert round_["state"]["discard_pile"] == [deck[15]]
        assert check_round(Round.objects.get(pk=rid)).ok
    assert dealers[0] == 1
    assert all(b in (a, a % 3 + 1) for a, b in itertools.pairwise(dealers))
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits
    assert floor.close_table(t.id, TRAY)["pot_splits"] == []
