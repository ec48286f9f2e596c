"""The fuzz tests every game with its own garbage shares: garbage JSON, garbage table contexts,
and the two tests (garbage actions, garbage contexts) bound into each game's test module.

Each game draws its own garbage actions (its action fields differ); what every engine must do
with garbage is checked by ``tests.games.engine_support``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tables.games.base import TableContext
from tables.games.cards import FULL_DECK
from tests.games.engine_support import apply_or_refuse, reserve_and_start_or_refuse


def json_garbage(cards: Sequence[str]) -> st.SearchStrategy[Any]:
    """Any small JSON value, its leaves sometimes one of ``cards`` (real cards and near misses),
    for the fuzz tests' garbage actions and contexts."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats()
        | st.text(max_size=6)
        | st.sampled_from(cards),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
        max_leaves=8,
    )


def garbage_contexts(
    *,
    seats: Mapping[int, int],
    json: st.SearchStrategy[Any],
    carry: st.SearchStrategy[Any],
    deck: Sequence[str],
) -> st.SearchStrategy[TableContext]:
    """Table contexts whose fields are each the game's good value or garbage (``json``), for the
    fuzz test that ``reserve`` and ``start`` refuse them cleanly; one strategy for every game, which
    differ only in seats, garbage, carry and deck."""
    return st.builds(
        TableContext,
        rules=st.just({}) | json,
        seats=st.just(seats)
        | json
        | st.dictionaries(st.integers(0, 9), st.integers(0, 99) | json, max_size=9),
        min_bet=st.just(0),
        max_bet=st.just(10**6),
        ante=st.sampled_from([0, 100]) | json,
        deck=st.none()
        | st.permutations(deck).map(tuple)
        | st.lists(st.sampled_from(FULL_DECK), max_size=53).map(tuple),
        extra_decks=st.just(()) | st.tuples(st.permutations(deck).map(tuple)) | json,
        carry=carry,
    )


def garbage_fuzz_tests(
    engine: Any,
    states: Sequence[Any],
    actions: st.SearchStrategy[Any],
    contexts: st.SearchStrategy[TableContext],
) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two fuzz tests every game with its own garbage shares, for the game's module to bind
    under their names: garbage actions on each of ``states``, and garbage ``contexts``, only ever
    raise ``IllegalAction`` and change nothing."""

    @settings(max_examples=250, deadline=None)
    @given(state=st.sampled_from(states), action=actions)
    def test_garbage_actions_only_ever_raise_illegal_action(state: Any, action: Any) -> None:
        apply_or_refuse(engine, state, action)

    @settings(max_examples=120, deadline=None)
    @given(ctx=contexts)
    def test_garbage_table_contexts_only_ever_raise_illegal_action(ctx: TableContext) -> None:
        reserve_and_start_or_refuse(engine, ctx)

    return (
        test_garbage_actions_only_ever_raise_illegal_action,
        test_garbage_table_contexts_only_ever_raise_illegal_action,
    )
