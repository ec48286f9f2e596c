"""GAMES.md "Tonk": stakes per table, five cards each, drops, tonks, run-outs and slaps."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tables.games.base import Settlement, TableContext, wallet
from tables.games.cards import FULL_DECK, RANKS, SUITS, hand_points
from tables.games.errors import IllegalAction
from tables.games.shoe import shuffle
from tables.games.tonk import ENGINE, TonkState, is_deal_tonk, spread_kind
from tests.games.engine_support import (
    apply_or_refuse,
    assert_bad_rules,
    is_accepted,
    listed_legal_actions,
    net,
)

STAKE = 200

# Hands that are no tonk on the deal under either rule (totals 12 to 48).
PLAIN = ("2C 3C 4C 9H 10H", "2D 3D 4D 9S 10S", "5H 6H 7C 9C 10C", "5D 6D 7D 9D 10D")


def cards(text: str) -> list[str]:
    return text.split()


def make_ctx(
    n: int = 3,
    *,
    rules: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    carry: Mapping[str, Any] | None = None,
    ante: int = STAKE,
) -> TableContext:
    """Seats 1..n hold players 11, 12, …; the carry makes seat n the dealer so 11 plays first."""
    return TableContext(
        rules=dict(rules or {}),
        seats={seat: 10 + seat for seat in range(1, n + 1)},
        min_bet=100,
        max_bet=10_000,
        ante=ante,
        deck=tuple(deck) if deck is not None else None,
        carry=dict(carry if carry is not None else {"dealer_seat": n - 1}),
    )


def rig(hands: Sequence[str], upcard: str, stock: str = "") -> tuple[str, ...]:
    """An electronic deck that deals these hands one card at a time from the dealer's left."""
    n = len(hands)
    dealt = [cards(hand) for hand in hands]
    order = [dealt[i][k] for k in range(5) for i in range(n)]
    fixed = [*order, upcard, *cards(stock)]
    return (*fixed, *(card for card in FULL_DECK if card not in fixed))


def dealt(
    hands: Sequence[str], upcard: str = "QD", stock: str = "", rules: Mapping[str, Any] | None = None
) -> tuple[TonkState, tuple[Settlement, ...]]:
    state, _ = ENGINE.start(make_ctx(len(hands), rules=rules, deck=rig(hands, upcard, stock)))
    return ENGINE.apply(state, {"type": "deal"})


def play(state: TonkState, *actions: dict[str, Any]) -> tuple[TonkState, tuple[Settlement, ...]]:
    """Apply actions in order; the settlements of all of them."""
    moved: list[Settlement] = []
    for action in actions:
        state, settlements = ENGINE.apply(state, action)
        moved.extend(settlements)
    return state, tuple(moved)


def nets(settlements: Sequence[Settlement], players: Sequence[int]) -> list[int]:
    totals = net(settlements)
    return [totals[wallet(p)] for p in players]


def draw(player: int, source: str = "stock", **extra: Any) -> dict[str, Any]:
    return {"type": "draw", "player": player, "from": source, **extra}


def discard(player: int, card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "discard", "player": player, "card": card, **extra}


def spread(player: int, text: str) -> dict[str, Any]:
    return {"type": "spread", "player": player, "cards": cards(text)}


def hit(player: int, card: str, target: int) -> dict[str, Any]:
    return {"type": "hit", "player": player, "card": card, "spread": target}


def refused(state: TonkState, action: Any, code: str = "illegal_action") -> str:
    with pytest.raises(IllegalAction) as info:
        ENGINE.apply(state, action)
    assert info.value.code == code
    return info.value.message


# --- rules, reserve, the deal -------------------------------------------------------------


@pytest.mark.parametrize("caught_drop_pays", [1, 2])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_reserve_is_caught_drop_pays_plus_one_stakes_to_each_other_player(
    caught_drop_pays: int, n: int
) -> None:
    ctx = make_ctx(n, rules={"caught_drop_pays": caught_drop_pays})
    expected = (caught_drop_pays + 1) * STAKE * (n - 1)
    assert ENGINE.reserve(ctx) == {10 + seat: expected for seat in range(1, n + 1)}


@pytest.mark.parametrize("n", [1, 5])
def test_tonk_is_for_two_to_four_players(n: int) -> None:
    with pytest.raises(IllegalAction, match="players"):
        ENGINE.start(make_ctx(n, carry={}))


@pytest.mark.parametrize(
    "rules",
    [
        {"deal_tonk": "51"},
        {"slap": "yes"},
        {"caught_drop_pays": 0},
        {"caught_drop_pays": 1.0},
        {"chip": 0},
        {"stake": 100},
        {"rake": {"kind": "percent", "percent": 5, "cap": 100}},
    ],
)
def test_bad_rules_are_refused(rules: dict[str, Any]) -> None:
    assert_bad_rules(ENGINE, rules)


def test_default_rules_are_50_or_11_slaps_on_and_a_single_caught_penalty() -> None:
    assert ENGINE.validate_rules({}) == {
        "deal_tonk": "50_or_11",
        "slap": True,
        "caught_drop_pays": 1,
        "chip": 100,
        "rake": None,
    }


def test_the_stake_is_the_tables_ante_within_the_limits() -> None:
    with pytest.raises(IllegalAction) as info:
        ENGINE.start(make_ctx(ante=50_000))
    assert info.value.code == "limit_exceeded"
    assert ENGINE.start(make_ctx(ante=300))[0].stake == 300


def test_no_chips_move_when_the_round_starts_or_on_an_ordinary_deal() -> None:
    state, opening = ENGINE.start(make_ctx(3, deck=rig(PLAIN[:3], "KS")))
    after, settlements = ENGINE.apply(state, {"type": "deal"})
    assert (opening, settlements) == ((), ())
    assert not ENGINE.is_over(after)


def test_electronic_deal_five_cards_each_one_at_a_time_from_the_dealers_left_then_the_upcard() -> None:
    deck = tuple(reversed(FULL_DECK))
    state, _ = ENGINE.start(make_ctx(3, deck=deck, carry={}))  # first round: seat 1 deals
    assert state.players == (12, 13, 11)
    after, _ = ENGINE.apply(state, {"type": "deal"})
    for i in range(3):
        assert after.hands[i] == tuple(deck[i + 3 * k] for k in range(5))
    public = ENGINE.public_state(after)
    assert public["discard_pile"] == [deck[15]]
    assert public["stock_count"] == 52 - 15 - 1
    assert public["hand_counts"] == {"12": 5, "13": 5, "11": 5}
    assert public["turn"] == 12
    assert public["hands"] is None  # hands stay hidden until the round is over


def test_electronic_deal_refuses_keyed_cards() -> None:
    state, _ = ENGINE.start(make_ctx(2, deck=FULL_DECK))
    refused(state, {"type": "deal", "upcard": "KS"})


# --- tonk on the deal ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "hand", "is_tonk"),
    [
        ("50_or_11", "10S JS QS KS KH", True),  # exactly 50
        ("50_or_11", "AS AH 2S 3S 4S", True),  # 11
        ("50_or_11", "AS AH AD AC 2S", True),  # 6
        ("50_or_11", "AS AH 2S 3S 5S", False),  # 12
        ("50_or_11", "9S JS QS KS KH", False),  # 49
        ("49_or_50", "9S JS QS KS KH", True),
        ("49_or_50", "10S JS QS KS KH", True),
        ("49_or_50", "AS AH 2S 3S 4S", False),
        ("49_or_50", "8S JS QS KS KH", False),
    ],
)
def test_tonk_on_the_deal_every_other_player_pays_it_two_stakes(rule: str, hand: str, is_tonk: bool) -> None:
    state, settlements = dealt([PLAIN[0], hand, PLAIN[2]], rules={"deal_tonk": rule})
    assert ENGINE.is_over(state) is is_tonk
    if is_tonk:
        assert nets(settlements, (11, 12, 13)) == [-2 * STAKE, 4 * STAKE, -2 * STAKE]
        assert (state.outcome, state.winners) == ("deal_tonk", (12,))
        assert ENGINE.public_state(state)["totals"] == {"12": hand_points(cards(hand))}
    else:
        assert settlements == ()


@pytest.mark.parametrize("rule", ["50_or_11", "49_or_50"])
def test_two_tonks_on_the_deal_are_a_draw_nothing_paid_and_a_new_deal(rule: str) -> None:
    fifty = ("10S JS QS KS KH", "JH QH KD 10D JD")
    state, settlements = dealt([fifty[0], PLAIN[0], fifty[1]], rules={"deal_tonk": rule})
    public = ENGINE.public_state(state)
    assert settlements == ()
    assert ENGINE.is_over(state)
    assert (public["redeal"], public["outcome"], public["winners"]) == (True, "drawn_deal", [])


def test_a_redeal_keeps_the_same_dealer() -> None:
    state, _ = dealt(["10S JS QS KS KH", "JH QH KD 10D JD"])
    carry = ENGINE.carry_out(state)
    assert carry == {"dealer_seat": 2, "same_dealer": True}
    again, _ = ENGINE.start(make_ctx(2, carry=carry))
    assert again.dealer_seat == 2


def test_dealer_moves_one_seat_left_each_round_starting_at_the_lowest_seat() -> None:
    seats_dealt = []
    carry: dict[str, Any] = {}
    for _ in range(4):
        state, _ = ENGINE.start(make_ctx(3, deck=rig(PLAIN[:3], "KS"), carry=carry))
        seats_dealt.append(state.dealer_seat)
        state, _ = ENGINE.apply(state, {"type": "deal"})
        state, _ = ENGINE.apply(state, {"type": "drop", "player": state.players[0]})
        carry = ENGINE.carry_out(state)
    assert seats_dealt == [1, 2, 3, 1]


# --- the turn -----------------------------------------------------------------------------


def test_play_starts_at_the_dealers_left_and_goes_left() -> None:
    state, _ = dealt(PLAIN[:3])
    assert ENGINE.public_state(state)["turn"] == 11
    assert "player 11" in refused(state, draw(12), "not_your_turn")
    state, _ = play(state, draw(11), discard(11, "2C"))
    assert ENGINE.public_state(state)["turn"] == 12
    state, _ = play(state, draw(12), discard(12, "2D"), draw(13), discard(13, "5H"))
    assert ENGINE.public_state(state)["turn"] == 11


def test_a_turn_is_draw_then_discard_and_not_the_other_way() -> None:
    state, _ = dealt(PLAIN[:2])
    assert "draw" in refused(state, discard(11, "2C"))
    state, _ = play(state, draw(11))
    assert "already drawn" in refused(state, draw(11))


def test_draw_from_the_discard_pile_takes_the_top_card() -> None:
    state, _ = dealt(PLAIN[:2], upcard="QD")
    refused(state, draw(11, "discard", card="KD"))
    state, _ = play(state, draw(11, "discard", card="QD"))
    assert "QD" in state.hands[0]
    assert ENGINE.public_state(state)["discard_pile"] == []


def test_a_card_taken_from_the_discard_pile_cannot_go_straight_back() -> None:
    state, _ = dealt(PLAIN[:2], upcard="QD")
    state, _ = play(state, draw(11, "discard"))
    assert "straight back" in refused(state, discard(11, "QD"))
    state, _ = play(state, discard(11, "2C"))
    assert state.pile == ("2C",)


def test_the_electronic_stock_deals_the_next_card_and_refuses_a_keyed_one() -> None:
    state, _ = dealt(PLAIN[:2], stock="8H 8S")
    refused(state, draw(11, card="8H"))
    state, _ = play(state, draw(11), discard(11, "8H"), draw(12))
    assert "8S" in state.hands[1]


# --- spreads and hits ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("7S 7H 7D", "set"),
        ("7S 7H 7D 7C", "set"),
        ("3H 4H 5H", "run"),
        ("AH 2H 3H", "run"),  # ace low
        ("QH KH AH", "run"),  # ace high
        ("9C 10C JC QC KC AC", "run"),
        ("KH AH 2H", None),  # K-A-2 never
        ("QH KH AH 2H", None),
        ("3H 4H 5S", None),  # not suited
        ("3H 4H 6H", None),  # gap
        ("7S 7H", None),  # too few
        ("7S 7H 8S", None),
    ],
)
def test_a_spread_is_three_or_four_of_a_rank_or_a_suited_run_ace_low_or_high_never_k_a_2(
    text: str, kind: str | None
) -> None:
    assert spread_kind(cards(text)) == kind


def test_spreading_puts_the_cards_on_the_table_under_their_owner() -> None:
    state, _ = dealt(["QS KS AS 2C 3C", PLAIN[1]], stock="9H")
    refused(state, draw(12), "not_your_turn")
    state, _ = play(state, draw(11))
    refused(state, spread(11, "KS AS 2C"))
    refused(state, spread(11, "9S 10S JS"))  # not in the hand
    state, _ = play(state, spread(11, "AS QS KS"))
    assert ENGINE.public_state(state)["spreads"] == [
        {"id": 0, "owner": 11, "kind": "run", "cards": ["QS", "KS", "AS"]}
    ]
    assert ENGINE.public_state(state)["hand_counts"]["11"] == 3


def test_hit_adds_a_card_to_any_spread_and_must_fit() -> None:
    state, _ = dealt(["5S 6S 7S KD QC", "8S 9S 4H 4D 2C"], stock="3C 3D")
    state, _ = play(state, draw(11), spread(11, "5S 6S 7S"), discard(11, "KD"), draw(12))
    assert "does not fit" in refused(state, hit(12, "4H", 0))
    refused(state, hit(12, "8S", 1))  # no spread 1
    state, _ = play(state, hit(12, "8S", 0), hit(12, "9S", 0))
    assert ENGINE.public_state(state)["spreads"][0]["cards"] == ["5S", "6S", "7S", "8S", "9S"]


def test_a_player_whose_spread_was_hit_may_not_spread_or_hit_on_their_next_turn() -> None:
    state, _ = dealt(["5S 6S 7S KD QC", "8S 4H 4D 2C JH"], stock="4C 2H 9S 9D")
    state, _ = play(state, draw(11), spread(11, "5S 6S 7S"), discard(11, "KD"))
    state, _ = play(state, draw(12), hit(12, "8S", 0), discard(12, "JH"))
    state, _ = play(state, draw(11))  # 11 drew 9S, which would fit the run
    assert "hit" in refused(state, hit(11, "9S", 0))
    assert 11 in ENGINE.public_state(state)["barred"]
    state, _ = play(state, discard(11, "QC"), draw(12), discard(12, "2C"), draw(11))
    # one turn only: now 11 may hit again
    state, _ = play(state, hit(11, "9S", 0))
    assert ENGINE.public_state(state)["barred"] == []


def test_hitting_your_own_spread_bars_nobody() -> None:
    state, _ = dealt(["5S 6S 7S 8S QC", PLAIN[1]], stock="2H")
    state, _ = play(state, draw(11), spread(11, "5S 6S 7S"), hit(11, "8S", 0))
    assert ENGINE.public_state(state)["barred"] == []


# --- ways out -----------------------------------------------------------------------------


def test_tonk_out_last_card_spread_or_hit_two_stakes_from_each() -> None:
    state, _ = dealt(["7S 7H 7D 8C 8D", PLAIN[1], PLAIN[2]], stock="8H")
    state, settlements = play(state, draw(11), spread(11, "7S 7H 7D"), spread(11, "8C 8D 8H"))
    assert ENGINE.is_over(state)
    assert state.outcome == "tonk_out"
    assert nets(settlements, (11, 12, 13)) == [4 * STAKE, -2 * STAKE, -2 * STAKE]


def test_run_out_after_a_discard_one_stake_from_each() -> None:
    state, _ = dealt(["5S 6S 7S 8S KD", PLAIN[0], PLAIN[2]], stock="2H 3H 4D 9S")
    state, _ = play(state, draw(11), spread(11, "5S 6S 7S 8S"), discard(11, "KD"))
    state, _ = play(state, draw(12), discard(12, "3H"), draw(13), discard(13, "4D"))
    state, settlements = play(state, draw(11), hit(11, "9S", 0), discard(11, "2H"))
    assert (state.outcome, state.winners) == ("run_out", (11,))
    assert nets(settlements, (11, 12, 13)) == [2 * STAKE, -STAKE, -STAKE]


# --- drops --------------------------------------------------------------------------------


def test_drop_lowest_strictly_wins_one_stake_from_each() -> None:
    state, _ = dealt(["AC 2H 3H 4S 5S", PLAIN[1], PLAIN[2], PLAIN[3]])  # 15 vs 28, 37, 37
    state, settlements = play(state, {"type": "drop", "player": 11})
    assert (state.outcome, state.winners) == ("drop", (11,))
    assert nets(settlements, (11, 12, 13, 14)) == [3 * STAKE, -STAKE, -STAKE, -STAKE]
    assert ENGINE.public_state(state)["totals"] == {"11": 15, "12": 28, "13": 37, "14": 37}


def _caught_flows(totals: dict[int, int], dropper: int, pays: int) -> Counter[int]:
    """The house rule written out plainly: what each player nets on a caught drop."""
    result: Counter[int] = Counter()
    for player, total in totals.items():
        if player != dropper and total <= totals[dropper]:
            result[dropper] -= pays * STAKE
            result[player] += pays * STAKE
    low = min(totals.values())  # over every hand: a dropper tied for lowest is paid too
    lowest = [p for p, t in totals.items() if t == low]
    for payer in totals:
        if payer not in lowest:
            for winner in lowest:
                result[payer] -= STAKE
                result[winner] += STAKE
    return result


@pytest.mark.parametrize("caught_drop_pays", [1, 2])
@pytest.mark.parametrize(
    ("hands", "paid_by_dropper", "lowest"),
    [
        # 11 drops on 28; 12 has 15 (lower), 13 and 14 are higher
        (("2D 3D 4D 9S 10S", "AC 2C 3C 4H 5S", "5H 6H 7C 9C 10C", "5D 6D 7D 9D 10D"), [12], [12]),
        # 11 drops on 28; 12 ties at 28, 13 is lower at 15
        (("2D 3D 4D 9S 10S", "2C 3C 4C 9H 10H", "AC AD 3H 4H 6S", "5D 6D 7D 9D 10D"), [12, 13], [13]),
        # 11 drops on 28; 12 and 14 both have 15 (each of the lowest is paid)
        (("2D 3D 4D 9S 10S", "AC 2C 3C 4H 5S", "5H 6H 7C 9C 10C", "AD 2H 3H 4C 5D"), [12, 14], [12, 14]),
        # 11 drops on 15 and 12 ties at 15: the dropper is caught and is paid as a tied lowest
        (("AC 2C 3C 4H 5S", "AD 2H 3D 4C 5C", "5H 6H 7C 9C 10C", "5D 6D 7D 9D 10D"), [12], [11, 12]),
    ],
)
def test_caught_drop_dropper_pays_the_penalty_to_each_equal_or_lower_and_everyone_pays_the_lowest(
    caught_drop_pays: int, hands: tuple[str, ...], paid_by_dropper: list[int], lowest: list[int]
) -> None:
    state, _ = dealt(hands, rules={"caught_drop_pays": caught_drop_pays})
    totals = {11 + i: hand_points(cards(hand)) for i, hand in enumerate(hands)}
    state, settlements = play(state, {"type": "drop", "player": 11})
    assert (state.outcome, list(state.winners)) == ("caught_drop", lowest)
    penalties = [s for s in settlements if s.kind == "penalty"]
    assert [s.payee for s in penalties] == [wallet(p) for p in paid_by_dropper]
    assert all(s.amount == caught_drop_pays * STAKE and s.payer == wallet(11) for s in penalties)
    expected = _caught_flows(totals, 11, caught_drop_pays)
    assert nets(settlements, list(totals)) == [expected[p] for p in totals]


@pytest.mark.parametrize(("caught_drop_pays", "expected"), [(1, [0, 200, -200]), (2, [-100, 300, -200])])
def test_caught_drop_a_dropper_tied_for_lowest_is_paid_like_the_other_tied_player(
    caught_drop_pays: int, expected: list[int]
) -> None:
    """GAMES.md's example: totals 15 (the dropper), 15 and 29 at a stake of 100."""
    hands = ("AC 2C 3C 4H 5S", "AD 2H 3D 4C 5C", "3S 4S 4D 8H 10H")
    ctx = make_ctx(3, rules={"caught_drop_pays": caught_drop_pays}, deck=rig(hands, "QD"), ante=100)
    state, _ = play(ENGINE.start(ctx)[0], {"type": "deal"})
    state, settlements = play(state, {"type": "drop", "player": 11})
    assert ENGINE.public_state(state)["totals"] == {"11": 15, "12": 15, "13": 29}
    assert (state.outcome, state.winners) == ("caught_drop", (11, 12))
    assert nets(settlements, (11, 12, 13)) == expected


def test_double_penalty_caught_drop_uses_the_whole_reserve_at_most() -> None:
    hands = ("10C 10D 10H 9S 8S", "AC 2C 3C 4H 5S", "AD 2H 3H 4C 5D", "AH 2D 3D 4S 5C")
    state, _ = dealt(hands, rules={"caught_drop_pays": 2})
    reserve = state.reserve_left[0]
    state, settlements = play(state, {"type": "drop", "player": 11})
    assert -net(settlements)[wallet(11)] == reserve == (2 + 1) * STAKE * 3
    assert state.reserve_left[0] == 0


def test_drop_only_before_drawing() -> None:
    state, _ = dealt(PLAIN[:2])
    state, _ = play(state, draw(11))
    assert "already drawn" in refused(state, {"type": "drop", "player": 11})
    refused(state, {"type": "drop", "player": 12}, "not_your_turn")


# --- the stock runs out ---------------------------------------------------------------------


def _run_down_the_stock(state: TonkState) -> tuple[TonkState, tuple[Settlement, ...]]:
    """Both players draw from the stock and throw that card back until it is gone."""
    moved: tuple[Settlement, ...] = ()
    while not ENGINE.is_over(state):
        player = ENGINE.public_state(state)["turn"]
        state, _ = ENGINE.apply(state, draw(player))
        card = state.hands[state.turn][-1]
        state, moved = ENGINE.apply(state, discard(player, card))
    return state, moved


def test_stock_runs_out_lowest_total_wins_one_stake_from_each() -> None:
    state, _ = dealt(["AC 2H 3H 4S 5S", PLAIN[1]])
    state, settlements = _run_down_the_stock(state)
    assert state.stock_count == 0
    assert (state.outcome, state.winners) == ("stock_out", (11,))
    assert nets(settlements, (11, 12)) == [STAKE, -STAKE]


def test_stock_runs_out_a_tie_for_lowest_is_a_draw() -> None:
    state, _ = dealt(["2C 3C 4C 9H 10H", "2D 3D 4D 9S 10S"])
    state, settlements = _run_down_the_stock(state)
    assert (state.outcome, settlements) == ("stock_out_draw", ())
    assert ENGINE.public_state(state)["redeal"] is False


# --- slaps --------------------------------------------------------------------------------

SLAP_HANDS = ("7S 7H 7D KC QC", "7C 2D 3D 9H 10H", "4C 5C 9D 10D JH")


def _after_twelves_discard(rules: Mapping[str, Any] | None = None) -> TonkState:
    state, _ = dealt(SLAP_HANDS, stock="2S 6H", rules=rules)
    state, _ = play(state, draw(11), spread(11, "7S 7H 7D"), discard(11, "KC"), draw(12), discard(12, "7C"))
    return state


def test_slap_a_player_who_can_play_the_discard_takes_it_plays_and_play_continues_to_their_left() -> None:
    state = _after_twelves_discard()
    assert ENGINE.public_state(state)["slap_open"] is True
    state, _ = play(state, {"type": "slap", "player": 13})
    assert "must play" in refused(state, discard(13, "4C"))
    state, _ = play(state, hit(13, "7C", 0), discard(13, "4C"))
    public = ENGINE.public_state(state)
    assert public["turn"] == 11  # 13's left
    assert public["barred"] == [11]  # 13 hit 11's spread


def test_slap_skips_the_players_in_between() -> None:
    state = _after_twelves_discard()
    state, _ = play(state, {"type": "slap", "player": 11}, hit(11, "7C", 0), discard(11, "QC"))
    assert ENGINE.public_state(state)["turn"] == 12  # 13 lost that turn


@pytest.mark.parametrize(
    ("setup", "player", "why"),
    [
        ("after_draw", 11, "right after a discard"),
        ("own", 12, "own discard"),
        ("no_fit", 12, "fits no spread"),
        ("off", 13, "without slaps"),
    ],
)
def test_slap_is_refused_when_it_does_not_apply(setup: str, player: int, why: str) -> None:
    if setup == "no_fit":
        state, _ = dealt(SLAP_HANDS, stock="2S 6H")
        state, _ = play(state, draw(11), spread(11, "7S 7H 7D"), discard(11, "KC"))
    else:
        state = _after_twelves_discard({"slap": setup != "off"})
        if setup == "after_draw":
            state, _ = play(state, draw(13))
    assert why in refused(state, {"type": "slap", "player": player})


OWN_SPREAD_HANDS = ("7S 7H 7D KC 2C", "7C 2D 3D 9H 10H", "KD KH 9D 10D JH")


def test_slap_a_discard_that_makes_a_spread_with_the_slappers_own_cards() -> None:
    """GAMES.md: a slap is allowed when the card can be played at once, in a new spread too."""
    state, _ = dealt(OWN_SPREAD_HANDS, stock="2S 6H")
    state, _ = play(state, draw(11), spread(11, "7S 7H 7D"), discard(11, "KC"))
    assert {"type": "slap", "player": 13} in ENGINE.legal_actions(state)
    assert {"type": "slap", "player": 12} not in ENGINE.legal_actions(state)  # 12 cannot play KC
    assert "cannot play K♣ at once" in refused(state, {"type": "slap", "player": 12})
    state, _ = play(state, {"type": "slap", "player": 13})
    assert "must play" in refused(state, discard(13, "9D"))
    assert ENGINE.legal_actions(state) == [spread(13, "KH KD KC")]  # the slapped card first
    state, _ = play(state, spread(13, "KC KD KH"), discard(13, "9D"))
    assert ENGINE.public_state(state)["turn"] == 11


def test_slap_count_only_trusts_the_dealer_when_the_unseen_cards_could_make_the_spread() -> None:
    state = manual(3)
    state, _ = play(
        state, {"type": "deal", "upcard": "QD"}, draw(11), spread(11, "7S 7H 7D"), discard(11, "KC")
    )
    assert state.tracking == "count_only"
    slaps = [a for a in ENGINE.legal_actions(state) if a["type"] == "slap"]
    assert slaps == [{"type": "slap", "player": 12}, {"type": "slap", "player": 13}]
    state, _ = play(state, {"type": "slap", "player": 13})
    assert "must play" in refused(state, spread(13, "9D 10D JD"))
    template = next(a for a in ENGINE.legal_actions(state) if a["type"] == "spread")
    assert template["with"] == "KC"
    state, _ = play(state, spread(13, "KC KD KH"), discard(13, "9D"))
    assert ENGINE.public_state(state)["turn"] == 11


def test_no_slap_on_the_upcard() -> None:
    state, _ = dealt(["7S 7H 7D KC QC", PLAIN[1]], upcard="7C")
    refused(state, {"type": "slap", "player": 12})


# --- manual shoes -------------------------------------------------------------------------


def manual(n: int = 2, rules: Mapping[str, Any] | None = None) -> TonkState:
    return ENGINE.start(make_ctx(n, rules=rules))[0]


def test_manual_full_tracking_checks_every_keyed_card() -> None:
    state = manual()
    hands = {"11": cards(PLAIN[0]), "12": cards(PLAIN[1])}
    refused(state, {"type": "deal", "hands": hands})  # no upcard
    assert refused(state, {"type": "deal", "hands": hands, "upcard": "2C"}, "card_not_in_shoe")
    refused(state, {"type": "deal", "hands": {"11": cards(PLAIN[0])}, "upcard": "KS"})
    refused(state, {"type": "deal", "hands": {"11": cards(PLAIN[0]), "12": ["2D"]}, "upcard": "KS"})
    refused(
        state,
        {"type": "deal", "hands": hands | {"12": [*cards(PLAIN[1])[:4], "1X"]}, "upcard": "KS"},
        "bad_card",
    )
    state, _ = play(state, {"type": "deal", "hands": hands, "upcard": "KS"})
    assert state.tracking == "full"
    assert "Key the card" in refused(state, draw(11))
    refused(state, draw(11, card="KS"), "card_not_in_shoe")  # the upcard
    refused(state, draw(11, card="9S"), "card_not_in_shoe")  # in 12's hand
    state, _ = play(state, draw(11, card="tc"))
    assert state.hands[0][-1] == "10C"
    assert ENGINE.public_state(state)["stock_count"] == 52 - 10 - 2


def test_full_tracking_drop_may_key_totals_but_they_must_match() -> None:
    state = manual()
    state, _ = play(
        state, {"type": "deal", "hands": {"11": cards(PLAIN[0]), "12": cards(PLAIN[1])}, "upcard": "KS"}
    )
    assert "do not match" in refused(state, {"type": "drop", "player": 11, "totals": {"11": 27, "12": 20}})
    state, settlements = play(state, {"type": "drop", "player": 11, "totals": {"11": 28, "12": 28}})
    assert state.outcome == "caught_drop"
    # The penalty to 12; both are the lowest (the dropper tied), so nobody pays the lowest.
    assert nets(settlements, (11, 12)) == [-STAKE, STAKE]


def test_count_only_deal_keys_the_upcard_and_tracks_sizes() -> None:
    state = manual(3)
    assert "upcard" in refused(state, {"type": "deal"})
    state, _ = play(state, {"type": "deal", "upcard": "QD"})
    public = ENGINE.public_state(state)
    assert (state.tracking, public["hand_counts"]) == ("count_only", {"11": 5, "12": 5, "13": 5})
    assert "secret" in refused(state, draw(11, card="4H"))
    state, _ = play(state, draw(11), spread(11, "4H 5H 6H"))
    assert ENGINE.public_state(state)["hand_counts"]["11"] == 3
    refused(state, discard(11, "5H"), "card_not_in_shoe")  # already on the table
    state, _ = play(state, discard(11, "2C"), draw(12, "discard"))
    refused(state, discard(13, "2C"), "not_your_turn")
    state, _ = play(state, spread(12, "2C 2D 2H"))
    assert ENGINE.public_state(state)["hand_counts"]["12"] == 3


def test_count_only_a_player_cannot_play_more_unseen_cards_than_they_hold() -> None:
    state = manual(2)
    state, _ = play(state, {"type": "deal", "upcard": "QD"}, draw(11), spread(11, "4H 5H 6H 7H"))
    assert "only 2" in refused(state, spread(11, "9C 9D 9S"))


def test_count_only_tonk_on_the_deal_is_keyed_with_the_shown_hand() -> None:
    state = manual(3)
    assert "not a tonk" in refused(state, {"type": "deal", "upcard": "QD", "tonks": {"12": cards(PLAIN[0])}})
    refused(
        state, {"type": "deal", "upcard": "QD", "tonks": {"12": cards("QD JS QS KS KH")}}, "card_not_in_shoe"
    )
    state, settlements = play(
        state, {"type": "deal", "upcard": "QD", "tonks": {"12": cards("10S JS QS KS KH")}}
    )
    assert nets(settlements, (11, 12, 13)) == [-2 * STAKE, 4 * STAKE, -2 * STAKE]


def test_count_only_drop_needs_every_total_and_refuses_impossible_ones() -> None:
    state = manual(2)
    state, _ = play(state, {"type": "deal", "upcard": "QD"})
    assert "totals" in refused(state, {"type": "drop", "player": 11})
    refused(state, {"type": "drop", "player": 11, "totals": {"11": 9}})
    assert "not possible" in refused(state, {"type": "drop", "player": 11, "totals": {"11": 4, "12": 20}})
    assert "not possible" in refused(state, {"type": "drop", "player": 11, "totals": {"11": 10, "12": 51}})
    state, settlements = play(state, {"type": "drop", "player": 11, "totals": {"11": 10, "12": 20}})
    assert nets(settlements, (11, 12)) == [STAKE, -STAKE]


def test_count_only_the_discard_that_empties_the_stock_keys_the_totals() -> None:
    state = manual(2)
    state, _ = play(state, {"type": "deal", "upcard": "QD"})
    state = replace(state, stock_count=1)
    state, _ = play(state, draw(11))
    assert "totals" in refused(state, discard(11, "3C"))
    state, settlements = play(state, discard(11, "3C", totals={"11": 30, "12": 12}))
    assert (state.outcome, nets(settlements, (11, 12))) == ("stock_out", [-STAKE, STAKE])


def test_totals_are_refused_on_a_discard_that_shows_no_hands() -> None:
    state = manual(2)
    state, _ = play(state, {"type": "deal", "upcard": "QD"}, draw(11))
    assert "leave out" in refused(state, discard(11, "3C", totals={"11": 30, "12": 12}))


# --- money limits -------------------------------------------------------------------------


def test_a_payment_larger_than_the_reserve_left_is_paid_in_part() -> None:
    state, _ = dealt(["7S 7H 7D 8C 8D", PLAIN[1], PLAIN[2]], stock="8H")
    state = replace(state, reserve_left=(state.reserve_left[0], 150, 0))
    state, settlements = play(state, draw(11), spread(11, "7S 7H 7D"), spread(11, "8C 8D 8H"))
    assert settlements == (Settlement("win", wallet(12), wallet(11), 150, 12),)
    assert state.reserve_left[1:] == (0, 0)


def test_limits_and_version_keys_are_ignored() -> None:
    state, _ = dealt(PLAIN[:2])
    with_extras, _ = ENGINE.apply(state, draw(11) | {"limits": {"min_bet": 1, "max_bet": 2}, "version": 7})
    plain, _ = ENGINE.apply(state, draw(11))
    assert with_extras == plain


def test_nothing_is_accepted_after_the_round_is_over() -> None:
    state, _ = dealt(PLAIN[:2])
    state, _ = play(state, {"type": "drop", "player": 11})
    assert "over" in refused(state, draw(12))


def test_public_state_is_plain_json_and_shows_hands_only_when_over() -> None:
    state, _ = dealt(PLAIN[:2])
    assert ENGINE.public_state(state)["hands"] is None
    state, _ = play(state, {"type": "drop", "player": 11})
    public = ENGINE.public_state(state)
    assert json.loads(json.dumps(public)) == public
    assert public["hands"] == {"11": cards(PLAIN[0]), "12": cards(PLAIN[1])}


# --- properties ---------------------------------------------------------------------------


def legal_actions(state: TonkState, allow_drop: bool) -> list[dict[str, Any]]:
    """Every legal move at an electronic table (the oracle knows the hands)."""
    public = ENGINE.public_state(state)
    if state.phase == "deal":
        return [{"type": "deal"}]
    player = public["turn"]
    hand = state.hands[state.turn]
    if state.phase == "draw":
        moves = [draw(player)] if state.stock_count else []
        moves += [draw(player, "discard")] if state.pile else []
        moves += [{"type": "drop", "player": player}] if allow_drop or not moves else []
        return moves + _slaps(state)
    moves = []
    tables = [s.cards for s in state.spreads]
    if not state.barred_now:
        for size in (3, 4, 5, 6):
            moves += [
                spread(player, " ".join(c))
                for c in itertools.combinations(hand, size)
                if spread_kind(c)
                and state.must_play in (None, *c)
                and not _taken_left_alone(state, [x for x in hand if x not in c], [*tables, c])
            ]
        for card in hand if state.must_play is None else [state.must_play]:
            for i, s in enumerate(state.spreads):
                grown = [*tables[:i], (*s.cards, card), *tables[i + 1 :]]
                rest = [x for x in hand if x != card]
                if spread_kind((*s.cards, card)) and not _taken_left_alone(state, rest, grown):
                    moves.append(hit(player, card, i))
    if state.must_play is None:
        moves += [discard(player, card) for card in hand if card != state.taken]
    return moves


def _taken_left_alone(state: TonkState, rest: Sequence[str], tables: Sequence[Sequence[str]]) -> bool:
    """A play leaving only the card just taken from the pile, fitting no spread, is refused."""
    taken = state.taken
    return taken is not None and list(rest) == [taken] and not any(spread_kind((*c, taken)) for c in tables)


def _slaps(state: TonkState) -> list[dict[str, Any]]:
    if not state.slap_open:
        return []
    top = state.pile[-1]
    return [
        {"type": "slap", "player": p}
        for p, hand in zip(state.players, state.hands, strict=True)
        if p != state.last_discarder
        and p not in state.barred
        and (
            any(spread_kind((*s.cards, top)) for s in state.spreads)
            or any(spread_kind((top, *two)) for two in itertools.combinations(hand, 2))
        )
    ]


def finishing_move(state: TonkState) -> dict[str, Any]:
    """Draw from the stock, play what fits, throw a card: the stock shrinks every turn."""
    if state.phase != "play":
        return {"type": "deal"} if state.phase == "deal" else draw(ENGINE.public_state(state)["turn"])
    moves = legal_actions(state, allow_drop=False)
    return next((m for m in moves if m["type"] in PLAYS), moves[-1])


PLAYS = ("spread", "hit", "slap")


def choose(state: TonkState, moves: list[dict[str, Any]], data: st.DataObject, greed: int) -> dict[str, Any]:
    """A random legal move; plays to the table (and discards someone could slap) are favoured."""
    plays = [m for m in moves if m["type"] in PLAYS]
    baits = [
        m
        for m in moves
        if m["type"] == "discard" and any(spread_kind((*s.cards, m["card"])) for s in state.spreads)
    ]
    if (plays or baits) and data.draw(st.integers(0, 9)) < greed:
        moves = plays or baits
    return moves[data.draw(st.integers(0, len(moves) - 1))]


def mirrored(oracle: TonkState, action: dict[str, Any], mode: str) -> dict[str, Any]:
    """The same move keyed at a manual table: full tracking or count-only."""
    kind, deck, n = action["type"], oracle.deck or (), len(oracle.players)
    if kind == "deal":
        if mode == "full":
            hands = {str(p): list(deck[i::n][:5]) for i, p in enumerate(oracle.players)}
            return {"type": "deal", "hands": hands, "upcard": deck[5 * n]}
        tonks = _deal_tonks(oracle)
        return {"type": "deal", "upcard": deck[5 * n]} | ({"tonks": tonks} if tonks else {})
    if kind == "draw" and action["from"] == "stock" and mode == "full":
        return action | {"card": deck[oracle.next_card]}
    if mode == "count_only" and (kind == "drop" or _ends_the_stock(oracle, action)):
        left = [[c for c in h if c != action.get("card")] for h in oracle.hands]
        return action | {
            "totals": {str(p): hand_points(h) for p, h in zip(oracle.players, left, strict=True)}
        }
    return action


def _ends_the_stock(oracle: TonkState, action: dict[str, Any]) -> bool:
    """A discard with no stock left that does not empty the hand shows every hand."""
    return action["type"] == "discard" and oracle.stock_count == 0 and len(oracle.hands[oracle.turn]) > 1


def _deal_tonks(oracle: TonkState) -> dict[str, list[str]]:
    after, _ = ENGINE.apply(oracle, {"type": "deal"})
    return {
        str(p): list(h)
        for p, h in zip(after.players, after.hands, strict=True)
        if is_deal_tonk(h, after.deal_tonk)
    }


@st.composite
def tables(draw_: st.DrawFn) -> TableContext:
    n = draw_(st.integers(2, 4))
    deck = shuffle(FULL_DECK, draw_(st.binary(min_size=32, max_size=32)).hex())
    rules = {
        "deal_tonk": draw_(st.sampled_from(["50_or_11", "49_or_50"])),
        "slap": draw_(st.booleans()),
        "caught_drop_pays": draw_(st.sampled_from([1, 2])),
    }
    carry = draw_(st.sampled_from([{}, {"dealer_seat": 1}, {"dealer_seat": n}]))
    return make_ctx(n, rules=rules, deck=deck, carry=carry, ante=draw_(st.sampled_from([100, 200, 500])))


def check_money(ctx: TableContext, state: TonkState, settlements: Sequence[Settlement]) -> None:
    reserve = ENGINE.reserve(ctx)
    out: Counter[str] = Counter()
    for s in settlements:
        assert type(s.amount) is int
        assert s.amount > 0
        assert s.payer != s.payee
        out[s.payer] += s.amount
    assert sum(net(settlements).values()) == 0
    for player, left in zip(state.players, state.reserve_left, strict=True):
        assert 0 <= left == reserve[player] - out[wallet(player)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.data())
def test_property_every_tracking_mode_settles_the_same_conserves_chips_and_replays(
    ctx: TableContext, data: st.DataObject
) -> None:
    drop_rate = data.draw(st.sampled_from([0, 3, 25]))
    greed = data.draw(st.sampled_from([2, 9]))
    prefix = data.draw(st.integers(0, 80))
    engines = {mode: ENGINE.start(replace(ctx, deck=None))[0] for mode in ("full", "count_only")}
    oracle, _ = ENGINE.start(ctx)
    log: list[dict[str, Any]] = []
    paid: list[Settlement] = []
    for step in range(400):
        if ENGINE.is_over(oracle):
            break
        if step < prefix:
            moves = legal_actions(oracle, allow_drop=data.draw(st.integers(0, 99)) < drop_rate)
            action = choose(oracle, moves, data, greed)
        else:
            action = finishing_move(oracle)
        manual_steps = {
            mode: ENGINE.apply(state, mirrored(oracle, action, mode)) for mode, state in engines.items()
        }
        oracle, settlements = ENGINE.apply(oracle, action)
        for mode, (state, manual_paid) in manual_steps.items():
            assert manual_paid == settlements, mode
            engines[mode] = state
        paid.extend(settlements)
        log.append(action)
    assert ENGINE.is_over(oracle)  # legal play plus stock draws always reaches the end
    event(f"outcome: {oracle.outcome}")
    event(f"moves: {sorted({a['type'] for a in log} - {'deal', 'draw', 'discard'})}")
    assert all(ENGINE.is_over(s) and s.winners == oracle.winners for s in engines.values())
    check_money(ctx, oracle, paid)
    replayed, again = ENGINE.start(ctx)[0], list[Settlement]()
    for action in json.loads(json.dumps(log)):
        replayed, settlements = ENGINE.apply(replayed, action)
        again.extend(settlements)
    assert (replayed, again) == (oracle, paid)
    public = ENGINE.public_state(oracle)
    assert json.loads(json.dumps(public)) == public


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)
some_card = st.sampled_from(FULL_DECK) | st.sampled_from(["JK", "1S", "10X", "t", ""]) | json_values
garbage = st.fixed_dictionaries(
    {"type": st.sampled_from(["deal", "draw", "spread", "hit", "discard", "drop", "slap"]) | json_values},
    optional={
        "player": st.sampled_from([11, 12, 13, 99, "11", True, None, -1]),
        "from": st.sampled_from(["stock", "discard", "deck", 1]),
        "card": some_card,
        "cards": st.lists(some_card, max_size=5) | json_values,
        "spread": st.integers(-2, 4) | json_values,
        "totals": st.dictionaries(
            st.sampled_from(["11", "12", "13", "x", "99"]), st.integers(-5, 80) | json_values
        )
        | json_values,
        "hands": st.dictionaries(st.sampled_from(["11", "12", "13"]), st.lists(some_card, max_size=6))
        | json_values,
        "tonks": st.dictionaries(st.sampled_from(["11", "12", "13"]), st.lists(some_card, max_size=6))
        | json_values,
        "upcard": some_card,
        "limits": json_values,
    },
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(["electronic", "full", "count_only"]), st.integers(0, 30), st.data())
def test_fuzz_garbage_actions_only_ever_raise_illegal_action(
    ctx: TableContext, mode: str, steps: int, data: st.DataObject
) -> None:
    oracle, _ = ENGINE.start(ctx)
    state = oracle if mode == "electronic" else ENGINE.start(replace(ctx, deck=None))[0]
    for _ in range(steps):
        if ENGINE.is_over(oracle):
            break
        moves = legal_actions(oracle, allow_drop=False)
        action = moves[data.draw(st.integers(0, len(moves) - 1))]
        state, _ = ENGINE.apply(state, mirrored(oracle, action, mode) if mode != "electronic" else action)
        oracle, _ = ENGINE.apply(oracle, action)
    for _ in range(5):
        apply_or_refuse(ENGINE, state, data.draw(st.one_of(garbage, json_values)))  # state stays as it was


# --- legal_actions ------------------------------------------------------------------------
#
# The walks choose only from ``ENGINE.legal_actions`` and fill each template's ``needs`` from
# its hints: a keyed deal deals a shuffled deck, a stock card comes from ``choices``, totals
# lie within ``bounds``, a count-only spread is three cards of ``choices`` that make a spread
# with at most ``unseen`` of them outside ``held``. Play can cycle through the discard pile,
# so the walk is biased: before drawing it takes the stock four times in five (else any
# legal action), which shortens the stock every such turn, so the round ends within the
# bound (run out, tonk out, drop or the stock running out).

HINT_KEYS = ("needs", "optional", "choices", "count", "bounds", "min_amount", "max_amount", "chip")
HINT_KEYS += ("held", "unseen", "with")
LA_BOUND = 1_500  # actions: about 40 stock cards, a few actions a turn


def la_fixed(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in HINT_KEYS}


def la_spread_for(rng: random.Random, entry: Mapping[str, Any], state: TonkState) -> list[str]:
    """Three cards of the choices that make a spread, at most ``unseen`` of them not held, and
    not leaving only the card just taken from the pile where it fits no spread."""
    pool, held = set(entry["choices"]["cards"]), list(entry["held"])
    found = [
        list(three)
        for rank in RANKS
        for three in itertools.combinations(sorted(c for c in pool if c[:-1] == rank), 3)
    ]
    for suit in SUITS:
        for start in range(12):
            found.append([(*RANKS, "A")[value] + suit for value in range(start, start + 3)])
    found = [three for three in found if set(three) <= pool]
    fits = []
    for three in found:
        outside = sum(card not in held for card in three)
        rest = [card for card in held if card not in three]
        stranded = (
            rest == [state.taken]
            and outside == entry["unseen"]
            and not any(
                spread_kind((*cards, state.taken)) for cards in [*(s.cards for s in state.spreads), three]
            )
        )
        if outside <= entry["unseen"] and not stranded and entry.get("with", three[0]) in three:
            fits.append(three)
    return rng.choice(fits)


def la_fill(rng: random.Random, entry: Mapping[str, Any], state: TonkState) -> dict[str, Any]:
    """A sensible filling of a template; a concrete entry comes back as it is."""
    action = la_fixed(entry)
    for need in entry.get("needs", []):
        if need == "hands":
            deck = rng.sample(FULL_DECK, len(FULL_DECK))
            players = list(entry["count"]["hands"])
            action["hands"] = {p: deck[5 * i : 5 * i + 5] for i, p in enumerate(players)}
            action["upcard"] = deck[5 * len(players)]
        elif need == "upcard":
            action.setdefault("upcard", rng.choice(entry["choices"]["upcard"]))
        elif need == "totals":
            action["totals"] = {p: rng.randint(lo, hi) for p, (lo, hi) in entry["bounds"]["totals"].items()}
        elif need == "cards":
            action["cards"] = la_spread_for(rng, entry, state)
        else:
            action[need] = rng.choice(entry["choices"][need])
    return action


def la_pick(
    rng: random.Random, state: TonkState, legal: list[dict[str, Any]], mode: str, drop_rate: float
) -> dict[str, Any]:
    if state.phase == "deal" and mode != "electronic":
        return next(a for a in legal if ("hands" in a.get("needs", [])) == (mode == "full"))
    if state.phase == "draw":
        stock = [a for a in legal if a["type"] == "draw" and a["from"] == "stock"]
        if stock and rng.random() < 0.8:
            return stock[0]
        legal = [a for a in legal if a["type"] != "drop" or rng.random() < drop_rate] or legal
    return rng.choice(legal)


def la_start(ctx: TableContext, mode: str) -> TonkState:
    return ENGINE.start(ctx if mode == "electronic" else replace(ctx, deck=None))[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tables(),
    st.sampled_from(["electronic", "full", "count_only"]),
    st.integers(0, 2**32),
    st.sampled_from([0.0, 0.3]),
)
def test_legal_actions_are_all_accepted_and_a_stock_biased_walk_always_ends(
    ctx: TableContext, mode: str, seed: int, drop_rate: float
) -> None:
    rng = random.Random(seed)
    state = la_start(ctx, mode)
    for _ in range(LA_BOUND):
        if ENGINE.is_over(state):
            break
        legal = listed_legal_actions(ENGINE, state)
        for entry in legal:
            ENGINE.apply(state, la_fill(rng, entry, state))  # raises IllegalAction if it is not legal
        state, _ = ENGINE.apply(state, la_fill(rng, la_pick(rng, state, legal, mode, drop_rate), state))
    assert ENGINE.is_over(state)
    event(f"outcome: {state.outcome}")
    assert state.tracking == ("electronic" if mode == "electronic" else mode)
    assert ENGINE.legal_actions(state) == []


def test_legal_actions_before_and_after_the_draw() -> None:
    state, _ = dealt(["7S 7H 8S 9S KC", "2D 3D 4D 9H 10H"], upcard="7D", stock="10S")
    assert ENGINE.legal_actions(state) == [draw(11), draw(11, "discard"), {"type": "drop", "player": 11}]
    after, _ = play(state, draw(11))
    spreads = [spread(11, "7S 8S 9S"), spread(11, "8S 9S 10S"), spread(11, "7S 8S 9S 10S")]
    discards = [discard(11, c) for c in cards("7S 7H 8S 9S KC 10S")]
    assert ENGINE.legal_actions(after) == spreads + discards
    after, _ = play(state, draw(11, "discard"))
    legal = ENGINE.legal_actions(after)
    assert spread(11, "7S 7H 7D") in legal
    assert discard(11, "7D") not in legal  # just taken from the pile


def test_legal_actions_hits_slaps_and_the_barred_player() -> None:
    state = _after_twelves_discard()
    slaps = [{"type": "slap", "player": 11}, {"type": "slap", "player": 13}]
    assert ENGINE.legal_actions(state) == [
        draw(13),
        draw(13, "discard"),
        {"type": "drop", "player": 13},
        *slaps,
    ]
    state, _ = play(state, slaps[1])
    assert ENGINE.legal_actions(state) == [hit(13, "7C", 0)]  # the slapped card first, no discard
    state, _ = play(state, hit(13, "7C", 0), discard(13, "4C"))
    assert state.players[state.turn] == 11
    state, _ = play(state, draw(11))
    assert {a["type"] for a in ENGINE.legal_actions(state)} == {"discard"}  # 11 is barred


def test_a_play_that_leaves_only_the_card_just_taken_where_it_fits_nowhere_is_refused() -> None:
    state, _ = dealt(["4H 5H 6H 7H 2C", "2D 3D 4D 9S 10S"], stock="8H")
    state, _ = play(state, draw(11), spread(11, "4H 5H 6H"), hit(11, "7H", 0), discard(11, "2C"))
    state, _ = play(state, draw(12), discard(12, "9S"), draw(11, "discard"))
    assert "neither discarded nor played" in refused(state, hit(11, "8H", 0))
    assert ENGINE.legal_actions(state) == [discard(11, "8H")]


def test_legal_actions_manual_deal_and_count_only_templates() -> None:
    state = manual(2)
    keyed, count_only = ENGINE.legal_actions(state)
    assert keyed["needs"] == ["hands", "upcard"]
    assert keyed["count"] == {"hands": {"11": 5, "12": 5}}
    assert (count_only["needs"], count_only["optional"]) == (["upcard"], ["tonks"])
    state, _ = play(state, {"type": "deal", "upcard": "QD"})
    stock, pile, drop = ENGINE.legal_actions(state)
    assert (stock, pile) == (draw(11), draw(11, "discard"))
    assert drop["needs"] == ["totals"]
    assert drop["bounds"] == {"totals": {"11": [5, 50], "12": [5, 50]}}
    state, _ = play(state, draw(11, "discard"))
    legal = ENGINE.legal_actions(state)
    spread_template = next(a for a in legal if a["type"] == "spread")
    assert (spread_template["held"], spread_template["unseen"]) == (["QD"], 5)
    assert "QD" in spread_template["choices"]["cards"]
    unknown_discard = next(a for a in legal if a["type"] == "discard" and "needs" in a)
    assert "QD" not in unknown_discard["choices"]["card"]
    assert len(unknown_discard["choices"]["card"]) == 51
    assert discard(11, "QD") not in legal


def test_legal_actions_full_tracking_stock_draw_needs_an_unseen_card() -> None:
    state = manual(2)
    hands = {"11": cards(PLAIN[0]), "12": cards(PLAIN[1])}
    state, _ = play(state, {"type": "deal", "hands": hands, "upcard": "KS"})
    stock = ENGINE.legal_actions(state)[0]
    assert stock["needs"] == ["card"]
    assert sorted(stock["choices"]["card"]) == sorted(
        set(FULL_DECK) - {"KS", *cards(PLAIN[0] + " " + PLAIN[1])}
    )


# Completeness when the engine knows every hand: any other well-formed action is refused.


def la_admits(entry: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    if any(action.get(key) != value for key, value in la_fixed(entry).items()):
        return False
    return all(need == "card" and action.get("card") in entry["choices"]["card"] for need in entry["needs"])


def la_canonical(action: Mapping[str, Any]) -> dict[str, Any]:
    return {**action, "cards": sorted(action["cards"])} if "cards" in action else dict(action)


def la_covered(legal: list[dict[str, Any]], action: Mapping[str, Any]) -> bool:
    return any(
        la_canonical(entry) == la_canonical(action) if "needs" not in entry else la_admits(entry, action)
        for entry in legal
        if entry["type"] == action["type"]
    )


def la_some_action(rng: random.Random, state: TonkState) -> dict[str, Any]:
    """A well-formed Tonk action, legal or not."""
    kind = rng.choice(["deal", "draw", "draw", "spread", "hit", "hit", "discard", "discard", "drop", "slap"])
    player = rng.choice(state.players) if rng.random() < 0.4 else state.players[state.turn]
    hand = list(state.hands[state.players.index(player)]) if state.hands else []
    if kind == "deal":
        return {"type": kind}
    if kind in ("drop", "slap"):
        return {"type": kind, "player": player}
    if kind == "draw":
        action = draw(player, rng.choice(["stock", "discard"]))
        if action["from"] == "stock" and state.tracking == "full":
            action["card"] = rng.choice(FULL_DECK)
        return action
    card = rng.choice(hand) if hand and rng.random() < 0.85 else rng.choice(FULL_DECK)
    if kind == "discard":
        return discard(player, card)
    if kind == "hit":
        return hit(player, card, rng.randint(0, len(state.spreads)))
    chosen = rng.sample(hand, rng.randint(min(2, len(hand)), len(hand))) if hand else []
    return {"type": "spread", "player": player, "cards": chosen + ([card] if rng.random() < 0.2 else [])}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(["electronic", "full"]), st.integers(0, 2**32))
def test_legal_actions_with_known_hands_are_complete_anything_else_is_refused(
    ctx: TableContext, mode: str, seed: int
) -> None:
    rng = random.Random(seed)
    state = la_start(ctx, mode)
    tried: Counter[bool] = Counter()
    for _ in range(LA_BOUND):
        if ENGINE.is_over(state):
            break
        legal = ENGINE.legal_actions(state)
        if mode == "electronic":  # the same list as the property test's independent oracle
            assert sorted(map(json.dumps, map(la_canonical, legal))) == sorted(
                map(json.dumps, map(la_canonical, legal_actions(state, allow_drop=True)))
            )
        if state.tracking is not None or mode == "electronic":
            for attempt in range(4):
                # A filled legal action first (both sides are tried), then any well-formed ones.
                action = (
                    la_fill(rng, rng.choice(legal), state) if attempt == 0 else la_some_action(rng, state)
                )
                accepted = is_accepted(ENGINE, state, action)
                assert accepted == la_covered(legal, action), action
                tried[accepted] += 1
        state, _ = ENGINE.apply(state, la_fill(rng, la_pick(rng, state, legal, mode, 0.1), state))
    assert ENGINE.is_over(state)
    assert tried[True] >= tried.total() // 4
