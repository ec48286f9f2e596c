"""What the engine tests share: a table context, net amounts, and the checks of what every
engine promises under garbage (a clear ``IllegalAction`` and nothing changed).

The per-game fuzz tests draw their own garbage (each game has its own action fields) and
check each attempt here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tables.games.base import Settlement, TableContext
from tables.games.errors import IllegalAction


def context(
    *,
    seats: Mapping[int, int],
    ante: int,
    rules: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    extra: Sequence[str] | None = None,
    carry: Mapping[str, Any] | None = None,
    min_bet: int = 100,
    max_bet: int = 10_000,
) -> TableContext:
    """A table's context for an engine; each game's ``make_ctx`` gives its own seats and ante."""
    return TableContext(
        rules=dict(rules or {}),
        seats=dict(seats),
        min_bet=min_bet,
        max_bet=max_bet,
        ante=ante,
        deck=None if deck is None else tuple(deck),
        extra_decks=() if extra is None else (tuple(extra),),
        carry=dict(carry or {}),
    )


ANTES_OUTSIDE_THE_LIMITS = [
    (100, 200, 1000, "below_minimum"),
    (2000, 100, 1000, "limit_exceeded"),
    (150, 100, 1000, "illegal_action"),  # not a multiple of the chip
]
"""``(ante, min_bet, max_bet, code)``: antes an ante game's table refuses, and the refusal's code."""


def assert_start_and_reserve_refuse(engine: Any, ctx: TableContext, code: str) -> None:
    """Both ``start`` and ``reserve`` refuse ``ctx`` with ``code``: a round that cannot start must
    not have chips held for it either."""
    for call in (engine.start, engine.reserve):
        with pytest.raises(IllegalAction) as refused:
            call(ctx)
        assert refused.value.code == code


def assert_bad_rules(engine: Any, rules: Any) -> None:
    """``validate_rules`` refuses ``rules`` with the code ``bad_rules``."""
    with pytest.raises(IllegalAction) as refused:
        engine.validate_rules(rules)
    assert refused.value.code == "bad_rules"


def net(settlements: Sequence[Settlement]) -> Counter[str]:
    """Each party's net gain in cents."""
    totals: Counter[str] = Counter()
    for s in settlements:
        totals[s.payee] += s.amount
        totals[s.payer] -= s.amount
    return totals


def attempt(call: Any, *args: Any) -> tuple[Any, IllegalAction | None]:
    """``(what call returned, None)``, or ``(None, its refusal)``, which must be coded and worded.
    Any other exception fails the test."""
    try:
        return call(*args), None
    except IllegalAction as refused:
        error = refused
    assert error.code
    assert error.message
    return None, error


def apply_or_refuse[S](engine: Any, state: S, action: Any) -> S:
    """The state after ``action``; if refused, ``state`` unchanged.

    An accepted action moves only positive amounts and leaves a public state JSON can write.
    """
    before = engine.public_state(state)
    applied, refusal = attempt(engine.apply, state, action)
    if refusal is not None:
        assert engine.public_state(state) == before
        return state
    after, moves = applied
    assert all(isinstance(move.amount, int) and move.amount > 0 for move in moves)
    json.dumps(engine.public_state(after))
    return after


def is_accepted(engine: Any, state: Any, action: Any) -> bool:
    """Whether ``engine`` takes ``action`` on ``state``; a refusal must be an ``IllegalAction``."""
    try:
        engine.apply(state, action)
    except IllegalAction:
        return False
    return True


def listed_legal_actions(engine: Any, state: Any) -> Any:
    """``engine.legal_actions(state)`` for a round not over: never empty, and plain JSON as it is."""
    legal = engine.legal_actions(state)
    assert legal
    assert json.loads(json.dumps(legal)) == legal
    return legal


def outcome(call: Any, ctx: TableContext) -> IllegalAction | None:
    """None when ``call(ctx)`` is accepted; its refusal otherwise."""
    return attempt(call, ctx)[1]


def reserve_and_start_or_refuse(engine: Any, ctx: TableContext) -> None:
    """``reserve`` and ``start`` on a garbage context either work or raise a clear ``IllegalAction``."""
    outcome(engine.reserve, ctx)
    outcome(engine.start, ctx)
