"""The fair-deal null model of a Faro deal's house win, by Monte Carlo through the engine.

A Faro bet rides until a turn decides it, a multi-rank stack is decided by several ranks,
and stakes are heavy-tailed, so the house win of a deal is not a sum of independent bets and
a normal band around theo is too narrow. The null here keeps everything the table did (each
bet, removal and call, with its amount, at the point of the deal where it was made) and
changes only what chance decides: the order of the cards not yet seen when play began (every
card but the soda, which is burned face up before the first turn). Each simulated deal
replays the recorded actions through the pure engine (``tables.games.faro``) on a fresh
shuffle; a recorded action the new deal makes impossible (a bet on a rank that has died, the
removal of a stack already decided, a call of an order no longer possible) is left out, as
the engine would refuse it at a real table.

Simulations are seeded from the round id and a setting (``DETECTION["MC_SEED"]``): the same
round gives the same samples on every run and every machine.

No Django here: the detector reads the round and hands over its context and actions.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from tables.games.base import BANK, TableContext
from tables.games.cards import FULL_DECK
from tables.games.errors import IllegalAction
from tables.games.faro import ENGINE, FaroState

DEALING = frozenset({"turn", "last_turn"})
PLACING = frozenset({"bet", "call_turn"})


def house_win(moves: Sequence[Any]) -> int:
    """What the bank gained (+) or paid (-) over some settlements."""
    return sum(m.amount for m in moves if m.payee == BANK) - sum(m.amount for m in moves if m.payer == BANK)


def mc_rng(round_id: int, seed: str | int, purpose: str = "hold") -> random.Random:
    """The generator for one round's simulations: a function of the round id and the setting."""
    digest = hashlib.sha256(f"{seed}:{purpose}:{round_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def recorded_soda(actions: Sequence[Mapping[str, Any]], deck: Sequence[str] | None) -> str | None:
    """The soda the recorded deal burned: the electronic deck's first card, or the keyed one."""
    if deck is not None:
        return deck[0]
    for action in actions:
        if action.get("type") == "soda":
            card = action.get("card")
            return str(card).upper() if isinstance(card, str) else None
    return None


def simulate_wins(
    context: TableContext,
    actions: Sequence[Mapping[str, Any]],
    *,
    n: int,
    rng: random.Random,
    soda: str | None = None,
) -> list[int]:
    """``n`` house wins of the recorded deal's actions replayed on fair re-deals of its unseen cards.

    ``actions`` are the round's accepted payloads in order. ``soda`` (defaults to the
    recorded one) stays in place; the other 51 cards are shuffled afresh for each simulation.
    """
    script = [dict(a) for a in actions if a.get("type") != "soda"]
    for action in script:
        action.pop("cards", None)  # the simulated shoe is electronic: the engine deals
    soda = soda or recorded_soda(actions, context.deck)
    rest = [card for card in FULL_DECK if card != soda]
    wins = []
    for _ in range(n):
        rng.shuffle(rest)
        deck = (soda, *rest) if soda else tuple(rest)
        wins.append(_replay(context, deck, script))
    return wins


def _replay(context: TableContext, deck: tuple[str, ...], script: Sequence[Mapping[str, Any]]) -> int:
    ctx = TableContext(
        rules=context.rules,
        seats=context.seats,
        min_bet=context.min_bet,
        max_bet=context.max_bet,
        ante=context.ante,
        deck=deck,
        extra_decks=(),
        carry={},
    )
    state: FaroState
    state, moves = ENGINE.start(ctx)
    win = house_win(moves)
    placed = 0  # recorded bets so far: the recorded id of the next one is b<placed + 1>
    ids: dict[str, str] = {}  # recorded bet id -> the id the simulated deal gave it
    for action in script:
        kind = action.get("type")
        if kind == "remove_bet":
            simulated = ids.get(str(action.get("bet")))
            if simulated is None:
                continue
            action = {**action, "bet": simulated}
        if kind in PLACING:
            placed += 1
        try:
            state, moves = ENGINE.apply(state, action)
        except IllegalAction:
            if kind in DEALING:
                raise  # the deal itself cannot be refused: a broken script, not chance
            continue
        if kind in PLACING:
            ids[f"b{placed}"] = f"b{state.bets_made}"
        win += house_win(moves)
        if state.over:
            break
    return win


def sum_p_values(
    samples: Sequence[Sequence[int]],
    observed: int,
    *,
    rng: random.Random,
    draws: int,
    max_draws: int,
    min_hits: int = 10,
) -> tuple[float, float, int]:
    """P(sum >= observed) and P(sum <= observed) for a sum of independent rounds, and the draws used.

    Each round is its own simulated null (``samples``: one list per round); the window's sum
    is drawn by taking one simulated win of every round, ``draws`` times, and as many as
    ``max_draws`` while fewer than ``min_hits`` draws reach the observed sum on either side
    (only a far-out subject pays for the extra resolution). Empirical p-values
    ``(k + 1) / (B + 1)``: never zero, and no smaller than the draws can show.
    """
    rounds = [list(s) for s in samples if s]
    if not rounds:
        return 1.0, 1.0, 0
    upper = lower = done = 0
    target = max(1, draws)
    while True:
        for _ in range(target - done):
            total = sum(r[rng.randrange(len(r))] for r in rounds)
            upper += total >= observed
            lower += total <= observed
        done = target
        if min(upper, lower) >= min_hits or done >= max_draws:
            break
        target = min(max_draws, done * 4)
    return (upper + 1) / (done + 1), (lower + 1) / (done + 1), done
