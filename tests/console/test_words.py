"""An action in words has one owner (``tables.console.words``): the receipt after a tap, the
correction panel's last action, what the pit would void and the bets table all name a bet's place,
its player and its money the same way, in words, never codes."""

from __future__ import annotations

from types import SimpleNamespace

from tables.accounts import layout_code, tray_code
from tables.console.words import action_words, faro_done_words, placement_words, settlement_words

NAMES = {7: "Kate Elder", 8: "Wyatt Earp"}


def test_a_bet_is_placed_alike_in_its_receipt_its_record_and_the_bets_table() -> None:
    posted = {"type": "bet", "player": 7, "ranks": ["Q", "3"], "amount": 2500, "coppered": True}
    on_layout = {"id": "b4", "kind": "rank", "player": 7, "ranks": ["3", "Q"], "amount": 2500}
    assert faro_done_words(posted, {}, NAMES) == "Kate Elder bet $25.00 on 3\u2013Q (coppered)."
    assert action_words(posted, NAMES) == "Bet $25.00 by Kate Elder on 3\u2013Q (coppered)"
    assert placement_words(on_layout) == "3\u2013Q"


def test_even_odd_high_and_a_call_are_named_not_coded() -> None:
    high = {"type": "bet", "player": 8, "target": "high", "amount": 500}
    assert faro_done_words(high, {}, NAMES) == "Wyatt Earp bet $5.00 on High card."
    assert action_words(high, NAMES) == "Bet $5.00 by Wyatt Earp on high card"
    assert placement_words({"kind": "target", "target": "even"}) == "Even"
    assert placement_words({"kind": "call", "order": ["9", "J", "4"]}) == "Call: 9 · J · 4"
    call = {"type": "call_turn", "player": 8, "order": ["9", "J", "4"], "amount": 1000}
    assert faro_done_words(call, {}, NAMES) == "Wyatt Earp called the turn 9 · J · 4 for $10.00."


def test_a_turn_is_told_by_its_cards_when_done_and_when_recorded() -> None:
    after = {"latest_turn": {"number": 3, "banker": "9S", "player": "KH", "split": False}}
    assert faro_done_words({"type": "turn"}, after, NAMES) == "Turn 3: 9♠ loses, K♥ wins."
    assert action_words({"type": "turn", "cards": ["9S", "KH"]}, NAMES) == "Turn 9♠ K♥"
    assert action_words({"type": "turn"}, NAMES) == "Turn (electronic shoe)"


def test_what_a_turn_moved_names_the_player_and_sums_each_payment() -> None:
    wallet, layout, tray = "wallet:kate", layout_code(1, 8), tray_code(1)
    rows = [
        SimpleNamespace(kind="win", from_account=tray, to_account=wallet, player_id=7, amount=500),
        SimpleNamespace(kind="win", from_account=tray, to_account=wallet, player_id=7, amount=500),
        SimpleNamespace(kind="loss", from_account=layout, to_account=tray, player_id=8, amount=2500),
    ]
    said = settlement_words(rows, {wallet: "Kate Elder"}, NAMES)
    assert said == ["Paid $10.00 to Kate Elder", "Bank took $25.00 from Wyatt Earp"]
