"""The house edge of a Faro bet, exactly, from the casekeeper's counts when it was placed.

Pure Python (no Django) so the audit's theoretical win and, later, player ratings share it.
Every function returns an :class:`Edge` per unit staked: ``edge`` is the house's expected
gain and ``second_moment`` is E[gain²], so a night's theo is ``Σ amount x edge`` and its
variance ``Σ amount² x (second_moment - edge²)`` (used for the audit's confidence band).

The shoe. ``remaining`` is the number of undealt cards (``cards_remaining`` in the public
state, the hock included) and ``left`` the casekeeper's per-rank counts (they sum to
``remaining``). With 52 cards the soda is still in the shoe (manual shoe before ``soda``):
it is averaged over. A turn draws the banker's card and then the player's card, uniformly
from what is left; the last turn happens with three cards left and the third is the hock,
which settles nothing. GAMES.md decides everything below.

Rank bets (one rank, or a placement of 2-4 ranks), ``rank_bet_edge``:
    At a turn with ``N`` cards left and ``c_i`` cards of each covered rank, ``o`` others,
    ``P(banker=x, player=y) = n_x (n_y - [x = y]) / (N (N - 1))``. Outcomes: both cards of
    one covered rank → split, the bank takes half and half rides on; two different covered
    ranks → push; banker covered, player not → the bet loses and leaves; player covered,
    banker not → the bet is paid 1:1 and rides on with its stake; neither → nothing. A
    coppered bet swaps the last two, which by the banker/player symmetry gives the same
    numbers, so ``coppered`` does not change the edge.

    *First decision* (``first_decision_edge``, the formula of the audit issue): win and loss
    are equally likely at the turn that decides the bet, so the expected loss per unit is
    ``P(a split on a covered rank before the bet is decided) / 2``.

    *Lifetime* (``rank_bet_edge``, what the audit uses): a Faro bet does not leave the layout
    when it wins; it rides until it loses, is split in half (the half rides on), is removed,
    or comes back after the hock. The expected house gain over that whole life follows the
    recursion ``V(c, N) = Σ P(outcome) x (gain + stake_after x V(c', N - 2))`` with
    ``V = 0`` once no covered card is left or after the last turn. It equals the first
    decision's edge plus the edges of the later decisions the rules give a riding bet, so
    the audit's theo matches the handle it is divided by (a bet's chips leave the wallet
    once, however often it is decided). A bet removed early had less exposure than this
    assumes; the simulation's bots never remove bets.

``even`` / ``odd`` / ``high`` (``target_bet_edge``): decided by the next turn and then off
the layout. A split (both cards one rank) loses half. Otherwise ``high`` wins when the
player's card outranks the banker's, which is as likely as the reverse, so its edge is
``P(split) / 2``; ``even``/``odd`` win on the player's card's parity, so their edge is
``P(split) / 2`` plus ``P(the player's card is of the other parity, no split) -
P(same parity, no split)``: with 6 even ranks against 7 odd ones the count makes ``even``
a house bet and ``odd`` a player's bet early in the deal.

Calling the turn (``call_edge``): with three cards left every order of them is equally
likely. Three different ranks: 6 orders, one is right, paid ``call_turn_pays`` (default 4)
to 1: edge = ``1 - (4 + 1)/6 = 1/6``. A pair and one (cat-hop): 3 distinct orders, paid
``cat_hop_pays`` (default 2) to 1: edge = ``1 - (2 + 1)/3 = 0``, a fair bet. In general
``edge = 1 - p x (pays + 1)`` with ``p = 1 / distinct orders``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tables.games.cards import RANKS, parse_rank, rank_index
from tables.games.faro import DEFAULT_RULES, TARGETS, target_wins

DECK_SIZE = 52
LAST_TURN_CARDS = 3
DEFAULT_CALL_TURN_PAYS: int = DEFAULT_RULES["call_turn_pays"]
DEFAULT_CAT_HOP_PAYS: int = DEFAULT_RULES["cat_hop_pays"]


@dataclass(frozen=True, slots=True)
class Edge:
    """Per unit staked: the house's expected gain and the second moment of that gain."""

    edge: float
    second_moment: float

    @property
    def variance(self) -> float:
        return max(self.second_moment - self.edge * self.edge, 0.0)


ZERO = Edge(0.0, 0.0)


def _state(counts: Sequence[int]) -> tuple[int, ...]:
    """Covered ranks are interchangeable: only the multiset of live counts matters."""
    return tuple(sorted((c for c in counts if c > 0), reverse=True))


def _minus(counts: tuple[int, ...], *indices: int) -> tuple[int, ...]:
    changed = list(counts)
    for index in indices:
        changed[index] -= 1
    return _state(changed)


def _check_shoe(counts: Sequence[int], remaining: int) -> None:
    if remaining < 0 or remaining > DECK_SIZE:
        raise ValueError(f"A Faro shoe holds 0-52 cards, not {remaining}.")
    if any(c < 0 or c > 4 for c in counts) or sum(counts) > remaining:
        raise ValueError(f"Counts {list(counts)} cannot be in a shoe of {remaining} cards.")


@lru_cache(maxsize=65536)
def _rank_lifetime(counts: tuple[int, ...], remaining: int) -> tuple[float, float]:
    """(E[gain], E[gain²]) of a unit rank bet from a turn boundary until it leaves the layout."""
    if not counts or remaining < LAST_TURN_CARDS:
        return 0.0, 0.0
    if remaining % 2 == 0:  # the soda is still in the shoe: it settles nothing
        gain = _after_soda(counts, remaining, lambda after, left: _rank_lifetime(after, left)[0])
        return gain, _after_soda(counts, remaining, lambda after, left: _rank_lifetime(after, left)[1])
    pairs = remaining * (remaining - 1)
    others = remaining - sum(counts)
    last = remaining == LAST_TURN_CARDS

    def later(state: tuple[int, ...]) -> tuple[float, float]:
        return (0.0, 0.0) if last else _rank_lifetime(state, remaining - 2)

    m1 = m2 = 0.0

    def add(prob: float, gain: float, stake: float, state: tuple[int, ...]) -> None:
        nonlocal m1, m2
        if prob == 0:
            return
        v1, v2 = later(state) if stake else (0.0, 0.0)
        m1 += prob * (gain + stake * v1)
        m2 += prob * (gain * gain + 2 * gain * stake * v1 + stake * stake * v2)

    for i, ci in enumerate(counts):
        add(ci * (ci - 1) / pairs, 0.5, 0.5, _minus(counts, i, i))  # split on a covered rank
        for j, cj in enumerate(counts):
            if i != j:
                add(ci * cj / pairs, 0.0, 1.0, _minus(counts, i, j))  # push
        add(ci * others / pairs, 1.0, 0.0, counts)  # banker's card covered: the bet loses
        add(others * ci / pairs, -1.0, 1.0, _minus(counts, i))  # player's card covered: paid, rides
    add(others * (others - 1) / pairs, 0.0, 1.0, counts)
    return m1, m2


@lru_cache(maxsize=65536)
def _rank_first_decision(counts: tuple[int, ...], remaining: int) -> float:
    """Probability that the bet's first decision is a split (pushes and blank turns wait)."""
    if not counts or remaining < LAST_TURN_CARDS:
        return 0.0
    if remaining % 2 == 0:
        return _after_soda(counts, remaining, _rank_first_decision)
    pairs = remaining * (remaining - 1)
    others = remaining - sum(counts)
    last = remaining == LAST_TURN_CARDS
    split = sum(ci * (ci - 1) for ci in counts) / pairs
    waiting = 0.0
    if not last:
        for i, ci in enumerate(counts):
            for j, cj in enumerate(counts):
                if i != j:
                    waiting += ci * cj / pairs * _rank_first_decision(_minus(counts, i, j), remaining - 2)
        waiting += others * (others - 1) / pairs * _rank_first_decision(counts, remaining - 2)
    return split + waiting


def _after_soda(
    counts: tuple[int, ...], remaining: int, then: Callable[[tuple[int, ...], int], float]
) -> float:
    """The soda is burned first: ``then`` (of the shoe after it) averaged over every card it may be."""
    others = remaining - sum(counts)
    total = 0.0  # added in order (``sum`` compensates, and the audit's figures would move)
    for i, ci in enumerate(counts):
        total += ci / remaining * then(_minus(counts, i), remaining - 1)
    return total + others / remaining * then(counts, remaining - 1)


def rank_bet_edge(covered_left: Sequence[int], remaining: int) -> Edge:
    """Lifetime edge of a bet on 1-4 ranks with ``covered_left`` cards of each still in the shoe."""
    _check_shoe(covered_left, remaining)
    m1, m2 = _rank_lifetime(_state(covered_left), remaining)
    return Edge(m1, m2)


def first_decision_edge(covered_left: Sequence[int], remaining: int) -> float:
    """``P(split on a covered rank before the bet is decided) / 2``: the edge of one decision."""
    _check_shoe(covered_left, remaining)
    return _rank_first_decision(_state(covered_left), remaining) / 2


def _target_gain(target: str, banker: str, player: str) -> float:
    if banker == player:
        return 0.5
    if target not in TARGETS:
        raise ValueError(f"No Faro target {target!r}.")
    return -1.0 if target_wins(target, banker, player) else 1.0


def _target_at_turn(target: str, left: Mapping[str, int], remaining: int) -> tuple[float, float]:
    pairs = remaining * (remaining - 1)
    m1 = m2 = 0.0
    for banker, nb in left.items():
        if not nb:
            continue
        for player, np_ in left.items():
            count = nb * (np_ - (banker == player))
            if count <= 0:
                continue
            gain = _target_gain(target, banker, player)
            m1 += count / pairs * gain
            m2 += count / pairs * gain * gain
    return m1, m2


def target_bet_edge(target: str, left: Mapping[str, int], remaining: int) -> Edge:
    """``even``/``odd``/``high``: decided by the next turn (split: half lost, half returned)."""
    counts = {rank: int(left.get(rank, 0)) for rank in RANKS}
    _check_shoe(list(counts.values()), remaining)
    if remaining < LAST_TURN_CARDS:
        return ZERO
    if remaining % 2 == 1:
        return Edge(*_target_at_turn(target, counts, remaining))
    m1 = m2 = 0.0  # the soda first
    for soda, n in counts.items():
        if n:
            after = dict(counts)
            after[soda] -= 1
            v1, v2 = _target_at_turn(target, after, remaining - 1)
            m1 += n / remaining * v1
            m2 += n / remaining * v2
    return Edge(m1, m2)


def call_edge(
    order: Sequence[str],
    left: Mapping[str, int],
    *,
    call_turn_pays: int = DEFAULT_CALL_TURN_PAYS,
    cat_hop_pays: int = DEFAULT_CAT_HOP_PAYS,
) -> Edge:
    """Calling the last three cards' order: ``edge = 1 - p (pays + 1)``, ``p`` = 1 / distinct orders."""
    last_three = Counter({rank: n for rank, n in left.items() if n})
    if sum(last_three.values()) != LAST_TURN_CARDS:
        raise ValueError("The turn is called with exactly three cards left.")
    called = Counter(order)
    if len(order) != LAST_TURN_CARDS or any(called[r] > last_three[r] for r in called):
        return Edge(1.0, 1.0)  # an order that cannot come loses for sure (the engine refuses it)
    distinct = {3: 6, 2: 3, 1: 1}[len(last_three)]
    if distinct == 1:
        raise ValueError("Three of a kind: no calls.")
    pays = cat_hop_pays if len(set(order)) == 2 else call_turn_pays
    p = 1 / distinct
    return Edge(1 - p * (pays + 1), (1 - p) + p * pays * pays)


def _lefts(casekeeper: Mapping[str, Any]) -> dict[str, int]:
    return {rank: int((casekeeper.get(rank) or {}).get("left", 0)) for rank in RANKS}


def action_edge(
    action: Mapping[str, Any], public: Mapping[str, Any], rules: Mapping[str, Any]
) -> Edge | None:
    """The edge of an accepted ``bet`` or ``call_turn`` action, given the public state before it.

    ``public`` is ``FaroEngine.public_state`` (its ``casekeeper`` and ``cards_remaining``);
    other actions place nothing and give None.
    """
    left = _lefts(public.get("casekeeper") or {})
    return bet_edge(action, left, int(public.get("cards_remaining", sum(left.values()))), rules)


def bet_edge(
    action: Mapping[str, Any], left: Mapping[str, int], remaining: int, rules: Mapping[str, Any]
) -> Edge | None:
    """As ``action_edge``, from the casekeeper's per-rank counts (``left``) and the cards left."""
    kind = action.get("type")
    if kind == "call_turn":
        order = [parse_rank(r) for r in action.get("order") or ()]
        return call_edge(
            order,
            left,
            call_turn_pays=int(rules.get("call_turn_pays", DEFAULT_CALL_TURN_PAYS)),
            cat_hop_pays=int(rules.get("cat_hop_pays", DEFAULT_CAT_HOP_PAYS)),
        )
    if kind != "bet":
        return None
    target = action.get("target")
    if target is not None:
        return target_bet_edge(str(target).strip().lower(), left, remaining)
    ranks = {parse_rank(r) for r in action.get("ranks") or ()}
    return rank_bet_edge([left[r] for r in sorted(ranks, key=rank_index)], remaining)
