"""GAMES.md "Other games of the card room: results and stakes" — one keyed result per round."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games.base import Settlement, TableContext, wallet
from tables.games.errors import IllegalAction
from tables.games.stakes import ENGINE, VARIANTS, StakesState, required_reserve
from tests.games.engine_support import assert_bad_rules, context, is_accepted, net

SEATS = {1: 101, 3: 103, 5: 105, 7: 107}
STAKE = 500


def make_ctx(rules: Mapping[str, Any] | None = None, **kw: Any) -> TableContext:
    return context(rules=rules, **{"seats": SEATS, "ante": STAKE, **kw})


def started(rules: Mapping[str, Any] | None = None, **kw: Any) -> StakesState:
    state, settlements = ENGINE.start(make_ctx(rules, **kw))
    assert settlements == ()
    return state


def paid_out(settlements: tuple[Settlement, ...]) -> Counter[str]:
    totals: Counter[str] = Counter()
    for s in settlements:
        totals[s.payer] += s.amount
    return totals


# --- rules -----------------------------------------------------------------------------

GAMES_MD_MODES = {
    "Page One": "first_out",
    "Jack Change It": "first_out",
    "Crazy Eights": "first_out",
    "Egyptian Ratscrew": "first_out",
    "Old Maid": "loser_pays",
    "Gops": "high_score",
    "Concentration": "high_score",
    "Fifty-One": "high_score",
    "Piquet": "points",
    "500 Rummy": "points",
    "Trex": "points",
}


@pytest.mark.parametrize(("name", "mode"), GAMES_MD_MODES.items())
def test_variant_picks_its_default_settle_mode(name: str, mode: str) -> None:
    rules = ENGINE.validate_rules({"variant": name})
    assert VARIANTS[rules["variant"]][0] == name
    assert started({"variant": name}).settle == mode


def test_every_card_room_game_has_a_snake_case_key_and_display_name() -> None:
    assert {name for name, _ in VARIANTS.values()} == set(GAMES_MD_MODES)
    for key in VARIANTS:
        assert key == key.lower().replace(" ", "_").replace("-", "_")
    assert {"500_rummy", "fifty_one", "old_maid"} <= set(VARIANTS)


def test_rules_settle_overrides_the_variants_default() -> None:
    state = started({"variant": "old_maid", "settle": "first_out"})
    assert state.settle == "first_out"
    _, settlements = ENGINE.apply(state, {"type": "result", "winner": 103})
    assert net(settlements)[wallet(103)] == 3 * STAKE


def test_default_rules_validate_to_themselves() -> None:
    defaults = ENGINE.default_rules()
    assert ENGINE.validate_rules({}) == defaults
    assert ENGINE.validate_rules(defaults) == defaults
    assert defaults["reserve_chips"] == 30


@pytest.mark.parametrize(
    "rules",
    [
        {"variant": "poker"},
        {"variant": 3},
        {"settle": "winner_takes_all"},
        {"point_value": 0},
        {"point_value": 1.5},
        {"point_value": True},
        {"reserve_chips": 0},
        {"reserve_chips": "30"},
        {"chip": -100},
        {"colour": "green"},
        {"rake": {"kind": "percent", "percent": 5, "cap": 500}},
        {"rake": {"kind": "time", "amount": 0, "minutes": 30}},
        {"rake": "lots"},
    ],
)
def test_bad_rules_are_refused(rules: dict[str, Any]) -> None:
    assert_bad_rules(ENGINE, rules)


def test_percent_rake_is_refused_because_stakes_games_have_no_pot() -> None:
    with pytest.raises(IllegalAction, match="pot"):
        ENGINE.validate_rules({"rake": {"kind": "percent", "percent": 5, "cap": 100}})
    time_rake = {"kind": "time", "amount": 200, "minutes": 30}
    assert ENGINE.validate_rules({"rake": time_rake})["rake"] == time_rake


def test_reserve_is_reserve_chips_chips_per_player() -> None:
    assert ENGINE.reserve(make_ctx()) == dict.fromkeys(SEATS.values(), 30 * 100)
    assert ENGINE.reserve(make_ctx({"reserve_chips": 12, "chip": 25}, ante=50, min_bet=25)) == dict.fromkeys(
        SEATS.values(), 12 * 25
    )


@pytest.mark.parametrize(
    ("settle", "hold"),
    [("first_out", 5_000), ("high_score", 5_000), ("loser_pays", 3 * 5_000), ("points", 30 * 100)],
)
def test_reserve_covers_the_most_a_player_can_owe_under_the_tables_settle(settle: str, hold: int) -> None:
    """Ante 5,000 and the default 30 chips (3,000): a stake is never cut down to the reserve."""
    ctx = make_ctx({"settle": settle}, ante=5_000)
    assert ENGINE.reserve(ctx) == dict.fromkeys(SEATS.values(), hold)
    assert ENGINE.start(ctx)[0].reserve_left == (hold,) * 4
    assert required_reserve(ENGINE.validate_rules({"settle": settle}), stake=5_000, players=4) == hold


def test_first_out_winner_is_paid_the_whole_stake_when_it_exceeds_reserve_chips() -> None:
    state = started({"variant": "page_one"}, ante=5_000)
    _, settlements = ENGINE.apply(state, {"type": "result", "winner": 103})
    assert net(settlements)[wallet(103)] == 3 * 5_000
    assert all(net(settlements)[wallet(p)] == -5_000 for p in (101, 105, 107))


def test_loser_pays_reserve_grows_with_the_players_dealt_in() -> None:
    rules = {"variant": "old_maid", "reserve_chips": 2}
    assert ENGINE.reserve(make_ctx(rules, ante=100)) == dict.fromkeys(SEATS.values(), 300)
    assert ENGINE.reserve(make_ctx(rules, ante=100, seats={1: 101, 3: 103})) == {101: 200, 103: 200}


def test_no_chips_move_when_the_round_starts() -> None:
    state, settlements = ENGINE.start(make_ctx())
    assert settlements == ()
    assert not ENGINE.is_over(state)
    assert state.reserve_left == (3000,) * 4


@pytest.mark.parametrize(
    ("ante", "code"),
    [(100, "below_minimum"), (20_000, "limit_exceeded"), (250, "illegal_action"), (0, "illegal_action")],
)
def test_the_stake_must_be_a_chip_multiple_within_the_limits(ante: int, code: str) -> None:
    with pytest.raises(IllegalAction) as info:
        ENGINE.start(make_ctx(ante=ante, min_bet=200))
    assert info.value.code == code


def test_a_stakes_round_needs_two_players() -> None:
    with pytest.raises(IllegalAction):
        ENGINE.start(make_ctx(seats={4: 104}))


# --- dealer position ---------------------------------------------------------------------


def test_dealer_is_the_lowest_seat_at_the_first_round_and_moves_left_each_round() -> None:
    seen = []
    carry: dict[str, Any] = {}
    for _ in range(5):
        state = started(carry=carry)
        seen.append(state.dealer_seat)
        carry = ENGINE.carry_out(state)
    assert seen == [1, 3, 5, 7, 1]


def test_the_dealers_left_comes_first_and_the_dealer_last() -> None:
    state = started(carry={"dealer_seat": 5})
    assert state.dealer_seat == 7
    assert state.players == (101, 103, 105, 107)
    assert ENGINE.public_state(state)["dealer"] == 107


def test_dealer_moves_left_of_a_seat_since_vacated() -> None:
    state = started(carry={"dealer_seat": 4})
    assert state.dealer_seat == 5


# --- first_out, loser_pays -------------------------------------------------------------


@pytest.mark.parametrize("winner", list(SEATS.values()))
def test_first_out_every_other_player_pays_the_winner_one_stake(winner: int) -> None:
    state = started({"variant": "crazy_eights"})
    new, settlements = ENGINE.apply(state, {"type": "result", "winner": winner})
    assert ENGINE.is_over(new)
    assert len(settlements) == 3
    for s in settlements:
        assert (s.payee, s.amount) == (wallet(winner), STAKE)
    assert {s.payer for s in settlements} == {wallet(p) for p in SEATS.values() if p != winner}


def test_loser_pays_every_other_player_one_stake() -> None:
    state = started({"variant": "old_maid"})
    _, settlements = ENGINE.apply(state, {"type": "result", "loser": 105})
    totals = net(settlements)
    assert totals[wallet(105)] == -3 * STAKE
    assert all(totals[wallet(p)] == STAKE for p in (101, 103, 107))


def test_loser_pays_everyone_in_full_from_the_dealers_left_though_reserve_chips_are_fewer() -> None:
    # reserve_chips 2 of 100 = 200 cents, but three players are owed 300: the reserve is 300
    state = started({"variant": "old_maid", "reserve_chips": 2}, ante=100)
    _, settlements = ENGINE.apply(state, {"type": "result", "loser": 107})
    # dealer is seat 1 (player 101), so the order from the left is 103, 105, 107, 101
    assert [(s.payee, s.amount) for s in settlements] == [
        (wallet(103), 100),
        (wallet(105), 100),
        (wallet(101), 100),
    ]
    assert paid_out(settlements)[wallet(107)] == 300


# --- high_score ------------------------------------------------------------------------


def test_high_score_highest_wins_and_every_other_player_pays_one_stake() -> None:
    state = started({"variant": "gops"})
    scores = {"101": 10, "103": 40, "105": 25, "107": 30}
    new, settlements = ENGINE.apply(state, {"type": "result", "scores": scores})
    assert new.winners == (103,)
    assert net(settlements)[wallet(103)] == 3 * STAKE
    assert all(net(settlements)[wallet(p)] == -STAKE for p in (101, 105, 107))


@pytest.mark.parametrize(
    ("stake", "tied", "expected"),
    [
        # dealer is seat 1 (player 101): the order from the left is 103, 105, 107, 101
        (500, (101, 105), {105: 500, 101: 500}),
        (100, (103, 105, 107), {103: 34, 105: 33, 107: 33}),
        (200, (101, 105, 107), {105: 67, 107: 67, 101: 66}),
    ],
)
def test_high_score_tied_winners_split_the_stakes_odd_cent_from_the_dealers_left(
    stake: int, tied: tuple[int, ...], expected: dict[int, int]
) -> None:
    state = started({"variant": "concentration"}, ante=stake)
    scores = {p: (9 if p in tied else 3) for p in SEATS.values()}
    new, settlements = ENGINE.apply(state, {"type": "result", "scores": scores})
    totals = net(settlements)
    assert set(new.winners) == set(tied)
    assert {p: totals[wallet(p)] for p in tied} == expected
    losers = [p for p in SEATS.values() if p not in tied]
    assert sum(expected.values()) == stake * len(losers)
    assert all(totals[wallet(p)] == -stake for p in losers)


def test_high_score_all_tied_nobody_pays() -> None:
    state = started({"variant": "gops"})
    new, settlements = ENGINE.apply(state, {"type": "result", "scores": dict.fromkeys(SEATS.values(), 7)})
    assert settlements == ()
    assert ENGINE.is_over(new)


def test_fifty_one_a_tie_with_the_stop_caller_goes_to_the_other_player() -> None:
    state = started({"variant": "fifty_one"}, seats={2: 21, 6: 26})
    action = {"type": "result", "scores": {"21": 51, "26": 51}, "stop": 26}
    new, settlements = ENGINE.apply(state, action)
    assert new.winners == (21,)
    assert net(settlements) == Counter({wallet(21): STAKE, wallet(26): -STAKE})


def test_fifty_one_stop_caller_with_the_higher_score_still_wins() -> None:
    state = started({"variant": "fifty_one"}, seats={2: 21, 6: 26})
    new, _ = ENGINE.apply(state, {"type": "result", "scores": {"21": 48, "26": 51}, "stop": 26})
    assert new.winners == (26,)


def test_stop_is_refused_outside_fifty_one() -> None:
    state = started({"variant": "gops"})
    with pytest.raises(IllegalAction, match="Fifty-One"):
        ENGINE.apply(state, {"type": "result", "scores": dict.fromkeys(SEATS.values(), 1), "stop": 101})


# --- points ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point_value", "chip", "scores"),
    [
        (None, 100, {101: 530, 103: 250, 105: 120, 107: -40}),
        (None, 25, {101: 530, 103: 250, 105: 120, 107: 0}),
        (3, 100, {101: 77, 103: 1, 105: 76, 107: 0}),
    ],
)
def test_points_every_player_pays_the_top_scorer_difference_times_point_value(
    point_value: int | None, chip: int, scores: dict[int, int]
) -> None:
    state = started({"variant": "500_rummy", "point_value": point_value, "chip": chip}, ante=chip * 4)
    # point_value is cents per point; unset, the default is one chip per 100 points.
    per_hundred = chip if point_value is None else point_value * 100
    _, settlements = ENGINE.apply(state, {"type": "result", "scores": scores})
    totals = net(settlements)
    top = max(scores.values())
    for player, score in scores.items():
        if score != top:
            assert totals[wallet(player)] == -((top - score) * per_hundred // 100)
    assert totals[wallet(101)] == sum((top - s) * per_hundred // 100 for s in scores.values())


def test_points_default_is_one_chip_per_hundred_points_rounded_down_to_the_cent() -> None:
    state = started({"variant": "piquet", "chip": 25}, ante=25, min_bet=25, seats={1: 11, 2: 12})
    _, settlements = ENGINE.apply(state, {"type": "result", "scores": {"11": 150, "12": 3}})
    # 147 points at 25 cents per 100 points = 36.75 cents, rounded down to 36
    assert settlements == (Settlement("win", wallet(12), wallet(11), 36, 12),)


def test_points_tied_top_scorers_share_the_debts() -> None:
    state = started({"variant": "trex"})
    scores = {101: 300, 103: 300, 105: 299, 107: 0}
    _, settlements = ENGINE.apply(state, {"type": "result", "scores": scores})
    totals = net(settlements)
    owed = 1 + 300  # cents at one chip (100 cents) per 100 points
    assert (totals[wallet(105)], totals[wallet(107)]) == (-1, -300)
    # dealer seat 1, so 103 comes before 101 from the dealer's left, so 103 gets the odd cent
    assert (totals[wallet(103)], totals[wallet(101)]) == (owed // 2 + 1, owed // 2)


def test_points_debt_larger_than_the_reserve_is_paid_in_part() -> None:
    state = started({"variant": "500_rummy", "reserve_chips": 5}, seats={1: 11, 2: 12})
    _, settlements = ENGINE.apply(state, {"type": "result", "scores": {"11": 5000, "12": 0}})
    assert settlements == (Settlement("win", wallet(12), wallet(11), 500, 12),)


# --- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "action"),
    [
        ({"variant": "page_one"}, {"type": "result", "winner": 999}),
        ({"variant": "page_one"}, {"type": "result", "winner": "101"}),
        ({"variant": "page_one"}, {"type": "result", "winner": True}),
        ({"variant": "page_one"}, {"type": "result"}),
        ({"variant": "page_one"}, {"type": "result", "loser": 101}),
        ({"variant": "page_one"}, {"type": "result", "winner": 101, "scores": {"101": 1}}),
        ({"variant": "old_maid"}, {"type": "result", "winner": 101}),
        ({"variant": "gops"}, {"type": "result", "scores": {"101": 1, "103": 2, "105": 3}}),
        ({"variant": "gops"}, {"type": "result", "scores": {"101": 1, "103": 2, "105": 3, "107": 4, "9": 1}}),
        ({"variant": "gops"}, {"type": "result", "scores": {"101": 1, "103": 2, "105": 3, "107": 4.5}}),
        ({"variant": "gops"}, {"type": "result", "scores": {"101": 1, "103": 2, "105": 3, "107": None}}),
        ({"variant": "gops"}, {"type": "result", "scores": [1, 2, 3, 4]}),
        ({"variant": "gops"}, {"type": "result", "scores": {"101": 1, 101: 1, "103": 2, "105": 3, "107": 4}}),
        ({"variant": "trex"}, {"type": "result", "winner": 101}),
        ({"variant": "trex"}, {"type": "deal"}),
    ],
)
def test_a_bad_result_is_refused_and_changes_nothing(rules: dict[str, Any], action: dict[str, Any]) -> None:
    state = started(rules)
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, action)
    assert not ENGINE.is_over(state)
    assert state == started(rules)


def test_a_second_result_is_refused() -> None:
    state = started()
    settled, _ = ENGINE.apply(state, {"type": "result", "winner": 101})
    with pytest.raises(IllegalAction, match="already"):
        ENGINE.apply(settled, {"type": "result", "winner": 103})


def test_score_keys_may_be_ints_or_json_strings() -> None:
    state = started({"variant": "gops"})
    by_int = ENGINE.apply(state, {"type": "result", "scores": {101: 1, 103: 5, 105: 2, 107: 0}})
    by_str = ENGINE.apply(state, {"type": "result", "scores": {"101": 1, "103": 5, "105": 2, "107": 0}})
    assert by_int == by_str


def test_null_fields_count_as_absent() -> None:
    state = started({"variant": "page_one"})
    _, settlements = ENGINE.apply(state, {"type": "result", "winner": 105, "loser": None, "stop": None})
    assert net(settlements)[wallet(105)] == 3 * STAKE


def test_public_state_is_plain_json_and_names_the_game() -> None:
    state = started({"variant": "Fifty-One"}, seats={2: 21, 6: 26})
    new, _ = ENGINE.apply(state, {"type": "result", "scores": {"21": 51, "26": 51}, "stop": 21})
    public = ENGINE.public_state(new)
    assert json.loads(json.dumps(public)) == public
    assert (public["variant"], public["variant_name"]) == ("fifty_one", "Fifty-One")
    assert public["result"] == {"scores": {"21": 51, "26": 51}, "stop": 21}
    assert (public["winners"], public["over"]) == ([26], True)
    assert json.loads(json.dumps(ENGINE.carry_out(new))) == {"dealer_seat": 2}


# --- properties ------------------------------------------------------------------------

seat_maps = st.dictionaries(st.integers(1, 9), st.integers(1, 10_000), min_size=2, max_size=7).filter(
    lambda seats: len(set(seats.values())) == len(seats)
)


@st.composite
def rounds(draw: st.DrawFn) -> tuple[TableContext, dict[str, Any]]:
    seats = draw(seat_maps)
    chip = draw(st.sampled_from([1, 25, 100]))
    stake = chip * draw(st.integers(1, 40))
    rules: dict[str, Any] = {
        "variant": draw(st.sampled_from(sorted(VARIANTS))),
        "settle": draw(st.sampled_from([None, "first_out", "loser_pays", "high_score", "points"])),
        "reserve_chips": draw(st.integers(1, 60)),
        "chip": chip,
        "point_value": draw(st.one_of(st.none(), st.integers(1, 50))),
    }
    ctx = make_ctx(rules, seats=seats, ante=stake, min_bet=1, max_bet=10**6)
    players = list(seats.values())
    settle = rules["settle"] or VARIANTS[rules["variant"]][1]
    action: dict[str, Any] = {"type": "result"}
    if settle == "first_out":
        action["winner"] = draw(st.sampled_from(players))
    elif settle == "loser_pays":
        action["loser"] = draw(st.sampled_from(players))
    else:
        action["scores"] = {str(p): draw(st.integers(-300, 3000)) for p in players}
        if settle == "high_score" and rules["variant"] == "fifty_one" and draw(st.booleans()):
            action["stop"] = draw(st.sampled_from(players))
    return ctx, action


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_property_chips_are_conserved_and_nobody_pays_beyond_their_reserve(
    case: tuple[TableContext, dict[str, Any]],
) -> None:
    ctx, action = case
    reserve = ENGINE.reserve(ctx)
    state, opening = ENGINE.start(ctx)
    settled, settlements = ENGINE.apply(state, action)
    assert opening == ()
    assert ENGINE.is_over(settled)
    assert sum(net(settlements).values()) == 0
    for s in settlements:
        assert type(s.amount) is int
        assert s.amount > 0
        assert (s.payer[:7], s.payee[:7]) == ("wallet:", "wallet:")
        assert s.payer != s.payee
    out = paid_out(settlements)
    for player, left in zip(settled.players, settled.reserve_left, strict=True):
        assert 0 <= left == reserve[player] - out[wallet(player)]
    winners = {wallet(p) for p in settled.winners}
    assert all(s.payee in winners for s in settlements)
    if settled.settle != "points":  # only a points debt may exceed the reserve
        payers = 1 if settled.settle == "loser_pays" else len(settled.players) - len(settled.winners)
        stakes = payers * (len(settled.winners) if settled.settle == "loser_pays" else 1)
        assert sum(out.values()) == stakes * settled.stake


@settings(max_examples=100, deadline=None)
@given(rounds())
def test_property_replaying_the_result_gives_equal_state_and_settlements(
    case: tuple[TableContext, dict[str, Any]],
) -> None:
    ctx, action = case
    first = ENGINE.apply(ENGINE.start(ctx)[0], action)
    second = ENGINE.apply(ENGINE.start(ctx)[0], json.loads(json.dumps(action)))
    assert first == second
    public = ENGINE.public_state(first[0])
    assert json.loads(json.dumps(public)) == public


@settings(max_examples=100, deadline=None)
@given(rounds())
def test_property_tied_winners_shares_differ_by_at_most_one_cent(
    case: tuple[TableContext, dict[str, Any]],
) -> None:
    ctx, action = case
    settled, settlements = ENGINE.apply(ENGINE.start(ctx)[0], action)
    if settled.settle in ("high_score", "points"):
        totals = net(settlements)
        shares = [totals[wallet(p)] for p in settled.winners]
        assert max(shares) - min(shares) <= 1
        # the odd cents go to the winners nearest the dealer's left
        assert shares == sorted(shares, reverse=True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)
garbage_actions = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["result", "deal", "draw", ""]) | st.text(max_size=5)},
        optional={
            "winner": json_values | st.sampled_from(list(SEATS.values())),
            "loser": json_values | st.sampled_from(list(SEATS.values())),
            "scores": json_values
            | st.dictionaries(
                st.sampled_from(["101", "103", "105", "107", "9"]), json_values | st.integers()
            ),
            "stop": json_values | st.sampled_from(list(SEATS.values())),
            "limits": json_values,
            "version": json_values,
        },
    ),
)


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), garbage_actions, st.booleans())
def test_fuzz_garbage_actions_raise_only_illegal_action(
    variant: str, action: Any, settle_first: bool
) -> None:
    state = started({"variant": variant})
    if settle_first:
        state = ENGINE.apply(state, {"type": "result"} | _valid(state))[0]
    try:
        new, settlements = ENGINE.apply(state, action)
    except IllegalAction as refused:
        code, message = refused.code, refused.message
    else:
        assert not settle_first
        assert ENGINE.is_over(new)
        assert sum(net(settlements).values()) == 0
        return
    assert isinstance(code, str)
    assert message


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_fuzz_garbage_rules_raise_only_bad_rules(rules: Any) -> None:
    try:
        ENGINE.validate_rules(rules)
    except IllegalAction as refused:
        code = refused.code
    else:
        code = "bad_rules"
    assert code == "bad_rules"


def _valid(state: StakesState) -> dict[str, Any]:
    """The one legal result field for the round's mode, so the round can be settled first."""
    if state.settle == "first_out":
        return {"winner": 101, "loser": None, "scores": None}
    if state.settle == "loser_pays":
        return {"loser": 101, "winner": None, "scores": None}
    return {"scores": {str(p): p for p in state.players}, "winner": None, "loser": None}


# --- legal_actions ---------------------------------------------------------------------
#
# One ``result`` template until the result is keyed: ``needs`` names the settle mode's field,
# ``choices`` the players dealt in, and Fifty-One by high score offers ``stop``.

HINT_KEYS = ("needs", "optional", "choices")
RESULT_FIELDS = ("winner", "loser", "scores")


def fill(rng: random.Random, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Fill the template: a player from the choices, or a whole-number score for each of them."""
    action = {key: value for key, value in entry.items() if key not in HINT_KEYS}
    for need in entry["needs"]:
        if need == "scores":
            action["scores"] = {str(p): rng.randint(-300, 3000) for p in entry["choices"]["scores"]}
        else:
            action[need] = rng.choice(entry["choices"][need])
    for field in entry.get("optional", []):
        if rng.random() < 0.5:
            action[field] = rng.choice(entry["choices"][field])
    return action


@settings(max_examples=60, deadline=None)
@given(rounds(), st.integers(0, 2**32))
def test_legal_actions_the_filled_result_template_is_accepted_and_ends_the_round(
    case: tuple[TableContext, dict[str, Any]], seed: int
) -> None:
    ctx, _ = case
    rng = random.Random(seed)
    state = ENGINE.start(ctx)[0]
    (entry,) = ENGINE.legal_actions(state)
    assert json.loads(json.dumps(entry)) == entry
    assert entry["type"] == "result"
    assert entry["needs"] == [{"first_out": "winner", "loser_pays": "loser"}.get(state.settle, "scores")]
    assert sorted(entry["choices"][entry["needs"][0]]) == sorted(ctx.seats.values())
    settled, _ = ENGINE.apply(state, fill(rng, entry))
    assert ENGINE.is_over(settled)
    assert ENGINE.legal_actions(settled) == []


def test_legal_actions_name_the_field_per_settle_mode_and_stop_for_fifty_one() -> None:
    players = [103, 105, 107, 101]  # from the dealer's left; seat 1 deals first
    expected = {
        "page_one": {"type": "result", "needs": ["winner"], "choices": {"winner": players}},
        "old_maid": {"type": "result", "needs": ["loser"], "choices": {"loser": players}},
        "gops": {"type": "result", "needs": ["scores"], "choices": {"scores": players}},
        "piquet": {"type": "result", "needs": ["scores"], "choices": {"scores": players}},
        "fifty_one": {
            "type": "result",
            "needs": ["scores"],
            "choices": {"scores": players, "stop": players},
            "optional": ["stop"],
        },
    }
    for variant, entry in expected.items():
        assert ENGINE.legal_actions(started({"variant": variant})) == [entry]
    assert "optional" not in ENGINE.legal_actions(started({"variant": "fifty_one", "settle": "points"}))[0]


def admits(entry: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    """Does this result keep to the template: the needed field from the choices, nothing else?"""
    given_fields = {key for key in (*RESULT_FIELDS, "stop") if action.get(key) is not None}
    (need,) = entry["needs"]
    if given_fields - {need, *entry.get("optional", [])} or need not in given_fields:
        return False
    if "stop" in given_fields and action["stop"] not in entry["choices"]["stop"]:
        return False
    if need != "scores":
        return action[need] in entry["choices"][need]
    scores = action["scores"]
    return sorted(int(p) for p in scores) == sorted(entry["choices"]["scores"]) and all(
        type(n) is int for n in scores.values()
    )


def some_result(rng: random.Random, players: list[int]) -> dict[str, Any]:
    """A well-formed result, legal or not: any of the fields, seated players mostly."""
    someone = [*players, 9999]
    action: dict[str, Any] = {"type": "result"}
    for field in rng.sample((*RESULT_FIELDS, "stop"), rng.randint(1, 3)):
        if field == "scores":
            named = rng.sample(someone, rng.randint(len(players) - 1, len(someone)))
            action["scores"] = {rng.choice([str(p), p]): rng.randint(-50, 500) for p in named}
        else:
            action[field] = rng.choice(someone)
    return action


@settings(max_examples=60, deadline=None)
@given(rounds(), st.integers(0, 2**32))
def test_legal_actions_are_complete_any_other_result_is_refused(
    case: tuple[TableContext, dict[str, Any]], seed: int
) -> None:
    ctx, _ = case
    rng = random.Random(seed)
    state = ENGINE.start(ctx)[0]
    (entry,) = ENGINE.legal_actions(state)
    players = list(ctx.seats.values())
    for _ in range(10):
        action = fill(rng, entry) if rng.random() < 0.3 else some_result(rng, players)
        accepted = is_accepted(ENGINE, state, action)
        assert accepted == admits(entry, action), action
    settled, _ = ENGINE.apply(state, fill(rng, entry))
    with pytest.raises(IllegalAction):
        ENGINE.apply(settled, fill(rng, entry))
