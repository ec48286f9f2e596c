"""Every engine refuses a malformed table context with ``IllegalAction``, never a crash.

The table service builds a ``TableContext`` from the database, but a bad carry, a hand-made
context in a replay tool or a future caller can hand an engine anything. Each engine checks
it in one place (``input_checks.check_context``), so all six answer alike.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables.games.base import TableContext
from tables.games.cards import FARMER_DECK, FULL_DECK
from tables.games.registry import ENGINE_MODULES, engine_for
from tests.games.engine_support import outcome

GAMES = sorted(ENGINE_MODULES)
SEATS = {1: 11, 2: 12, 3: 13}


def good_ctx(game: str) -> TableContext:
    """A context every engine accepts: three players, stake one chip, an electronic deck."""
    deck = FARMER_DECK if game == "farmer" else FULL_DECK
    return TableContext(
        rules={},
        seats=dict(SEATS),
        min_bet=100,
        max_bet=10_000,
        ante=100,
        deck=tuple(deck),
        extra_decks=(tuple(deck),) if game == "farmer" else (),
        carry={},
    )


@pytest.mark.parametrize("game", GAMES)
def test_the_good_context_is_accepted(game: str) -> None:
    engine = engine_for(game)
    assert outcome(engine.reserve, good_ctx(game)) is None
    assert outcome(engine.start, good_ctx(game)) is None


MALFORMED: list[tuple[str, Any]] = [
    ("seats", None),
    ("seats", [1, 2, 3]),
    ("seats", {1: 11, 2: [12], 3: 13}),
    ("seats", {1: 11, 2: 11, 3: 13}),
    ("seats", {"1": 11, 2: 12, 3: 13}),
    ("seats", {1: True, 2: 12, 3: 13}),
    ("deck", [["AS"], *FULL_DECK[1:]]),  # an unhashable card
    ("deck", (*FULL_DECK[:-1], 7)),
    ("deck", "AS 2S 3S"),
    ("deck", {"AS": 1}),
    ("extra_decks", None),
    ("extra_decks", ([["AS"]],)),
    ("extra_decks", "AS"),
    ("rules", None),
    ("rules", ["chip"]),
    ("rules", {("chip",): 100}),
    ("carry", None),
    ("carry", ["dealer_seat"]),
    ("ante", None),
    ("ante", "100"),
    ("ante", 100.0),
    ("min_bet", None),
    ("max_bet", "lots"),
    ("min_bet", True),
]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("field", "value"), MALFORMED, ids=[f"{f}={v!r}"[:40] for f, v in MALFORMED])
def test_a_malformed_context_is_refused_with_illegal_action(game: str, field: str, value: Any) -> None:
    engine = engine_for(game)
    ctx = replace(good_ctx(game), **{field: value})
    reserve_refused = outcome(engine.reserve, ctx)
    start_refused = outcome(engine.start, ctx)
    assert start_refused is not None
    if game != "faro":  # Faro holds no reserve, so its reserve needs no deck
        assert reserve_refused is not None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
UNHASHABLE = st.lists(st.sampled_from(FULL_DECK), max_size=2) | st.dictionaries(st.text(max_size=2), JSON)


@st.composite
def garbled(draw: st.DrawFn, game: str) -> TableContext:
    """The good context with some fields replaced by any JSON-ish value, cards with junk."""
    ctx = good_ctx(game)
    deck = list(ctx.deck or ())
    junk_cards = st.lists(st.sampled_from(deck) | UNHASHABLE | JSON, max_size=53).map(tuple)
    fields = {
        "rules": JSON | st.fixed_dictionaries({}, optional={"chip": JSON, "rake": JSON}),
        "seats": JSON
        | st.dictionaries(st.integers(0, 9) | st.text(max_size=2), st.integers(0, 99) | JSON, max_size=9),
        "min_bet": JSON,
        "max_bet": JSON,
        "ante": JSON,
        "deck": st.none() | junk_cards | JSON,
        "extra_decks": st.tuples(junk_cards) | JSON,
        "carry": JSON | st.fixed_dictionaries({}, optional={"pots": JSON, "dealer_seat": JSON}),
    }
    chosen = draw(st.lists(st.sampled_from(sorted(fields)), min_size=1, max_size=4, unique=True))
    changes: dict[str, Any] = {name: draw(fields[name]) for name in chosen}
    return replace(ctx, **changes)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), game=st.sampled_from(GAMES))
def test_property_garbage_contexts_only_ever_raise_illegal_action(data: st.DataObject, game: str) -> None:
    engine = engine_for(game)
    ctx = data.draw(garbled(game))
    reserve_refused = outcome(engine.reserve, ctx)
    start_refused = outcome(engine.start, ctx)
    if start_refused is None and game != "faro":
        assert reserve_refused is None  # a round that starts has a reserve to hold
