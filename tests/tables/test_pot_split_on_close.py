"""Closing a table never strands a pot (GAMES.md "Pots are owed to players").

A pot still unwon when a table closes is split evenly among the players who anted into
its last round, the remainder one cent at a time from the dealer's left, even if some of
them have left their seats since. Driven through the HTTP API with a Newmarket table
whose rounds are keyed so that no pay card is played (every pot carries).
"""

from __future__ import annotations

from typing import Any

from ledger.models import Account, AccountKind
from ledger.selectors import get_balance
from tables.models import Round
from tables.replay import check_round
from tests.factories import ApiFloor, table_money

ANTE = 100
BUY_IN = 10_000
TRAY = 20_000
PAY_CARDS = ("AH", "KC", "QD", "JS")


def suit(s: str, ranks: str) -> list[str]:
    return [r + s for r in ranks.split()]


def run_round(
    floor: ApiFloor, table_id: int, hands: dict[str, list[str]], plays: list[tuple[int, str]]
) -> Any:
    """Deal the keyed hands; the dealer keeps, nobody bids (the widow is dead); then the plays."""
    round_ = floor.start_round(table_id, "manual")
    rid = round_["id"]
    for action in ({"type": "deal", "hands": hands}, {"type": "keep"}, {"type": "close_auction"}):
        floor.act(rid, action)
    for player, card in plays:
        round_ = floor.act(rid, {"type": "play", "player": player, "card": card})
    assert round_["status"] == "settled"
    assert not [s for s in round_["settlements"] if s["kind"] == "pot"]  # no pay card was played
    return round_


def test_unwon_pots_are_split_at_closing_odd_cents_from_the_dealers_left_even_to_players_who_left(
    floor: ApiFloor,
) -> None:
    table = floor.open_table(game="newmarket", min_bet=100, max_bet=1_000, ante=ANTE, inventory=TRAY)
    tid = table["id"]
    p1, p2, p3, p4 = players = [floor.new_player(buy_in=BUY_IN) for _ in range(4)]
    for seat, player in enumerate(players, start=1):
        floor.seat(tid, player, seat)
    start = table_money(tid, players)

    # Round 1: four players, p1 deals (order p2, p3, p4, p1). p2 runs 2♥-Q♥ and is out; K♥
    # and A♥ lie in the dead widow. Each antes 100 to each pot (400 a pot); p3 pays 11
    # chips, p4 and p1 10 chips each to p2.
    hands = {
        str(p2): suit("H", "2 3 4 5 6 7 8 9 10 J Q"),
        str(p3): [*suit("S", "10 J Q K A"), *suit("D", "2 3 4 5 6 7")],
        str(p4): [*suit("D", "8 9 10 J Q K A"), *suit("C", "2 3 4")],
        str(p1): suit("C", "5 6 7 8 9 10 J Q K A"),
        "widow": ["KH", "AH", *suit("S", "2 3 4 5 6 7 8 9")],
    }
    round_ = run_round(floor, tid, hands, [(p2, card) for card in hands[str(p2)]])
    assert round_["players"] == [p2, p3, p4, p1]
    assert round_["state"]["pots"] == dict.fromkeys(PAY_CARDS, 400)
    pots = Account.objects.filter(code__in=[f"pot:{tid}:{card}" for card in PAY_CARDS])
    assert {(a.kind, a.balance) for a in pots} == {(AccountKind.LIABILITY, 400)}  # owed to players

    # p4 leaves. Round 2: three players; the deal moves to p2 (order p3, p1, p2). p3 runs
    # 2♥-Q♥, the suit stops at the dead K♥, p3 leads the other colour (2♠, 3♠) and is out.
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{p4}"), 204)
    hands = {
        str(p3): [*suit("H", "2 3 4 5 6 7 8 9 10 J Q"), "2S", "3S"],
        str(p1): suit("D", "2 3 4 5 6 7 8 9 10 J Q K A"),
        str(p2): suit("C", "2 3 4 5 6 7 8 9 10 J Q K A"),
        "widow": ["KH", "AH", *suit("S", "4 5 6 7 8 9 10 J Q K A")],
    }
    round_ = run_round(floor, tid, hands, [(p3, card) for card in hands[str(p3)]])
    assert round_["players"] == [p3, p1, p2]
    assert round_["state"]["pots"] == dict.fromkeys(PAY_CARDS, 700)  # 400 carried + 3 x 100
    # p1: 10 000 - 400 - 1 000 - 400 - 1 300 =  6 900
    # p2: 10 000 - 400 + 3 100 - 400 - 1 300 = 11 000
    # p3: 10 000 - 400 - 1 100 - 400 + 2 600 = 10 700
    # p4: 10 000 - 400 - 1 000               =  8 600    and 4 pots x 700 = 2 800.
    money = table_money(tid, players)
    assert [money[f"wallet:{p}"] for p in players] == [6_900, 11_000, 10_700, 8_600]
    assert sum(money.values()) == sum(start.values())

    # p1 leaves too; closing still pays p1 a share, since p1 anted into the pots' last round.
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{p1}"), 204)
    summary = floor.close_table(tid, TRAY)
    # 700 = 3 x 233 + 1: the odd cent goes to p3, first from the dealer's (p2's) left.
    shares = {str(p3): 234, str(p1): 233, str(p2): 233}
    assert sorted((s["pot"], s["amount"], s["shares"]) for s in summary["pot_splits"]) == [
        (card, 700, shares) for card in sorted(PAY_CARDS)
    ]
    assert all(isinstance(s["transfer_id"], int) for s in summary["pot_splits"])
    assert (summary["rake"], summary["win"], summary["variance"]) == (0, 0, 0)
    assert all(get_balance(code=f"pot:{tid}:{card}") == 0 for card in PAY_CARDS)
    money = table_money(tid, players)
    # p1 6 900 + 4 x 233 = 7 832; p2 11 000 + 932 = 11 932; p3 10 700 + 4 x 234 = 11 636.
    assert [money[f"wallet:{p}"] for p in players] == [7_832, 11_932, 11_636, 8_600]
    assert sum(money.values()) == sum(start.values())

    # The ledger shows who got what: p1's statement, newest first, ends with the four splits.
    rows = floor.get(floor.cashier, f"players/{p1}/transactions")["results"][:4]
    assert [(row["kind"], row["amount"], row["table"]) for row in rows] == [("pot_split", 233, tid)] * 4
    split = floor.get(floor.cashier, f"players/{p3}/transactions")["results"][0]
    assert (split["kind"], split["amount"]) == ("pot_split", 234)
    assert {s["transfer_id"] for s in summary["pot_splits"]} >= {split["transfer_id"]}
    for round_ in Round.objects.filter(table_id=tid):
        assert check_round(round_).ok

    # Reopened and closed again, the table has nothing left to split.
    floor.post(floor.dealer, f"tables/{tid}/open", {"opening_inventory": TRAY}, 201)
    again = floor.close_table(tid, TRAY)
    assert (again["pot_splits"], again["rake"]) == ([], 0)
