"""GAMES.md "Farmer": antes to the farm, draw towards exactly 16, the four-step settlement."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.games.base import RAKE, Settlement, TableContext, pot, wallet
from tables.games.cards import FARMER_DECK, FULL_DECK, hand_points, rank_of
from tables.games.errors import IllegalAction
from tables.games.farmer import ENGINE, FarmerState
from tests.games.engine_support import (
    ANTES_OUTSIDE_THE_LIMITS,
    assert_bad_rules,
    assert_start_and_reserve_refuse,
    context,
    net,
)
from tests.games.fuzz_support import garbage_contexts, garbage_fuzz_tests, json_garbage

ANTE = 100
SEATS = {1: 10, 3: 30, 5: 50}  # farmer 10 at seat 1 → order 30, 50, 10
FOUR = {1: 10, 2: 20, 3: 30, 4: 40}
FIVE = {1: 10, 2: 20, 3: 30, 4: 40, 5: 50}


make_ctx = partial(context, seats=SEATS, ante=ANTE)


def deck_starting(*first: str) -> tuple[str, ...]:
    """A Farmer deck whose top cards are ``first``, the rest in canonical order."""
    return (*first, *(c for c in FARMER_DECK if c not in first))


def manual_round(
    hands: Mapping[int, Sequence[str]],
    *,
    seats: Mapping[int, int] = SEATS,
    farmer: int = 10,
    carry: Mapping[str, Any] | None = None,
    rules: Mapping[str, Any] | None = None,
    ante: int = ANTE,
) -> tuple[FarmerState, tuple[Settlement, ...], tuple[Settlement, ...]]:
    """Key a whole round: each hand's first card is dealt, the rest hit in turn, then a stay."""
    ctx = make_ctx(seats=seats, carry={"farmer": farmer, **(carry or {})}, rules=rules, ante=ante)
    state, antes = ENGINE.start(ctx)
    order = ENGINE.public_state(state)["order"]
    state, dealt = ENGINE.apply(state, {"type": "deal", "cards": {str(p): hands[p][0] for p in order}})
    assert dealt == ()
    settlements: list[Settlement] = []
    for player in order:
        for card in hands[player][1:]:
            state, moved = ENGINE.apply(state, {"type": "hit", "player": player, "card": card})
            settlements += moved
        if not ENGINE.is_over(state):
            state, moved = ENGINE.apply(state, {"type": "stay", "player": player})
            settlements += moved
    return state, antes, tuple(settlements)


def playing(seats: Mapping[int, int] = SEATS, farmer: int = 10, **kw: Any) -> FarmerState:
    """A manual round just after the deal (everyone holds a low card)."""
    state, _ = ENGINE.start(make_ctx(seats=seats, carry={"farmer": farmer}, **kw))
    order = ENGINE.public_state(state)["order"]
    lows = ["AS", "AH", "AD", "AC", "2S", "2H", "2D", "2C"]
    state, _ = ENGINE.apply(state, {"type": "deal", "cards": {str(p): lows[i] for i, p in enumerate(order)}})
    return state


# --- deck, antes, reserve ---------------------------------------------------------------------


def test_deck_has_45_cards_no_eights_and_of_the_sixes_only_six_of_hearts() -> None:
    assert len(FARMER_DECK) == 45
    assert not [c for c in FARMER_DECK if rank_of(c) == "8"]
    assert [c for c in FARMER_DECK if rank_of(c) == "6"] == ["6H"]


@pytest.mark.parametrize("card", ["8S", "8H", "6S", "6D", "6C", "JK"])
def test_manual_shoe_refuses_a_card_not_in_the_farmer_deck(card: str) -> None:
    state = playing()
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(state, {"type": "hit", "player": 30, "card": card})
    assert err.value.code in {"card_not_in_shoe", "bad_card"}


def test_manual_shoe_refuses_a_card_already_dealt() -> None:
    state = playing()
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(state, {"type": "hit", "player": 30, "card": "AS"})
    assert err.value.code == "card_not_in_shoe"


@pytest.mark.parametrize("seats", [{1: 10, 2: 20}, FIVE, {s: s * 10 for s in range(1, 9)}])
def test_every_player_antes_to_the_farm_the_farmer_too(seats: dict[int, int]) -> None:
    state, antes = ENGINE.start(make_ctx(seats=seats, carry={"farmer": 10}))
    assert len(antes) == len(seats)
    assert {s.player for s in antes} == set(seats.values())
    assert {(s.kind, s.payee, s.amount) for s in antes} == {("ante", pot("farm"), ANTE)}
    assert all(s.payer == wallet(s.player) for s in antes if s.player is not None)
    assert ENGINE.public_state(state)["farm"] == ANTE * len(seats)


def test_a_farm_not_won_carries_and_the_next_antes_add_to_it() -> None:
    state, _ = ENGINE.start(make_ctx(carry={"pots": {"farm": 1234}, "farmer": 10}))
    assert ENGINE.public_state(state)["farm"] == 1234 + 3 * ANTE


@pytest.mark.parametrize("ante", [100, 500, 2500])
def test_reserve_is_the_ante_plus_one_ante_beyond_it(ante: int) -> None:
    assert ENGINE.reserve(make_ctx(ante=ante)) == {10: 2 * ante, 30: 2 * ante, 50: 2 * ante}


def test_a_table_ante_of_zero_means_one_chip() -> None:
    ctx = make_ctx(ante=0, rules={"chip": 25}, min_bet=25)
    _, antes = ENGINE.start(ctx)
    assert {s.amount for s in antes} == {25}
    assert ENGINE.reserve(ctx) == {10: 50, 30: 50, 50: 50}


@pytest.mark.parametrize(("ante", "min_bet", "max_bet", "code"), ANTES_OUTSIDE_THE_LIMITS)
def test_ante_must_be_whole_chips_within_the_table_limits(
    ante: int, min_bet: int, max_bet: int, code: str
) -> None:
    assert_start_and_reserve_refuse(ENGINE, make_ctx(ante=ante, min_bet=min_bet, max_bet=max_bet), code)


@pytest.mark.parametrize(("count", "ok"), [(1, False), (2, True), (8, True), (9, False)])
def test_farmer_takes_two_to_eight_players(count: int, ok: bool) -> None:
    ctx = make_ctx(seats={s: 100 + s for s in range(1, count + 1)}, carry={"farmer": 101})
    if ok:
        _, antes = ENGINE.start(ctx)
        assert len(antes) == count
    else:
        with pytest.raises(IllegalAction):
            ENGINE.start(ctx)


# --- the farmer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("position", [0, 1, 2, 3, 4, 13, 44])
def test_first_farmer_electronic_gets_the_six_of_hearts_dealt_face_up_from_the_dealers_left(
    position: int,
) -> None:
    seats = {2: 20, 4: 40, 7: 70}  # dealer position: seat 2; the draw starts at seat 4
    extra = [c for c in FARMER_DECK if c != "6H"]
    extra.insert(position, "6H")
    state, _ = ENGINE.start(make_ctx(seats=seats, deck=FARMER_DECK, extra=extra))
    public = ENGINE.public_state(state)
    receivers = [40, 70, 20]
    assert public["farmer"] == receivers[position % 3]
    assert [d["card"] for d in public["farmer_draw"]] == extra[: position + 1]
    assert [d["player"] for d in public["farmer_draw"]] == [receivers[i % 3] for i in range(position + 1)]


def test_first_farmer_electronic_needs_the_second_committed_deck() -> None:
    with pytest.raises(IllegalAction):
        ENGINE.start(make_ctx(deck=FARMER_DECK))
    with pytest.raises(IllegalAction) as err:
        ENGINE.start(make_ctx(deck=FARMER_DECK, extra=FULL_DECK))
    assert err.value.code == "bad_card"


def test_first_farmer_manual_is_keyed_by_the_dealer_before_the_deal() -> None:
    state, _ = ENGINE.start(make_ctx())
    assert ENGINE.public_state(state)["phase"] == "draw"
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "deal", "cards": {"10": "AS", "30": "AH", "50": "AD"}})
    state, moved = ENGINE.apply(state, {"type": "farmer", "player": 30})
    assert moved == ()
    public = ENGINE.public_state(state)
    assert (public["farmer"], public["order"], public["phase"]) == (30, [50, 10, 30], "deal")
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "farmer", "player": 10})


@pytest.mark.parametrize("player", [99, "30", True, None, 30.0])
def test_farmer_action_names_a_dealt_in_player_by_integer_id(player: object) -> None:
    state, _ = ENGINE.start(make_ctx())
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "farmer", "player": player})


def test_farmer_action_only_at_a_tables_first_round() -> None:
    state, _ = ENGINE.start(make_ctx(carry={"farmer": 50, "farmer_seat": 5}))
    assert ENGINE.public_state(state)["phase"] == "deal"
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "farmer", "player": 30})


def test_farm_winner_is_the_next_farmer() -> None:
    state, _, _ = manual_round({30: ["10S", "6H"], 50: ["9S", "5S"], 10: ["10D", "2D"]})
    assert ENGINE.carry_out(state)["farmer"] == 30
    assert ENGINE.carry_out(state)["farmer_seat"] == 3
    nxt, _ = ENGINE.start(make_ctx(carry=ENGINE.carry_out(state)))
    assert ENGINE.public_state(nxt)["order"] == [50, 10, 30]


def test_no_farm_winner_the_farmer_deals_again() -> None:
    state, _, _ = manual_round({30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D"]})
    assert ENGINE.carry_out(state)["farmer"] == 10
    assert ENGINE.carry_out(state)["pots"] == {"farm": 3 * ANTE}


def test_carried_farmer_not_dealt_in_passes_to_the_next_player_left_of_their_seat() -> None:
    state, _ = ENGINE.start(make_ctx(seats={1: 10, 5: 50, 6: 60}, carry={"farmer": 30, "farmer_seat": 3}))
    assert ENGINE.public_state(state)["farmer"] == 50
    wrapped, _ = ENGINE.start(make_ctx(seats={1: 10, 5: 50}, carry={"farmer": 70, "farmer_seat": 7}))
    assert ENGINE.public_state(wrapped)["farmer"] == 10


def test_carried_farmer_without_a_seat_falls_to_the_lowest_seat() -> None:
    state, _ = ENGINE.start(make_ctx(seats={2: 20, 5: 50}, carry={"farmer": 30}))
    assert ENGINE.public_state(state)["farmer"] == 20


def test_carried_farmer_who_changed_seats_stays_farmer() -> None:
    state, _ = ENGINE.start(make_ctx(seats={2: 30, 5: 50}, carry={"farmer": 30, "farmer_seat": 3}))
    assert ENGINE.public_state(state)["farmer"] == 30


# --- the deal and play ------------------------------------------------------------------------


def test_deal_gives_one_card_each_from_the_farmers_left_farmer_last() -> None:
    state, _ = ENGINE.start(make_ctx(deck=deck_starting("KS", "QS", "JS"), carry={"farmer": 10}))
    state, _ = ENGINE.apply(state, {"type": "deal"})
    assert [(h.player, h.cards) for h in (state.hand(p) for p in (30, 50, 10))] == [
        (30, ("KS",)),
        (50, ("QS",)),
        (10, ("JS",)),
    ]
    public = ENGINE.public_state(state)
    assert [p["cards"] for p in public["players"]] == [1, 1, 1]
    assert public["turn"] == 30


def test_electronic_shoe_forbids_keyed_cards() -> None:
    state, _ = ENGINE.start(make_ctx(deck=FARMER_DECK, carry={"farmer": 10}))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "deal", "cards": {"10": "AS", "30": "AH", "50": "AD"}})
    state, _ = ENGINE.apply(state, {"type": "deal"})
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "hit", "player": 30, "card": "KS"})


def test_electronic_hits_come_off_the_shoe_in_order() -> None:
    state, _ = ENGINE.start(make_ctx(deck=deck_starting("2S", "3S", "4S", "5S", "7S"), carry={"farmer": 10}))
    state, _ = ENGINE.apply(state, {"type": "deal"})
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30})
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30})
    assert state.hand(30).cards == ("2S", "5S", "7S")


@pytest.mark.parametrize(
    "cards",
    [
        None,
        {"10": "AS", "30": "AH"},  # a player missing
        {"10": "AS", "30": "AH", "50": "AS"},  # the same card twice
        {"10": "AS", "30": "AH", "50": "AD", "99": "AC"},  # not dealt in
        {"10": "AS", "30": "AH", "50": "8D"},  # not in the Farmer deck
        ["AS", "AH", "AD"],
        {"ten": "AS", "30": "AH", "50": "AD"},
    ],
)
def test_manual_deal_keys_one_card_for_each_player(cards: object) -> None:
    state, _ = ENGINE.start(make_ctx(carry={"farmer": 10}))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "deal", "cards": cards})


def test_manual_deal_accepts_player_ids_as_json_string_keys() -> None:
    state, _ = ENGINE.start(make_ctx(carry={"farmer": 10}))
    state, _ = ENGINE.apply(state, {"type": "deal", "cards": {"10": "as", 30: "TH", " 50 ": "ad"}})
    assert (state.hand(10).cards, state.hand(30).cards, state.hand(50).cards) == (("AS",), ("10H",), ("AD",))


def test_play_goes_from_the_farmers_left_and_the_farmer_last() -> None:
    state = playing()
    for player in (50, 10):
        with pytest.raises(IllegalAction) as err:
            ENGINE.apply(state, {"type": "hit", "player": player, "card": "3S"})
        assert err.value.code == "not_your_turn"
    seen = []
    for player, card in ((30, "3S"), (50, "3H"), (10, "3D")):
        seen.append(ENGINE.public_state(state)["turn"])
        state, _ = ENGINE.apply(state, {"type": "hit", "player": player, "card": card})
        state, _ = ENGINE.apply(state, {"type": "stay", "player": player})
    assert seen == [30, 50, 10]
    assert ENGINE.is_over(state)


def test_stay_before_a_hit_is_refused() -> None:
    state = playing()
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(state, {"type": "stay", "player": 30})
    assert err.value.code == "illegal_action"
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "KS"})
    state, _ = ENGINE.apply(state, {"type": "stay", "player": 30})
    assert ENGINE.public_state(state)["turn"] == 50


def test_player_on_sixteen_may_still_hit() -> None:
    state = playing()
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "KS"})
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "5S"})  # A+K+5 = 16
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "AC"})
    assert state.hand(30).total == 17


def test_busted_player_just_stays_and_the_public_state_does_not_show_it() -> None:
    busted = playing()
    busted, _ = ENGINE.apply(busted, {"type": "hit", "player": 30, "card": "KS"})
    busted, _ = ENGINE.apply(busted, {"type": "hit", "player": 30, "card": "QS"})  # 21
    safe = playing()
    safe, _ = ENGINE.apply(safe, {"type": "hit", "player": 30, "card": "2S"})
    safe, _ = ENGINE.apply(safe, {"type": "hit", "player": 30, "card": "3S"})  # 6
    assert busted.hand(30).busted
    assert not safe.hand(30).busted
    assert ENGINE.public_state(busted) == ENGINE.public_state(safe)
    with pytest.raises(IllegalAction):
        ENGINE.apply(busted, {"type": "hit", "player": 30, "card": "JS"})
    busted, moved = ENGINE.apply(busted, {"type": "stay", "player": 30})
    assert moved == ()
    assert ENGINE.public_state(busted)["turn"] == 50


def test_hands_are_hidden_until_the_showdown_then_all_shown() -> None:
    hands = {30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D", "AS"]}
    state = playing()
    for public in ENGINE.public_state(state)["players"]:
        assert (public["hand"], public["total"]) == (None, None)
    state, _, _ = manual_round(hands)
    shown = {p["player"]: (p["hand"], p["total"]) for p in ENGINE.public_state(state)["players"]}
    assert shown == {p: (cards, hand_points(cards)) for p, cards in hands.items()}


def test_stock_running_out_makes_everyone_still_to_act_stay() -> None:
    # Unreachable with real play (45 cards hold 290 points; 8 hands hold at most 208), so the
    # stock is run down by hand: player 30 holds 40 cards, 50 two low cards, the farmer one.
    state = playing()
    spare = [c for c in FARMER_DECK if c not in {"AH", "AD", "2H", "3H", "4H"}]
    state = state.with_hand(replace(state.hand(30), cards=tuple(spare), done=True))
    state = state.with_hand(replace(state.hand(50), cards=("AH", "2H")))
    state = replace(state, turn=1)
    assert state.stock == 2
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 50, "card": "3H"})
    assert not ENGINE.is_over(state)
    state, moved = ENGINE.apply(state, {"type": "hit", "player": 50, "card": "4H"})
    assert state.stock == 0
    assert ENGINE.is_over(state)
    assert state.hand(10).cards == ("AD",)  # the farmer stayed without a hit
    assert state.result is not None
    assert state.result.best == (50,)  # 10 beats the farmer's 1
    assert net(moved)[wallet(50)] == ANTE


# --- settlement step 1 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hands", "seats", "farmer", "winner"),
    [
        # a single 16
        ({30: ["10S", "6H"], 50: ["9S", "5S"], 10: ["10D", "2D"]}, SEATS, 10, 30),
        # several: the 6H wins, even with more cards
        ({30: ["9S", "7S"], 50: ["5S", "5H", "6H"], 10: ["10D", "2D"]}, SEATS, 10, 50),
        # else the fewest cards
        ({30: ["10S", "3S", "3H"], 50: ["9S", "7S"], 10: ["10D", "2D"]}, SEATS, 10, 50),
        # still tied and the farmer among them: the farmer
        ({30: ["9S", "7S"], 50: ["10S", "2S"], 10: ["9H", "7H"]}, SEATS, 10, 10),
        # else the first tied hand to the farmer's left (order 40, 10, 20, 30)
        ({40: ["9S", "7S"], 10: ["9H", "7H"], 20: ["10S", "2S"], 30: ["10D", "2D"]}, FOUR, 30, 40),
        ({40: ["10S", "2S"], 10: ["9H", "7H"], 20: ["9S", "7S"], 30: ["10D", "2D"]}, FOUR, 30, 10),
    ],
)
def test_exactly_sixteen_wins_the_farm_with_the_tie_breaks(
    hands: dict[int, list[str]], seats: dict[int, int], farmer: int, winner: int
) -> None:
    state, _, moved = manual_round(hands, seats=seats, farmer=farmer, carry={"pots": {"farm": 700}})
    farm = 700 + ANTE * len(seats)
    assert Settlement("pot", pot("farm"), wallet(winner), farm, winner) in moved
    assert ENGINE.public_state(state)["farm"] == 0
    assert state.result is not None
    assert state.result.farm_winner == winner
    assert not [s for s in moved if s.kind == "low_hand"]  # step 2 only without a 16


@pytest.mark.parametrize(
    ("percent", "cap", "carried", "rake"),
    [(5, None, 1234, 76), (5, 50, 1234, 50), (10, None, 0, 30), (0, None, 500, 0), (3, 0, 500, 0)],
)
def test_percent_rake_is_taken_from_the_farm_as_it_is_won(
    percent: int, cap: int | None, carried: int, rake: int
) -> None:
    rules = {"rake": {"kind": "percent", "percent": percent, "cap": cap}}
    hands = {30: ["10S", "6H"], 50: ["9S", "5S"], 10: ["10D", "2D"]}
    _, _, moved = manual_round(hands, rules=rules, carry={"pots": {"farm": carried}})
    farm = carried + 3 * ANTE
    assert [s.amount for s in moved if s.payee == RAKE] == ([rake] if rake else [])
    assert [s.amount for s in moved if s.kind == "pot"] == [farm - rake]


def test_time_rake_is_left_to_the_table_service() -> None:
    rules = {"rake": {"kind": "time", "amount": 500, "minutes": 30}}
    _, _, moved = manual_round({30: ["10S", "6H"], 50: ["9S", "5S"], 10: ["10D", "2D"]}, rules=rules)
    assert not [s for s in moved if s.payee == RAKE]


def test_no_sixteen_the_farm_stays() -> None:
    state, _, moved = manual_round(
        {30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D"]}, carry={"pots": {"farm": 250}}
    )
    assert not [s for s in moved if pot("farm") == s.payer]
    assert ENGINE.carry_out(state)["pots"]["farm"] == 250 + 3 * ANTE


# --- settlement step 2 ------------------------------------------------------------------------


def test_lower_hands_each_pay_one_ante_to_the_best_total() -> None:
    hands = {20: ["10S", "5S"], 30: ["10H", "2H"], 40: ["9S", "5H"], 10: ["9D", "AD"]}
    state, _, moved = manual_round(hands, seats=FOUR, farmer=10)
    assert sorted((s.player, s.payee, s.amount) for s in moved) == [
        (10, wallet(20), ANTE),
        (30, wallet(20), ANTE),
        (40, wallet(20), ANTE),
    ]
    assert state.result is not None
    assert (state.result.best, state.result.best_total) == ((20,), 15)


def test_shared_best_total_splits_a_side_pot_evenly_the_remainder_to_the_farm() -> None:
    hands = {20: ["10S", "5S"], 30: ["10H", "5H"], 40: ["10D", "5D"], 50: ["10C", "2C"], 10: ["9S", "AS"]}
    state, _, moved = manual_round(hands, seats=FIVE, farmer=10, carry={"pots": {"farm": 1000}})
    into_side = [s for s in moved if s.payee == pot("side")]
    assert sorted((s.player, s.amount) for s in into_side) == [(10, ANTE), (50, ANTE)]
    shares = {s.player: s.amount for s in moved if s.payer == pot("side") and s.payee.startswith("wallet")}
    assert shares == {20: 66, 30: 66, 40: 66}
    assert [s.amount for s in moved if s.payer == pot("side") and s.payee == pot("farm")] == [2]
    assert net(moved)[pot("side")] == 0
    assert ENGINE.public_state(state)["farm"] == 1000 + 5 * ANTE + 2


def test_shared_best_with_nobody_lower_moves_nothing() -> None:
    hands = {30: ["10S", "5S"], 50: ["10H", "5H"], 10: ["9S", "AS", "5D"]}
    state, _, moved = manual_round(hands)
    assert moved == ()
    assert state.result is not None
    assert state.result.best == (30, 50, 10)


def test_busted_hands_are_not_lower_and_take_no_part_in_step_two() -> None:
    hands = {30: ["10S", "4S"], 50: ["10H", "QH"], 10: ["10D", "2D"]}
    _, _, moved = manual_round(hands)
    assert sorted((s.kind, s.player, s.payee) for s in moved) == [
        ("bust", 50, wallet(10)),
        ("low_hand", 10, wallet(30)),
    ]


# --- settlement step 3 ------------------------------------------------------------------------


def test_busted_players_except_the_farmer_pay_one_ante_to_the_farmer_whatever_happened() -> None:
    hands = {20: ["10S", "6H"], 30: ["10H", "QH"], 40: ["9S", "5H", "KS"], 10: ["9D", "AD", "KD"]}
    _, _, moved = manual_round(hands, seats=FOUR, farmer=10)
    busts = sorted((s.player, s.payee, s.amount) for s in moved if s.kind == "bust")
    assert busts == [(30, wallet(10), ANTE), (40, wallet(10), ANTE)]
    assert Settlement("pot", pot("farm"), wallet(20), 4 * ANTE, 20) in moved


def test_everyone_busts_the_farm_stays_and_only_the_others_pay_the_farmer() -> None:
    hands = {30: ["10S", "QS"], 50: ["10H", "QH"], 10: ["10D", "QD"]}
    state, _, moved = manual_round(hands)
    assert sorted((s.player, s.payee) for s in moved) == [(30, wallet(10)), (50, wallet(10))]
    assert ENGINE.carry_out(state) == {
        "pots": {"farm": 3 * ANTE},
        "players": [30, 50, 10],
        "farmer": 10,
        "farmer_seat": 1,
    }


def test_a_payment_larger_than_the_reserve_left_is_paid_in_part() -> None:
    state = playing()
    state = state.with_hand(replace(state.hand(50), reserve_left=30))  # as if held short
    for player, card in ((30, "KS"), (50, "3S"), (10, "3D")):
        state, moved = ENGINE.apply(state, {"type": "hit", "player": player, "card": card})
        state, moved = ENGINE.apply(state, {"type": "stay", "player": player})
    assert sorted((s.player, s.amount) for s in moved) == [(10, ANTE), (50, 30)]
    assert state.hand(50).reserve_left == 0
    assert ENGINE.public_state(state)["players"][1]["reserve_left"] == 0


# --- legal actions ------------------------------------------------------------------------------


def test_legal_actions_offer_the_farmer_draw_the_deal_then_hit_or_stay() -> None:
    drawing, _ = ENGINE.start(make_ctx())
    assert ENGINE.legal_actions(drawing) == [{"type": "farmer", "player": p} for p in (10, 30, 50)]
    dealing, _ = ENGINE.apply(drawing, {"type": "farmer", "player": 10})
    assert ENGINE.legal_actions(dealing) == [
        {
            "type": "deal",
            "needs": ["cards"],
            "choices": {"cards": list(FARMER_DECK)},
            "count": {"cards": {"30": 1, "50": 1, "10": 1}},
            "one_card_each": True,
        }
    ]
    state = playing()
    out = {c for hand in state.hands for c in hand.cards}
    left = [c for c in FARMER_DECK if c not in out]
    hit_30 = {"type": "hit", "player": 30, "needs": ["card"], "choices": {"card": left}}
    assert ENGINE.legal_actions(state) == [hit_30]  # must hit first
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "5S"})
    hit_30["choices"] = {"card": [c for c in left if c != "5S"]}
    assert ENGINE.legal_actions(state) == [hit_30, {"type": "stay", "player": 30}]
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "KS"})  # A+5+K = 16
    state, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "QS"})  # bust
    assert ENGINE.legal_actions(state) == [{"type": "stay", "player": 30}]
    settled, _, _ = manual_round({30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D"]})
    assert ENGINE.legal_actions(settled) == []


def test_legal_actions_manual_shoe_templates_filled_from_their_choices_are_accepted() -> None:
    """Issue 20: a manual shoe's deal and hit were offered concrete, and apply refused both."""
    state, _ = ENGINE.start(make_ctx(carry={"farmer": 10}))
    (deal,) = ENGINE.legal_actions(state)
    cards = iter(deal["choices"]["cards"])
    state, _ = ENGINE.apply(
        state, {"type": "deal", "cards": {p: next(cards) for p in deal["count"]["cards"]}}
    )
    (hit,) = ENGINE.legal_actions(state)
    assert hit["needs"] == ["card"]
    state, _ = ENGINE.apply(
        state, {"type": "hit", "player": hit["player"], "card": hit["choices"]["card"][0]}
    )
    assert ENGINE.public_state(state)["players"][0]["cards"] == 2


@settings(max_examples=60, deadline=None)
@given(deck=st.permutations(FARMER_DECK), count=st.integers(2, 8), data=st.data())
def test_choosing_only_listed_legal_actions_always_finishes_the_round(
    deck: list[str], count: int, data: st.DataObject
) -> None:
    state, _ = ENGINE.start(
        make_ctx(seats={s: s for s in range(1, count + 1)}, deck=deck, carry={"farmer": 1})
    )
    for _ in range(60):
        if ENGINE.is_over(state):
            break
        listed = ENGINE.legal_actions(state)
        action = data.draw(st.sampled_from(listed))
        state, _ = ENGINE.apply(state, action)
    assert ENGINE.is_over(state)


# --- rules and refusals -------------------------------------------------------------------------


def test_default_rules() -> None:
    assert ENGINE.validate_rules({}) == {"chip": 100, "rake": None}
    assert ENGINE.validate_rules({"chip": 25})["chip"] == 25


@pytest.mark.parametrize(
    "rules",
    [
        {"chip": 0},
        {"chip": "100"},
        {"chip": True},
        {"chip": 1.5},
        {"colour": "red"},
        {"rake": {"kind": "percent", "percent": 101}},
        {"rake": {"kind": "percent", "percent": 5.5}},
        {"rake": {"kind": "percent", "percent": 5, "cap": -1}},
        {"rake": {"kind": "percent", "percent": 5, "extra": 1}},
        {"rake": {"kind": "time", "amount": 0, "minutes": 30}},
        {"rake": {"kind": "flat"}},
        {"rake": 5},
        [],
    ],
)
def test_wrong_rules_are_refused_with_bad_rules(rules: Any) -> None:
    assert_bad_rules(ENGINE, rules)


def test_electronic_deck_must_be_the_45_card_farmer_deck() -> None:
    with pytest.raises(IllegalAction) as err:
        ENGINE.start(make_ctx(deck=FULL_DECK, carry={"farmer": 10}))
    assert err.value.code == "bad_card"


def test_nothing_is_accepted_after_the_round_settles() -> None:
    state, _, _ = manual_round({30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D"]})
    for action in ({"type": "hit", "player": 30, "card": "KD"}, {"type": "stay", "player": 30}):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, action)


def test_version_and_limits_keys_are_ignored() -> None:
    state = playing()
    plain, _ = ENGINE.apply(state, {"type": "hit", "player": 30, "card": "KS"})
    extra, _ = ENGINE.apply(
        state,
        {"type": "hit", "player": 30, "card": "KS", "version": 7, "limits": {"min_bet": 1, "max_bet": 2}},
    )
    assert plain == extra


# --- properties ---------------------------------------------------------------------------------


@st.composite
def contexts(draw: st.DrawFn) -> TableContext:
    count = draw(st.integers(FEWEST_PLAYERS, MOST_PLAYERS))
    seat_numbers = draw(st.lists(st.integers(1, 10), min_size=count, max_size=count, unique=True))
    players = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    seats = dict(zip(seat_numbers, players, strict=True))
    ante = draw(st.sampled_from([100, 200, 500]))
    electronic = draw(st.booleans())
    carry: dict[str, Any] = {}
    if draw(st.booleans()):
        farmer = draw(st.sampled_from([*players, 99_999]))
        carry = {"pots": {"farm": draw(st.integers(0, 5000))}, "farmer": farmer}
        carry["farmer_seat"] = draw(st.integers(1, 10))
    rake = draw(st.sampled_from([None, {"kind": "percent", "percent": 5, "cap": 300}]))
    return make_ctx(
        seats=seats,
        ante=ante,
        carry=carry,
        rules={"rake": rake},
        deck=draw(st.permutations(FARMER_DECK)) if electronic else None,
        extra=draw(st.permutations(FARMER_DECK)) if electronic else None,
    )


FEWEST_PLAYERS, MOST_PLAYERS = 2, 8


def legal_actions(state: FarmerState, data: st.DataObject) -> dict[str, Any]:
    """One legal action, chosen by hypothesis."""
    public = ENGINE.public_state(state)
    if public["phase"] == "draw":
        return {"type": "farmer", "player": data.draw(st.sampled_from(state.players))}
    if public["phase"] == "deal":
        if state.deck is not None:
            return {"type": "deal"}
        cards = data.draw(st.permutations(FARMER_DECK))[: len(state.order)]
        return {"type": "deal", "cards": {str(p): c for p, c in zip(state.order, cards, strict=True)}}
    player = public["turn"]
    hand = state.hand(player)
    options = (["hit"] if not hand.busted else []) + (["stay"] if len(hand.cards) >= 2 else [])
    kind = data.draw(st.sampled_from(options))
    action: dict[str, Any] = {"type": kind, "player": player}
    if kind == "hit" and state.deck is None:
        out = {c for h in state.hands for c in h.cards}
        action["card"] = data.draw(st.sampled_from([c for c in FARMER_DECK if c not in out]))
    return action


def replay(ctx: TableContext, actions: list[dict[str, Any]]) -> tuple[FarmerState, list[Settlement]]:
    state, settlements = ENGINE.start(ctx)
    out = list(settlements)
    for action in actions:
        state, moved = ENGINE.apply(state, action)
        out += moved
    return state, out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ctx=contexts(), data=st.data())
def test_any_legal_round_settles_conserves_chips_replays_and_keeps_within_reserves(
    ctx: TableContext, data: st.DataObject
) -> None:
    reserves = ENGINE.reserve(ctx)
    state, settlements = ENGINE.start(ctx)
    balances: Counter[str] = Counter({pot("farm"): ctx.carry.get("pots", {}).get("farm", 0)})
    paid: Counter[int] = Counter()
    actions: list[dict[str, Any]] = []
    moves = list(settlements)
    for _ in range(len(FARMER_DECK) + 20):
        if ENGINE.is_over(state):
            break
        action = legal_actions(state, data)
        state, moved = ENGINE.apply(state, action)
        actions.append(action)
        moves += moved
    assert ENGINE.is_over(state)
    for s in moves:
        assert isinstance(s.amount, int)
        assert s.amount > 0
        balances[s.payer] -= s.amount
        balances[s.payee] += s.amount
        assert all(v >= 0 for k, v in balances.items() if k.startswith("pot:"))
        if s.payer.startswith("wallet:"):
            assert s.payer == wallet(s.player or 0)
            paid[s.player or 0] += s.amount
    assert sum(balances.values()) == ctx.carry.get("pots", {}).get("farm", 0)
    assert balances[pot("side")] == 0
    assert balances["bank"] == 0
    assert (
        balances[pot("farm")] == ENGINE.public_state(state)["farm"] == ENGINE.carry_out(state)["pots"]["farm"]
    )
    for hand in state.hands:
        assert paid[hand.player] <= reserves[hand.player]
        assert hand.reserve_left == reserves[hand.player] - paid[hand.player]
    again, moves_again = replay(ctx, actions)
    assert again == state
    assert moves_again == moves
    json.dumps([ENGINE.public_state(state), ENGINE.carry_out(state)])


JSON = json_garbage(FULL_DECK)
GARBAGE_CARRY = (
    st.just({})
    | JSON
    | st.fixed_dictionaries(
        {"pots": JSON | st.just({"farm": 500}), "farmer": JSON | st.just(10), "farmer_seat": JSON}
    )
)
GARBAGE_CONTEXTS = garbage_contexts(seats=SEATS, json=JSON, carry=GARBAGE_CARRY, deck=FARMER_DECK)
FIELDS = ["player", "card", "cards", "limits", "version", "type"]


@st.composite
def garbage_actions(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    action: dict[str, Any] = {"type": draw(st.sampled_from(["farmer", "deal", "hit", "stay", "bet"]) | JSON)}
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=4)):
        action[key] = draw(
            JSON
            | st.sampled_from([10, 30, 50, "10", True, 2**80, -1])
            | st.dictionaries(st.sampled_from(["10", "30", "50", "x", "9" * 5000]), JSON, max_size=4)
        )
    return action


def _fuzz_states() -> list[FarmerState]:
    manual_draw, _ = ENGINE.start(make_ctx())
    electronic, _ = ENGINE.start(make_ctx(deck=FARMER_DECK, carry={"farmer": 30}))
    dealt, _ = ENGINE.apply(electronic, {"type": "deal"})
    settled, _, _ = manual_round({30: ["10S", "5S"], 50: ["9S", "5H"], 10: ["10D", "2D"]})
    return [manual_draw, electronic, dealt, playing(), settled]


(
    test_garbage_actions_only_ever_raise_illegal_action,
    test_garbage_table_contexts_only_ever_raise_illegal_action,
) = garbage_fuzz_tests(ENGINE, _fuzz_states(), garbage_actions(), GARBAGE_CONTEXTS)


# --- statistics ---------------------------------------------------------------------------------

SIXTEEN_TWO_CARDS = Fraction(64, 1980)


def test_two_card_sixteen_probability_is_64_in_1980_by_exact_enumeration() -> None:
    pairs = list(itertools.permutations(FARMER_DECK, 2))
    hits = sum(1 for pair in pairs if hand_points(pair) == 16)
    assert len(pairs) == 1980
    assert Fraction(hits, len(pairs)) == SIXTEEN_TWO_CARDS


def test_two_card_sixteen_probability_matches_a_seeded_simulation_through_the_engine() -> None:
    rng = random.Random(20261122)
    rounds = 6000
    sixteens = 0
    for _ in range(rounds):
        deck = list(FARMER_DECK)
        rng.shuffle(deck)
        state, _ = ENGINE.start(make_ctx(seats={1: 1, 2: 2}, deck=deck, carry={"farmer": 2}))
        state, _ = ENGINE.apply(state, {"type": "deal"})
        state, _ = ENGINE.apply(state, {"type": "hit", "player": 1})
        sixteens += state.hand(1).total == 16
    p = float(SIXTEEN_TWO_CARDS)
    se = math.sqrt(p * (1 - p) / rounds)
    assert abs(sixteens / rounds - p) < 4 * se
