"""What the engines tell the console and the audit through their public interface:
``known_hands`` (the cards the engine knows each player holds), Faro's ``casekeeper_counts``,
Fan Tan's keyed deal and its ``illegal`` hint on a pass that will be charged."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tables.games.base import TableContext, without_hints
from tables.games.cards import FARMER_DECK, FULL_DECK
from tables.games.faro import ENGINE as FARO
from tables.games.faro import casekeeper_counts
from tables.games.registry import engine_for
from tables.games.shoe import shuffle

SEATS = {1: 10, 2: 20, 3: 30}


def started(game: str, *, electronic: bool, seats: dict[int, int] = SEATS) -> tuple[Any, Any]:
    deck = FARMER_DECK if game == "farmer" else FULL_DECK
    ctx = TableContext(
        rules={"variant": "gops"} if game == "stakes" else {},
        seats=seats,
        min_bet=100,
        max_bet=5_000,
        ante=500 if game in ("farmer", "tonk") else 100,
        deck=shuffle(deck, "ab" * 32) if electronic else None,
        extra_decks=(shuffle(deck, "cd" * 32),) if electronic and game == "farmer" else (),
    )
    engine = engine_for(game)
    state, _ = engine.start(ctx)
    return engine, state


@pytest.mark.parametrize("game", ["fan_tan", "newmarket", "tonk", "farmer"])
def test_an_electronic_deal_makes_every_hand_known(game: str) -> None:
    engine, state = started(game, electronic=True, seats={1: 10, 2: 20} if game == "tonk" else SEATS)
    assert engine.known_hands(state) == {}  # nothing dealt yet
    while not engine.known_hands(state):
        state, _ = engine.apply(state, engine.legal_actions(state)[0])
    hands = engine.known_hands(state)
    assert set(hands) <= {10, 20, 30}
    cards = [card for hand in hands.values() for card in hand]
    assert len(cards) == len(set(cards))  # no card in two hands


@pytest.mark.parametrize("game", ["fan_tan", "newmarket", "tonk"])
def test_a_keyed_deal_is_known_and_a_count_only_one_is_not(game: str) -> None:
    seats = {1: 10, 2: 20} if game == "tonk" else SEATS
    engine, state = started(game, electronic=False, seats=seats)
    keyed, count_only = engine.legal_actions(state)
    assert keyed["needs"][0] == "hands"
    cards = iter(FULL_DECK)
    hands = {key: [next(cards) for _ in range(n)] for key, n in keyed["count"]["hands"].items()}
    payload = without_hints(keyed) | {"hands": hands}
    if "upcard" in keyed["needs"]:
        payload["upcard"] = next(cards)
    dealt, _ = engine.apply(state, payload)
    assert engine.known_hands(dealt) == {int(k): v for k, v in hands.items() if k.isdigit()}
    counted = without_hints(count_only) | ({"upcard": "KC"} if game == "tonk" else {})
    dealt, _ = engine.apply(state, counted)
    assert engine.known_hands(dealt) == {}


@pytest.mark.parametrize("game", ["faro", "stakes"])
def test_games_without_hands_know_none(game: str) -> None:
    engine, state = started(game, electronic=True)
    assert engine.known_hands(state) == {}


def test_faro_casekeeper_counts_are_the_public_casekeepers_at_every_turn() -> None:
    engine, state = started("faro", electronic=True)
    while not engine.is_over(state):
        left, remaining = casekeeper_counts(state)
        public = FARO.public_state(state)
        assert left == {rank: row["left"] for rank, row in public["casekeeper"].items()}
        assert remaining == public["cards_remaining"]
        dealing = next(a for a in engine.legal_actions(state) if a["type"] in ("turn", "last_turn"))
        state, _ = engine.apply(state, dealing)
    assert casekeeper_counts(state)[1] == 0


@pytest.mark.parametrize("seed", range(6))
def test_fan_tan_marks_exactly_the_passes_it_charges_as_illegal(seed: int) -> None:
    """With known hands a pass is always listed; ``illegal`` says the engine will charge it."""
    rng = random.Random(seed)
    engine, state = started("fan_tan", electronic=True)
    state, _ = engine.apply(state, {"type": "deal"})
    marked = 0
    while not engine.is_over(state):
        legal = engine.legal_actions(state)
        (passing,) = [a for a in legal if a["type"] == "pass"]
        _, moved = engine.apply(state, without_hints(passing))
        charged = any(s.kind == "illegal_pass" for s in moved)
        assert charged is bool(passing.get("illegal"))
        marked += charged
        plays = [a for a in legal if a["type"] == "play"]
        state, _ = engine.apply(state, rng.choice(plays) if plays and rng.random() < 0.9 else passing)
    assert marked
