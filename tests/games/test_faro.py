"""Faro engine against GAMES.md "Faro (house-banked)" and API.md's faro actions."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.games.base import BANK, Settlement, TableContext, layout, wallet
from tables.games.cards import FULL_DECK, RANKS, parse_card, rank_index, rank_of
from tables.games.errors import IllegalAction
from tables.games.faro import ENGINE, FaroState
from tables.games.faro_layout import PLACEMENTS
from tests.games.engine_support import apply_or_refuse, assert_bad_rules, listed_legal_actions

Action = dict[str, Any]


# --------------------------------------------------------------------------- helpers


def deck_of(head: Sequence[str] = (), tail: Sequence[str] = ()) -> tuple[str, ...]:
    """A shoe whose first and last cards are fixed; the middle is the rest in canonical order."""
    fixed = [parse_card(c) for c in (*head, *tail)]
    middle = [c for c in FULL_DECK if c not in fixed]
    return (*fixed[: len(head)], *middle, *fixed[len(head) :])


def context(
    deck: Sequence[str] | None,
    rules: Mapping[str, Any] | None = None,
    min_bet: int = 100,
    max_bet: int = 10_000,
) -> TableContext:
    return TableContext(
        rules=rules or {},
        seats={1: 1, 2: 2, 3: 3},
        min_bet=min_bet,
        max_bet=max_bet,
        ante=0,
        deck=tuple(deck) if deck is not None else None,
    )


def begin(head: Sequence[str] = ("2C",), tail: Sequence[str] = (), **kwargs: Any) -> FaroState:
    state, moves = ENGINE.start(context(deck_of(head, tail), **kwargs))
    assert moves == ()
    return state


def act(state: FaroState, action: Action) -> tuple[FaroState, tuple[Settlement, ...]]:
    return ENGINE.apply(state, action)


def bet(player: Any = 1, amount: Any = 300, **placement: Any) -> Action:
    return {"type": "bet", "player": player, "amount": amount, **placement}


def turn() -> Action:
    return {"type": "turn"}


def refused(state: FaroState, action: Action) -> IllegalAction:
    before = ENGINE.public_state(state)
    with pytest.raises(IllegalAction) as caught:
        ENGINE.apply(state, action)
    assert ENGINE.public_state(state) == before
    return caught.value


def outcome(state: FaroState, action: Any) -> str:
    """'accepted', or the refusal's code; only IllegalAction may come out of the engine."""
    try:
        ENGINE.apply(state, action)
    except IllegalAction as error:
        return error.code
    return "accepted"


def moves_of(settlements: Iterable[Settlement]) -> list[tuple[str, str, str, int]]:
    return [(s.kind, s.payer, s.payee, s.amount) for s in settlements]


def balances(settlements: Iterable[Settlement]) -> Counter[str]:
    net: Counter[str] = Counter()
    for s in settlements:
        net[s.payer] -= s.amount
        net[s.payee] += s.amount
    return net


def to_last_turn(state: FaroState) -> FaroState:
    while ENGINE.public_state(state)["next_action"] == "turn":
        state, _ = act(state, turn())
    return state


def bets_view(state: FaroState) -> list[dict[str, Any]]:
    return ENGINE.public_state(state)["bets"]


# --------------------------------------------------------------------------- layout

_COORDS = {rank: (column, 1) for column, rank in enumerate(("K", "Q", "J", "10", "9", "8"))} | {
    rank: (column, 0) for column, rank in enumerate(("A", "2", "3", "4", "5", "6"))
}


def _geometric_placement(ranks: frozenset[str]) -> bool:
    """GAMES.md's wording, read independently of the engine: who can one stack touch?"""
    if "7" in ranks:
        return ranks in ({"7"}, {"7", "8"}, {"7", "6"}, {"6", "7", "8"})
    points = [_COORDS[r] for r in ranks]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if len(points) == 1:
        return True
    if len(points) == 2:
        dx, dy = abs(xs[0] - xs[1]), abs(ys[0] - ys[1])
        return (dy == 0 and dx in (1, 2)) or (dy == 1 and dx <= 1)
    return max(xs) - min(xs) == 1  # three or four ranks of one 2x2 square


def test_layout_has_exactly_75_placements_13_singles_36_pairs_21_triples_5_squares() -> None:
    every_set = [frozenset(c) for size in range(1, 5) for c in combinations(RANKS, size)]
    allowed = {s for s in every_set if _geometric_placement(s)}
    assert allowed == set(PLACEMENTS)
    assert Counter(len(p) for p in allowed) == {1: 13, 2: 36, 3: 21, 4: 5}
    assert len(allowed) == 75


def test_layout_engine_accepts_a_bet_exactly_on_the_75_placements() -> None:
    state = begin()
    outcomes = {
        frozenset(ranks): outcome(state, bet(ranks=list(ranks)))
        for size in range(1, 5)
        for ranks in combinations(RANKS, size)
    }
    assert set(outcomes.values()) == {"accepted", "bad_placement"}
    accepted = {ranks for ranks, result in outcomes.items() if result == "accepted"}
    assert len(accepted) == 75
    assert accepted == {s for s in accepted if _geometric_placement(s)}


@pytest.mark.parametrize(
    "ranks",
    [
        ["K", "A"],
        ["Q", "2"],
        ["J", "3"],
        ["10", "4"],
        ["9", "5"],
        ["8", "6"],
        ["10", "3"],
        ["Q", "10"],
        ["A", "3"],
        ["10", "4", "9"],
        ["9", "8", "5", "6"],
        ["7", "8"],
        ["7", "6"],
        ["6", "7", "8"],
        ["K", "Q"],
        ["5", "6"],
    ],
)
def test_layout_named_placements_take_a_bet(ranks: list[str]) -> None:
    state, moves = act(begin(), bet(ranks=ranks))
    assert moves_of(moves) == [("bet", wallet(1), layout(1), 300)]
    assert sorted(bets_view(state)[0]["ranks"]) == sorted(ranks)


@pytest.mark.parametrize(
    "ranks",
    [
        ["K", "8"],  # ends of the top row
        ["A", "4"],  # two cards between
        ["K", "3"],  # diagonal across two columns
        ["7", "5"],
        ["7", "9"],
        ["7", "A"],
        ["5", "6", "7"],
        ["K", "Q", "J"],  # three in a row is not a square
        ["5", "6", "7", "8"],
        ["K", "Q", "J", "10"],
        ["5", "5"],
        ["A", "2", "3", "4", "5"],
        [],
    ],
)
def test_layout_anything_else_is_bad_placement(ranks: list[str]) -> None:
    assert refused(begin(), bet(ranks=ranks)).code == "bad_placement"


def test_layout_order_of_ranks_does_not_matter_and_output_is_canonical() -> None:
    state, _ = act(begin(), bet(ranks=["9", "T", "4"]))
    state, _ = act(state, bet(ranks=[4, "10", "9"]))
    assert [b["ranks"] for b in bets_view(state)] == [["4", "9", "10"], ["4", "9", "10"]]


# --------------------------------------------------------------------------- soda


def test_soda_is_burned_at_start_with_an_electronic_shoe_and_counts_on_the_casekeeper() -> None:
    state = begin(head=("QH",))
    view = ENGINE.public_state(state)
    assert view["soda"] == "QH"
    assert view["casekeeper"]["Q"] == {"soda": ["QH"], "losers": [], "winners": [], "hock": [], "left": 3}
    assert view["cards_remaining"] == 51
    assert view["next_action"] == "turn"
    assert refused(state, {"type": "soda", "card": "QS"}).code == "illegal_action"


def test_soda_with_a_manual_shoe_is_keyed_first_and_settles_nothing() -> None:
    state, _ = ENGINE.start(context(None))
    assert ENGINE.public_state(state)["next_action"] == "soda"
    assert refused(state, {"type": "turn", "cards": ["5S", "9H"]}).code == "illegal_action"
    state, moves = act(state, bet(ranks=["5"]))  # classic: bets may go down before the soda
    state, moves = act(state, {"type": "soda", "card": "5D"})
    assert moves == ()
    view = ENGINE.public_state(state)
    assert view["soda"] == "5D"
    assert view["bets"][0]["amount"] == 300
    assert refused(state, {"type": "soda", "card": "6D"}).code == "illegal_action"


# --------------------------------------------------------------------------- bets


def test_bet_moves_chips_from_wallet_to_layout_with_sequential_ids() -> None:
    state, first = act(begin(), bet(player=1, ranks=["5"], amount=300))
    state, second = act(state, bet(player=2, target="high", amount=200))
    assert moves_of(first) == [("bet", wallet(1), layout(1), 300)]
    assert moves_of(second) == [("bet", wallet(2), layout(2), 200)]
    assert bets_view(state) == [
        {"id": "b1", "player": 1, "kind": "rank", "ranks": ["5"], "amount": 300, "coppered": False},
        {"id": "b2", "player": 2, "kind": "target", "target": "high", "amount": 200, "coppered": False},
    ]


@pytest.mark.parametrize(
    ("amount", "code"),
    [(50, "below_minimum"), (10_100, "limit_exceeded"), (250, "illegal_action"), (0, "illegal_action")],
)
def test_limits_a_bet_outside_min_max_or_not_in_chips_is_refused(amount: int, code: str) -> None:
    assert refused(begin(), bet(ranks=["5"], amount=amount)).code == code


def test_limits_changed_live_apply_to_later_bets_only() -> None:
    state, _ = act(begin(), bet(ranks=["5"], amount=300))
    live = {"min_bet": 1000, "max_bet": 5000}
    assert refused(state, {**bet(ranks=["6"], amount=300), "limits": live}).code == "below_minimum"
    state, _ = act(state, {**bet(ranks=["6"], amount=1000), "limits": live})
    view = ENGINE.public_state(state)
    assert view["limits"] == live
    assert [b["amount"] for b in view["bets"]] == [300, 1000]
    assert refused(state, bet(ranks=["7"], amount=6000)).code == "limit_exceeded"


def test_limits_max_player_action_caps_one_players_total_on_the_layout() -> None:
    state = begin(head=("2C", "5S", "9H"), rules={"max_player_action": 1000})
    state, _ = act(state, bet(player=1, ranks=["5"], amount=600))
    assert refused(state, bet(player=1, ranks=["9"], amount=500)).code == "limit_exceeded"
    state, _ = act(state, bet(player=2, ranks=["9"], amount=1000))  # another player's room
    state, _ = act(state, bet(player=1, ranks=["9"], amount=400))
    state, _ = act(state, turn())  # the 5 loses: player 1 has room again
    state, _ = act(state, bet(player=1, ranks=["K"], amount=600))
    assert sum(b["amount"] for b in bets_view(state) if b["player"] == 1) == 1000


def test_dead_ranks_take_no_new_bet_single_or_multi_rank() -> None:
    state = begin(head=("5C", "5S", "5H", "9C", "5D"))
    state, _ = act(state, turn())
    state, _ = act(state, turn())
    view = ENGINE.public_state(state)
    assert view["dead_ranks"] == ["5"]
    assert view["casekeeper"]["5"]["left"] == 0
    assert refused(state, bet(ranks=["5"])).code == "dead_rank"
    assert refused(state, bet(ranks=["4", "5"])).code == "dead_rank"
    state, _ = act(state, bet(ranks=["4"]))
    assert len(bets_view(state)) == 1


def test_dead_ranks_a_stack_left_on_a_dead_rank_stays_until_handed_back() -> None:
    state = begin(head=("2C", "9S", "5S", "9H", "5H", "9D", "5D", "9C", "5C"))
    state, _ = act(state, bet(ranks=["5"], amount=300))
    wins = []
    for _ in range(4):
        state, moves = act(state, turn())
        wins += moves_of(moves)
    assert wins == [("win", BANK, wallet(1), 300)] * 4
    assert ENGINE.public_state(state)["dead_ranks"] == ["5", "9"]
    assert [b["amount"] for b in bets_view(state)] == [300]
    state, moves = act(to_last_turn(state), {"type": "last_turn"})
    assert moves_of(moves) == [("return", layout(1), wallet(1), 300)]


@pytest.mark.parametrize(
    "action",
    [
        bet(player=True, ranks=["5"]),
        bet(player="1", ranks=["5"]),
        bet(player=0, ranks=["5"]),
        bet(amount=300.0, ranks=["5"]),
        bet(amount="300", ranks=["5"]),
        bet(ranks="5"),
        bet(ranks=["5"], target="even"),
        bet(),
        bet(target="red"),
        bet(target="high", coppered=True),
        bet(ranks=["5"], coppered="yes"),
        bet(ranks=["Z"]),
        bet(ranks=[14]),
        {"type": "bet"},
        {"type": "dance"},
        {"kind": "bet"},
    ],
)
def test_bet_malformed_actions_are_refused_and_change_nothing(action: Action) -> None:
    state = begin()
    error = refused(state, action)
    assert error.code in {"illegal_action", "bad_rank", "bad_placement"}
    assert error.message


# --------------------------------------------------------------------------- a turn

# (ranks, coppered, banker, player, outcome) for a 300-cent bet
RANK_OUTCOMES = [
    (["5"], False, "5S", "9H", "loss"),
    (["9"], False, "5S", "9H", "win"),
    (["5"], True, "5S", "9H", "win"),
    (["9"], True, "5S", "9H", "loss"),
    (["K"], False, "5S", "9H", "stay"),
    (["K"], True, "5S", "9H", "stay"),
    (["4", "5"], False, "5S", "9H", "loss"),
    (["9", "10"], False, "5S", "9H", "win"),
    (["9", "8", "5", "6"], False, "5S", "9H", "stay"),  # covers both: push
    (["9", "5"], False, "5S", "9H", "stay"),
    (["9", "5"], True, "5S", "9H", "stay"),
    (["4", "5"], True, "5S", "9H", "win"),
    (["5"], False, "5S", "5H", "split"),
    (["5"], True, "5S", "5H", "split"),
    (["4", "5"], False, "5S", "5H", "split"),
    (["9", "8", "5", "6"], True, "5S", "5H", "split"),
    (["9"], False, "5S", "5H", "stay"),
]


@pytest.mark.parametrize(("ranks", "coppered", "banker", "player", "outcome"), RANK_OUTCOMES)
def test_turn_banker_card_loses_player_card_wins_copper_reverses_split_halves(
    ranks: list[str], coppered: bool, banker: str, player: str, outcome: str
) -> None:
    state, _ = act(begin(head=("2C", banker, player)), bet(ranks=ranks, coppered=coppered))
    state, moves = act(state, turn())
    expected = {
        "loss": ([("loss", layout(1), BANK, 300)], []),
        "win": ([("win", BANK, wallet(1), 300)], [300]),
        "stay": ([], [300]),
        "split": ([("split", layout(1), BANK, 150)], [150]),
    }[outcome]
    assert moves_of(moves) == expected[0]
    assert [b["amount"] for b in bets_view(state)] == expected[1]


def test_split_bank_takes_half_of_every_bet_on_the_rank_and_the_odd_cent_stays() -> None:
    state = begin(head=("2C", "5S", "5H"), rules={"chip": 1}, min_bet=1)
    for action in (
        bet(player=1, ranks=["5"], amount=301),
        bet(player=2, ranks=["5"], amount=301, coppered=True),
        bet(player=3, ranks=["4", "5"], amount=1),
        bet(player=3, ranks=["9"], amount=301),
    ):
        state, _ = act(state, action)
    state, moves = act(state, turn())
    assert moves_of(moves) == [
        ("split", layout(1), BANK, 150),
        ("split", layout(2), BANK, 150),
    ]
    assert [b["amount"] for b in bets_view(state)] == [151, 151, 1, 301]


def test_turn_a_won_bet_stays_on_the_layout_and_plays_again() -> None:
    state, _ = act(begin(head=("2C", "5S", "9H", "9S", "KD")), bet(ranks=["9"], amount=300))
    state, first = act(state, turn())
    state, second = act(state, turn())
    assert moves_of(first) == [("win", BANK, wallet(1), 300)]
    assert moves_of(second) == [("loss", layout(1), BANK, 300)]
    assert bets_view(state) == []


# (target, banker, player, outcome) for a 301-cent bet with 1-cent chips
TARGET_OUTCOMES = [
    ("even", "5S", "8H", "win"),
    ("even", "8S", "5H", "loss"),
    ("even", "JS", "QH", "win"),
    ("even", "QS", "10H", "win"),
    ("odd", "8S", "5H", "win"),
    ("odd", "5S", "8H", "loss"),
    ("odd", "QS", "KH", "win"),
    ("odd", "KS", "AH", "win"),
    ("high", "5S", "9H", "win"),
    ("high", "9S", "5H", "loss"),
    ("high", "AS", "KH", "win"),
    ("high", "KS", "AH", "loss"),
    ("even", "5S", "5H", "split"),
    ("odd", "5S", "5H", "split"),
    ("high", "7S", "7H", "split"),
]


@pytest.mark.parametrize(("target", "banker", "player", "outcome"), TARGET_OUTCOMES)
def test_even_odd_high_decide_on_the_next_turn_and_leave_the_layout(
    target: str, banker: str, player: str, outcome: str
) -> None:
    state = begin(head=("2C", banker, player), rules={"chip": 1}, min_bet=1)
    state, _ = act(state, bet(target=target, amount=301))
    state, moves = act(state, turn())
    expected = {
        "win": [("win", BANK, wallet(1), 301), ("return", layout(1), wallet(1), 301)],
        "loss": [("loss", layout(1), BANK, 301)],
        "split": [("split", layout(1), BANK, 150), ("return", layout(1), wallet(1), 151)],
    }[outcome]
    assert moves_of(moves) == expected
    assert bets_view(state) == []


def test_remove_bet_returns_the_stack_between_turns() -> None:
    state, _ = act(begin(), bet(ranks=["5"], amount=300))
    state, _ = act(state, bet(player=2, target="odd", amount=200))
    state, moves = act(state, {"type": "remove_bet", "bet": "b1"})
    assert moves_of(moves) == [("withdraw", layout(1), wallet(1), 300)]
    assert [b["id"] for b in bets_view(state)] == ["b2"]
    assert refused(state, {"type": "remove_bet", "bet": "b1"}).code == "illegal_action"
    assert refused(state, {"type": "remove_bet", "bet": 2}).code == "illegal_action"
    state, _ = act(state, bet(ranks=["6"]))
    assert bets_view(state)[-1]["id"] == "b3"


# --------------------------------------------------------------------------- the shoe


def test_shoe_electronic_turn_refuses_keyed_cards() -> None:
    assert refused(begin(), {"type": "turn", "cards": ["5S", "9H"]}).code == "illegal_action"


@pytest.mark.parametrize(
    ("cards", "code"),
    [
        (None, "illegal_action"),
        (["5S"], "illegal_action"),
        (["5S", "5S"], "bad_card"),
        (["5S", "ZZ"], "bad_card"),
        (["5S", 7], "bad_card"),
        (["5S", "JK"], "card_not_in_shoe"),
        (["5S", "KD"], "card_not_in_shoe"),  # the soda
    ],
)
def test_shoe_manual_turn_refuses_cards_that_cannot_be_there(cards: Any, code: str) -> None:
    state, _ = ENGINE.start(context(None))
    state, _ = act(state, {"type": "soda", "card": "KD"})
    assert refused(state, {"type": "turn", "cards": cards}).code == code


def test_shoe_manual_accepts_t_for_ten_and_shows_canonical_cards() -> None:
    state, _ = ENGINE.start(context(None))
    state, _ = act(state, {"type": "soda", "card": "kd"})
    state, _ = act(state, {"type": "turn", "cards": ["TS", "9h"]})
    view = ENGINE.public_state(state)
    assert view["latest_turn"] == {"number": 1, "banker": "10S", "player": "9H", "split": False}
    assert refused(state, {"type": "turn", "cards": ["10S", "2H"]}).code == "card_not_in_shoe"


def test_shoe_manual_and_electronic_play_the_same_deck_identically() -> None:
    deck = deck_of(head=("2C", "5S", "9H", "5H", "5D"), tail=("KS", "QH", "JD"))
    script: list[Action] = [bet(ranks=["5"]), bet(player=2, target="even", amount=200)]
    schedule = {0: script, 1: script, 20: [bet(player=3, ranks=["K"], amount=100)]}
    electronic, _ = ENGINE.start(context(deck))
    manual, _ = ENGINE.start(context(None))
    manual, _ = act(manual, {"type": "soda", "card": deck[0]})
    e_moves: list[Settlement] = []
    m_moves: list[Settlement] = []
    position = 1
    for n in range(25):
        last = n == 24
        size = 3 if last else 2
        kind = "last_turn" if last else "turn"
        for action in schedule.get(n, []):
            electronic, moves = act(electronic, action)
            e_moves += moves
            manual, moves = act(manual, action)
            m_moves += moves
        electronic, moves = act(electronic, {"type": kind})
        e_moves += moves
        manual, moves = act(manual, {"type": kind, "cards": list(deck[position : position + size])})
        m_moves += moves
        position += size
    assert e_moves == m_moves
    e_view, m_view = ENGINE.public_state(electronic), ENGINE.public_state(manual)
    assert e_view.pop("shoe") == "electronic"
    assert m_view.pop("shoe") == "manual"
    assert e_view == m_view
    assert ENGINE.is_over(electronic)


# --------------------------------------------------------------------------- calling the turn


def test_call_turn_only_when_exactly_three_cards_remain() -> None:
    state = begin(tail=("5S", "9H", "KD"))
    call = {"type": "call_turn", "player": 1, "order": ["5", "9", "K"], "amount": 100}
    assert refused(state, call).code == "illegal_action"
    state = to_last_turn(state)
    view = ENGINE.public_state(state)
    assert (view["cards_remaining"], view["can_call_turn"], view["next_action"]) == (3, True, "last_turn")
    assert refused(state, turn()).code == "illegal_action"
    state, moves = act(state, call)
    assert moves_of(moves) == [("bet", wallet(1), layout(1), 100)]
    assert bets_view(state)[-1] == {
        "id": "b1",
        "player": 1,
        "kind": "call",
        "order": ["5", "9", "K"],
        "amount": 100,
        "coppered": False,
    }


@pytest.mark.parametrize(
    ("tail", "order", "rules", "paid"),
    [
        (("5S", "9H", "KD"), ["5", "9", "K"], {}, 400),
        (("5S", "9H", "KD"), ["5", "9", "K"], {"call_turn_pays": 5}, 500),
        (("5S", "9H", "5D"), ["5", "9", "5"], {}, 200),
        (("5S", "9H", "5D"), ["5", "9", "5"], {"cat_hop_pays": 3}, 300),
        (("9S", "5H", "5D"), ["9", "5", "5"], {}, 200),
        (("5S", "9H", "KD"), ["9", "5", "K"], {}, 0),
        (("5S", "9H", "5D"), ["5", "5", "9"], {}, 0),
    ],
)
def test_call_turn_pays_four_to_one_cat_hop_two_to_one_wrong_order_loses(
    tail: tuple[str, ...], order: list[str], rules: dict[str, int], paid: int
) -> None:
    state = to_last_turn(begin(tail=tail, rules=rules))
    state, _ = act(state, {"type": "call_turn", "player": 2, "order": order, "amount": 100})
    state, moves = act(state, {"type": "last_turn"})
    if paid:
        assert moves_of(moves) == [("win", BANK, wallet(2), paid), ("return", layout(2), wallet(2), 100)]
    else:
        assert moves_of(moves) == [("loss", layout(2), BANK, 100)]


def test_call_turn_three_of_a_kind_takes_no_calls() -> None:
    state = to_last_turn(begin(tail=("5S", "5H", "5D")))
    assert ENGINE.public_state(state)["can_call_turn"] is False
    call = {"type": "call_turn", "player": 1, "order": ["5", "5", "5"], "amount": 100}
    assert refused(state, call).code == "illegal_action"


@pytest.mark.parametrize(
    ("order", "code"),
    [
        (["5", "9", "Q"], "dead_rank"),
        (["5", "9", "9"], "illegal_action"),
        (["5", "9"], "illegal_action"),
        ("59K", "illegal_action"),
        (["5", "9", None], "bad_rank"),
    ],
)
def test_call_turn_order_must_be_possible_with_the_cards_left(order: Any, code: str) -> None:
    state = to_last_turn(begin(head=("QC", "QS", "QH", "QD", "2C"), tail=("5S", "9H", "KD")))
    call = {"type": "call_turn", "player": 1, "order": order, "amount": 100}
    assert refused(state, call).code == code


# --------------------------------------------------------------------------- the last turn


def test_last_turn_settles_ordinary_bets_hock_settles_nothing_rest_returns() -> None:
    state = to_last_turn(begin(tail=("5S", "9H", "KD")))
    for action in (
        bet(player=1, ranks=["5"], amount=100),
        bet(player=1, ranks=["9"], amount=200),
        bet(player=2, ranks=["K"], amount=300),  # the hock: nothing
        bet(player=2, ranks=["K"], amount=400, coppered=True),
        bet(player=3, target="high", amount=500),
        bet(player=3, ranks=["9", "5"], amount=600),  # covers loser and winner: push
    ):
        state, _ = act(state, action)
    state, moves = act(state, {"type": "last_turn"})
    assert moves_of(moves) == [
        ("loss", layout(1), BANK, 100),
        ("win", BANK, wallet(1), 200),
        ("win", BANK, wallet(3), 500),
        ("return", layout(3), wallet(3), 500),
        ("return", layout(1), wallet(1), 200),
        ("return", layout(2), wallet(2), 300),
        ("return", layout(2), wallet(2), 400),
        ("return", layout(3), wallet(3), 600),
    ]
    view = ENGINE.public_state(state)
    assert ENGINE.is_over(state)
    assert (view["phase"], view["hock"], view["bets"], view["cards_remaining"]) == ("settled", "KD", [], 0)
    assert view["casekeeper"]["K"]["hock"] == ["KD"]


def test_last_turn_a_split_on_the_last_turn_halves_like_any_other() -> None:
    state = to_last_turn(begin(tail=("5S", "5H", "KD")))
    state, _ = act(state, bet(ranks=["5"], amount=300))
    state, moves = act(state, {"type": "last_turn"})
    assert moves_of(moves) == [("split", layout(1), BANK, 150), ("return", layout(1), wallet(1), 150)]


@pytest.mark.parametrize(
    "action",
    [
        bet(ranks=["5"]),
        {"type": "remove_bet", "bet": "b1"},
        turn(),
        {"type": "last_turn"},
        {"type": "call_turn", "player": 1, "order": ["5", "9", "K"], "amount": 100},
    ],
)
def test_last_turn_after_the_hock_the_deal_is_over(action: Action) -> None:
    state = to_last_turn(begin(tail=("5S", "9H", "KD")))
    state, _ = act(state, bet(ranks=["K"]))
    state, _ = act(state, {"type": "last_turn"})
    assert refused(state, action).code == "illegal_action"


def test_last_turn_not_before_three_cards_remain() -> None:
    assert refused(begin(), {"type": "last_turn"}).code == "illegal_action"


# --------------------------------------------------------------------------- casekeeper & public state


def test_casekeeper_shows_soda_losers_winners_hock_and_cards_left_per_rank() -> None:
    head = ("5C", "5S", "9H", "9S", "5H", "5D", "2C")
    state = to_last_turn(begin(head=head, tail=("KS", "QH", "KD")))
    state, _ = act(state, {"type": "last_turn"})
    keeper = ENGINE.public_state(state)["casekeeper"]
    assert keeper["5"] == {"soda": ["5C"], "losers": ["5S", "5D"], "winners": ["5H"], "hock": [], "left": 0}
    assert keeper["9"]["winners"][0] == "9H"
    assert keeper["9"]["losers"][0] == "9S"
    assert keeper["K"]["losers"][-1] == "KS"
    assert keeper["K"]["hock"] == ["KD"]
    assert keeper["Q"]["winners"][-1] == "QH"
    for rank, column in keeper.items():
        seen = column["soda"] + column["losers"] + column["winners"] + column["hock"]
        assert sorted(seen) == sorted(c for c in FULL_DECK if rank_of(c) == rank)
        assert column["left"] == 0


def test_public_state_is_json_and_never_shows_an_undealt_card() -> None:
    deck = deck_of(head=("2C", "5S", "9H"))
    state, _ = ENGINE.start(context(deck))
    state, _ = act(state, bet(ranks=["5"]))
    state, _ = act(state, turn())
    view = ENGINE.public_state(state)
    assert json.loads(json.dumps(view)) == view
    shown = set(_strings(view))
    assert {"2C", "5S", "9H"} <= shown
    assert not shown & set(deck[3:])
    assert view["turn"] == 1
    assert view["cards_remaining"] == 49
    assert view["limits"] == {"min_bet": 100, "max_bet": 10_000}


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


# --------------------------------------------------------------------------- engine protocol


def test_house_banked_faro_holds_no_reserve_and_carries_nothing() -> None:
    state = begin()
    assert ENGINE.reserve(context(deck_of())) == {}
    assert ENGINE.carry_out(state) == {}
    assert ENGINE.game == "faro"


def test_rules_defaults_fill_in() -> None:
    assert ENGINE.validate_rules({}) == ENGINE.default_rules()
    assert ENGINE.default_rules() == {
        "chip": 100,
        "max_player_action": None,
        "call_turn_pays": 4,
        "cat_hop_pays": 2,
        "rake": None,
    }
    assert ENGINE.validate_rules({"chip": 25})["chip"] == 25


@pytest.mark.parametrize(
    "rules",
    [
        {"chip": 0},
        {"chip": "100"},
        {"chip": True},
        {"call_turn_pays": 0},
        {"cat_hop_pays": 1.5},
        {"max_player_action": -1},
        {"rake": {"kind": "percent", "percent": 5, "cap": 500}},
        {"house_edge": 2},
        {3: 4},
    ],
)
def test_rules_bad_values_are_refused_as_bad_rules(rules: dict[Any, Any]) -> None:
    assert_bad_rules(ENGINE, rules)


def test_start_refuses_an_electronic_shoe_that_is_not_one_deck() -> None:
    with pytest.raises(IllegalAction):
        ENGINE.start(context(FULL_DECK[:51]))
    with pytest.raises(IllegalAction):
        ENGINE.start(context((*FULL_DECK[:51], FULL_DECK[0])))


def test_replay_gives_the_same_state_and_settlements() -> None:
    actions: list[Action] = [bet(ranks=["5"]), bet(player=2, target="odd"), turn(), turn()]
    runs = []
    for _ in range(2):
        state = begin(head=("2C", "5S", "9H", "5H", "5D"))
        made: list[Settlement] = []
        for action in actions:
            state, moves = act(state, action)
            made += moves
        runs.append((state, made))
    assert runs[0] == runs[1]
    assert runs[0][1]  # something did move


# --------------------------------------------------------------------------- properties

PLAYERS = (1, 2, 3)
SORTED_PLACEMENTS = sorted((sorted(p) for p in PLACEMENTS), key=lambda p: (len(p), p))


def _layout_totals(view: Mapping[str, Any]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for b in view["bets"]:
        totals[layout(b["player"])] += b["amount"]
    return totals


def _remaining_ranks(view: Mapping[str, Any]) -> list[str]:
    return [rank for rank, column in view["casekeeper"].items() for _ in range(column["left"])]


def _legal_action(data: st.DataObject, view: Mapping[str, Any], deck: Sequence[str], manual: bool) -> Action:
    """One legal action chosen by hypothesis from what the public state allows."""
    options = ["deal", "deal", "rank", "target"]
    options += ["remove"] if view["bets"] else []
    options += ["call"] if view["can_call_turn"] else []
    choice = data.draw(st.sampled_from(options))
    player = data.draw(st.sampled_from(PLAYERS))
    chip, limits = view["chip"], view["limits"]
    room = limits["max_bet"]
    if view["max_player_action"] is not None:
        room = min(room, view["max_player_action"] - _layout_totals(view)[layout(player)])
    top = room // chip
    if choice in ("rank", "target", "call") and top * chip >= limits["min_bet"]:
        amount = chip * data.draw(st.integers(-(-limits["min_bet"] // chip), top))
        if choice == "rank":
            live = [p for p in SORTED_PLACEMENTS if not set(p) & set(view["dead_ranks"])]
            ranks = data.draw(st.sampled_from(live))
            coppered = data.draw(st.booleans())
            return bet(player=player, amount=amount, ranks=ranks, coppered=coppered)
        if choice == "target":
            target = data.draw(st.sampled_from(["even", "odd", "high"]))
            return bet(player=player, amount=amount, target=target)
        order = data.draw(st.permutations(_remaining_ranks(view)))
        return {"type": "call_turn", "player": player, "order": list(order), "amount": amount}
    if choice == "remove":
        return {"type": "remove_bet", "bet": data.draw(st.sampled_from([b["id"] for b in view["bets"]]))}
    kind = view["next_action"]
    if not manual:
        return {"type": kind}
    position = len(deck) - view["cards_remaining"]
    if kind == "soda":
        return {"type": "soda", "card": deck[position]}
    size = 3 if kind == "last_turn" else 2
    return {"type": kind, "cards": list(deck[position : position + size])}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    deck=st.permutations(FULL_DECK),
    manual=st.booleans(),
    chip=st.sampled_from([1, 25, 100]),
    cap=st.sampled_from([None, 2_000, 50_000]),
    data=st.data(),
)
def test_property_legal_play_conserves_chips_reaches_the_end_and_replays(
    deck: list[str], manual: bool, chip: int, cap: int | None, data: st.DataObject
) -> None:
    rules = {"chip": chip, "max_player_action": cap}
    ctx = context(None if manual else deck, rules, min_bet=chip, max_bet=chip * 20)
    state, _ = ENGINE.start(ctx)
    ledger: Counter[str] = Counter()
    actions: list[Action] = []
    made: list[Settlement] = []
    for _ in range(400):
        if ENGINE.is_over(state):
            break
        action = _legal_action(data, ENGINE.public_state(state), deck, manual)
        state, moves = ENGINE.apply(state, action)  # legal by construction: must not refuse
        actions.append(action)
        made += moves
        for move in moves:
            assert isinstance(move.amount, int)
            assert move.amount > 0
            assert not move.payer.startswith("wallet:") or move.kind == "bet"
            assert move.payer != BANK or move.kind == "win"
        ledger.update(balances(moves))
        view = ENGINE.public_state(state)
        on_layout = _layout_totals(view)
        for player in PLAYERS:
            assert ledger[layout(player)] == on_layout[layout(player)] >= 0
            if cap is not None:
                assert on_layout[layout(player)] <= cap
    assert ENGINE.is_over(state)
    assert all(ledger[layout(p)] == 0 for p in PLAYERS)
    assert ledger[BANK] + sum(ledger[wallet(p)] for p in PLAYERS) == 0
    assert sum(ledger.values()) == 0
    replay, _ = ENGINE.start(ctx)
    again: list[Settlement] = []
    for action in actions:
        replay, moves = ENGINE.apply(replay, action)
        again += moves
    assert replay == state
    assert again == made


# Ints too long for str() (Python's 4300-digit limit): messages must never format them.
_HUGE_INTS = st.builds(pow, st.sampled_from([10, -10]), st.sampled_from([4400, 5000]))
_JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**63, 0, -1, 100, 300])
    | _HUGE_INTS
    | st.floats(allow_nan=True)
    | st.text(max_size=6)
    | st.sampled_from([*RANKS, "T", "t", "10H", "QS", "JK", "5S", "even", "odd", "high", "b1", "b2"])
)
_JSON = st.recursive(
    _JSON_LEAF,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _mostly(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Three times in four a value a dealer might send, else garbage."""
    return st.one_of(plausible, plausible, plausible, _JSON)


_RANK_LISTS = st.sampled_from(SORTED_PLACEMENTS) | st.lists(
    st.sampled_from([*RANKS, "T", 1, 13, 14, True, None, "x"]), max_size=5
)
_PLAYER = st.one_of(*[st.sampled_from([1, 2, 3])] * 4, st.sampled_from([0, -3, True, "1", 2**70]), _HUGE_INTS)
_AMOUNT = st.one_of(
    *[st.sampled_from([100, 300, 1000])] * 4, st.sampled_from([1, 0, -100, 150, 150.0, "300"]), _HUGE_INTS
)
_CARDS = st.lists(st.sampled_from([*FULL_DECK, "JK", "1S", "t5"]), min_size=1, max_size=4)
_LIMITS = st.fixed_dictionaries({"min_bet": _JSON_LEAF, "max_bet": _JSON_LEAF})
_EXTRA = {"limits": _mostly(st.just({"min_bet": 100, "max_bet": 500}) | _LIMITS), "version": _JSON}
_TYPED_ACTIONS = [
    st.fixed_dictionaries(
        {"type": st.just("bet"), "player": _PLAYER, "amount": _AMOUNT},
        optional={
            "ranks": _mostly(_RANK_LISTS),
            "target": _mostly(st.sampled_from(["even", "odd", "HIGH", "low"])),
            "coppered": _mostly(st.booleans()),
            **_EXTRA,
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("remove_bet"), "bet": _mostly(st.sampled_from(["b1", "b2", "b3", "b99"]))},
        optional=_EXTRA,
    ),
    st.fixed_dictionaries(
        {"type": st.just("soda")}, optional={"card": _mostly(st.sampled_from(FULL_DECK)), **_EXTRA}
    ),
    st.fixed_dictionaries({"type": st.just("turn")}, optional={"cards": _mostly(_CARDS), **_EXTRA}),
    st.fixed_dictionaries({"type": st.just("last_turn")}, optional={"cards": _mostly(_CARDS), **_EXTRA}),
    st.fixed_dictionaries(
        {
            "type": st.just("call_turn"),
            "player": _PLAYER,
            "amount": _AMOUNT,
            "order": _mostly(st.lists(st.sampled_from(["4", "J", "5", "K", 4]), min_size=2, max_size=4)),
        },
        optional=_EXTRA,
    ),
]
_FUZZ_ACTION = st.one_of(*_TYPED_ACTIONS, st.dictionaries(st.sampled_from(["type", "player"]), _JSON), _JSON)


def _fuzz_start(name: str) -> FaroState:
    if name == "manual":
        return ENGINE.start(context(None))[0]
    state = begin(head=("2C", "5S", "9H"), tail=("4S", "4H", "JD"))
    state, _ = act(state, bet(ranks=["5"]))
    state, _ = act(state, bet(player=2, ranks=["9", "10"], coppered=True))
    if name in ("last_turn", "over"):
        state = to_last_turn(state)
        state, _ = act(state, {"type": "call_turn", "player": 1, "order": ["4", "4", "J"], "amount": 100})
    if name == "over":
        state, _ = act(state, {"type": "last_turn"})
    return state


@settings(max_examples=100, deadline=None)
@given(
    start=st.sampled_from(["electronic", "manual", "last_turn", "over"]),
    actions=st.lists(_FUZZ_ACTION, max_size=12),
)
def test_fuzz_garbage_actions_raise_only_illegal_action_and_change_nothing(
    start: str, actions: list[Any]
) -> None:
    state = _fuzz_start(start)
    for action in actions:
        state = apply_or_refuse(ENGINE, state, action)
        assert json.loads(json.dumps(ENGINE.public_state(state))) == ENGINE.public_state(state)


def _mutate(data: st.DataObject, action: Action) -> Action:
    """Drop one key of a legal action or give it a garbage value."""
    key = data.draw(st.sampled_from([*sorted(action), "limits", "version"]))
    mutated = dict(action)
    if data.draw(st.booleans()):
        mutated.pop(key, None)
    else:
        mutated[key] = data.draw(_JSON | _HUGE_INTS | _PLAYER | _AMOUNT | _RANK_LISTS | _CARDS)
    return mutated


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=st.permutations(FULL_DECK), manual=st.booleans(), data=st.data())
def test_fuzz_mutated_legal_actions_at_every_point_of_a_deal_raise_only_illegal_action(
    deck: list[str], manual: bool, data: st.DataObject
) -> None:
    state, _ = ENGINE.start(context(None if manual else deck, {"max_player_action": 5000}))
    outcomes: Counter[str] = Counter()
    while not ENGINE.is_over(state):
        view = ENGINE.public_state(state)
        action = _legal_action(data, view, deck, manual)
        try:
            mutant, moves = ENGINE.apply(state, _mutate(data, action))
        except IllegalAction as error:
            outcomes[error.code] += 1
            assert ENGINE.public_state(state) == view
        else:
            outcomes["accepted"] += 1
            assert isinstance(mutant, FaroState)
            assert all(isinstance(m.amount, int) and m.amount > 0 for m in moves)
        state, _ = ENGINE.apply(state, action)
    assert sum(outcomes.values()) >= 25  # at least every dealing step was fuzzed


@pytest.mark.parametrize("garbage", [None, "turn", 3, ["turn"], {"type": None}, {"type": ["bet"]}])
def test_fuzz_non_dict_actions_and_foreign_states_are_illegal_action(garbage: Any) -> None:
    with pytest.raises(IllegalAction):
        ENGINE.apply(begin(), garbage)
    with pytest.raises(IllegalAction):
        ENGINE.apply({"not": "a state"}, {"type": "turn"})


# --------------------------------------------------------------------------- legal_actions
#
# ``legal_actions`` lists the dealing action due, the ``bet``/``call_turn`` templates and
# one ``remove_bet`` per stack. The walks below choose only from that list, filling each
# template's ``needs`` from its hints (a live placement or target, a stake within the hints
# and the player's room under ``max_player_action``, cards from the shoe's ``choices``).

HINT_KEYS = ("needs", "optional", "choices", "count", "bounds", "min_amount", "max_amount", "chip")
HINT_KEYS += ("max_player_action",)
LIMITS = [(100, 10_000), (1, 500), (150, 2_000), (150, 180), (0, 300)]


def _fixed(entry: Mapping[str, Any]) -> Action:
    """A template's fixed fields: the entry without its hint keys."""
    return {key: value for key, value in entry.items() if key not in HINT_KEYS}


def _on_layout(state: FaroState, player: int) -> int:
    return sum(b.amount for b in state.bets if b.player == player)


def _room(state: FaroState, entry: Mapping[str, Any], player: int) -> int:
    """The most this player may stake now, in whole chips."""
    top = entry["max_amount"]
    if entry.get("max_player_action") is not None:
        top = min(top, entry["max_player_action"] - _on_layout(state, player))
    return top - top % entry["chip"]


def _fill(rng: random.Random, state: FaroState, entry: Mapping[str, Any]) -> Action:
    """A sensible filling of a template (a concrete entry comes back as it is)."""
    action = _fixed(entry)
    kind, choices = entry["type"], entry.get("choices", {})
    if "needs" not in entry:
        return action
    if kind == "soda":
        return action | {"card": rng.choice(choices["card"])}
    if kind in ("turn", "last_turn"):
        return action | {"cards": rng.sample(choices["cards"], entry["count"]["cards"])}
    players = [p for p in (1, 2, 3, 4, 5) if _room(state, entry, p) >= entry["min_amount"]]
    player = rng.choice(players)  # a newcomer always has room: the template promises a stake fits
    amount = rng.randrange(entry["min_amount"], _room(state, entry, player) + 1, entry["chip"])
    action |= {"player": player, "amount": amount}
    if kind == "call_turn":
        return action | {"order": rng.choice(choices["order"])}
    if rng.random() < 0.7:
        return action | {"ranks": rng.choice(choices["ranks"]), "coppered": rng.random() < 0.2}
    return action | {"target": rng.choice(choices["target"])}


def _walk_context(
    manual: bool, chip: int, cap: int | None, limits: tuple[int, int], seed: int
) -> TableContext:
    deck = random.Random(seed).sample(FULL_DECK, len(FULL_DECK))
    rules = {"chip": chip, "max_player_action": cap}
    return context(None if manual else deck, rules, min_bet=limits[0], max_bet=limits[1])


WALK_BOUND = 1_000  # actions; a deal is 25 dealing steps, and bets come and go around them


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    manual=st.booleans(),
    chip=st.sampled_from([1, 25, 100]),
    cap=st.sampled_from([None, 1_000, 50_000]),
    limits=st.sampled_from(LIMITS),
)
def test_legal_actions_are_all_accepted_and_a_walk_among_them_always_ends(
    seed: int, manual: bool, chip: int, cap: int | None, limits: tuple[int, int]
) -> None:
    rng = random.Random(seed)
    state, _ = ENGINE.start(_walk_context(manual, chip, cap, limits, seed))
    for _ in range(WALK_BOUND):
        if ENGINE.is_over(state):
            break
        legal = listed_legal_actions(ENGINE, state)
        assert [a for a in legal if a["type"] in ("soda", "turn", "last_turn")] == [legal[0]]
        for entry in legal:
            ENGINE.apply(state, _fill(rng, state, entry))  # raises IllegalAction if not legal
        state, _ = ENGINE.apply(state, _fill(rng, state, rng.choice(legal)))
    assert ENGINE.is_over(state)
    assert ENGINE.legal_actions(state) == []


def test_legal_actions_electronic_deal_is_concrete_manual_needs_cards() -> None:
    state = begin()
    assert ENGINE.legal_actions(state)[0] == {"type": "turn"}
    assert ENGINE.legal_actions(to_last_turn(state))[0] == {"type": "last_turn"}
    manual, _ = ENGINE.start(context(None))
    assert ENGINE.legal_actions(manual)[0] == {
        "type": "soda",
        "needs": ["card"],
        "choices": {"card": list(FULL_DECK)},
    }
    manual, _ = act(manual, {"type": "soda", "card": "2C"})
    dealt = ENGINE.legal_actions(manual)[0]
    assert dealt == {
        "type": "turn",
        "needs": ["cards"],
        "choices": {"cards": [card for card in FULL_DECK if card != "2C"]},
        "count": {"cards": 2},
    }


def test_legal_actions_bets_call_turn_and_removals() -> None:
    state, _ = act(begin(head=("2C", "3C", "3D", "3H", "3S")), bet(ranks=["3"]))
    legal = ENGINE.legal_actions(state)
    template = next(a for a in legal if a["type"] == "bet")
    assert template["needs"] == ["player", "ranks|target", "amount"]
    assert template["optional"] == ["coppered"]
    assert template["choices"]["target"] == ["even", "odd", "high"]
    assert len(template["choices"]["ranks"]) == 75
    assert (template["min_amount"], template["max_amount"], template["chip"]) == (100, 10_000, 100)
    assert {"type": "remove_bet", "bet": "b1"} in legal
    assert all(a["type"] != "call_turn" for a in legal)
    state, _ = act(state, turn())
    state, _ = act(state, turn())  # all four 3s are out: the rank is dead
    live = next(a for a in ENGINE.legal_actions(state) if a["type"] == "bet")["choices"]["ranks"]
    assert all("3" not in ranks for ranks in live)
    assert ["2"] in live
    last = to_last_turn(begin(tail=("5S", "9S", "5H")))
    call = next(a for a in ENGINE.legal_actions(last) if a["type"] == "call_turn")
    assert call["needs"] == ["player", "order", "amount"]
    assert call["choices"]["order"] == [["5", "5", "9"], ["5", "9", "5"], ["9", "5", "5"]]
    triple = to_last_turn(begin(tail=("5S", "5D", "5H")))
    assert all(a["type"] != "call_turn" for a in ENGINE.legal_actions(triple))


def test_legal_actions_no_bet_template_when_no_stake_fits_the_limits() -> None:
    state, _ = ENGINE.start(context(deck_of(("2C",)), min_bet=150, max_bet=180))
    assert [a["type"] for a in ENGINE.legal_actions(state)] == ["turn"]
    capped, _ = ENGINE.start(context(deck_of(("2C",)), {"max_player_action": 300}, max_bet=10_000))
    template = next(a for a in ENGINE.legal_actions(capped) if a["type"] == "bet")
    assert (template["max_amount"], template["max_player_action"]) == (300, 300)


# Completeness: a syntactically valid action the list does not cover is refused.


def _placement_of(ranks: Any) -> list[str] | None:
    if not isinstance(ranks, list) or len(set(ranks)) != len(ranks):
        return None
    return sorted(ranks, key=rank_index)


def _admits(state: FaroState, entry: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    """Does this filling keep to the template's hints?"""
    fixed = _fixed(entry)
    if any(action.get(key) != value for key, value in fixed.items()):
        return False
    kind, choices = entry["type"], entry["choices"]
    if kind == "soda":
        return action.get("card") in choices["card"]
    if kind in ("turn", "last_turn"):
        cards = action.get("cards")
        return (
            isinstance(cards, list)
            and len(cards) == entry["count"]["cards"] == len(set(cards))
            and all(card in choices["cards"] for card in cards)
        )
    player, amount = action.get("player"), action.get("amount")
    if not (isinstance(player, int) and player > 0 and isinstance(amount, int)):
        return False
    if not (entry["min_amount"] <= amount <= _room(state, entry, player) and amount % entry["chip"] == 0):
        return False
    if kind == "call_turn":
        return action.get("order") in choices["order"]
    if ("ranks" in action) == ("target" in action):
        return False
    if "target" in action:
        return action["target"] in choices["target"] and not action.get("coppered")
    return _placement_of(action["ranks"]) in choices["ranks"]


def _covered(state: FaroState, legal: list[dict[str, Any]], action: Mapping[str, Any]) -> bool:
    for entry in legal:
        if entry["type"] != action["type"]:
            continue
        if entry == action if "needs" not in entry else _admits(state, entry, action):
            return True
    return False


def _some_action(rng: random.Random, state: FaroState, remaining: list[str]) -> Action:
    """A well-formed Faro action, legal or not: right types, plausible values."""
    kind = rng.choice(["soda", "turn", "last_turn", "bet", "bet", "bet", "remove_bet", "call_turn"])
    if kind == "soda":
        return {"type": kind, "card": rng.choice(FULL_DECK)}
    if kind in ("turn", "last_turn"):
        if state.deck is not None:
            return {"type": kind}
        pool = remaining if rng.random() < 0.8 else list(FULL_DECK)
        return {"type": kind, "cards": rng.sample(pool, rng.choice([2, 3]))}
    if kind == "remove_bet":
        return {"type": kind, "bet": f"b{rng.randint(0, state.bets_made + 2)}"}
    chip = state.rules.chip
    amount = rng.choice([0, 1, 150, chip, 2 * chip, rng.randrange(0, 12_000, chip), 10_000 + chip])
    action: Action = {"type": kind, "player": rng.randint(1, 4), "amount": amount}
    if kind == "call_turn":
        left = [rank_of(card) for card in remaining]
        order = rng.sample(left, 3) if len(left) >= 3 and rng.random() < 0.6 else rng.choices(RANKS, k=3)
        return action | {"order": order}
    if rng.random() < 0.2:
        return action | {"target": rng.choice(["even", "odd", "high"]), "coppered": rng.random() < 0.2}
    ranks = rng.choice(SORTED_PLACEMENTS) if rng.random() < 0.6 else rng.sample(RANKS, rng.randint(1, 4))
    return action | {"ranks": list(ranks), "coppered": rng.random() < 0.3}


def _remaining(state: FaroState) -> list[str]:
    casekeeper = ENGINE.public_state(state)["casekeeper"]
    out = {
        card
        for column in casekeeper.values()
        for key in ("soda", "losers", "winners", "hock")
        for card in column[key]
    }
    return [card for card in FULL_DECK if card not in out]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    manual=st.booleans(),
    chip=st.sampled_from([1, 25, 100]),
    cap=st.sampled_from([None, 1_000]),
    limits=st.sampled_from(LIMITS),
)
def test_legal_actions_are_complete_anything_they_do_not_cover_is_refused(
    seed: int, manual: bool, chip: int, cap: int | None, limits: tuple[int, int]
) -> None:
    rng = random.Random(seed)
    state, _ = ENGINE.start(_walk_context(manual, chip, cap, limits, seed))
    tried: Counter[bool] = Counter()
    while not ENGINE.is_over(state):
        legal, remaining = ENGINE.legal_actions(state), _remaining(state)
        for attempt in range(5):
            # A filled legal action first (both sides are tried), then any well-formed ones.
            action = (
                _fill(rng, state, rng.choice(legal)) if attempt == 0 else _some_action(rng, state, remaining)
            )
            covered = _covered(state, legal, action)
            assert (outcome(state, action) == "accepted") == covered, action
            tried[covered] += 1
        state, _ = ENGINE.apply(state, _fill(rng, state, rng.choice(legal)))
    assert tried[True] >= tried.total() // 5
    assert tried[False]
