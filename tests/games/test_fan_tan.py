"""GAMES.md "Fan Tan": antes, the deal, building from the sevens, passes, penalties, the end."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.games.base import RAKE, Settlement, TableContext, pot, wallet, without_hints
from tables.games.cards import FULL_DECK, rank_index, rank_of, suit_of
from tables.games.errors import IllegalAction
from tables.games.fan_tan import ENGINE, FanTanState
from tests.games.engine_support import (
    ANTES_OUTSIDE_THE_LIMITS,
    assert_bad_rules,
    assert_start_and_reserve_refuse,
    context,
    net,
)
from tests.games.fuzz_support import garbage_contexts, garbage_fuzz_tests, json_garbage

CHIP = 100
SEATS = {1: 10, 2: 20, 3: 30}  # dealer seat 1 → order 20 (18 cards), 30 (17), 10 (17)
MAIN = pot("main")


make_ctx = partial(context, seats=SEATS, ante=CHIP)


def fill_hands(state: FanTanState, fixed: Mapping[int, Sequence[str]]) -> dict[int, list[str]]:
    """Hands of the right sizes holding ``fixed``, the rest of the deck in canonical order."""
    used = {c for cards in fixed.values() for c in cards}
    rest = iter(c for c in FULL_DECK if c not in used)
    hands = {}
    for p in state.players:
        mine = list(fixed.get(p.player, ()))
        hands[p.player] = mine + [next(rest) for _ in range(p.dealt - len(mine))]
    return hands


def known(fixed: Mapping[int, Sequence[str]] | None = None, **kw: Any) -> FanTanState:
    """A manual round dealt with keyed hands (full tracking)."""
    state, _ = ENGINE.start(make_ctx(**kw))
    hands = fill_hands(state, fixed or {})
    state, moved = ENGINE.apply(state, {"type": "deal", "hands": {str(p): h for p, h in hands.items()}})
    assert moved == ()
    return state


def counted(**kw: Any) -> FanTanState:
    """A manual round dealt without hands (count-only tracking)."""
    state, _ = ENGINE.start(make_ctx(**kw))
    state, _ = ENGINE.apply(state, {"type": "deal"})
    return state


def run(state: FanTanState, *actions: Mapping[str, Any]) -> tuple[FanTanState, tuple[Settlement, ...]]:
    moved: list[Settlement] = []
    for action in actions:
        state, out = ENGINE.apply(state, action)
        moved += out
    return state, tuple(moved)


def play(player: int, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


def pass_(player: int) -> dict[str, Any]:
    return {"type": "pass", "player": player}


# --- the deal and the antes -------------------------------------------------------------------


@pytest.mark.parametrize("count", [3, 4, 5, 6, 7, 8])
def test_whole_deck_is_dealt_one_card_at_a_time_from_the_dealers_left(count: int) -> None:
    seats = {s: 100 + s for s in range(1, count + 1)}
    state, _ = ENGINE.start(make_ctx(seats=seats, deck=FULL_DECK))
    state, _ = ENGINE.apply(state, {"type": "deal"})
    order = [100 + s for s in range(2, count + 1)] + [101]  # dealer at seat 1
    assert ENGINE.public_state(state)["order"] == order
    for i, player in enumerate(order):
        assert state.get(player).hand == FULL_DECK[i::count]
    sizes = [state.get(p).count for p in order]
    assert sum(sizes) == 52
    assert sizes == sorted(sizes, reverse=True)
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize(("count", "short"), [(3, 2), (4, 0), (5, 3), (6, 2), (7, 4), (8, 4)])
def test_each_player_who_got_fewer_cards_antes_one_chip_more(count: int, short: int) -> None:
    seats = {s: 100 + s for s in range(1, count + 1)}
    state, antes = ENGINE.start(make_ctx(seats=seats, ante=300))
    by_player = {s.player: s.amount for s in antes}
    fewest = min(p.dealt for p in state.players)
    extra = [p.player for p in state.players if p.dealt == fewest and fewest * count != 52]
    assert len(extra) == short
    assert by_player == {p.player: 300 + (CHIP if p.player in extra else 0) for p in state.players}
    assert {s.payee for s in antes} == {MAIN}
    assert ENGINE.public_state(state)["pot"] == sum(by_player.values())


def test_the_ante_defaults_to_one_chip() -> None:
    _, antes = ENGINE.start(make_ctx(ante=0, rules={"chip": 25}, min_bet=25))
    assert sorted(s.amount for s in antes) == [25, 50, 50]


@pytest.mark.parametrize(("ante", "min_bet", "max_bet", "code"), ANTES_OUTSIDE_THE_LIMITS)
def test_ante_must_be_whole_chips_within_the_table_limits(
    ante: int, min_bet: int, max_bet: int, code: str
) -> None:
    assert_start_and_reserve_refuse(ENGINE, make_ctx(ante=ante, min_bet=min_bet, max_bet=max_bet), code)


@pytest.mark.parametrize("reserve_chips", [0, 30, 45])
def test_reserve_is_the_antes_plus_reserve_chips(reserve_chips: int) -> None:
    ctx = make_ctx(ante=200, rules={"reserve_chips": reserve_chips})
    _, antes = ENGINE.start(ctx)
    assert ENGINE.reserve(ctx) == {s.player: s.amount + reserve_chips * CHIP for s in antes}


def test_a_carried_pot_adds_to_this_rounds_pot() -> None:
    state, antes = ENGINE.start(make_ctx(carry={"pots": {"main": 777}}))
    assert ENGINE.public_state(state)["pot"] == 777 + sum(s.amount for s in antes)


@pytest.mark.parametrize(("count", "ok"), [(2, False), (3, True), (8, True), (9, False)])
def test_fan_tan_takes_three_to_eight_players(count: int, ok: bool) -> None:
    ctx = make_ctx(seats={s: 100 + s for s in range(1, count + 1)})
    if ok:
        assert len(ENGINE.start(ctx)[1]) == count
    else:
        with pytest.raises(IllegalAction):
            ENGINE.start(ctx)


@pytest.mark.parametrize(
    ("seats", "carried", "dealer"),
    [
        ({2: 20, 4: 40, 7: 70}, None, 2),  # first round: lowest occupied seat
        ({2: 20, 4: 40, 7: 70}, 2, 4),  # then one to the left
        ({2: 20, 4: 40, 7: 70}, 7, 2),  # wrapping round
        ({2: 20, 4: 40, 7: 70}, 5, 7),  # the last dealer's seat emptied
    ],
)
def test_dealer_position_is_the_lowest_seat_then_moves_one_left_each_round(
    seats: dict[int, int], carried: int | None, dealer: int
) -> None:
    carry = {} if carried is None else {"dealer_seat": carried}
    state, _ = ENGINE.start(make_ctx(seats=seats, carry=carry))
    assert ENGINE.public_state(state)["dealer_seat"] == dealer
    assert ENGINE.carry_out(state)["dealer_seat"] == dealer
    assert state.players[-1].seat == dealer  # the dealer gets the last card and plays last


def test_electronic_deal_forbids_keyed_hands() -> None:
    state, _ = ENGINE.start(make_ctx(deck=FULL_DECK))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "deal", "hands": {"10": ["AS"]}})


def test_manual_deal_with_hands_is_full_tracking_and_without_is_count_only() -> None:
    full = known()
    count = counted()
    assert ENGINE.public_state(full)["tracking"] == "full"
    assert ENGINE.public_state(count)["tracking"] == "count"
    assert [p["cards"] for p in ENGINE.public_state(count)["players"]] == [18, 17, 17]
    assert all(p.hand is None for p in count.players)


def _bad_hands() -> list[Any]:
    state, _ = ENGINE.start(make_ctx())
    good = fill_hands(state, {})
    short = {**good, 20: good[20][:-1]}
    swapped = {20: good[20][:-1], 30: [*good[30], good[20][-1]], 10: good[10]}  # all 52, wrong sizes
    dup = {**good, 10: [*good[10][:-1], good[20][0]]}
    missing = {20: good[20], 30: good[30]}
    stranger = {**good, 99: []}
    joker = {**good, 10: [*good[10][:-1], "JK"]}
    return [short, swapped, dup, missing, stranger, joker, [good[20]], {"twenty": good[20]}]


@pytest.mark.parametrize("hands", _bad_hands())
def test_keyed_hands_must_be_the_whole_deck_in_the_deal_sizes(hands: Any) -> None:
    state, _ = ENGINE.start(make_ctx())
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "deal", "hands": hands})


# --- play ---------------------------------------------------------------------------------------


def test_play_goes_round_from_the_dealers_left() -> None:
    state = counted()
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(state, play(30, "7S"))
    assert err.value.code == "not_your_turn"
    turns = []
    for player, card in ((20, "7S"), (30, "7H"), (10, "7D"), (20, "7C")):
        turns.append(ENGINE.public_state(state)["turn"])
        state, _ = ENGINE.apply(state, play(player, card))
    assert turns == [20, 30, 10, 20]


@pytest.mark.parametrize(
    ("before", "card", "ok"),
    [
        ([], "7H", True),  # a 7 may always be played
        ([], "6H", False),  # a 6 only once its 7 is down
        ([], "8H", False),
        (["7H"], "6H", True),
        (["7H"], "8H", True),
        (["7H"], "6S", False),  # another suit's 7 is not down
        (["7H"], "5H", False),  # one card at a time
        (["7H", "6H"], "5H", True),  # downward from the 6
        (["7H", "6H"], "4H", False),
        (["7H", "8H"], "9H", True),  # upward from the 8
        (["7H", "8H"], "10H", False),
        (["7H", "6H", "5H", "4H", "3H", "2H"], "AH", True),  # down to the ace
        (["7H", "8H", "9H", "10H", "JH", "QH"], "KH", True),  # up to the king
        (["7H", "7S"], "7D", True),
    ],
)
def test_build_from_the_sevens_one_card_at_a_time(before: list[str], card: str, ok: bool) -> None:
    state = counted()
    for played in before:
        state, _ = ENGINE.apply(state, play(state.players[state.turn].player, played))
    action = play(state.players[state.turn].player, card)
    if ok:
        state, moved = ENGINE.apply(state, action)
        assert moved == ()
        assert card in ENGINE.public_state(state)["played"]
    else:
        with pytest.raises(IllegalAction) as err:
            ENGINE.apply(state, action)
        assert err.value.code == "bad_placement"


def test_layout_shows_each_suits_lowest_and_highest_card() -> None:
    state, _ = run(counted(), play(20, "7H"), play(30, "8H"), play(10, "6H"), play(20, "7C"))
    layout = ENGINE.public_state(state)["layout"]
    assert layout == {"S": None, "H": {"low": "6", "high": "8"}, "D": None, "C": {"low": "7", "high": "7"}}


def test_a_card_already_played_is_refused() -> None:
    state, _ = run(counted(), play(20, "7H"))
    with pytest.raises(IllegalAction) as err:
        ENGINE.apply(state, play(30, "7H"))
    assert err.value.code == "card_not_in_shoe"


def test_with_known_hands_a_player_plays_only_their_own_cards() -> None:
    state = known({20: ["7H"], 30: ["7S"]})
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, play(20, "7S"))
    state, _ = ENGINE.apply(state, play(20, "7H"))
    assert "7H" not in (state.get(20).hand or ())
    assert ENGINE.public_state(state)["players"][0]["cards"] == 17


def test_hands_are_hidden_until_the_round_settles() -> None:
    state = known({20: ["7H"]})
    assert all(p["hand"] is None for p in ENGINE.public_state(state)["players"])
    state = state.with_player(replace(state.get(20), hand=("7H",), count=1))
    state, _ = ENGINE.apply(state, play(20, "7H"))
    shown = {p["player"]: p["hand"] for p in ENGINE.public_state(state)["players"]}
    assert shown[20] == []
    assert shown[30] == list(state.get(30).hand or ())
    assert len(shown[30]) == 17


# --- passes and penalties ---------------------------------------------------------------------


def test_a_player_who_cannot_play_passes_and_pays_one_chip_to_the_pot() -> None:
    state = known({30: ["7S", "7H", "7D", "7C"]})  # 20 holds no 7 and cannot play
    pot_before = state.pot
    state, moved = ENGINE.apply(state, pass_(20))
    assert moved == (Settlement("pass", wallet(20), MAIN, CHIP, 20),)
    assert state.pot == pot_before + CHIP
    assert ENGINE.public_state(state)["turn"] == 30


def test_illegal_pass_costs_three_chips_more_and_five_to_the_holders_of_the_six_and_eight() -> None:
    state = known({20: ["7H", "7S", "6S"], 30: ["6H", "8S"], 10: ["8H"]})
    state, moved = ENGINE.apply(state, pass_(20))
    assert list(moved) == [
        Settlement("pass", wallet(20), MAIN, CHIP, 20),
        Settlement("illegal_pass", wallet(20), MAIN, 3 * CHIP, 20),
        Settlement("seven_held", wallet(20), wallet(30), 5 * CHIP, 20),  # 8S (6S is the passer's own)
        Settlement("seven_held", wallet(20), wallet(30), 5 * CHIP, 20),  # 6H
        Settlement("seven_held", wallet(20), wallet(10), 5 * CHIP, 20),  # 8H
    ]


def test_illegal_pass_without_a_seven_costs_the_pass_chip_and_three_more() -> None:
    state = known({20: ["8H"], 30: ["7H", "7S", "7D", "7C"]})
    state, moved = ENGINE.apply(state, pass_(20))  # a legal pass
    assert net(moved)[wallet(20)] == -CHIP
    state, _ = ENGINE.apply(state, play(30, "7H"))
    state, _ = ENGINE.apply(state, pass_(10))
    before = state.pot
    state, moved = ENGINE.apply(state, pass_(20))  # could play the 8H now
    assert net(moved)[wallet(20)] == -4 * CHIP
    assert state.pot == before + 4 * CHIP


def test_a_payment_larger_than_the_reserve_left_is_paid_in_part() -> None:
    state = known({20: ["7H"], 30: ["6H"], 10: ["8H"]})
    state = state.with_player(replace(state.get(20), reserve_left=750))
    state, moved = ENGINE.apply(state, pass_(20))
    assert [(s.kind, s.amount) for s in moved] == [
        ("pass", 100),
        ("illegal_pass", 300),
        ("seven_held", 350),  # the 6H holder gets what there is
    ]
    assert state.get(20).reserve_left == 0
    state, _ = run(state, play(30, "7D"), play(10, "7C"))
    state, moved = ENGINE.apply(state, pass_(20))  # holds the 7S: illegal, but nothing left to pay
    assert moved == ()


def test_count_only_penalty_charges_three_chips_to_the_pot() -> None:
    state, _ = run(counted(), pass_(20))
    before = state.pot
    state, moved = ENGINE.apply(state, {"type": "penalty", "player": 20})
    assert moved == (Settlement("illegal_pass", wallet(20), MAIN, 3 * CHIP, 20),)
    assert state.pot == before + 3 * CHIP
    with pytest.raises(IllegalAction):  # one penalty per pass
        ENGINE.apply(state, {"type": "penalty", "player": 20})


def test_count_only_penalty_with_a_seven_also_pays_five_chips_to_each_named_holder() -> None:
    state, _ = run(counted(), pass_(20))
    action = {"type": "penalty", "player": 20, "seven": "7h", "six_holder": 30, "eight_holder": 10}
    state, moved = ENGINE.apply(state, action)
    assert list(moved) == [
        Settlement("illegal_pass", wallet(20), MAIN, 3 * CHIP, 20),
        Settlement("seven_held", wallet(20), wallet(30), 5 * CHIP, 20),
        Settlement("seven_held", wallet(20), wallet(10), 5 * CHIP, 20),
    ]
    with pytest.raises(IllegalAction):  # that pass is penalised already
        ENGINE.apply(state, action)


def test_count_only_further_sevens_of_the_same_pass_pay_only_the_holders() -> None:
    state, _ = run(counted(), pass_(20))
    first = {"type": "penalty", "player": 20, "seven": "7H", "six_holder": 30, "eight_holder": 20}
    state, _ = ENGINE.apply(state, first)  # the 8H was the passer's own: nothing due for it
    same = {"type": "penalty", "player": 20, "seven": "7S", "six_holder": 20, "eight_holder": 30}
    same["same_pass"] = True
    state, moved = ENGINE.apply(state, same)
    assert moved == (Settlement("seven_held", wallet(20), wallet(30), 5 * CHIP, 20),)
    for again in (same, {**same, "seven": "7H"}, {"type": "penalty", "player": 20, "same_pass": True}):
        with pytest.raises(IllegalAction):  # each seven once per penalised pass; same_pass names a seven
            ENGINE.apply(state, again)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "penalty", "player": 30},  # 30 never passed
        {"type": "penalty", "player": 20, "seven": "8H"},  # not a seven
        {"type": "penalty", "player": 20, "seven": "7H", "six_holder": 20},  # no eight_holder
        {"type": "penalty", "player": 20, "seven": "7C", "eight_holder": 10},  # 30 played the 7C since
        {"type": "penalty", "player": 20, "pass": 1},  # 20 passed once
        {"type": "penalty", "player": 20, "pass": True},
        {"type": "penalty", "player": 20, "seven": "7H", "six_holder": 99},
        {"type": "penalty", "player": 20, "seven": "7H", "same_pass": True},  # no pass penalised yet
        {"type": "penalty", "player": 20, "same_pass": "yes"},
        {"type": "penalty", "player": "20"},
    ],
)
def test_count_only_penalty_refusals(action: dict[str, Any]) -> None:
    state, _ = run(counted(), pass_(20), play(30, "7C"), play(10, "8C"))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, action)


def test_count_only_penalty_is_judged_against_the_layout_at_the_pass_it_punishes() -> None:
    """Issue 20: a seven already on the layout at the pass was accepted; a rightful penalty
    was refused once the 6 had been played since. The holder of a card played since is known."""
    # 20 plays the 7H, then 30 passes: 30 cannot have held the 7H at that pass.
    state, _ = run(counted(), play(20, "7H"), pass_(30))
    with pytest.raises(IllegalAction, match="already on the layout at player 30's pass 0"):
        ENGINE.apply(state, {"type": "penalty", "player": 30, "seven": "7H", "eight_holder": 10})
    # 20 passes holding the 7S; later 20 plays it and 30 plays the 6S.
    state, _ = run(counted(), pass_(20), pass_(30), pass_(10), play(20, "7S"), play(30, "6S"))
    penalty = {"type": "penalty", "player": 20, "seven": "7S", "six_holder": 30, "eight_holder": 10}
    _, moved = ENGINE.apply(state, penalty)
    assert list(moved) == [
        Settlement("illegal_pass", wallet(20), MAIN, 3 * CHIP, 20),
        Settlement("seven_held", wallet(20), wallet(30), 5 * CHIP, 20),
        Settlement("seven_held", wallet(20), wallet(10), 5 * CHIP, 20),
    ]
    assert ENGINE.apply(state, {**penalty, "six_holder": None})[1] == moved  # 30 played the 6S: known
    with pytest.raises(IllegalAction, match="played by player 30"):
        ENGINE.apply(state, {**penalty, "six_holder": 10})
    with pytest.raises(IllegalAction, match="played by player 20 after player 30's pass 0"):
        ENGINE.apply(state, {**penalty, "player": 30, "six_holder": None, "eight_holder": 10})


def test_count_only_penalty_with_a_seven_requires_the_holders_the_engine_cannot_know() -> None:
    """Issue 20: ``penalty {player, seven}`` silently skipped the five-chip payments."""
    state, _ = run(counted(), pass_(20))
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, {"type": "penalty", "player": 20, "seven": "7H"})
    assert "six_holder" in refused.value.message
    assert list(refused.value.fields) == ["six_holder"]
    with pytest.raises(IllegalAction) as refused:
        ENGINE.apply(state, {"type": "penalty", "player": 20, "seven": "7H", "six_holder": 30})
    assert list(refused.value.fields) == ["eight_holder"]
    # Naming the passer says the card was their own: nothing is due for it.
    own = {"type": "penalty", "player": 20, "seven": "7H", "six_holder": 20, "eight_holder": 20}
    _, moved = ENGINE.apply(state, own)
    assert moved == (Settlement("illegal_pass", wallet(20), MAIN, 3 * CHIP, 20),)


def test_count_only_penalty_names_the_last_pass_or_the_pass_given() -> None:
    # 20 passes on an empty layout, then again once 30's 7H is down.
    state, _ = run(counted(), pass_(20), play(30, "7H"), pass_(10), pass_(20))
    assert ENGINE.public_state(state)["players"][0]["passes"] == 2
    with pytest.raises(IllegalAction, match="on the layout at player 20's pass 1"):
        ENGINE.apply(state, {"type": "penalty", "player": 20, "seven": "7H", "eight_holder": 10})
    state, _ = ENGINE.apply(state, {"type": "penalty", "player": 20})  # the last pass, 1
    with pytest.raises(IllegalAction, match="pass 1 is already penalised"):
        ENGINE.apply(state, {"type": "penalty", "player": 20})
    (earlier,) = [a for a in ENGINE.legal_actions(state) if a["type"] == "penalty" and "needs" in a]
    assert (earlier["player"], earlier["needs"], earlier["choices"]["pass"]) == (20, ["pass"], [0])
    # Its seven is left open: at pass 0 the layout was empty, so any seven may be named.
    assert earlier["optional"] == ["seven", "six_holder", "eight_holder"]
    assert earlier["choices"]["seven"] == ["7S", "7H", "7D", "7C"]
    penalty = {
        "type": "penalty",
        "player": 20,
        "pass": 0,
        "seven": "7S",
        "six_holder": 10,
        "eight_holder": 30,
    }
    state, moved = ENGINE.apply(state, penalty)
    assert net(moved)[wallet(20)] == -13 * CHIP
    assert ENGINE.public_state(state)["players"][0]["penalised_passes"] == [1, 0]
    assert [a for a in ENGINE.legal_actions(state) if a["type"] == "penalty" and a["player"] == 20] == []


def test_penalty_is_not_keyed_when_the_engine_knows_the_hands() -> None:
    state, _ = run(known(), pass_(20))
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, {"type": "penalty", "player": 20})


# --- the end ------------------------------------------------------------------------------------


def test_first_out_wins_the_others_pay_a_chip_per_card_left_and_the_winner_takes_the_pot() -> None:
    state = counted(carry={"pots": {"main": 250}})
    state = state.with_player(replace(state.get(20), count=1))
    pot_before = state.pot
    state, moved = ENGINE.apply(state, play(20, "7S"))
    assert ENGINE.is_over(state)
    assert ENGINE.public_state(state)["winner"] == 20
    assert sorted((s.player, s.amount) for s in moved if s.kind == "cards_left") == [(10, 1700), (30, 1700)]
    assert moved[-1] == Settlement("pot", MAIN, wallet(20), pot_before + 3400, 20)
    assert state.pot == 0
    assert ENGINE.carry_out(state) == {"pots": {}, "dealer_seat": 1, "players": [20, 30, 10]}


@pytest.mark.parametrize(("percent", "cap", "rake"), [(5, None, 195), (5, 100, 100), (0, None, 0)])
def test_percent_rake_is_taken_from_the_pot_as_it_is_won(percent: int, cap: int | None, rake: int) -> None:
    rules = {"rake": {"kind": "percent", "percent": percent, "cap": cap}}
    state = counted(rules=rules)
    state = state.with_player(replace(state.get(20), count=1))
    state, moved = ENGINE.apply(state, play(20, "7S"))
    won = 500 + 3400  # antes 100 + 200 + 200, then 34 cards left
    assert [s.amount for s in moved if s.payee == RAKE] == ([rake] if rake else [])
    assert [s.amount for s in moved if s.kind == "pot"] == [won - rake]


def test_nothing_is_accepted_after_the_round_settles() -> None:
    state = counted()
    state = state.with_player(replace(state.get(20), count=1))
    state, _ = ENGINE.apply(state, play(20, "7S"))
    for action in (play(30, "7H"), pass_(30), {"type": "penalty", "player": 30}, {"type": "deal"}):
        with pytest.raises(IllegalAction):
            ENGINE.apply(state, action)


# --- legal actions ------------------------------------------------------------------------------


def accepted_plays(state: FanTanState) -> set[str]:
    """Every card ``apply`` takes from the player whose turn it is, found by trying all 52."""
    player = state.players[state.turn].player
    ok = set()
    for card in FULL_DECK:
        try:
            ENGINE.apply(state, play(player, card))
        except IllegalAction:
            continue
        ok.add(card)
    return ok


def listed_plays(state: FanTanState) -> set[str]:
    return {a["card"] for a in ENGINE.legal_actions(state) if a["type"] == "play"}


def test_legal_actions_with_known_hands_are_exactly_the_plays_apply_accepts_and_the_pass() -> None:
    state = known({20: ["7H", "6H", "5H", "8S"], 30: ["7S"]})
    for action in (play(20, "7H"), play(30, "7S"), pass_(10)):
        assert listed_plays(state) == accepted_plays(state)
        assert pass_(state.players[state.turn].player) in map(without_hints, ENGINE.legal_actions(state))
        state, _ = ENGINE.apply(state, action)
    assert listed_plays(state) == accepted_plays(state) == {"6H", "6S", "8S"}  # 6S from the fill


def test_legal_actions_count_only_list_what_the_layout_takes_and_open_penalties() -> None:
    state, _ = run(counted(), play(20, "7H"), pass_(30))
    listed = ENGINE.legal_actions(state)
    assert listed_plays(state) == accepted_plays(state) == {"6H", "8H", "7S", "7D", "7C"}
    assert [without_hints(a) for a in listed if a["type"] == "penalty"] == [{"type": "penalty", "player": 30}]
    # 30 passed with 7H down: the seven they may have held is one of the other three.
    (penalty,) = [a for a in listed if a["type"] == "penalty"]
    assert penalty["choices"]["seven"] == ["7S", "7D", "7C"]
    assert ENGINE.legal_actions(counted(deck=None)) != []


def test_legal_actions_deal_first_and_nothing_once_settled() -> None:
    fresh, _ = ENGINE.start(make_ctx(deck=FULL_DECK))
    assert ENGINE.legal_actions(fresh) == [{"type": "deal"}]
    over = counted()
    over, _ = ENGINE.apply(over.with_player(replace(over.get(20), count=1)), play(20, "7S"))
    assert ENGINE.legal_actions(over) == []


@settings(max_examples=40, deadline=None)
@given(deck=st.permutations(FULL_DECK), count=st.integers(3, 8), data=st.data())
def test_choosing_only_listed_legal_actions_always_finishes_the_round(
    deck: list[str], count: int, data: st.DataObject
) -> None:
    state, _ = ENGINE.start(make_ctx(seats={s: s for s in range(1, count + 1)}, deck=deck))
    for _ in range(52 * 20):
        if ENGINE.is_over(state):
            break
        listed = ENGINE.legal_actions(state)
        plays = [a for a in listed if a["type"] != "pass"]
        slip = data.draw(st.integers(0, 19)) == 0  # now and then a pass, legal or not
        pool = plays if plays and not slip else listed
        state, _ = ENGINE.apply(state, data.draw(st.sampled_from(pool)))
    assert ENGINE.is_over(state)


# --- rules ----------------------------------------------------------------------------------------


def test_default_rules() -> None:
    assert ENGINE.validate_rules({}) == {"chip": 100, "rake": None, "reserve_chips": 30}


@pytest.mark.parametrize(
    "rules",
    [
        {"reserve_chips": -1},
        {"reserve_chips": "30"},
        {"reserve_chips": False},
        {"chip": 0},
        {"jokers": True},
        {"rake": {"kind": "percent"}},
        None,
    ],
)
def test_wrong_rules_are_refused_with_bad_rules(rules: Any) -> None:
    assert_bad_rules(ENGINE, rules)


# --- properties ---------------------------------------------------------------------------------


@st.composite
def contexts(draw: st.DrawFn) -> tuple[TableContext, str]:
    count = draw(st.integers(3, 8))
    seat_numbers = draw(st.lists(st.integers(1, 10), min_size=count, max_size=count, unique=True))
    players = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    carry: dict[str, Any] = {}
    if draw(st.booleans()):
        carry = {"dealer_seat": draw(st.integers(1, 10)), "pots": {"main": draw(st.integers(0, 999))}}
    rake = draw(st.sampled_from([None, {"kind": "percent", "percent": 5, "cap": 500}]))
    shoe = draw(st.sampled_from(["electronic", "full", "count"]))
    ctx = make_ctx(
        seats=dict(zip(seat_numbers, players, strict=True)),
        ante=draw(st.sampled_from([0, 100, 300])),
        carry=carry,
        rules={"rake": rake, "reserve_chips": draw(st.sampled_from([0, 5, 30]))},
        deck=draw(st.permutations(FULL_DECK)) if shoe == "electronic" else None,
    )
    return ctx, shoe


def playable(state: FanTanState, cards: Sequence[str]) -> list[str]:
    out = []
    for card in cards:
        span = state.layout["SHDC".index(suit_of(card))]
        rank = rank_index(rank_of(card))
        if (span is None and rank == 7) or (span is not None and rank in (span[0] - 1, span[1] + 1)):
            out.append(card)
    return out


def choose(
    state: FanTanState, hands: dict[int, list[str]], data: st.DataObject, slips: int
) -> dict[str, Any]:
    """A play when the player can (their choice of card), a pass otherwise; now and then a slip."""
    player = state.players[state.turn].player
    options = playable(state, hands[player])
    if options and (slips <= 0 or data.draw(st.integers(0, 9)) != 0):
        return play(player, data.draw(st.sampled_from(options)))
    me = state.get(player)
    open_pass = me.passes > 0 and me.passes - 1 not in me.penalised
    if not options and state.tracking == "count" and open_pass and data.draw(st.booleans()):
        return {"type": "penalty", "player": player}  # a pass the dealer wrongly calls illegal
    return pass_(player)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=contexts(), data=st.data())
def test_any_legal_round_settles_conserves_chips_replays_and_keeps_within_reserves(
    setup: tuple[TableContext, str], data: st.DataObject
) -> None:
    ctx, shoe = setup
    reserves = ENGINE.reserve(ctx)
    state, antes = ENGINE.start(ctx)
    moves = list(antes)
    deal: dict[str, Any] = {"type": "deal"}
    if shoe != "electronic":
        order = data.draw(st.permutations(FULL_DECK))
        n = len(state.players)
        dealt = {p.player: list(order[i::n]) for i, p in enumerate(state.players)}
        if shoe == "full":
            deal["hands"] = {str(p): list(cards) for p, cards in dealt.items()}  # a copy: plays mutate
    actions = [deal]
    state, _ = ENGINE.apply(state, deal)
    hands = {p.player: list(p.hand) for p in state.players} if shoe == "electronic" else dealt
    slips = 3
    for _ in range(52 * 20):
        if ENGINE.is_over(state):
            break
        action = choose(state, hands, data, slips)
        slips -= action["type"] == "pass" and bool(playable(state, hands[action["player"]]))
        state, moved = ENGINE.apply(state, action)
        if action["type"] == "play":
            hands[action["player"]].remove(action["card"])
        actions.append(action)
        moves += moved
    assert ENGINE.is_over(state)
    winner = ENGINE.public_state(state)["winner"]
    assert hands[winner] == []
    carried = ctx.carry.get("pots", {}).get("main", 0)
    balances: Counter[str] = Counter({MAIN: carried})
    paid: Counter[int] = Counter()
    for s in moves:
        assert isinstance(s.amount, int)
        assert s.amount > 0
        balances[s.payer] -= s.amount
        balances[s.payee] += s.amount
        assert balances[MAIN] >= 0
        if s.payer.startswith("wallet:"):
            assert s.payer == wallet(s.player or 0)
            paid[s.player or 0] += s.amount
    assert sum(balances.values()) == carried
    assert balances[MAIN] == ENGINE.public_state(state)["pot"] == 0
    assert ENGINE.carry_out(state)["pots"] == {}
    for p in state.players:
        assert paid[p.player] <= reserves[p.player]
        assert p.reserve_left == reserves[p.player] - paid[p.player]
    again, again_moves = ENGINE.start(ctx)
    replayed = list(again_moves)
    for action in actions:
        again, out = ENGINE.apply(again, action)
        replayed += out
    assert again == state
    assert replayed == moves
    json.dumps([ENGINE.public_state(state), ENGINE.carry_out(state)])


JSON = json_garbage([*FULL_DECK, "7h", "T7", "10"])
GARBAGE_CARRY = (
    st.just({})
    | JSON
    | st.fixed_dictionaries({"pots": JSON | st.just({"main": 500}), "dealer_seat": JSON | st.just(3)})
)
GARBAGE_CONTEXTS = garbage_contexts(seats=SEATS, json=JSON, carry=GARBAGE_CARRY, deck=FULL_DECK)
FIELDS = [
    "player",
    "card",
    "hands",
    "seven",
    "six_holder",
    "eight_holder",
    "same_pass",
    "limits",
    "version",
    "type",
]


@st.composite
def garbage_actions(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    kinds = st.sampled_from(["deal", "play", "pass", "penalty", "hit"])
    action: dict[str, Any] = {"type": draw(kinds | JSON)}
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=5)):
        action[key] = draw(
            JSON
            | st.sampled_from([10, 20, 30, "20", True, 2**70, -5, "7H", "7S", "8H"])
            | st.dictionaries(st.sampled_from(["10", "20", "30", "1" * 4400]), JSON, max_size=3)
        )
    return action


def _fuzz_states() -> list[FanTanState]:
    electronic, _ = ENGINE.start(make_ctx(deck=FULL_DECK))
    dealt, _ = ENGINE.apply(electronic, {"type": "deal"})
    count, _ = run(counted(), pass_(20), play(30, "7H"))
    over = counted()
    over, _ = ENGINE.apply(over.with_player(replace(over.get(20), count=1)), play(20, "7S"))
    return [electronic, dealt, known({20: ["7H"]}), count, over, ENGINE.start(make_ctx())[0]]


(
    test_garbage_actions_only_ever_raise_illegal_action,
    test_garbage_table_contexts_only_ever_raise_illegal_action,
) = garbage_fuzz_tests(ENGINE, _fuzz_states(), garbage_actions(), GARBAGE_CONTEXTS)
