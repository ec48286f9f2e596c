"""Faro rounds end to end through the HTTP API, money checked to the cent (API.md "Rounds").

Every step is a request a dealer, a pit boss or the cage would make. The expected money is
never taken from the engine: an electronic deal is checked against ``FaroBook``, a small
model of GAMES.md "Faro" written here and folded over the bets the test placed and the deck
``/verify`` reveals; a manual deal is keyed by the test, so its balances are fixed numbers.
After every test each round must replay exactly (``tables.replay`` and ``replay_round``).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from ledger.selectors import get_balance
from tables.games.cards import FULL_DECK
from tables.games.shoe import shuffle
from tests.factories import ApiFloor
from tests.tables.api_tables import assert_ledger_sound

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)  # the documented canonical order
EVEN = {"2", "4", "6", "8", "10", "Q"}
BUY_IN = 300_000
TRAY = 1_000_000

pytestmark = pytest.mark.usefixtures("rounds_replay_exactly")  # every test: rounds replay, ledger balances


def rank(card: str) -> str:
    return card[:-1]


# --------------------------------------------------------------------------- an independent model


@dataclass(frozen=True)
class RefBet:
    player: int
    amount: int
    ranks: tuple[str, ...] = ()
    target: str | None = None
    coppered: bool = False
    order: tuple[str, ...] = ()  # a called turn: loser, winner, hock


class FaroBook:
    """Where every chip should be, by GAMES.md alone: wallets and the tray as deltas, layouts whole."""

    def __init__(self) -> None:
        self.wallet: Counter[int] = Counter()
        self.layout: Counter[int] = Counter()
        self.tray = 0
        self.bets: dict[str, RefBet] = {}

    def _pay(self, bet: RefBet, amount: int) -> None:  # the bank pays a winner into the wallet
        self.tray -= amount
        self.wallet[bet.player] += amount

    def _off_layout(self, bet: RefBet, amount: int, *, to_bank: bool) -> None:
        self.layout[bet.player] -= amount
        if to_bank:
            self.tray += amount
        else:
            self.wallet[bet.player] += amount

    def place(self, bet_id: str, bet: RefBet) -> None:
        self.bets[bet_id] = bet
        self.wallet[bet.player] -= bet.amount
        self.layout[bet.player] += bet.amount

    def remove(self, bet_id: str) -> None:
        bet = self.bets.pop(bet_id)
        self._off_layout(bet, bet.amount, to_bank=False)

    def turn(self, loser: str, winner: str) -> None:
        for bet_id, bet in list(self.bets.items()):
            if bet.order:
                continue  # calls wait for the hock
            if bet.target is not None:
                self._target(bet_id, bet, loser, winner)
            else:
                self._rank(bet_id, bet, loser, winner)

    def _target(self, bet_id: str, bet: RefBet, loser: str, winner: str) -> None:
        del self.bets[bet_id]  # even / odd / high are decided by the next turn, whatever it is
        if loser == winner:
            half = bet.amount // 2
            self._off_layout(bet, half, to_bank=True)
            self._off_layout(bet, bet.amount - half, to_bank=False)
            return
        if bet.target == "even":
            won = winner in EVEN
        elif bet.target == "odd":
            won = winner not in EVEN
        else:
            won = RANKS.index(winner) > RANKS.index(loser)
        if won:
            self._pay(bet, bet.amount)
        self._off_layout(bet, bet.amount, to_bank=not won)

    def _rank(self, bet_id: str, bet: RefBet, loser: str, winner: str) -> None:
        if loser == winner:
            if loser in bet.ranks:  # a split: the bank takes half, the rest stays
                half = bet.amount // 2
                self._off_layout(bet, half, to_bank=True)
                self.bets[bet_id] = replace(bet, amount=bet.amount - half)
            return
        loses, wins = loser in bet.ranks, winner in bet.ranks
        if loses == wins:
            return  # untouched, or covering both: a push
        if wins != bet.coppered:
            self._pay(bet, bet.amount)  # paid, and the stake stays on the layout
        else:
            del self.bets[bet_id]
            self._off_layout(bet, bet.amount, to_bank=True)

    def last_turn(self, loser: str, winner: str, hock: str) -> None:
        self.turn(loser, winner)
        for bet_id, bet in list(self.bets.items()):
            del self.bets[bet_id]
            if not bet.order:
                self._off_layout(bet, bet.amount, to_bank=False)  # back to the player after the hock
            elif bet.order == (loser, winner, hock):
                self._pay(bet, bet.amount * (2 if len(set(bet.order)) == 2 else 4))
                self._off_layout(bet, bet.amount, to_bank=False)
            else:
                self._off_layout(bet, bet.amount, to_bank=True)


Entry = tuple[str, Any]  # ("bet", (id, RefBet)) | ("remove", id) | ("turn", None) | ("last_turn", None)


def fold(log: Sequence[Entry], cards: Sequence[str]) -> FaroBook:
    """Replay the test's own log against cards after the soda, in the order they left the shoe."""
    book, shoe = FaroBook(), iter(cards)
    for kind, data in log:
        if kind == "bet":
            book.place(*data)
        elif kind == "remove":
            book.remove(data)
        elif kind == "turn":
            book.turn(rank(next(shoe)), rank(next(shoe)))
        else:
            book.last_turn(rank(next(shoe)), rank(next(shoe)), rank(next(shoe)))
    return book


def cards_shown(state: dict[str, Any]) -> list[str]:
    """The turns' cards as the public state shows them (soda excluded)."""
    shown: list[str] = []
    for turn in state["turns"]:
        shown += [turn["banker"], turn["player"]] + ([turn["hock"]] if "hock" in turn else [])
    return shown


# --------------------------------------------------------------------------- the floor


@dataclass
class Deal:
    """One table, its punters and a round, with the test's log of what it did to the round."""

    floor: ApiFloor
    table: int
    players: list[int]
    buy_ins: dict[int, int]
    tray: int
    round: dict[str, Any]
    log: list[Entry]

    @property
    def id(self) -> int:
        return int(self.round["id"])

    @property
    def state(self) -> dict[str, Any]:
        return self.round["state"]

    def act(self, action: dict[str, Any], *, status: int = 200, key: str | None = None) -> Any:
        body = self.floor.act(self.id, action, status=status, key=key)
        if status == 200:
            self.round = body
        return body

    def bet(self, player: int, amount: int, **placement: Any) -> str:
        self.act({"type": "bet", "player": player, "amount": amount, **placement})
        shown = self.state["bets"][-1]
        assert (shown["player"], shown["amount"]) == (player, amount)
        ref = RefBet(
            player,
            amount,
            ranks=tuple(placement.get("ranks", ())),
            target=placement.get("target"),
            coppered=placement.get("coppered", False),
        )
        self.log.append(("bet", (shown["id"], ref)))
        return str(shown["id"])

    def call_turn(self, player: int, order: Sequence[str], amount: int) -> str:
        self.act({"type": "call_turn", "player": player, "order": list(order), "amount": amount})
        shown = self.state["bets"][-1]
        self.log.append(("bet", (shown["id"], RefBet(player, amount, order=tuple(order)))))
        return str(shown["id"])

    def remove(self, bet_id: str) -> None:
        self.act({"type": "remove_bet", "bet": bet_id})
        self.log.append(("remove", bet_id))

    def turn(self, cards: Sequence[str] | None = None) -> None:
        self.act({"type": "turn"} if cards is None else {"type": "turn", "cards": list(cards)})
        self.log.append(("turn", None))

    def last_turn(self, cards: Sequence[str] | None = None) -> None:
        self.act({"type": "last_turn"} if cards is None else {"type": "last_turn", "cards": list(cards)})
        self.log.append(("last_turn", None))

    def money(self) -> tuple[int, dict[int, tuple[int, int]]]:
        """(tray, {player: (available, in_play)}) as the API reports them now."""
        balances = {p: self.floor.balance(p) for p in self.players}
        for b in balances.values():
            assert b["total"] == b["available"] + b["in_play"]
        return self.floor.tray(self.table), {p: (b["available"], b["in_play"]) for p, b in balances.items()}

    def snapshot(self) -> tuple[Any, ...]:
        """Everything an action could move; equal snapshots mean nothing moved."""
        current = self.floor.round(self.id)
        # The last action's answer listed only its own settlements; GET lists them all.
        unchanged = {k: v for k, v in current.items() if k != "settlements"}
        assert unchanged == {k: v for k, v in self.round.items() if k != "settlements"}, (
            "the round changed although the request was refused"
        )
        assert len(current["settlements"]) == current["settlements_count"]
        return self.money(), current["version"], current["settlements"], current["state"]

    def assert_matches(self, book: FaroBook) -> None:
        tray, balances = self.money()
        assert tray == self.tray + book.tray
        for p in self.players:
            assert balances[p] == (self.buy_ins[p] + book.wallet[p], book.layout[p]), f"player {p}"


def new_deal(
    floor: ApiFloor,
    *,
    shoe: str,
    buy_ins: Sequence[int] = (BUY_IN, BUY_IN, BUY_IN),
    min_bet: int = 500,
    max_bet: int = 20_000,
    rules: dict[str, Any] | None = None,
) -> Deal:
    table = floor.open_table(game="faro", min_bet=min_bet, max_bet=max_bet, rules=rules, inventory=TRAY)
    assert table["tray_balance"] == TRAY
    assert table["status"] == "open"
    players = [floor.new_player(buy_in=amount) for amount in buy_ins]
    for seat, player in enumerate(players, start=1):
        floor.seat(table["id"], player, seat)
    round_ = floor.start_round(table["id"], shoe)
    assert round_["status"] == "betting"
    assert round_["shoe"] == shoe
    assert round_["version"] == 0
    return Deal(floor, table["id"], players, dict(zip(players, buy_ins, strict=True)), TRAY, round_, [])


def settlement_flows(round_: dict[str, Any]) -> Counter[str]:
    """Net cents into each ledger account over the round's settlements."""
    flows: Counter[str] = Counter()
    for s in round_["settlements"]:
        assert s["amount"] > 0
        flows[s["from"]] -= s["amount"]
        flows[s["to"]] += s["amount"]
    return flows


# --------------------------------------------------------------------------- electronic shoe

PLACEMENTS: tuple[tuple[str, ...], ...] = (
    *((r,) for r in RANKS),
    ("K", "A"),  # one above the other
    ("Q", "10"),  # one card between, top row
    ("A", "3"),  # one card between, bottom row
    ("10", "3"),  # diagonal in a square
    ("J", "Q"),  # side by side
    ("7", "8"),
    ("10", "4", "9"),  # three of a square
    ("6", "7", "8"),
    ("9", "8", "5", "6"),  # a whole square
)


def live(deal: Deal, placement: Sequence[str]) -> bool:
    return all(deal.state["casekeeper"][r]["left"] > 0 for r in placement)


def test_electronic_deal_pays_every_cent_and_verifies(floor: ApiFloor) -> None:
    # chip = 1 cent, so odd stakes split into odd halves and the rounding is checked too.
    deal = new_deal(floor, shoe="electronic", rules={"chip": 1})
    p1, p2, p3 = deal.players
    commitment = deal.round["commitment"]
    assert len(commitment) == 64
    assert deal.state["soda"] is not None
    refused = floor.expect(floor.client(floor.pit_boss).get(f"/api/v1/rounds/{deal.id}/verify"), 409)
    assert refused["error"]["code"] == "round_live"

    rng = random.Random(20261122)
    deal.bet(p1, 1_001, ranks=["K"])
    deal.bet(p2, 2_503, ranks=["K", "A"])  # a two-rank placement
    deal.bet(p3, 1_777, ranks=["5"], coppered=True)
    deal.bet(p1, 1_002, target="even")
    deal.bet(p2, 1_250, target="odd")
    deal.bet(p3, 3_333, target="high")
    deal.assert_matches(fold(deal.log, cards_shown(deal.state)))

    targets = ("even", "odd", "high")
    turns = 0
    while deal.state["next_action"] == "turn":
        assert not deal.state["can_call_turn"]
        deal.turn()
        turns += 1
        assert deal.round["status"] == "in_play"
        assert deal.state["turn"] == turns
        assert deal.state["cards_remaining"] == 51 - 2 * turns
        deal.assert_matches(fold(deal.log, cards_shown(deal.state)))
        who = deal.players[turns % 3]
        deal.bet(who, rng.randrange(500, 5_000), target=targets[turns % 3])
        if turns % 3 == 0:
            choices = [p for p in PLACEMENTS if live(deal, p)]
            coppered = turns % 2 == 0
            deal.bet(
                deal.players[(turns + 1) % 3],
                rng.randrange(500, 8_000),
                ranks=list(rng.choice(choices)),
                coppered=coppered,
            )
        if turns % 5 == 0:
            on_layout = [b["id"] for b in deal.state["bets"] if b.get("ranks")]
            if on_layout:
                deal.remove(rng.choice(on_layout))
    assert turns == 24
    assert deal.state["next_action"] == "last_turn"
    assert deal.state["cards_remaining"] == 3

    left = [r for r in RANKS for _ in range(deal.state["casekeeper"][r]["left"])]
    if deal.state["can_call_turn"]:
        orders = sorted(
            {(a, b, c) for a in left for b in left for c in left if Counter((a, b, c)) == Counter(left)}
        )
        deal.call_turn(p1, orders[0], 1_000)
        deal.call_turn(p2, orders[-1], 2_001)
        deal.call_turn(p3, orders[len(orders) // 2], 700)
    else:  # three of a kind: no calls
        body = deal.act({"type": "call_turn", "player": p1, "order": left, "amount": 1_000}, status=400)
        assert body["error"]["code"] == "illegal_action"
    deal.last_turn()
    assert deal.round["status"] == "settled"
    assert deal.state["phase"] == "settled"
    assert deal.state["bets"] == []
    assert deal.state["next_action"] is None

    # The seed is revealed now; the deck is recomputed here from the documented algorithm.
    verify = floor.expect(floor.client(floor.pit_boss).get(f"/api/v1/rounds/{deal.id}/verify"), 200)
    seed = verify["server_seed"]
    assert verify["commitment"] == commitment == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert DECK == FULL_DECK
    assert verify["deck"] == list(shuffle(DECK, seed))
    assert sorted(verify["deck"]) == sorted(DECK)
    assert deal.state["soda"] == verify["deck"][0]
    assert cards_shown(deal.state) == verify["deck"][1:]

    book = fold(deal.log, verify["deck"][1:])
    assert book.bets == {}
    assert all(v == 0 for v in book.layout.values())
    deal.assert_matches(book)
    for p in deal.players:
        assert get_balance(code=f"layout:{deal.table}:{p}") == 0
    flows = settlement_flows(floor.round(deal.id))  # GET lists every settlement
    assert flows[f"tray:{deal.table}"] == book.tray
    assert sum(flows.values()) == 0
    assert_ledger_sound()
    assert any(entry[0] == "remove" for entry in deal.log)


def test_verify_is_refused_for_a_manual_shoe(floor: ApiFloor) -> None:
    deal = new_deal(floor, shoe="manual", buy_ins=(BUY_IN,))
    body = floor.expect(floor.client(floor.pit_boss).get(f"/api/v1/rounds/{deal.id}/verify"), 409)
    assert body["error"]["code"] in {"manual_shoe", "round_live"}
    assert deal.round["commitment"] == ""


# --------------------------------------------------------------------------- manual shoe


def deal_out(deal: Deal) -> None:
    """Key the rest of the deck in canonical order until the hock (used once no bets are down)."""
    while deal.state["next_action"] != "last_turn":
        dealt = {deal.state["soda"], *cards_shown(deal.state)}
        deal.turn([c for c in DECK if c not in dealt][:2])
    dealt = {deal.state["soda"], *cards_shown(deal.state)}
    deal.last_turn([c for c in DECK if c not in dealt])
    assert deal.round["status"] == "settled"


def test_manual_deal_split_win_loss_copper_and_calls(floor: ApiFloor) -> None:
    deal = new_deal(floor, shoe="manual", buy_ins=(100_000, 100_000, 100_000))
    p1, p2, p3 = deal.players
    assert deal.state["next_action"] == "soda"
    b1 = deal.bet(p1, 2_000, ranks=["K"])
    deal.bet(p2, 3_000, ranks=["Q", "2"])
    deal.bet(p3, 1_000, ranks=["9"], coppered=True)
    deal.bet(p1, 1_000, target="even")
    deal.bet(p2, 1_500, target="high")
    deal.bet(p3, 500, target="odd")
    assert deal.money() == (TRAY, {p1: (97_000, 3_000), p2: (95_500, 4_500), p3: (98_500, 1_500)})

    deal.act({"type": "soda", "card": "3D"})
    assert deal.money()[0] == TRAY
    assert deal.round["status"] == "betting"
    # 9 loses, K wins: K paid (stays), coppered 9 paid (stays), even lost, high and odd paid.
    deal.turn(["9S", "KH"])
    assert deal.round["status"] == "in_play"
    assert deal.money() == (
        TRAY - 4_000,
        {p1: (97_000 + 2_000, 2_000), p2: (95_500 + 3_000, 3_000), p3: (98_500 + 1_000 + 1_000, 1_000)},
    )

    # Refused: a stale version, and a card the shoe has already given. Nothing moves.
    before = deal.snapshot()
    stale = deal.act(
        {"type": "bet", "player": p1, "ranks": ["J"], "amount": 500, "version": deal.round["version"] - 1},
        status=409,
    )
    assert stale["error"]["code"] == "stale_round"
    again = deal.act({"type": "turn", "cards": ["KH", "5S"]}, status=400)
    assert again["error"]["code"] == "card_not_in_shoe"
    soda = deal.act({"type": "turn", "cards": ["5S", "3D"]}, status=400)
    assert soda["error"]["code"] == "card_not_in_shoe"
    assert deal.snapshot() == before

    assert deal.bet(p1, 1_000, target="odd", version=deal.round["version"]) == "b7"
    # Split on Q: the bank takes half of the Q-2 stack (1 500 stays) and half of the odd bet.
    deal.turn(["QD", "QC"])
    assert deal.state["latest_turn"]["split"] is True
    q2 = next(b for b in deal.state["bets"] if b.get("ranks") == ["2", "Q"])
    assert q2["amount"] == 1_500
    deal.turn(["2S", "4H"])  # the 2 loses: the rest of the Q-2 stack goes to the bank
    deal.remove(b1)  # the K stack comes home
    assert [b["ranks"] for b in deal.state["bets"]] == [["9"]]
    assert deal.money() == (TRAY - 500, {p1: (100_500, 0), p2: (98_500, 0), p3: (100_500, 1_000)})

    # 21 more turns; the only 9 among them (9C) comes as a banker's card: the coppered 9 wins again.
    last = ["9H", "7C", "9D"]
    used = {"3D", "9S", "KH", "QD", "QC", "2S", "4H", *last}
    rest = [c for c in DECK if c not in used]
    rest.remove("9C")
    rest.insert(0, "9C")
    for i in range(0, len(rest), 2):
        deal.turn(rest[i : i + 2])
    assert deal.state["next_action"] == "last_turn"
    assert deal.state["can_call_turn"]
    assert deal.state["dead_ranks"] == [r for r in RANKS if r not in {"7", "9"}]
    dead = deal.act({"type": "bet", "player": p2, "ranks": ["K"], "amount": 500}, status=400)
    assert dead["error"]["code"] == "dead_rank"
    deal.call_turn(p1, ["9", "7", "9"], 1_000)  # right: a cat-hop pays 2 to 1
    deal.call_turn(p2, ["7", "9", "9"], 500)  # wrong
    deal.last_turn(last)

    final = {p1: (102_500, 0), p2: (98_000, 0), p3: (103_500, 0)}
    assert deal.money() == (996_000, final)
    assert deal.round["status"] == "settled"
    assert deal.state["hock"] == "9D"
    cards = cards_shown(deal.state)
    book = fold(deal.log, cards)
    deal.assert_matches(book)
    assert sum(v for v in book.wallet.values()) == -book.tray == 4_000
    for p in deal.players:
        assert get_balance(code=f"layout:{deal.table}:{p}") == 0
    frame = deal.state["casekeeper"]
    assert frame["9"] == {"soda": [], "losers": ["9S", "9C", "9H"], "winners": [], "hock": ["9D"], "left": 0}
    assert frame["3"]["soda"] == ["3D"]
    every = floor.round(deal.id)  # GET lists every settlement; an action's answer only its own
    kinds = Counter(s["kind"] for s in every["settlements"])
    assert {"bet", "win", "loss", "split", "return", "withdraw"} <= set(kinds)
    flows = settlement_flows(every)
    assert flows[f"tray:{deal.table}"] == -4_000
    assert_ledger_sound()
    over = deal.act({"type": "turn", "cards": ["AS", "2H"]}, status=409)
    assert over["error"]["code"] == "round_over"


def test_split_halves_round_down_and_the_odd_cent_stays_on_the_layout(floor: ApiFloor) -> None:
    deal = new_deal(floor, shoe="manual", buy_ins=(50_000,), rules={"chip": 1})
    (p1,) = deal.players
    deal.act({"type": "soda", "card": "AS"})
    b1 = deal.bet(p1, 1_001, ranks=["7"])
    deal.bet(p1, 1_001, target="even")
    b3 = deal.bet(p1, 1_001, ranks=["7", "8"], coppered=True)
    deal.turn(["7S", "7H"])  # split: 500 of each stack to the bank; 501 stays, 501 of "even" comes back
    assert [b["amount"] for b in deal.state["bets"]] == [501, 501]
    assert deal.money() == (TRAY + 1_500, {p1: (47_498, 1_002)})
    deal.turn(["7D", "7C"])  # split again: 250 each to the bank, 251 stays
    assert [b["amount"] for b in deal.state["bets"]] == [251, 251]
    assert deal.money() == (TRAY + 2_000, {p1: (47_498, 502)})
    assert "7" in deal.state["dead_ranks"]
    for ranks in (["7"], ["6", "7"]):
        dead = deal.act({"type": "bet", "player": p1, "ranks": ranks, "amount": 600}, status=400)
        assert dead["error"]["code"] == "dead_rank"
    deal.turn(["8S", "2H"])  # the coppered 7-8 wins 251 on the 8; the stack on the dead 7 stays
    assert deal.money() == (TRAY + 1_749, {p1: (47_749, 502)})
    deal.remove(b3)
    deal_out(deal)  # the 251 left on the dead 7 comes back after the hock
    assert deal.money() == (TRAY + 1_749, {p1: (48_251, 0)})
    assert b1 == "b1"
    deal.assert_matches(fold(deal.log, cards_shown(deal.state)))


def test_limits_seats_and_funds_are_checked_before_anything_moves(floor: ApiFloor) -> None:
    deal = new_deal(floor, shoe="manual", buy_ins=(100_000, 100_000, 1_000), max_bet=10_000)
    p1, p2, poor = deal.players
    stranger = floor.new_player(buy_in=100_000)  # funded but not seated here
    deal.act({"type": "soda", "card": "AS"})
    b1 = deal.bet(p1, 8_000, ranks=["5"])

    before = deal.snapshot()
    cases = [
        ({"player": p2, "ranks": ["K"], "amount": 10_100}, 400, "limit_exceeded"),
        ({"player": p2, "ranks": ["K"], "amount": 400}, 400, "below_minimum"),
        ({"player": stranger, "ranks": ["K"], "amount": 1_000}, 400, "not_seated"),
        ({"player": poor, "ranks": ["K"], "amount": 2_000}, 409, "insufficient_funds"),
        ({"player": poor, "target": "high", "amount": 1_100}, 409, "insufficient_funds"),
        ({"player": p2, "ranks": ["K", "Q", "J"], "amount": 1_000}, 400, "bad_placement"),
    ]
    for body, status, code in cases:
        error = deal.act({"type": "bet", **body}, status=status)
        assert error["error"]["code"] == code, body
    assert deal.snapshot() == before
    assert floor.balance(stranger)["available"] == 100_000

    # The pit raises the minimum and lowers the maximum mid-deal: only new bets feel it.
    limits = {"min_bet": 1_000, "max_bet": 5_000}
    table = floor.expect(
        floor.client(floor.pit_boss).patch(f"/api/v1/tables/{deal.table}/limits", limits, format="json"), 200
    )
    assert (table["min_bet"], table["max_bet"]) == (1_000, 5_000)
    assert (
        deal.act({"type": "bet", "player": p2, "ranks": ["K"], "amount": 8_000}, status=400)["error"]["code"]
        == "limit_exceeded"
    )
    assert (
        deal.act({"type": "bet", "player": p2, "ranks": ["K"], "amount": 500}, status=400)["error"]["code"]
        == "below_minimum"
    )
    assert deal.snapshot() == before
    deal.bet(p2, 5_000, ranks=["K"])
    assert deal.state["limits"] == limits
    assert [(b["id"], b["amount"]) for b in deal.state["bets"]] == [(b1, 8_000), ("b2", 5_000)]

    deal.turn(["KS", "5H"])  # the $80 stack placed under the old limits is paid in full
    assert deal.money() == (TRAY - 3_000, {p1: (100_000, 8_000), p2: (95_000, 0), poor: (1_000, 0)})
    deal.remove(b1)
    deal_out(deal)
    assert deal.money() == (TRAY - 3_000, {p1: (108_000, 0), p2: (95_000, 0), poor: (1_000, 0)})
    deal.assert_matches(fold(deal.log, cards_shown(deal.state)))


def test_idempotency_key_replays_an_action_without_moving_chips_twice(floor: ApiFloor) -> None:
    deal = new_deal(floor, shoe="manual", buy_ins=(50_000,))
    (p1,) = deal.players
    deal.act({"type": "soda", "card": "4C"})
    bet = {"type": "bet", "player": p1, "ranks": ["J"], "amount": 2_000}
    first = floor.post(floor.dealer, f"rounds/{deal.id}/actions", bet, 200, HTTP_IDEMPOTENCY_KEY="bet-1")
    replayed_response = floor.client(floor.dealer).post(
        f"/api/v1/rounds/{deal.id}/actions", bet, format="json", HTTP_IDEMPOTENCY_KEY="bet-1"
    )
    assert replayed_response.status_code == 200
    assert replayed_response["Idempotent-Replayed"] == "true"
    assert replayed_response.json() == first
    deal.round = floor.round(deal.id)
    assert deal.round["version"] == first["version"] == 2
    assert len(deal.state["bets"]) == 1
    assert deal.money() == (TRAY, {p1: (48_000, 2_000)})
    deal.log.append(("bet", ("b1", RefBet(p1, 2_000, ranks=("J",)))))

    other = dict(bet, amount=3_000)
    conflict = deal.act(other, status=409, key="bet-1")
    assert conflict["error"]["code"] == "idempotency_conflict"

    # A turn retried with its key is dealt once: the J wins once, $20 not $40.
    turn = {"type": "turn", "cards": ["2D", "JD"]}
    dealt = deal.act(turn, key="turn-1")
    assert deal.act(turn, key="turn-1") == dealt
    deal.log.append(("turn", None))
    deal.round = floor.round(deal.id)
    assert deal.round["version"] == 3
    assert deal.state["turn"] == 1
    assert deal.money() == (TRAY - 2_000, {p1: (50_000, 2_000)})

    # A refused request stores nothing under its key: it is refused again (not replayed), and
    # once corrected the same key goes through.
    low = {"type": "bet", "player": p1, "ranks": ["2"], "amount": 400}
    assert deal.act(low, status=400, key="bet-2")["error"]["code"] == "below_minimum"
    assert deal.act(low, status=400, key="bet-2")["error"]["code"] == "below_minimum"
    assert deal.money() == (TRAY - 2_000, {p1: (50_000, 2_000)})
    deal.act(dict(low, amount=500), key="bet-2")
    deal.log.append(("bet", ("b2", RefBet(p1, 500, ranks=("2",)))))
    deal.remove("b1")
    deal.remove("b2")
    deal_out(deal)
    deal.assert_matches(fold(deal.log, cards_shown(deal.state)))
    assert deal.money() == (TRAY - 2_000, {p1: (52_000, 0)})


def test_a_player_id_beyond_any_stored_id_is_not_seated(floor: ApiFloor) -> None:
    """The seat is checked against the players seated at the table: an id PostgreSQL cannot hold
    is a 400, never a 500."""
    deal = new_deal(floor, shoe="manual")
    for player in (2**63, -(2**63) - 1, 2**80):
        body = deal.floor.act(
            deal.id, {"type": "bet", "player": player, "ranks": ["Q"], "amount": 500}, status=400
        )
        assert body["error"]["code"] == "not_seated"
    assert floor.round(deal.id)["version"] == 0
