"""Newmarket engine against GAMES.md "Newmarket" (and the decisions in the engine's docstring)."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.games.base import RAKE, Settlement, TableContext, pot, wallet
from tables.games.cards import FULL_DECK
from tables.games.errors import IllegalAction
from tables.games.newmarket import ENGINE, PAY_CARDS, NewmarketState, hand_of
from tests.games.engine_support import (
    assert_bad_rules,
    assert_start_and_reserve_refuse,
    context,
    listed_legal_actions,
)

SEATS3 = {1: 11, 2: 12, 3: 13}  # dealer seat 1 (player 11); 12 sits on the dealer's left
ORDER3 = [12, 13, 11]
SEATS4 = {1: 11, 2: 12, 3: 13, 4: 14}
ORDER4 = [12, 13, 14, 11]
SPADES = [r + "S" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
HEARTS = [r + "H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]


# --- helpers -------------------------------------------------------------------------------


def hand_sizes(players: int) -> list[int]:
    """GAMES.md: players+1 hands, one card at a time, widow last in each pass."""
    sizes = [0] * (players + 1)
    for i in range(52):
        sizes[i % (players + 1)] += 1
    return sizes


def stacked_hands(order: Sequence[int], wants: Mapping[Any, list[str]]) -> dict[Any, list[str]]:
    """Hands keyed by player / 'widow': the wanted cards, the rest filled in deck order."""
    slots: list[Any] = [*order, "widow"]
    hands = {slot: list(wants.get(slot, [])) for slot in slots}
    used = [card for cards in hands.values() for card in cards]
    assert len(used) == len(set(used))
    rest = [card for card in FULL_DECK if card not in used]
    for slot, size in zip(slots, hand_sizes(len(order)), strict=True):
        while len(hands[slot]) < size:
            hands[slot].append(rest.pop(0))
        assert len(hands[slot]) == size
    return hands


def deck_for(order: Sequence[int], hands: Mapping[Any, list[str]]) -> tuple[str, ...]:
    """The electronic deck order whose deal gives these hands (dealt round the table)."""
    slots: list[Any] = [*order, "widow"]
    queues = {slot: list(hands[slot]) for slot in slots}
    deck = []
    while any(queues.values()):
        for slot in slots:
            if queues[slot]:
                deck.append(queues[slot].pop(0))
    return tuple(deck)


def make_ctx(seats: Mapping[int, int] = SEATS3, **kw: Any) -> TableContext:
    return context(seats=seats, **{"ante": 100, **kw})


def run(state: NewmarketState, *actions: dict[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    moves: list[Settlement] = []
    for action in actions:
        state, made = ENGINE.apply(state, action)
        moves += made
    return state, moves


def refused(state: NewmarketState, action: Any) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, action)
    return caught.value


def play(player: int, *cards: str) -> list[dict[str, Any]]:
    return [{"type": "play", "player": player, "card": card} for card in cards]


def pass_(player: int) -> dict[str, Any]:
    return {"type": "pass", "player": player}


DEAL = {"type": "deal"}
KEEP = {"type": "keep"}
EXCHANGE = {"type": "exchange"}
CLOSE = {"type": "close_auction"}


def started(
    wants: Mapping[Any, list[str]],
    *,
    seats: Mapping[int, int] = SEATS3,
    mode: str = "electronic",
    **ctx_kw: Any,
) -> tuple[NewmarketState, list[Settlement], dict[Any, list[str]]]:
    """Start a round with stacked hands and deal it (electronic, keyed or count-only)."""
    probe, _ = ENGINE.start(make_ctx(seats, **ctx_kw))
    order = [row["player"] for row in ENGINE.public_state(probe)["players"]]
    hands = stacked_hands(order, wants)
    deck = deck_for(order, hands) if mode == "electronic" else None
    state, antes = ENGINE.start(make_ctx(seats, deck=deck, **ctx_kw))
    deal: dict[str, Any] = {"type": "deal"}
    if mode == "keyed":
        deal["hands"] = {str(k): v for k, v in hands.items()}
    state, _ = ENGINE.apply(state, deal)
    return state, list(antes), hands


# Scenario "long game" (3 players, dealer 11): every stop is an ace, the widow is all hearts.
LONG_GAME = {
    12: ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "3S", "6S", "9S", "2C", "3C", "4C"],
    13: ["9D", "10D", "JD", "QD", "KD", "AD", "2S", "5S", "8S", "5C", "6C", "7C", "8C"],
    11: ["4S", "7S", "10S", "JS", "QS", "KS", "AS", "9C", "10C", "JC", "QC", "KC", "AC"],
    "widow": HEARTS,
}
LONG_GAME_ACTIONS: list[dict[str, Any]] = [
    KEEP,
    CLOSE,
    *play(12, "2D", "3D", "4D", "5D", "6D", "7D", "8D"),
    *play(13, "9D", "10D", "JD", "QD", "KD", "AD"),
    # AD stops diamonds; 13 leads a black suit.
    *play(13, "2S"),
    *play(12, "3S"),
    *play(11, "4S"),
    *play(13, "5S"),
    *play(12, "6S"),
    *play(11, "7S"),
    *play(13, "8S"),
    *play(12, "9S"),
    *play(11, "10S", "JS", "QS", "KS", "AS"),
    # AS stops spades; nobody holds a red card: all pass, 11 leads any suit.
    pass_(11),
    pass_(12),
    pass_(13),
    *play(11, "9C", "10C", "JC", "QC", "KC", "AC"),
]


def kinds(moves: list[Settlement], kind: str) -> list[Settlement]:
    return [m for m in moves if m.kind == kind]


# --- rules, reserve, start -------------------------------------------------------------------


def test_default_rules_are_chip_100_reserve_30_chips_and_no_rake() -> None:
    assert ENGINE.default_rules() == {"chip": 100, "reserve_chips": 30, "rake": None}
    assert ENGINE.validate_rules({}) == ENGINE.default_rules()


@pytest.mark.parametrize(
    "rules",
    [
        {"chips": 100},
        {"chip": 0},
        {"chip": "100"},
        {"chip": True},
        {"chip": 1.5},
        {"reserve_chips": -1},
        {"reserve_chips": None},
        {"rake": "5%"},
        {"rake": {"kind": "percent", "percent": 101}},
        {"rake": {"kind": "percent", "percent": 2.5}},
        {"rake": {"kind": "percent", "percent": 5, "cap": -1}},
        {"rake": {"kind": "percent", "percent": 5, "extra": 1}},
        {"rake": {"kind": "time", "amount": 0, "minutes": 30}},
        {"rake": {"kind": "hourly"}},
    ],
)
def test_validate_rules_refuses_wrong_keys_types_and_values(rules: dict[str, Any]) -> None:
    assert_bad_rules(ENGINE, rules)


def test_validate_rules_keeps_a_percent_or_time_rake() -> None:
    percent = {"kind": "percent", "percent": 5, "cap": 300}
    time = {"kind": "time", "amount": 500, "minutes": 30}
    assert ENGINE.validate_rules({"rake": percent})["rake"] == percent
    assert ENGINE.validate_rules({"rake": time, "chip": 25})["rake"] == time


@pytest.mark.parametrize(
    ("rules", "ante", "expected"),
    [
        ({}, 100, 4 * 100 + 30 * 100),
        ({"reserve_chips": 10}, 200, 4 * 200 + 10 * 100),
        ({"chip": 25, "reserve_chips": 0}, 50, 4 * 50),
    ],
)
def test_reserve_is_four_antes_plus_reserve_chips_chips(
    rules: dict[str, Any], ante: int, expected: int
) -> None:
    ctx = make_ctx(SEATS4, rules=rules, ante=ante, min_bet=25)
    assert ENGINE.reserve(ctx) == {player: expected for player in SEATS4.values()}


def test_every_player_antes_to_each_of_the_four_pots_on_top_of_carried_pots() -> None:
    carry = {"pots": {"AH": 400, "KC": 0, "QD": 300, "JS": 300}}
    state, antes = ENGINE.start(make_ctx(SEATS4, ante=200, carry=carry, deck=FULL_DECK))
    assert len(antes) == 4 * len(SEATS4)
    for player in SEATS4.values():
        for card in PAY_CARDS:
            assert Settlement("ante", wallet(player), pot(card), 200, player) in antes
    pots = ENGINE.public_state(state)["pots"]
    assert pots == {card: carry["pots"][card] + 4 * 200 for card in PAY_CARDS}
    reserve = ENGINE.reserve(make_ctx(SEATS4, ante=200))
    for row in ENGINE.public_state(state)["players"]:
        assert row["reserve_left"] == reserve[row["player"]] - 4 * 200


@pytest.mark.parametrize(
    ("seats", "code"),
    [
        ({1: 11, 2: 12}, "illegal_action"),
        ({s: 10 + s for s in range(1, 10)}, "illegal_action"),
        ({1: 11, 2: 11, 3: 13}, "illegal_action"),
        ({1: 11, 2: "12", 3: 13}, "illegal_action"),
    ],
)
def test_newmarket_is_for_three_to_eight_distinct_players(seats: dict[int, Any], code: str) -> None:
    with pytest.raises(IllegalAction) as caught:
        ENGINE.start(make_ctx(seats))
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("ante", "min_bet", "max_bet", "code"),
    [
        (50, 100, 1000, "below_minimum"),
        (2000, 100, 1000, "limit_exceeded"),
        (150, 100, 1000, "illegal_action"),  # not a multiple of the chip
        (0, 0, 1000, "below_minimum"),
    ],
)
def test_antes_are_multiples_of_the_chip_within_the_table_limits(
    ante: int, min_bet: int, max_bet: int, code: str
) -> None:
    assert_start_and_reserve_refuse(ENGINE, make_ctx(ante=ante, min_bet=min_bet, max_bet=max_bet), code)


@pytest.mark.parametrize(
    ("deck", "carry"),
    [
        (FULL_DECK[:-1], {}),
        ((*FULL_DECK[:-1], "JK"), {}),
        (None, {"pots": {"AH": -1}}),
        (None, {"pots": {"farm": 100}}),
        (None, {"pots": {"AH": 1.5}}),
        (None, {"dealer_seat": "1"}),
    ],
)
def test_start_refuses_a_bad_shoe_or_carry_rather_than_strand_a_pot(deck: Any, carry: Any) -> None:
    with pytest.raises(IllegalAction):
        ENGINE.start(make_ctx(deck=deck, carry=carry))


@pytest.mark.parametrize(
    ("seats", "carry", "dealer_seat"),
    [
        ({2: 21, 5: 22, 9: 23}, {}, 2),  # first round: lowest occupied seat
        ({2: 21, 5: 22, 9: 23}, {"dealer_seat": 2}, 5),  # then one to the left
        ({2: 21, 5: 22, 9: 23}, {"dealer_seat": 9}, 2),  # wrapping round
        ({2: 21, 5: 22, 9: 23}, {"dealer_seat": 6}, 9),  # last dealer's seat left the table
        ({2: 21, 5: 22, 9: 23}, {"dealer_seat": 10}, 2),
    ],
)
def test_dealer_position_is_lowest_seat_first_then_passes_left(
    seats: dict[int, int], carry: dict[str, Any], dealer_seat: int
) -> None:
    state, _ = ENGINE.start(make_ctx(seats, carry=carry))
    public = ENGINE.public_state(state)
    assert public["dealer_seat"] == dealer_seat
    assert public["dealer"] == seats[dealer_seat]
    later = sorted(s for s in seats if s > dealer_seat) + sorted(s for s in seats if s <= dealer_seat)
    assert [row["player"] for row in public["players"]] == [seats[s] for s in later]


# --- the deal --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, [13, 13, 13, 13]),
        (4, [11, 11, 10, 10, 10]),
        (5, [9, 9, 9, 9, 8, 8]),
        (6, [8, 8, 8, 7, 7, 7, 7]),
        (7, [7, 7, 7, 7, 6, 6, 6, 6]),
        (8, [6, 6, 6, 6, 6, 6, 6, 5, 5]),
    ],
)
def test_deal_players_plus_one_hands_from_dealers_left_widow_last_in_each_pass(
    players: int, sizes: list[int]
) -> None:
    seats = {seat: 100 + seat for seat in range(1, players + 1)}
    deck = tuple(reversed(FULL_DECK))
    state, _ = run(ENGINE.start(make_ctx(seats, deck=deck))[0], DEAL)
    public = ENGINE.public_state(state)
    order = [seats[s] for s in range(2, players + 1)] + [seats[1]]
    slots = [*order, "widow"]
    dealt: dict[Any, list[str]] = {slot: [] for slot in slots}
    for position, card in enumerate(deck):
        dealt[slots[position % len(slots)]].append(card)
    assert [row["cards"] for row in public["players"]] + [public["widow"]["cards"]] == sizes
    for player in order:
        assert hand_of(state, player) == dealt[player]
    assert public["phase"] == "widow"
    assert public["turn"] == seats[1]
    assert public["tracking"] == "full"


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings_in(k), *strings_in(v))]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    return []


def test_public_state_never_shows_a_hidden_card() -> None:
    state, _, _ = started(LONG_GAME)
    for current in (state, run(state, KEEP)[0], run(state, KEEP, CLOSE)[0], run(state, EXCHANGE)[0]):
        public = json.loads(json.dumps(ENGINE.public_state(current)))
        assert set(public["pots"]) == set(PAY_CARDS)  # pay cards name the pots, not hands
        del public["pots"]
        assert not set(strings_in(public)) & set(FULL_DECK)


def test_electronic_shoe_deals_by_itself_and_refuses_keyed_hands() -> None:
    state, _ = ENGINE.start(make_ctx(deck=FULL_DECK))
    hands: dict[str, list[str]] = {str(p): [] for p in ORDER3}
    assert refused(state, {"type": "deal", "hands": hands}).code == "illegal_action"


def test_manual_keyed_deal_tracks_hands_like_the_electronic_shoe() -> None:
    keyed, _, hands = started(LONG_GAME, mode="keyed")
    electronic, _, _ = started(LONG_GAME)
    assert ENGINE.public_state(keyed)["tracking"] == "full"
    for player in ORDER3:
        assert hand_of(keyed, player) == hands[player] == hand_of(electronic, player)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda h: h.pop("widow"), "illegal_action"),
        (lambda h: h["12"].pop(), "illegal_action"),  # wrong size for the hand
        (lambda h: h["12"].__setitem__(0, h["13"][0]), "card_not_in_shoe"),  # same card twice
        (lambda h: h["12"].__setitem__(0, h["12"][1]), "bad_card"),  # twice in one hand
        (lambda h: h["12"].__setitem__(0, "JK"), "card_not_in_shoe"),
        (lambda h: h["12"].__setitem__(0, "1S"), "bad_card"),
        (lambda h: h.__setitem__("99", h.pop("12")), "illegal_action"),  # not dealt in
        (lambda h: h.__setitem__(12, h["12"]), "illegal_action"),  # hand named twice
    ],
)
def test_manual_deal_refuses_hands_that_cannot_be_there(change: Any, code: str) -> None:
    hands = {str(k): v for k, v in stacked_hands(ORDER3, LONG_GAME).items()}
    change(hands)
    state, _ = ENGINE.start(make_ctx())
    assert refused(state, {"type": "deal", "hands": hands}).code == code


def test_manual_deal_without_hands_is_count_only_with_sizes_from_the_deal() -> None:
    state, _ = run(ENGINE.start(make_ctx(SEATS4))[0], DEAL)
    public = ENGINE.public_state(state)
    assert public["tracking"] == "count_only"
    assert [row["cards"] for row in public["players"]] + [public["widow"]["cards"]] == hand_sizes(4)
    assert hand_of(state, 12) is None


# --- the widow and the auction ----------------------------------------------------------------


def test_exchange_takes_widow_unseen_and_old_hand_is_dead_with_no_auction() -> None:
    wants = {12: ["2S"], 11: ["3S"], "widow": ["4S"]}
    state, _, hands = started(wants)
    assert refused(state, {"type": "exchange", "player": 12}).code == "not_your_turn"
    state, moves = run(state, EXCHANGE)
    assert moves == []
    assert hand_of(state, 11) == hands["widow"]
    public = ENGINE.public_state(state)
    assert public["widow"]["status"] == "exchanged"
    assert public["dead_cards"] == len(hands[11])
    assert public["phase"] == "play"
    assert refused(state, {"type": "bid", "player": 12, "amount": 100}).code == "illegal_action"
    assert refused(state, CLOSE).code == "illegal_action"
    # The 3S went dead with the dealer's old hand, so the spade run stops at once.
    state, _ = run(state, *play(12, "2S"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["turn"], public["lead_colour"]) == ("lead", 12, "red")


def test_keep_is_final_and_opens_the_auction() -> None:
    state, _, _ = started(LONG_GAME)
    assert refused(state, {"type": "bid", "player": 12, "amount": 100}).code == "illegal_action"
    state, _ = run(state, KEEP)
    assert ENGINE.public_state(state)["phase"] == "auction"
    assert refused(state, EXCHANGE).code == "illegal_action"
    assert refused(state, KEEP).code == "illegal_action"
    assert refused(state, play(12, "2D")[0]).code == "illegal_action"


def bid(player: Any, amount: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "bid", "player": player, "amount": amount, **extra}


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (bid(12, 50), "below_minimum"),  # the opening bid is at least one chip
        (bid(12, 0), "below_minimum"),
        (bid(12, 150), "illegal_action"),  # a multiple of the chip
        (bid(12, "100"), "illegal_action"),
        (bid(12, True), "illegal_action"),
        (bid(12, 100.0), "illegal_action"),
        (bid(12, 3100), "limit_exceeded"),  # must fit in what is left of the reserve
        (bid(11, 100), "not_your_turn"),  # the dealer kept and cannot buy
        (bid(99, 100), "illegal_action"),
        (bid("12", 100), "illegal_action"),
    ],
)
def test_widow_bid_is_whole_chips_at_least_one_and_fits_the_reserve(
    action: dict[str, Any], code: str
) -> None:
    state, _, _ = started(LONG_GAME)
    state, _ = run(state, KEEP)
    assert refused(state, action).code == code


def test_a_bid_of_all_the_reserve_left_is_allowed_but_never_more() -> None:
    state, _, _ = started(LONG_GAME, rules={"reserve_chips": 5})
    state, _ = run(state, KEEP)
    left = ENGINE.public_state(state)["players"][0]["reserve_left"]
    assert left == 500
    assert refused(state, bid(12, left + 100)).code == "limit_exceeded"
    state, _ = run(state, bid(12, left))
    assert ENGINE.public_state(state)["auction"] == {"bid": left, "bidder": 12}


def test_each_bid_higher_and_an_equal_bid_stands_first_clockwise_from_the_dealer() -> None:
    state, _ = ENGINE.start(make_ctx(SEATS4, deck=FULL_DECK))
    state, _ = run(state, DEAL, KEEP, bid(13, 200))
    assert refused(state, bid(14, 200)).code == "illegal_action"  # 14 is later than 13
    assert refused(state, bid(14, 100)).code == "illegal_action"
    assert refused(state, bid(13, 300)).code == "illegal_action"  # already standing
    state, _ = run(state, bid(12, 200))  # 12 is nearer the dealer's left: replaces
    assert ENGINE.public_state(state)["auction"] == {"bid": 200, "bidder": 12}
    assert refused(state, bid(13, 200)).code == "illegal_action"
    state, _ = run(state, bid(14, 300))
    assert ENGINE.public_state(state)["auction"] == {"bid": 300, "bidder": 14}


def test_table_limits_do_not_cap_a_widow_bid() -> None:
    state, _, _ = started(LONG_GAME, max_bet=100)
    state, _ = run(state, KEEP, bid(12, 900, limits={"min_bet": 100, "max_bet": 100}, version=7))
    assert ENGINE.public_state(state)["auction"]["bid"] == 900


def test_auction_winner_pays_the_dealer_and_takes_the_widow_their_old_hand_dead() -> None:
    wants = {12: ["2S"], 14: ["3S"], "widow": ["4S"]}
    state, _, hands = started(wants, seats=SEATS4)
    before = {r["player"]: r["reserve_left"] for r in ENGINE.public_state(state)["players"]}
    state, moves = run(state, KEEP, bid(13, 200), bid(14, 400), CLOSE)
    assert moves == [Settlement("widow", wallet(14), wallet(11), 400, 14)]
    public = ENGINE.public_state(state)
    after = {r["player"]: r["reserve_left"] for r in public["players"]}
    assert after[14] == before[14] - 400
    assert after[11] == before[11]  # money received goes to the wallet, not the reserve
    assert hand_of(state, 14) == hands["widow"]
    assert public["widow"] == {"cards": 0, "status": "sold", "buyer": 14}
    assert public["dead_cards"] == len(hands[14])
    assert [r["cards"] for r in public["players"] if r["player"] == 14] == [len(hands["widow"])]
    # The 3S died with the buyer's old hand: 12's lead of 2S stops at once.
    state, _ = run(state, *play(12, "2S"))
    assert ENGINE.public_state(state)["turn"] == 12


def test_no_bid_leaves_the_widow_dead_and_unseen() -> None:
    state, _, hands = started(LONG_GAME)
    state, moves = run(state, KEEP, CLOSE)
    public = ENGINE.public_state(state)
    assert moves == []
    assert public["widow"] == {"cards": 0, "status": "dead", "buyer": None}
    assert public["dead_cards"] == len(hands["widow"])
    assert all(hand_of(state, p) == hands[p] for p in ORDER3)


# --- play -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "legal"),
    [("2D", True), ("3S", True), ("2C", True), ("3D", False), ("6S", False), ("4C", False), ("AS", False)],
)
def test_dealers_left_leads_the_lowest_card_held_of_the_suit_chosen(card: str, legal: bool) -> None:
    state, _, _ = started(LONG_GAME)
    state, _ = run(state, KEEP, CLOSE)
    assert ENGINE.public_state(state)["turn"] == 12
    assert refused(state, play(13, "2S")[0]).code == "not_your_turn"
    if legal:
        state, _ = run(state, *play(12, card))
        assert ENGINE.public_state(state)["played"] == [{"player": 12, "card": card}]
    else:
        assert refused(state, play(12, card)[0]).code == "illegal_action"
    assert refused(state, pass_(12)).code == "illegal_action"  # an opening lead cannot be passed


def test_whoever_holds_the_next_card_of_the_suit_plays_it() -> None:
    state, _, _ = started(LONG_GAME)
    state, _ = run(state, KEEP, CLOSE, *play(12, "2D", "3D", "4D", "5D", "6D", "7D", "8D"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["next_card"], public["turn"]) == ("run", "9D", 13)
    assert refused(state, play(12, "9D")[0]).code == "not_your_turn"
    assert refused(state, play(13, "10D")[0]).code == "illegal_action"
    assert refused(state, play(13, "2S")[0]).code == "illegal_action"
    assert refused(state, pass_(13)).code == "illegal_action"  # full tracking: the engine knows
    assert refused(state, play(12, "2D")[0]).code == "illegal_action"  # already played


def test_the_long_game_aces_stop_suits_pay_cards_win_and_first_out_collects() -> None:
    state, _, _ = started(LONG_GAME)
    moves: list[Settlement] = []
    stops = {}
    for action in LONG_GAME_ACTIONS:
        state, made = ENGINE.apply(state, action)
        moves += made
        if action.get("card") in {"AD", "AS"}:
            stops[action["card"]] = ENGINE.public_state(state)
    # The ace stops its suit; who played it leads the other colour.
    assert (stops["AD"]["stage"], stops["AD"]["turn"], stops["AD"]["lead_colour"]) == ("lead", 13, "black")
    assert (stops["AS"]["turn"], stops["AS"]["lead_colour"]) == (11, "red")
    assert ENGINE.is_over(state)
    public = ENGINE.public_state(state)
    pots_at_start = 3 * 100
    assert kinds(moves, "pot") == [
        Settlement("pot", pot("QD"), wallet(13), pots_at_start, 13),
        Settlement("pot", pot("JS"), wallet(11), pots_at_start, 11),
        Settlement("pot", pot("KC"), wallet(11), pots_at_start, 11),
    ]
    # AH sat in the dead widow: its pot is unwon and carries.
    assert public["pots"] == {"AH": pots_at_start, "KC": 0, "QD": 0, "JS": 0}
    left = {12: 3, 13: 4}  # 2C 3C 4C and 5C 6C 7C 8C
    assert kinds(moves, "cards_left") == [
        Settlement("cards_left", wallet(p), wallet(11), n * 100, p) for p, n in left.items()
    ]
    assert public["winner"] == 11
    assert refused(state, pass_(12)).code == "illegal_action"  # settled: nothing more


def test_after_everybody_passes_the_last_player_leads_any_suit_lowest_of_it() -> None:
    state, _, _ = started(LONG_GAME)
    upto = LONG_GAME_ACTIONS.index(pass_(11))
    state, _ = run(state, *LONG_GAME_ACTIONS[:upto])
    assert refused(state, pass_(12)).code == "not_your_turn"  # 11 played the AS: 11 leads
    state, _ = run(state, pass_(11), pass_(12))
    assert ENGINE.public_state(state)["turn"] == 13
    state, _ = run(state, pass_(13))
    public = ENGINE.public_state(state)
    assert (public["turn"], public["lead_colour"]) == (11, "any")
    assert refused(state, pass_(11)).code == "illegal_action"
    assert refused(state, play(11, "10C")[0]).code == "illegal_action"  # 9C is 11's lowest club


# Scenario: the next card is dead (in the widow), the lead passes to the first with red.
DEAD_RUN = {
    12: ["4S", "5S", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC"],
    13: ["2S", "3S", "7S", "8S", "2H", "5H", "9H", "3D", "4D"],
    "widow": ["6S"],
}


def test_a_run_stops_when_the_next_card_is_dead_and_the_lead_passes_left() -> None:
    state, _, _ = started(DEAD_RUN)
    state, _ = run(state, KEEP, CLOSE, *play(12, "4S", "5S"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["turn"], public["lead_colour"]) == ("lead", 12, "red")
    assert refused(state, play(12, "2C")[0]).code == "illegal_action"  # not the other colour
    assert refused(state, pass_(13)).code == "not_your_turn"
    state, _ = run(state, pass_(12))  # 12 holds no red card
    assert ENGINE.public_state(state)["turn"] == 13
    assert refused(state, pass_(13)).code == "illegal_action"  # 13 holds red cards
    assert refused(state, play(13, "5H")[0]).code == "illegal_action"  # 2H is lower
    assert refused(state, play(13, "2S")[0]).code == "illegal_action"  # black
    state, _ = run(state, *play(13, "3D"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["next_card"], public["turn"]) == ("run", "4D", 13)


def test_a_pass_by_a_player_who_holds_the_colour_is_refused_with_full_tracking() -> None:
    state, _, _ = started(LONG_GAME)
    state, _ = run(state, KEEP, CLOSE, *LONG_GAME_ACTIONS[2:15])  # through AD
    assert ENGINE.public_state(state)["lead_colour"] == "black"
    error = refused(state, pass_(13))
    assert error.code == "illegal_action"
    assert "black" in error.message


# Scenario: the next card was already played, so the suit stops.
PLAYED_RUN = {
    12: ["5S", "6S", "2H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"],
    13: ["2S", "3S"],
    11: ["4S"],
    "widow": ["7S", "3H"],
}


def test_a_run_stops_when_the_next_card_was_already_played_aces_high() -> None:
    state, _, _ = started(PLAYED_RUN)
    state, _ = run(state, KEEP, CLOSE, *play(12, "5S", "6S", "2H"), pass_(12))
    assert ENGINE.public_state(state)["turn"] == 13
    assert refused(state, play(13, "AS")[0]).code == "illegal_action"  # aces high: 2S is lowest
    state, _ = run(state, *play(13, "2S", "3S"), *play(11, "4S"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["turn"], public["lead_colour"]) == ("lead", 11, "red")


@pytest.mark.parametrize(
    ("rake", "carried"),
    [
        (None, 1001),
        ({"kind": "percent", "percent": 5, "cap": None}, 1001),
        ({"kind": "percent", "percent": 5, "cap": 50}, 1001),
        ({"kind": "percent", "percent": 3}, 0),
        ({"kind": "time", "amount": 500, "minutes": 30}, 1001),
    ],
)
def test_pay_card_wins_its_pot_at_once_less_a_percent_rake(rake: Any, carried: int) -> None:
    state, _, _ = started(LONG_GAME, rules={"rake": rake}, carry={"pots": {"JS": carried}, "dealer_seat": 3})
    pot_now = ENGINE.public_state(state)["pots"]["JS"]
    assert pot_now == carried + 3 * 100
    upto = LONG_GAME_ACTIONS.index(play(11, "JS")[0])
    state, _ = run(state, *LONG_GAME_ACTIONS[:upto])
    state, moves = run(state, *play(11, "JS"))
    cut = 0
    if rake and rake["kind"] == "percent":
        cut = pot_now * rake["percent"] // 100
        cut = cut if rake.get("cap") is None else min(cut, rake["cap"])
    expected = [Settlement("rake", pot("JS"), RAKE, cut, 11)] if cut else []
    expected.append(Settlement("pot", pot("JS"), wallet(11), pot_now - cut, 11))
    assert moves == expected
    assert ENGINE.public_state(state)["pots"]["JS"] == 0


def test_first_out_is_paid_one_chip_per_card_left_paid_in_part_from_reserve() -> None:
    state, _, _ = started(LONG_GAME, rules={"reserve_chips": 2, "chip": 50}, ante=50, min_bet=50)
    state, moves = run(state, *LONG_GAME_ACTIONS)
    # 12 owes 3 chips (150) of 100 left; 13 owes 4 chips (200) of 100 left.
    assert kinds(moves, "cards_left") == [
        Settlement("cards_left", wallet(12), wallet(11), 100, 12),
        Settlement("cards_left", wallet(13), wallet(11), 100, 13),
    ]
    assert [r["reserve_left"] for r in ENGINE.public_state(state)["players"]] == [0, 0, 100]


def test_unwon_pot_carries_to_the_next_round_and_the_deal_passes_left() -> None:
    state, antes, _ = started(LONG_GAME, carry={"pots": {"AH": 700}})
    state, moves = run(state, *LONG_GAME_ACTIONS)
    carry = ENGINE.carry_out(state)
    assert json.loads(json.dumps(carry)) == carry
    assert carry["pots"] == {"AH": 700 + 300, "KC": 0, "QD": 0, "JS": 0}
    assert carry["dealer_seat"] == 1
    nxt, next_antes = ENGINE.start(make_ctx(SEATS3, carry=carry, deck=FULL_DECK))
    public = ENGINE.public_state(nxt)
    assert public["pots"] == {card: carry["pots"][card] + 3 * 100 for card in PAY_CARDS}
    assert public["dealer_seat"] == 2
    assert public["dealer"] == 12
    # Chips balance over both rounds: pots hold exactly what was anted/carried and not won.
    balance = Counter({pot("AH"): 700})
    for move in [*antes, *moves, *next_antes]:
        balance[move.payer] -= move.amount
        balance[move.payee] += move.amount
    assert {card: balance[pot(card)] for card in PAY_CARDS} == public["pots"]
    assert sum(balance.values()) == 700


# --- count-only tracking -----------------------------------------------------------------------


def test_count_only_tracking_settles_the_same_keyed_game_as_full_tracking() -> None:
    results = []
    for mode in ("electronic", "keyed", "count_only"):
        state, antes, _ = started(LONG_GAME, mode=mode)
        state, moves = run(state, *LONG_GAME_ACTIONS)
        results.append((antes, moves, ENGINE.public_state(state)["pots"], ENGINE.is_over(state)))
    assert results[0] == results[1] == results[2]
    assert results[0][3]


def test_count_only_dealer_keys_a_pass_for_the_last_player_when_nobody_has_the_next_card() -> None:
    state, _, _ = started(DEAD_RUN, mode="count_only")
    state, _ = run(state, KEEP, CLOSE, *play(12, "4S", "5S"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["next_card"], public["turn"]) == ("run", "6S", None)
    assert public["last_player"] == 12  # whom a "nobody has it" pass is keyed for
    error = refused(state, play(12, "2C")[0])
    assert "pass" in error.message
    assert refused(state, pass_(13)).code == "not_your_turn"
    state, _ = run(state, pass_(12))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["turn"], public["lead_colour"]) == ("lead", 12, "red")
    assert refused(state, play(12, "2C")[0]).code == "illegal_action"  # still the colour rule
    state, _ = run(state, pass_(12), *play(13, "3D"))  # trusted: 13 is first with red
    assert ENGINE.public_state(state)["next_card"] == "4D"


def test_count_only_stops_a_run_itself_at_an_ace_or_a_card_already_played() -> None:
    state, _, _ = started(PLAYED_RUN, mode="count_only")
    state, _ = run(
        state, KEEP, CLOSE, *play(12, "5S", "6S"), pass_(12), *play(12, "2H"), pass_(12), pass_(12)
    )
    state, _ = run(state, *play(13, "2S", "3S"), *play(11, "4S"))
    public = ENGINE.public_state(state)
    assert (public["stage"], public["turn"], public["lead_colour"]) == ("lead", 11, "red")


def test_count_only_tracks_hand_sizes_and_the_first_empty_hand_wins() -> None:
    state, _ = ENGINE.start(make_ctx(SEATS4))
    state, moves = run(state, DEAL, KEEP, bid(12, 100), CLOSE)
    assert moves == [Settlement("widow", wallet(12), wallet(11), 100, 12)]
    sizes = [r["cards"] for r in ENGINE.public_state(state)["players"]]
    assert sizes == [10, 11, 10, 10]  # 12 had 11 cards, took the 10-card widow
    state, moves = run(state, *play(12, *SPADES[:9]))
    assert not ENGINE.is_over(state)
    state, moves = run(state, *play(12, "JS"))  # a pay card and 12's last card
    assert ENGINE.is_over(state)
    assert kinds(moves, "pot") == [Settlement("pot", pot("JS"), wallet(12), 400, 12)]
    assert kinds(moves, "cards_left") == [
        Settlement("cards_left", wallet(p), wallet(12), n * 100, p) for p, n in ((13, 11), (14, 10), (11, 10))
    ]


# --- properties ---------------------------------------------------------------------------------


@st.composite
def contexts(draw: st.DrawFn, mode: str) -> tuple[TableContext, str, tuple[str, ...]]:
    players = draw(st.integers(3, 8))
    seat_numbers = draw(st.lists(st.integers(1, 12), min_size=players, max_size=players, unique=True))
    ids = draw(st.lists(st.integers(1, 10**6), min_size=players, max_size=players, unique=True))
    chip = draw(st.sampled_from([1, 25, 100]))
    ante = chip * draw(st.integers(1, 3))
    rake = draw(
        st.sampled_from(
            [
                None,
                {"kind": "percent", "percent": 5, "cap": None},
                {"kind": "percent", "percent": 10, "cap": 30},
                {"kind": "time", "amount": 500, "minutes": 30},
            ]
        )
    )
    rules = {"chip": chip, "reserve_chips": draw(st.integers(0, 12)), "rake": rake}
    carry: dict[str, Any] = {}
    if draw(st.booleans()):
        amounts = st.integers(0, 5000)
        carry = {"pots": {card: draw(amounts) for card in PAY_CARDS}, "dealer_seat": draw(st.integers(0, 13))}
    deck = tuple(draw(st.permutations(FULL_DECK)))
    ctx = TableContext(
        rules=rules,
        seats=dict(zip(seat_numbers, ids, strict=True)),
        min_bet=chip,
        max_bet=10 * chip,
        ante=ante,
        deck=deck if mode == "electronic" else None,
        carry=carry,
    )
    return ctx, mode, deck


def deal_action(state: NewmarketState, mode: str, deck: tuple[str, ...]) -> dict[str, Any]:
    if mode != "keyed":
        return {"type": "deal"}
    slots: list[Any] = [*(r["player"] for r in ENGINE.public_state(state)["players"]), "widow"]
    hands: dict[str, list[str]] = {str(slot): [] for slot in slots}
    for position, card in enumerate(deck):
        hands[str(slots[position % len(slots)])].append(card)
    return {"type": "deal", "hands": hands}


def candidates(state: NewmarketState, deal: dict[str, Any]) -> list[dict[str, Any]]:
    """Actions worth trying now; the engine decides which are legal."""
    public = ENGINE.public_state(state)
    order = [r["player"] for r in public["players"]]
    phase = public["phase"]
    if phase == "deal":
        return [deal]
    if phase == "widow":
        return [KEEP, EXCHANGE]
    if phase == "auction":
        standing = public["auction"]["bid"] or 0
        amounts = {
            state.chip,
            standing,
            standing + state.chip,
            *(r["reserve_left"] for r in public["players"]),
        }
        return [*(bid(p, a) for p in order for a in sorted(amounts)), CLOSE]
    played = {row["card"] for row in public["played"]}
    passes = [pass_(p) for p in order]
    if public["stage"] == "run":
        return [*passes, *(play(p, public["next_card"])[0] for p in order)]
    leader = public["turn"]
    hand = hand_of(state, leader)
    cards = hand if hand is not None else [c for c in FULL_DECK if c not in played]
    return [*passes, *play(leader, *cards)]


def legal_now(state: NewmarketState, deal: dict[str, Any]) -> list[dict[str, Any]]:
    legal = []
    for action in candidates(state, deal):
        try:
            ENGINE.apply(state, action)
        except IllegalAction:
            continue
        legal.append(action)
    return legal


class Books:
    """Every party's balance from the settlements, with pots starting from the carry."""

    def __init__(self, ctx: TableContext, state: NewmarketState, antes: tuple[Settlement, ...]) -> None:
        self.reserve = ENGINE.reserve(ctx)
        carried = dict(ctx.carry.get("pots", {}))
        self.balance = Counter({pot(card): carried.get(card, 0) for card in PAY_CARDS})
        self.start_total = sum(self.balance.values())
        self.paid: Counter[int | None] = Counter()
        self.percent = (
            ctx.rules["rake"]["percent"] if (ctx.rules["rake"] or {}).get("kind") == "percent" else None
        )
        self.cap = (ctx.rules["rake"] or {}).get("cap")
        self.post(state, antes)

    def post(self, state: NewmarketState, moves: Sequence[Settlement]) -> None:
        parties = {pot(c) for c in PAY_CARDS} | {RAKE} | {wallet(p) for p in self.reserve}
        for move in moves:
            assert isinstance(move.amount, int)
            assert move.amount > 0
            assert {move.payer, move.payee} <= parties
            assert move.payer != RAKE
            if move.payer.startswith("wallet:"):
                self.paid[move.player] += move.amount
                assert move.player is not None
                assert move.payer == wallet(move.player)
            if move.payee == RAKE:
                pot_before = self.balance[move.payer]
                assert self.percent is not None
                cut = pot_before * self.percent // 100
                assert move.amount == (cut if self.cap is None else min(cut, self.cap))
            self.balance[move.payer] -= move.amount
            self.balance[move.payee] += move.amount
        public = ENGINE.public_state(state)
        assert sum(self.balance.values()) == self.start_total  # chips are conserved
        assert {card: self.balance[pot(card)] for card in PAY_CARDS} == public["pots"]
        assert all(self.balance[pot(card)] >= 0 for card in PAY_CARDS)
        for row in public["players"]:
            assert self.paid[row["player"]] <= self.reserve[row["player"]]  # never beyond the reserve
            assert row["reserve_left"] == self.reserve[row["player"]] - self.paid[row["player"]]
        standing = public["auction"]
        if public["phase"] == "auction" and standing["bidder"] is not None:
            left = {r["player"]: r["reserve_left"] for r in public["players"]}
            assert standing["bid"] <= left[standing["bidder"]]  # a bid never exceeds the reserve left


def play_out(
    data: st.DataObject, ctx: TableContext, mode: str, deck: tuple[str, ...]
) -> tuple[list[dict[str, Any]], list[Any]]:
    state, antes = ENGINE.start(ctx)
    books = Books(ctx, state, antes)
    deal = deal_action(state, mode, deck)
    actions: list[dict[str, Any]] = []
    trace: list[Any] = [(state, antes)]
    while not ENGINE.is_over(state):
        assert len(actions) < 600, "a legal sequence must reach the end"
        legal = legal_now(state, deal)
        assert legal, ENGINE.public_state(state)
        action = legal[data.draw(st.integers(0, len(legal) - 1))]
        state, moves = ENGINE.apply(state, action)
        books.post(state, moves)
        actions.append(action)
        trace.append((state, moves))
        json.dumps(ENGINE.public_state(state))
    carry = ENGINE.carry_out(state)
    assert carry["pots"] == {card: books.balance[pot(card)] for card in PAY_CARDS}
    assert json.loads(json.dumps(carry)) == carry
    return actions, trace


MODES = ["electronic", "keyed", "count_only"]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_legal_rounds_end_conserve_chips_respect_reserves_and_replay(
    mode: str, data: st.DataObject
) -> None:
    ctx, mode, deck = data.draw(contexts(mode))
    actions, trace = play_out(data, ctx, mode, deck)
    # Replaying the same actions gives the same states and settlements.
    state, antes = ENGINE.start(ctx)
    replay: list[Any] = [(state, antes)]
    for action in actions:
        state, moves = ENGINE.apply(state, action)
        replay.append((state, moves))
    assert replay == trace
    assert ENGINE.is_over(state)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(MODES), data=st.data())
def test_property_next_round_antes_onto_the_carried_pots(mode: str, data: st.DataObject) -> None:
    ctx, mode, deck = data.draw(contexts(mode))
    _, trace = play_out(data, ctx, mode, deck)
    carry = ENGINE.carry_out(trace[-1][0])
    nxt = TableContext(
        rules=ctx.rules, seats=ctx.seats, min_bet=ctx.min_bet, max_bet=ctx.max_bet, ante=ctx.ante, carry=carry
    )
    state, antes = ENGINE.start(nxt)
    assert ENGINE.public_state(state)["pots"] == {
        card: carry["pots"][card] + ctx.ante * len(ctx.seats) for card in PAY_CARDS
    }
    assert sum(m.amount for m in antes) == 4 * ctx.ante * len(ctx.seats)
    seats = sorted(ctx.seats)
    later = [s for s in seats if s > carry["dealer_seat"]]
    assert ENGINE.public_state(state)["dealer_seat"] == (later[0] if later else seats[0])


# --- fuzz -------------------------------------------------------------------------------------


def _reachable_states() -> list[NewmarketState]:
    """One state per phase and stage, in both trackings, for the fuzz to hit."""
    states = []
    for mode in ("electronic", "count_only"):
        state, _, _ = started(LONG_GAME, mode=mode)
        states.append(state)
        for action in LONG_GAME_ACTIONS:
            state, _ = ENGINE.apply(state, action)
            states.append(state)
    for mode in ("electronic", "count_only"):
        state, _, _ = started(DEAD_RUN, mode=mode)
        states.append(run(state, KEEP, bid(13, 100))[0])
        states.append(run(state, KEEP, CLOSE, *play(12, "4S", "5S"))[0])
    states.append(ENGINE.start(make_ctx())[0])
    states.append(ENGINE.start(make_ctx(deck=FULL_DECK))[0])
    return states


STATES = _reachable_states()
TYPES = ["deal", "exchange", "keep", "bid", "close_auction", "play", "pass"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
plausible_actions = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES) | json_values},
    optional={
        "player": st.sampled_from([11, 12, 13, 14, 0, -1, True, "12", 12.0, None]) | json_values,
        "card": st.sampled_from([*FULL_DECK, "JK", "T S", "10h", "", "1S"]) | json_values,
        "amount": st.integers(-200, 5000) | json_values,
        "hands": json_values
        | st.dictionaries(
            st.sampled_from(["11", "12", "13", "widow", "x", "99" * 20, "١٢"]),
            st.lists(st.sampled_from([*FULL_DECK, "JK", 7]), max_size=14),
            max_size=5,
        ),
        "limits": json_values,
        "version": json_values,
    },
)


def attempt(call: Any, *args: Any) -> tuple[Any, IllegalAction | None]:
    """Run an engine call; any exception but IllegalAction escapes and fails the test."""
    try:
        return call(*args), None
    except IllegalAction as error:
        return None, error


@settings(max_examples=400, deadline=None)
@given(
    state=st.sampled_from(STATES),
    action=plausible_actions | json_values | st.dictionaries(st.integers() | st.none(), json_values),
)
def test_fuzz_any_action_is_either_applied_or_refused_with_illegal_action(
    state: NewmarketState, action: Any
) -> None:
    result, error = attempt(ENGINE.apply, state, action)
    if error is not None:
        assert error.code
        assert error.message
        return
    assert result is not None
    new_state, moves = result
    assert isinstance(new_state, NewmarketState)
    assert all(isinstance(m, Settlement) and m.amount > 0 for m in moves)
    json.dumps(ENGINE.public_state(new_state))


@settings(max_examples=150, deadline=None)
@given(
    rules=json_values | st.fixed_dictionaries({}, optional={"chip": json_values, "rake": json_values}),
    seats=json_values | st.just(SEATS3),
    carry=json_values | st.fixed_dictionaries({}, optional={"pots": json_values, "dealer_seat": json_values}),
    ante=json_values,
)
def test_fuzz_start_and_reserve_refuse_bad_context_with_illegal_action_only(
    rules: Any, seats: Any, carry: Any, ante: Any
) -> None:
    ctx = TableContext(rules=rules, seats=seats, min_bet=100, max_bet=1000, ante=ante, carry=carry)
    reserve, reserve_error = attempt(ENGINE.reserve, ctx)
    started_round, start_error = attempt(ENGINE.start, ctx)
    assert (reserve_error is None) == (start_error is None)  # both accept or both refuse
    if reserve_error is not None:
        assert reserve_error.code
        return
    assert reserve is not None
    assert started_round is not None
    assert all(isinstance(hold, int) and hold > 0 for hold in reserve.values())


# --- legal_actions ------------------------------------------------------------------------------
#
# The walks choose only from ``legal_actions``, filling each template's ``needs`` from its hints:
# a keyed deal shuffles the choices into the counted hands, a bid takes a chip multiple between
# ``min_amount`` and ``max_amount``, a count-only play takes a player or a card from ``choices``.

HINT_KEYS = ("needs", "optional", "choices", "count", "bounds", "min_amount", "max_amount", "chip")
LEGAL_WALK_BOUND = 800  # 52 cards, at most one pass per player between plays, a short auction


def fixed_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in HINT_KEYS}


def fill(rng: random.Random, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A sensible filling of a template; a concrete entry comes back as it is."""
    action = fixed_fields(entry)
    for need in entry.get("needs", []):
        if need == "hands":
            deck = rng.sample(entry["choices"]["hands"], len(FULL_DECK))
            action["hands"] = {}
            for slot, size in entry["count"]["hands"].items():
                action["hands"][slot], deck = deck[:size], deck[size:]
        elif need == "amount":
            action["amount"] = rng.randrange(entry["min_amount"], entry["max_amount"] + 1, entry["chip"])
        else:
            action[need] = rng.choice(entry["choices"][need])
    return action


def walk_context(
    rng: random.Random, players: int, chip: int, reserve_chips: int, electronic: bool
) -> TableContext:
    seats = sorted(rng.sample(range(1, 13), players))
    return TableContext(
        rules={"chip": chip, "reserve_chips": reserve_chips},
        seats={seat: 100 + seat for seat in seats},
        min_bet=chip,
        max_bet=10 * chip,
        ante=chip * rng.randint(1, 3),
        deck=tuple(rng.sample(FULL_DECK, len(FULL_DECK))) if electronic else None,
        carry={"dealer_seat": rng.choice(seats)},
    )


def pick(rng: random.Random, state: NewmarketState, legal: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """Uniform among the legal actions; at a manual deal, the one of this test's tracking."""
    if state.phase == "deal" and mode != "electronic":
        return next(a for a in legal if ("needs" in a) == (mode == "keyed"))
    return rng.choice(legal)


walk_params = {
    "seed": st.integers(0, 2**32),
    "players": st.integers(3, 8),
    "chip": st.sampled_from([1, 25, 100]),
    "reserve_chips": st.integers(0, 12),
}


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**walk_params)
def test_legal_actions_are_all_accepted_and_a_walk_among_them_always_ends(
    mode: str, seed: int, players: int, chip: int, reserve_chips: int
) -> None:
    rng = random.Random(seed)
    state, _ = ENGINE.start(walk_context(rng, players, chip, reserve_chips, mode == "electronic"))
    for _ in range(LEGAL_WALK_BOUND):
        if ENGINE.is_over(state):
            break
        legal = listed_legal_actions(ENGINE, state)
        for entry in legal:
            ENGINE.apply(state, fill(rng, entry))  # raises IllegalAction if it is not legal
        state, _ = ENGINE.apply(state, fill(rng, pick(rng, state, legal, mode)))
    assert ENGINE.is_over(state)
    assert ENGINE.public_state(state)["tracking"] == ("count_only" if mode == "count_only" else "full")
    assert ENGINE.legal_actions(state) == []


def test_legal_actions_by_phase_with_full_tracking() -> None:
    state, _ = ENGINE.start(make_ctx(deck=FULL_DECK))
    assert ENGINE.legal_actions(state) == [DEAL]
    state, _ = run(state, DEAL)
    assert ENGINE.legal_actions(state) == [{"type": "exchange", "player": 11}, {"type": "keep", "player": 11}]
    state, _ = run(state, KEEP)
    bids = ENGINE.legal_actions(state)
    template = {"type": "bid", "needs": ["amount"], "min_amount": 100, "max_amount": 3000, "chip": 100}
    assert bids == [template | {"player": 12}, template | {"player": 13}, CLOSE]
    state, _ = run(state, bid(13, 300))
    assert ENGINE.legal_actions(state) == [template | {"player": 12, "min_amount": 300}, CLOSE]
    state, _ = run(state, bid(12, 300))
    assert ENGINE.legal_actions(state) == [template | {"player": 13, "min_amount": 400}, CLOSE]
    state, _ = run(state, CLOSE)
    # 12 bought the widow (FULL_DECK[3::4]: 4S 8S QS 3H 7H JH 2D 6D 10D AC 5C 9C KC) and leads
    # the lowest card of any suit it holds.
    assert hand_of(state, 12) == list(FULL_DECK[3::4])
    assert ENGINE.legal_actions(state) == play(12, "2D", "3H", "4S", "5C")


def test_legal_actions_run_card_for_its_holder_and_pass_only_without_the_colour() -> None:
    state, _, _ = started(LONG_GAME)
    state, _ = run(state, KEEP, CLOSE, *play(12, "2D"))
    assert ENGINE.legal_actions(state) == play(12, "3D")
    state, _ = run(state, *LONG_GAME_ACTIONS[3:15])
    assert ENGINE.legal_actions(state) == play(13, "2S", "5C")  # AD stopped: 13 leads black
    state, _ = run(state, *LONG_GAME_ACTIONS[15:28])
    assert ENGINE.legal_actions(state) == [pass_(11)]  # AS stopped; nobody holds a red card


def test_legal_actions_count_only_need_the_player_or_the_card() -> None:
    state, _, _ = started(LONG_GAME, mode="count_only")
    state, _ = run(state, KEEP, CLOSE)
    lead = ENGINE.legal_actions(state)
    assert lead == [{"type": "play", "player": 12, "needs": ["card"], "choices": {"card": list(FULL_DECK)}}]
    state, _ = run(state, *play(12, "2D"))
    assert ENGINE.legal_actions(state) == [
        {"type": "play", "card": "3D", "needs": ["player"], "choices": {"player": ORDER3}},
        pass_(12),
    ]
    state, _ = run(state, pass_(12))
    red = [c for c in FULL_DECK if c[-1] in "SC"]
    assert ENGINE.legal_actions(state) == [
        {"type": "play", "player": 12, "needs": ["card"], "choices": {"card": red}},
        pass_(12),
    ]


def test_legal_actions_manual_deal_offers_keyed_hands_or_count_only() -> None:
    state, _ = ENGINE.start(make_ctx())
    keyed, bare = ENGINE.legal_actions(state)
    assert bare == DEAL
    assert keyed["needs"] == ["hands"]
    assert keyed["count"] == {"hands": {"12": 13, "13": 13, "11": 13, "widow": 13}}


# Completeness with full tracking: a well-formed action the list does not cover is refused.


def admits(entry: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    fixed = fixed_fields(entry)
    if any(action.get(key) != value for key, value in fixed.items()):
        return False
    for need in entry["needs"]:
        value = action.get(need)
        if need == "amount":
            if not (isinstance(value, int) and entry["min_amount"] <= value <= entry["max_amount"]):
                return False
            if value % entry["chip"]:
                return False
        elif need == "hands" or value not in entry["choices"][need]:
            return False
    return True


def covered(legal: list[dict[str, Any]], action: Mapping[str, Any]) -> bool:
    return any(
        entry == action if "needs" not in entry else admits(entry, action)
        for entry in legal
        if entry["type"] == action["type"]
    )


def some_action(rng: random.Random, state: NewmarketState) -> dict[str, Any]:
    """A well-formed Newmarket action, legal or not."""
    kind = rng.choice(["deal", "exchange", "keep", "bid", "bid", "close_auction", "play", "play", "pass"])
    player = rng.choice(state.order)
    if kind in ("deal", "close_auction"):
        return {"type": kind}
    if kind == "bid":
        chip, left = state.chip, state.reserve_left[state.index(player)]
        amount = rng.choice([0, chip, state.bid, state.bid + chip, left - left % chip, left + chip, left])
        return bid(player, amount + (1 if chip > 1 and rng.random() < 0.1 else 0))
    if kind != "play":
        return {"type": kind, "player": player}
    hand = hand_of(state, player) or []
    card = rng.choice(hand) if hand and rng.random() < 0.7 else rng.choice(FULL_DECK)
    return play(player, card)[0]


@pytest.mark.parametrize("mode", ["electronic", "keyed"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**walk_params)
def test_legal_actions_with_full_tracking_are_complete_anything_else_is_refused(
    mode: str, seed: int, players: int, chip: int, reserve_chips: int
) -> None:
    rng = random.Random(seed)
    state, _ = ENGINE.start(walk_context(rng, players, chip, reserve_chips, mode == "electronic"))
    tried: Counter[bool] = Counter()
    while not ENGINE.is_over(state):
        legal = ENGINE.legal_actions(state)
        if state.tracking == "full":
            for sample in range(4):
                # A filled legal action first (both sides are tried), then any well-formed ones.
                action = fill(rng, rng.choice(legal)) if sample == 0 else some_action(rng, state)
                accepted = attempt(ENGINE.apply, state, action)[1] is None
                assert accepted == covered(legal, action), action
                tried[accepted] += 1
        state, _ = ENGINE.apply(state, fill(rng, pick(rng, state, legal, mode)))
    assert tried[True] >= tried.total() // 4
    assert tried[False]
