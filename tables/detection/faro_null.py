"""The fair-deal null model of a Faro deal's house win, by Monte Carlo through the engine.

A Faro bet rides until a turn decides it, a multi-rank stack is decided by several ranks,
and stakes are heavy-tailed, so the house win of a deal is not a sum of independent bets and
a normal band around theo is too narrow. The null here keeps everything the table did (each
bet, removal and call, with its amount, at the point of the deal where it was made) and
changes only what chance decides: the order of the cards not yet seen when play began (every
card but the soda, which is burned face up before the first turn). Each simulated deal
replays the recorded actions through the pure engine (``tables.games.faro``) on a fresh
shuffle.

A recorded bet the new deal makes impossible still stakes its money: a bet on a rank that has
died there goes on a live placement of as many ranks (drawn from the engine's
``legal_actions``), and a call of an order no longer possible calls one of the orders left.
Players bet on live ranks and call the cards that are left, so the money they staked is in
play under any deal. Leaving such bets out, as this model did until 2026-11-28, took about a
sixth of a deal's bets and nearly every call out of the simulated deals (tuning seed 3, table 5:
54 of 306 bets and $2,322 of $15,347 a simulated night, 99 of 100 calls), so the null was too
narrow and honest tables raised hold alerts. A removal of a stack the new deal has already
decided is left out, as the engine would refuse it at a real table; so is a call when the last
three cards are one rank.

Simulations are seeded from the round id and a setting (``DETECTION["MC_SEED"]``): the same
round gives the same samples on every run and every machine.

No Django here: the detector reads the round and hands over its context and actions.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tables.detection.stats import monte_carlo_p
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
        wins.append(_replay(context, deck, script, rng))
    return wins


ROUND_HITS = 2  # simulated wins that must reach a deal's own win before its null is fine enough


def null_of_deal(
    context: TableContext,
    actions: Sequence[Mapping[str, Any]],
    *,
    observed: int,
    first: int,
    most: int,
    rng_for: Callable[[int], random.Random],
    known: Sequence[int] = (),
) -> list[int]:
    """A deal's simulated wins: ``first`` re-deals (after the ``known`` ones), then four times as
    many again, up to ``most``, while fewer than ``ROUND_HITS`` reach the ``observed`` win on its
    side. A window's sum drawn from 100 samples a deal treats a win beyond all of them as
    impossible, and one such deal then gave the window a p-value far below its true one (tuning
    seed 1's week: a deal past all 100 of its samples, reached by 0.4 % of 2,000, made an honest
    table's p 2.8e-4). ``rng_for(done)`` is the generator of the batch that follows ``done`` wins,
    so the same deal grows the same way on every run.
    """
    wins = list(known)
    while not wins or (len(wins) < most and _reaching(wins, observed) < ROUND_HITS):
        batch = min(most - len(wins), 3 * len(wins)) if wins else first
        wins += simulate_wins(context, actions, n=batch, rng=rng_for(len(wins)))
    return wins


def _reaching(wins: Sequence[int], observed: int) -> int:
    """How many simulated wins reach the observed one on its nearer side."""
    return min(sum(1 for win in wins if win >= observed), sum(1 for win in wins if win <= observed))


def _in_play(state: FaroState, action: Mapping[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The recorded bet ``action`` moved to what this deal has left (see the module docstring), or
    None when nothing like it can be bet here."""
    kind = action.get("type")
    for template in ENGINE.legal_actions(state):
        if template.get("type") != kind:
            continue
        if kind == "call_turn":
            return {**action, "order": rng.choice(template["choices"]["order"])}
        size = len(action.get("ranks") or ())
        placements = [ranks for ranks in template["choices"]["ranks"] if len(ranks) == size]
        return {**action, "ranks": rng.choice(placements)} if placements else None
    return None


def _replay(
    context: TableContext, deck: tuple[str, ...], script: Sequence[Mapping[str, Any]], rng: random.Random
) -> int:
    state: FaroState
    state, moves = ENGINE.start(replace(context, deck=deck, extra_decks=(), carry={}))
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
        except IllegalAction as refused:
            if kind in DEALING:
                raise  # the deal itself cannot be refused: a broken script, not chance
            movable = kind == "call_turn" or refused.code == "dead_rank"
            moved = _in_play(state, action, rng) if movable else None
            if moved is None:
                continue
            try:
                state, moves = ENGINE.apply(state, moved)
            except IllegalAction:
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
    (``stats.monte_carlo_p``): never zero, and no smaller than the draws can show.
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
    return monte_carlo_p(upper, done), monte_carlo_p(lower, done), done
