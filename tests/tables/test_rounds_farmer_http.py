"""Farmer rounds end to end through the HTTP API: antes, reserves, the farm, closing (API.md).

The dealer keys every card from a manual shoe, so each outcome is decided by the test and
every balance below is a fixed number worked out by hand from GAMES.md "Farmer" (A=1,
J/Q/K=10; 16 wins the farm; under-16 hands pay the best total; busts pay the farmer).
Farmer is a player pot game: the tray must not move, and a pot is never house win.
After every test each round must replay exactly (``tables.replay`` and ``replay_round``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from ledger.selectors import get_balance
from tables.games.shoe import shuffle
from tests.factories import ApiFloor
from tests.tables.api_tables import SeatedTable, assert_ledger_sound

ANTE = 500
RESERVE = 2 * ANTE  # the ante plus one more (GAMES.md "Reserve")
BUY_IN = 20_000
TRAY = 250_000

pytestmark = pytest.mark.usefixtures("rounds_replay_exactly")  # every test: rounds replay, ledger balances


class FarmerTable(SeatedTable):
    """A Farmer table of five punters in seats 1-5, each bought in for $200."""

    def __init__(self, floor: ApiFloor, players: int = 5) -> None:
        super().__init__(
            floor, game="farmer", ante=ANTE, buy_ins=[BUY_IN] * players, inventory=TRAY, max_bet=10_000
        )

    def start(self) -> dict[str, Any]:
        return self.floor.start_round(self.id, "manual")

    def start_electronic(self) -> dict[str, Any]:
        return self.floor.start_round(self.id, "electronic")

    def deal(self, round_id: int, cards: dict[int, str], status: int = 200) -> Any:
        """The face-down card of each player (JSON keys are player ids as strings)."""
        return self.act(
            round_id, {"type": "deal", "cards": {str(p): card for p, card in cards.items()}}, status
        )

    def farm(self) -> int:
        return get_balance(code=f"pot:{self.id}:farm")

    def assert_money(self, available: Sequence[int], *, in_play: int = 0, farm: int) -> None:
        """Every wallet, the farm, the tray (never moved by Farmer) and the whole ledger."""
        expected = {p: (a, in_play) for p, a in zip(self.players, available, strict=True)}
        assert self.balances() == expected
        assert self.farm() == farm
        assert self.floor.tray(self.id) == TRAY
        assert sum(available) + len(self.players) * in_play + farm == BUY_IN * len(self.players)
        assert_ledger_sound()


def test_sixteen_wins_the_farm_busts_pay_the_farmer_and_reserves_are_held(floor: ApiFloor) -> None:
    t = FarmerTable(floor)
    p1, p2, p3, p4, p5 = t.players
    round_ = t.start()
    rid = round_["id"]
    assert round_["state"]["phase"] == "draw"
    assert round_["state"]["farm"] == 5 * ANTE
    # Antes are in the farm; what is left of each reserve is held, and shows as in play.
    t.assert_money([BUY_IN - RESERVE] * 5, in_play=RESERVE - ANTE, farm=5 * ANTE)

    cards = {p2: "10S", p3: "5H", p4: "7D", p5: "AS", p1: "2C"}
    assert t.deal(rid, cards, 400)["error"]["code"] == "illegal_action"  # the farmer comes first
    round_ = t.act(rid, {"type": "farmer", "player": p1})
    assert round_["state"]["farmer"] == p1
    assert round_["state"]["order"] == [p2, p3, p4, p5, p1]  # from the farmer's left, farmer last
    for card in ("8S", "6S"):  # no 8s in a Farmer deck, and of the 6s only the 6 of hearts
        assert t.deal(rid, {**cards, p1: card}, 400)["error"]["code"] == "card_not_in_shoe"
    round_ = t.deal(rid, {p2: "10S", p3: "5H", p4: "7D", p5: "AS", p1: "2C"})
    assert round_["state"]["turn"] == p2
    assert all(hand["hand"] is None and hand["cards"] == 1 for hand in round_["state"]["players"])

    before = t.floor.round(rid)
    refused = [
        ({"type": "stay", "player": p2}, "illegal_action"),  # must hit at least once
        ({"type": "hit", "player": p3, "card": "KS"}, "not_your_turn"),
        ({"type": "hit", "player": p2, "card": "10S"}, "card_not_in_shoe"),  # already dealt
    ]
    for action, code in refused:
        assert t.act(rid, action, 400)["error"]["code"] == code
    assert t.floor.round(rid) == before

    t.take_turns(rid, [("hit", p2, "6H"), ("stay", p2, None)])  # 10 + 6 = 16
    t.take_turns(rid, [("hit", p3, "KS"), ("hit", p3, "4C"), ("stay", p3, None)])  # 5 + 10 + 4 = 19: bust
    t.take_turns(rid, [("hit", p4, "7S"), ("stay", p4, None)])  # 14
    t.take_turns(rid, [("hit", p5, "2D"), ("stay", p5, None)])  # 3
    # Still in play: the bust is not shown, nothing has moved, the reserves are still held.
    live = t.floor.round(rid)
    assert live["status"] == "in_play"
    assert live["state"]["result"] is None
    assert all(hand["total"] is None for hand in live["state"]["players"])
    t.assert_money([BUY_IN - RESERVE] * 5, in_play=RESERVE - ANTE, farm=5 * ANTE)
    round_ = t.take_turns(rid, [("hit", p1, "3D"), ("hit", p1, "9C"), ("stay", p1, None)])  # 2 + 3 + 9 = 14

    assert round_["status"] == "settled"
    result = round_["state"]["result"]
    assert result == {"farm_winner": p2, "best_total": None, "best": [], "busted": [p3], "next_farmer": p2}
    totals = {hand["player"]: hand["total"] for hand in round_["state"]["players"]}
    assert totals == {p1: 14, p2: 16, p3: 19, p4: 14, p5: 3}
    # p2 takes the farm ($25); busted p3 pays the farmer p1 one ante; reserves are released.
    t.assert_money([20_000, 22_000, 19_000, 19_500, 19_500], farm=0)
    farm = f"pot:{t.id}:farm"
    every = t.floor.round(rid)["settlements"]  # GET lists them all; the last stay's answer its own
    wallet = {s["player"]: s["from"] for s in every if s["kind"] == "ante"}
    assert sorted(wallet) == sorted(t.players)
    moved = sorted((s["kind"], s["from"], s["to"], s["amount"]) for s in every)
    assert [m for m in moved if m[0] != "ante"] == [
        ("bust", wallet[p3], wallet[p1], ANTE),
        ("pot", farm, wallet[p2], 2_500),
    ]
    assert {m[2] for m in moved if m[0] == "ante"} == {farm}
    assert t.act(rid, {"type": "stay", "player": p1}, 409)["error"]["code"] == "round_over"


def play_first_round(t: FarmerTable) -> None:
    """Round 1 of the test above: p2 wins the farm with 16 and farms next; p3 busts."""
    p1, p2, p3, p4, p5 = t.players
    rid = t.start()["id"]
    t.act(rid, {"type": "farmer", "player": p1})
    t.deal(rid, {p2: "10S", p3: "5H", p4: "7D", p5: "AS", p1: "2C"})
    t.take_turns(
        rid,
        [
            ("hit", p2, "6H"),
            ("stay", p2, None),
            ("hit", p3, "KS"),
            ("hit", p3, "4C"),
            ("stay", p3, None),
            ("hit", p4, "7S"),
            ("stay", p4, None),
            ("hit", p5, "2D"),
            ("stay", p5, None),
            ("hit", p1, "3D"),
            ("hit", p1, "9C"),
            ("stay", p1, None),
        ],
    )


def test_unwon_farm_carries_over_and_closing_splits_it_to_the_cent(floor: ApiFloor) -> None:
    t = FarmerTable(floor)
    p1, p2, p3, p4, p5 = t.players
    play_first_round(t)
    t.assert_money([20_000, 22_000, 19_000, 19_500, 19_500], farm=0)

    # Round 2: p2 farms again (the winner of the farm farms next); no farmer keyed this time.
    round_ = t.start()
    rid = round_["id"]
    assert round_["state"]["farmer"] == p2
    assert round_["state"]["order"] == [p3, p4, p5, p1, p2]
    assert round_["players"] == [p3, p4, p5, p1, p2]
    assert t.act(rid, {"type": "farmer", "player": p1}, 400)["error"]["code"] == "illegal_action"
    t.assert_money([19_000, 21_000, 18_000, 18_500, 18_500], in_play=RESERVE - ANTE, farm=2_500)
    t.deal(rid, {p3: "10H", p4: "9S", p5: "KD", p1: "5C", p2: "7H"})
    round_ = t.take_turns(
        rid,
        [
            ("hit", p3, "5S"),  # 15
            ("stay", p3, None),
            ("hit", p4, "6H"),  # 15
            ("stay", p4, None),
            ("hit", p5, "QS"),  # 20: bust
            ("stay", p5, None),
            ("hit", p1, "2H"),  # 7
            ("stay", p1, None),
            ("hit", p2, "3C"),  # 10
            ("hit", p2, "5D"),  # 15
            ("stay", p2, None),
        ],
    )
    result = round_["state"]["result"]
    assert result == {
        "farm_winner": None,
        "best_total": 15,
        "best": [p3, p4, p2],
        "busted": [p5],
        "next_farmer": p2,
    }
    # No 16: the farm stays. p1 (7) pays one ante into a side pot shared by the three 15s:
    # 166 each, and the 2 cents left over go to the farm. Busted p5 pays the farmer p2.
    t.assert_money([19_000, 22_166, 18_666, 19_166, 18_500], farm=2_502)
    assert get_balance(code=f"pot:{t.id}:side") == 0
    every = t.floor.round(round_["id"])["settlements"]  # GET lists them all
    kinds = {s["kind"]: s["amount"] for s in every if s["kind"] != "ante"}
    assert kinds == {"low_hand": 500, "side_pot": 166, "side_pot_remainder": 2, "bust": 500}

    # Round 3: the farm carries (2 502 + 5 antes); one best total, paid directly by the others.
    round_ = t.start()
    rid = round_["id"]
    assert round_["state"]["farm"] == 5_002
    assert round_["state"]["farmer"] == p2
    t.deal(rid, {p3: "AH", p4: "2S", p5: "3S", p1: "4S", p2: "JS"})
    closing = t.floor.post(t.floor.dealer, f"tables/{t.id}/close", {"closing_inventory": TRAY}, 409)
    assert closing["error"]["code"] == "round_live"  # never while a round is live
    round_ = t.take_turns(
        rid,
        [
            ("hit", p3, "4D"),  # 5
            ("stay", p3, None),
            ("hit", p4, "5H"),  # 7
            ("stay", p4, None),
            ("hit", p5, "9H"),  # 12
            ("stay", p5, None),
            ("hit", p1, "10C"),  # 14: best
            ("stay", p1, None),
            ("hit", p2, "2C"),  # 12
            ("stay", p2, None),
        ],
    )
    assert round_["state"]["result"]["best"] == [p1]
    t.assert_money([20_500, 21_166, 17_666, 18_166, 17_500], farm=5_002)

    # The unwon farm is split among round 3's players: 1 000 each, and the 2 odd cents one
    # at a time from the farmer's left (p3, then p4). The tray never moved: no house win.
    summary = t.floor.close_table(t.id, TRAY)
    # The drop is the cash recorded into the table's box: every chip here was bought at the cage.
    assert summary["drop"] == 0
    assert (summary["win"], summary["variance"], summary["fills"], summary["credits"]) == (0, 0, 0, 0)
    assert summary["closing_inventory"] == summary["closing_ledger"] == TRAY
    t.assert_money([21_500, 22_166, 18_667, 19_167, 18_500], farm=0)
    assert t.floor.table(t.id)["status"] == "closed"


# --------------------------------------------------------------------------- electronic shoe

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FARMER_DECK = tuple(
    r + suit for suit in "SHDC" for r in RANKS if r != "8" and (r != "6" or suit == "H")
)  # 45 cards in the documented canonical order


def points(card: str) -> int:
    r = card[:-1]
    return 1 if r == "A" else 10 if r in {"J", "Q", "K"} else int(r)


def showdown(
    hands: dict[int, list[str]], order: list[int], farmer: int, farm: int
) -> tuple[dict[int, int], int]:
    """GAMES.md "Farmer" settlement, steps 1-3: each player's net and the farm after it."""
    net = dict.fromkeys(order, 0)
    total = {p: sum(points(c) for c in hands[p]) for p in order}
    sixteens = [p for p in order if total[p] == 16]
    if sixteens:
        with_six = [p for p in sixteens if "6H" in hands[p]]
        fewest = min(len(hands[p]) for p in sixteens)
        tied = [p for p in sixteens if len(hands[p]) == fewest]
        winner = with_six[0] if with_six else farmer if farmer in tied else tied[0]
        net[winner] += farm
        farm = 0
    else:
        live = [p for p in order if total[p] <= 16]
        if live:
            best_total = max(total[p] for p in live)
            best = [p for p in live if total[p] == best_total]
            payers = [p for p in live if total[p] < best_total]
            share, remainder = divmod(ANTE * len(payers), len(best))
            for p in payers:
                net[p] -= ANTE
            for p in best:
                net[p] += share
            farm += remainder
    for p in order:
        if total[p] > 16 and p != farmer:
            net[p] -= ANTE
            net[farmer] += ANTE
    return net, farm


def test_electronic_first_round_draws_the_farmer_from_a_second_committed_deck(floor: ApiFloor) -> None:
    t = FarmerTable(floor, players=4)
    round_ = t.start_electronic()
    rid = round_["id"]
    state = round_["state"]
    commitment = round_["commitment"]
    farmer = state["farmer"]
    assert state["phase"] == "deal"
    assert state["farmer_draw"][-1] == {"player": farmer, "card": "6H"}
    assert floor.get(floor.pit_boss, f"rounds/{rid}") == round_
    refused = floor.expect(floor.client(floor.pit_boss).get(f"/api/v1/rounds/{rid}/verify"), 409)
    assert refused["error"]["code"] == "round_live"
    assert t.act(rid, {"type": "deal", "cards": {str(p): "AS" for p in t.players}}, 400)["error"]["code"] == (
        "illegal_action"
    )  # an electronic shoe deals its own cards
    t.act(rid, {"type": "deal"})
    order = state["order"]
    for p in order:
        round_ = t.take_turns(rid, [("hit", p, None), ("stay", p, None)])
    assert round_["status"] == "settled"

    verify = floor.get(floor.pit_boss, f"rounds/{rid}/verify")
    seed = verify["server_seed"]
    assert verify["commitment"] == commitment == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert verify["deck"] == list(shuffle(FARMER_DECK, seed))
    (draw,) = verify["extra"]
    assert draw["commitment"] == hashlib.sha256(bytes.fromhex(draw["server_seed"])).hexdigest()
    assert draw["deck"] == list(shuffle(FARMER_DECK, draw["server_seed"]))
    # The 6♥ draw: face up, one card at a time from the lowest seat's left, until the 6♥.
    receivers = t.players[1:] + t.players[:1]
    until = draw["deck"].index("6H") + 1
    expected_draw = [{"player": receivers[i % 4], "card": c} for i, c in enumerate(draw["deck"][:until])]
    assert state["farmer_draw"] == expected_draw
    seat = t.players.index(farmer)
    assert order == t.players[seat + 1 :] + t.players[: seat + 1]  # from the farmer's left, farmer last

    deck = verify["deck"]
    hands = {p: [deck[i], deck[4 + i]] for i, p in enumerate(order)}  # the deal, then one hit each
    shown = {h["player"]: h["hand"] for h in round_["state"]["players"]}
    assert shown == hands
    net, farm = showdown(hands, order, farmer, 4 * ANTE)
    t.assert_money([BUY_IN - ANTE + net[p] for p in t.players], farm=farm)
