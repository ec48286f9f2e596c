"""One round model: a round's context, deck, seed and the fold of its actions.

A round's state is never trusted from storage: it is the fold of its game's engine over the
round's context, deck and accepted actions. Live play, the replay check, ratings, detection
and the audit all fold here, so a round reads the same wherever it is read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tables.games.base import Settlement, TableContext
from tables.games.cards import FARMER_DECK, FULL_DECK
from tables.games.registry import engine_for
from tables.games.shoe import shuffle
from tables.models import Round, ShoeKind
from tables.state_cache import STATE_CACHE

# observer(seq, payload, before, after, settlements), after every step of a fold.
Observer = Callable[[int, Mapping[str, Any] | None, Any, Any, tuple[Settlement, ...]], None]


def derive_seed(seed: str, purpose: str) -> str:
    """A second committed deck from the same secret seed (Farmer's 6♥ draw)."""
    return hashlib.sha256(bytes.fromhex(seed) + purpose.encode()).hexdigest()


def deck_for(game: str) -> tuple[str, ...]:
    return FARMER_DECK if game == "farmer" else FULL_DECK


def context_of(round_: Round) -> TableContext:
    """The engine context a round started with; decks come back from the (secret) seeds."""
    data = round_.context
    deck = shuffle(deck_for(round_.game), round_.seed) if round_.shoe == ShoeKind.ELECTRONIC else None
    extra = tuple(shuffle(deck_for(round_.game), seed) for seed in round_.extra_seeds)
    return TableContext(
        rules=round_.rules,
        seats={int(seat): int(player) for seat, player in data["seats"].items()},
        min_bet=data["min_bet"],
        max_bet=data["max_bet"],
        ante=data["ante"],
        deck=deck,
        extra_decks=extra,
        carry=data.get("carry", {}),
    )


def fold(
    round_: Round,
    actions: Iterable[tuple[int, Mapping[str, Any]]] | None = None,
    observer: Observer | None = None,
    *,
    state: Any = None,
) -> Any:
    """The engine state after ``actions``: ``(seq, payload)`` pairs in seq order.

    ``actions`` None reads the round's live actions. A correction's voided actions are not
    among them (RoundAction's default manager), so seqs may have gaps: steps carry their seq,
    never their position. ``state`` None starts the round; otherwise it is the state already
    folded through the actions before ``actions``. ``observer`` sees every step as it is made:
    the opening is step 0 (no payload, no state before), then one call per action.
    """
    engine = engine_for(round_.game)
    if state is None:
        state, opening = engine.start(context_of(round_))
        if observer is not None:
            observer(0, None, None, state, opening)
    if actions is None:
        actions = round_.actions.order_by("seq").values_list("seq", "payload")
    for seq, payload in actions:
        before = state
        state, moved = engine.apply(before, payload)
        if observer is not None:
            observer(seq, payload, before, state, moved)
    return state


def engine_state(round_: Round, *, newer: tuple[int, Sequence[Mapping[str, Any]]] | None = None) -> Any:
    """The engine state at ``round_.version`` (hidden cards included).

    Another worker usually took the round's last few actions, so a state this process keeps
    (tables.state_cache) at an earlier version is caught up with only the actions since; a
    round not kept here is folded from its start. ``newer`` is ``(since, payloads)`` when the
    caller already fetched the actions after version ``since``. Every path is the same fold
    of the same actions.

    An approved correction voids actions and takes a version of its own with no action, so a
    state kept across it always finds fewer actions than versions and is folded anew.
    """
    cached = STATE_CACHE.get(round_)
    if cached is not None and cached.version == round_.version:
        return cached.state
    since = cached.version if cached is not None else 0
    missing = round_.version - since
    payloads = list(newer[1]) if newer is not None and newer[0] == since else None
    if payloads is None or len(payloads) != missing:
        payloads = list(
            round_.actions.filter(seq__gt=since, seq__lte=round_.version)
            .order_by("seq")
            .values_list("payload", flat=True)
        )
    if len(payloads) == missing:  # no gap: the seqs are since+1 … version
        state = fold(
            round_,
            enumerate(payloads, start=since + 1),
            state=cached.state if cached is not None else None,
        )
    else:  # the action log does not match the version: the plain fold decides, as it always did
        state = fold(round_)
    STATE_CACHE.put(round_, state)
    return state
