"""Newmarket rounds end to end through the HTTP API: four pots, the widow, carries, the close.

Manual shoes with keyed hands make every outcome a fixed number worked out by hand from
GAMES.md "Newmarket" and "Common to all games" (arithmetic in the comments). The chip is
25 cents so that a 5 % rake of a pot has cents to floor. An electronic round is checked
for conservation and replay. The tray never moves: pots are owed to players.
"""

from __future__ import annotations

from typing import Any

from casino.models import Player
from ledger.selectors import get_balance, get_trial_balance
from tables.models import Round
from tables.replay import check_round
from tests.factories import ApiFloor, play_out, table_money
from tests.tables.api_tables import SeatedTable, moved

CHIP = 25
ANTE = 125  # five chips, into each of the four pots
RESERVE = 4 * ANTE + 30 * CHIP  # 1 250: four antes and 30 chips
RULES = {"chip": CHIP, "rake": {"kind": "percent", "percent": 5, "cap": 40}}
TRAY = 50_000
PAY_CARDS = ("AH", "KC", "QD", "JS")


def suit(s: str, ranks: str) -> list[str]:
    return [r + s for r in ranks.split()]


class NewmarketTable(SeatedTable):
    def __init__(self, floor: ApiFloor, buy_ins: tuple[int, ...], rules: dict[str, Any]) -> None:
        super().__init__(
            floor, game="newmarket", ante=ANTE, rules=rules, buy_ins=buy_ins, inventory=TRAY, min_bet=CHIP
        )

    def play(self, round_id: int, player: int, cards: list[str]) -> dict[str, Any]:
        round_: dict[str, Any] = {}
        for card in cards:
            round_ = self.act(round_id, {"type": "play", "player": player, "card": card})
        return round_

    def pot(self, card: str) -> str:
        return f"pot:{self.id}:{card}"

    def pots(self) -> dict[str, int]:
        return {card: get_balance(code=self.pot(card)) for card in PAY_CARDS}


def test_pots_carry_the_widow_is_sold_rake_floors_and_caps_and_closing_splits_to_the_cent(
    floor: ApiFloor,
) -> None:
    t = NewmarketTable(floor, (5_000, 5_000, 5_000, 1_500), RULES)
    p1, p2, p3, p4 = t.players
    w1, w2, w3, w4 = (t.wallet[p] for p in t.players)
    start = table_money(t.id, t.players)

    # Round 1: four players, p1 (lowest seat) deals; the order is p2, p3, p4, p1.
    round_ = floor.start_round(t.id, "manual")
    rid = round_["id"]
    assert (round_["state"]["dealer"], round_["players"]) == (p1, [p2, p3, p4, p1])
    # Each antes 125 into each pot: 4 x 125 = 500 a pot. Reserve 1 250, 750 left after antes.
    assert round_["state"]["pots"] == dict.fromkeys(PAY_CARDS, 500)
    assert len(round_["settlements"]) == 16
    assert t.balances() == {p1: (3_750, 750), p2: (3_750, 750), p3: (3_750, 750), p4: (250, 750)}
    # 52 cards into five hands, one at a time, widow last: 11, 11, 10, 10 and the widow 10.
    hands = {
        str(p2): suit("H", "4 5 6 7 8 9 10 J Q K A"),
        str(p3): ["2H", "3H", *suit("S", "2 3 4 5 6 7 8 9 10")],
        str(p4): [*suit("S", "J Q K A"), *suit("D", "2 3 4 5 6 7")],
        str(p1): [*suit("D", "8 9 10 J Q K A"), *suit("C", "2 3 4")],
        "widow": suit("C", "5 6 7 8 9 10 J Q K A"),
    }
    assert t.act(rid, {"type": "deal", "hands": {**hands, "widow": hands["widow"][:-1]}}, 400)
    t.act(rid, {"type": "deal", "hands": hands})
    error = t.act(rid, {"type": "keep", "player": p2}, 400)["error"]
    assert error["code"] == "not_your_turn"
    # The engine names the dealer position by id; the answer a person reads names the player.
    dealer_name = Player.objects.select_related("user").get(pk=p1).name
    assert error["message"] == f"Only the dealer position, {dealer_name}, exchanges or keeps."
    t.act(rid, {"type": "keep", "player": p1})
    # The auction: p3 opens at two chips; p4's equal bid comes later from the dealer's left
    # and cannot stand; p4 outbids; p3 outbids again. The dealer (kept) may not bid, and no
    # bid may exceed what is left of the bidder's reserve (750).
    refused = [
        ({"type": "bid", "player": p3, "amount": 40}, "illegal_action"),  # not a chip multiple
        ({"type": "bid", "player": p1, "amount": 50}, "not_your_turn"),
        ({"type": "bid", "player": p3, "amount": 775}, "limit_exceeded"),
    ]
    for action, code in refused:
        assert t.act(rid, action, 400)["error"]["code"] == code
    t.act(rid, {"type": "bid", "player": p3, "amount": 50})
    assert t.act(rid, {"type": "bid", "player": p4, "amount": 50}, 400)["error"]["code"] == "illegal_action"
    t.act(rid, {"type": "bid", "player": p4, "amount": 75})
    t.act(rid, {"type": "bid", "player": p3, "amount": 100})
    seen = len(floor.round(rid)["settlements"])
    round_ = t.act(rid, {"type": "close_auction"})
    assert moved(floor.round(round_["id"]), seen) == [
        ("widow", w3, w1, 100)
    ]  # the buyer pays the dealer position
    assert round_["state"]["widow"] == {"cards": 0, "status": "sold", "buyer": p3}

    # p2 leads the lowest heart and holds the whole run to the ace: A♥ wins its pot at once
    # (500, less 5 % = 25 for the house), and p2 is out. The others pay a chip a card:
    # p3 10 (the widow), p4 10, p1 10 -> 250 each.
    assert t.act(rid, {"type": "play", "player": p2, "card": "5H"}, 400)["error"]["code"] == "illegal_action"
    seen = round_["settlements_count"]
    round_ = t.play(rid, p2, suit("H", "4 5 6 7 8 9 10 J Q K A"))
    assert round_["status"] == "settled"
    assert round_["state"]["winner"] == p2
    assert moved(floor.round(round_["id"]), seen) == [
        ("rake", t.pot("AH"), "rake", 25),
        ("pot", t.pot("AH"), w2, 475),
        ("cards_left", w3, w2, 250),
        ("cards_left", w4, w2, 250),
        ("cards_left", w1, w2, 250),
    ]
    # p1: 5 000 - 500 + 100 - 250 = 4 350     p2: 5 000 - 500 + 475 + 750 = 5 725
    # p3: 5 000 - 500 - 100 - 250 = 4 150     p4: 1 500 - 500 - 250 = 750
    assert t.balances() == {p1: (4_350, 0), p2: (5_725, 0), p3: (4_150, 0), p4: (750, 0)}
    assert t.pots() == {"AH": 0, "KC": 500, "QD": 500, "JS": 500}  # unwon pots carry
    money = table_money(t.id, t.players)
    assert money["rake"] == 25
    assert money["tray"] == TRAY
    assert sum(money.values()) == sum(start.values())

    # Round 2: p4's 750 no longer covers a reserve of 1 250, so p4 is not dealt in. The deal
    # moves one seat left (p2); the order is p3, p1, p2. Carried pots + 3 antes of 125.
    round_ = floor.start_round(t.id, "manual")
    rid2 = round_["id"]
    assert (round_["state"]["dealer"], round_["players"]) == (p2, [p3, p1, p2])
    assert round_["state"]["pots"] == {"AH": 375, "KC": 875, "QD": 875, "JS": 875}
    assert t.balances()[p4] == (750, 0)
    hands = {
        str(p3): [*suit("C", "3 4 5 6 7 8 9 10 J Q K A"), "AH"],
        str(p1): ["2C", *suit("H", "2 3 4 5 6 7 8 9 10 J Q K")],
        str(p2): suit("S", "2 3 4 5 6 7 8 9 10 J Q K A"),
        "widow": suit("D", "2 3 4 5 6 7 8 9 10 J Q K A"),
    }
    t.act(rid2, {"type": "deal", "hands": hands})
    round_ = t.act(rid2, {"type": "exchange", "player": p2})  # p2 takes the widow; no auction
    assert round_["state"]["widow"]["status"] == "exchanged"
    assert t.act(rid2, {"type": "bid", "player": p3, "amount": 50}, 400)["error"]["code"] == "illegal_action"
    # A lead is the lowest card held of its suit: not 4♣ while p3 holds 3♣.
    assert t.act(rid2, {"type": "play", "player": p3, "card": "4C"}, 400)["error"]["code"] == "illegal_action"
    seen = round_["settlements_count"]
    round_ = t.play(rid2, p3, suit("C", "3 4 5 6 7 8 9 10 J Q K A"))
    # K♣ won 875: 5 % is 43.75, floored to 43 and capped at 40. The ace stopped clubs; p3
    # leads the other colour: A♥ wins 375: 5 % is 18.75, floored to 18. p3 is out.
    assert round_["state"]["lead_colour"] == "red"
    round_ = t.play(rid2, p3, ["AH"])
    assert round_["status"] == "settled"
    assert moved(floor.round(round_["id"]), seen) == [
        ("rake", t.pot("KC"), "rake", 40),
        ("pot", t.pot("KC"), w3, 835),
        ("rake", t.pot("AH"), "rake", 18),
        ("pot", t.pot("AH"), w3, 357),
        ("cards_left", w1, w3, 325),  # 13 cards x 25
        ("cards_left", w2, w3, 325),
    ]
    # p1: 4 350 - 500 - 325 = 3 525    p2: 5 725 - 500 - 325 = 4 900
    # p3: 4 150 - 500 + 835 + 357 + 650 = 5 492    p4: 750
    assert t.balances() == {p1: (3_525, 0), p2: (4_900, 0), p3: (5_492, 0), p4: (750, 0)}
    assert t.pots() == {"AH": 0, "KC": 0, "QD": 875, "JS": 875}
    money = table_money(t.id, t.players)
    assert money["rake"] == 25 + 40 + 18
    assert sum(money.values()) == sum(start.values())

    # Closing: Q♦ and J♠ (875 each) split among round 2's players from the dealer's left:
    # 875 = 3 x 291 + 2, so p3 and p1 get 292, p2 gets 291, for each pot.
    summary = floor.close_table(t.id, TRAY)
    splits = sorted(summary["pot_splits"], key=lambda split: split["pot"])
    assert [(s["pot"], s["amount"], s["shares"]) for s in splits] == [
        ("JS", 875, {str(p3): 292, str(p1): 292, str(p2): 291}),
        ("QD", 875, {str(p3): 292, str(p1): 292, str(p2): 291}),
    ]
    assert summary["rake"] == 83
    assert (summary["win"], summary["variance"]) == (0, 0)
    # p1: 3 525 + 584 = 4 109    p2: 4 900 + 582 = 5 482    p3: 5 492 + 584 = 6 076
    assert t.balances() == {p1: (4_109, 0), p2: (5_482, 0), p3: (6_076, 0), p4: (750, 0)}
    assert t.pots() == dict.fromkeys(PAY_CARDS, 0)
    money = table_money(t.id, t.players)
    assert sum(money.values()) == sum(start.values())  # 16 417 in wallets + 83 rake
    for rid_ in (rid, rid2):
        assert check_round(Round.objects.get(pk=rid_)).ok


def test_electronic_rounds_carry_pots_conserve_chips_and_replay(floor: ApiFloor) -> None:
    t = NewmarketTable(floor, (20_000,) * 3, {"chip": CHIP})
    before = table_money(t.id, t.players)
    carried: dict[str, int] = {}
    dealers = []
    for _ in range(2):
        round_ = floor.start_round(t.id, "electronic")
        rid = round_["id"]
        dealers.append(round_["state"]["dealer"])
        # Every unwon pot carries, and three more antes of 125 go in.
        assert round_["state"]["pots"] == {card: carried.get(card, 0) + 3 * ANTE for card in PAY_CARDS}
        assert {t.floor.balance(p)["in_play"] for p in t.players} == {RESERVE - 4 * ANTE}
        round_ = play_out(floor, rid, ["deal", "keep", "close_auction", "play", "pass"])
        assert round_["status"] == "settled"
        round_ = floor.round(rid)  # GET lists every settlement of the round
        won = {s["from"].rsplit(":", 1)[1] for s in round_["settlements"] if s["kind"] == "pot"}
        carried = {card: 0 if card in won else amount for card, amount in round_["state"]["pots"].items()}
        assert round_["state"]["pots"] == carried
        assert t.pots() == carried
        paid = {
            p: sum(
                s["amount"] for s in round_["settlements"] if s["player"] == p and s["from"] == t.wallet[p]
            )
            for p in t.players
        }
        assert all(amount <= RESERVE for amount in paid.values())
        after = table_money(t.id, t.players)
        assert sum(after.values()) == sum(before.values())
        assert after["tray"] == TRAY
        assert after["rake"] == 0
        assert check_round(Round.objects.get(pk=rid)).ok
    assert dealers == t.players[:2]  # the deal passes left
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits

    # Closing splits whatever is left, to the cent, among round 2's players.
    summary = floor.close_table(t.id, TRAY)
    assert {s["pot"]: s["amount"] for s in summary["pot_splits"]} == {c: a for c, a in carried.items() if a}
    for split in summary["pot_splits"]:
        shares = list(split["shares"].values())
        assert sum(shares) == split["amount"]
        assert max(shares) - min(shares) <= 1
    assert t.pots() == dict.fromkeys(PAY_CARDS, 0)
    assert sum(table_money(t.id, t.players).values()) == sum(before.values())
