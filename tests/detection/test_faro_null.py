"""The fair-deal null of a Faro deal's house win (``tables.detection.faro_null``): recorded bets
replayed through the engine on re-dealt cards. Fair deals must give p-values spread like a
uniform (never piled up near zero), a rigged deal a p-value as small as the simulations can
show, and the same round the same simulations."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from tables.detection.faro_null import house_win, mc_rng, null_of_deal, simulate_wins, sum_p_values
from tables.detection.stats import empirical_lower, empirical_upper
from tables.games.base import TableContext
from tables.games.cards import FULL_DECK, rank_index, rank_of
from tables.games.faro import ENGINE
from tables.games.shoe import shuffle
from tables.simulation.bots import faro_bets

PLAYERS = {1: 10**7, 2: 10**7, 3: 10**7, 4: 10**7}
Keyer = Callable[[dict[str, Any], list[str], int], list[str]]


def context(deck: tuple[str, ...] | None) -> TableContext:
    return TableContext(
        rules=ENGINE.default_rules(),
        seats={seat: seat for seat in PLAYERS},
        min_bet=500,
        max_bet=50_000,
        ante=0,
        deck=deck,
        extra_decks=(),
        carry={},
    )


def play(seed: int, keyer: Keyer | None = None) -> tuple[TableContext, list[dict[str, Any]], int]:
    """A deal with bot bets (they ride, cover several ranks, vary in size): context, actions, win.

    Electronic and fair without ``keyer``; with one, a manual shoe whose cards ``keyer`` picks.
    """
    rng = random.Random(seed)
    ctx = context(None if keyer else shuffle(FULL_DECK, f"{seed:064x}"))
    state, moves = ENGINE.start(ctx)
    win = house_win(moves)
    actions: list[dict[str, Any]] = []
    remaining = list(FULL_DECK)
    rng.shuffle(remaining)
    if keyer:
        soda = {"type": "soda", "card": remaining.pop()}
        state, _ = ENGINE.apply(state, soda)
        actions.append(soda)
    while not state.over:
        public = ENGINE.public_state(state)
        for bet in faro_bets(rng, public, PLAYERS, chip=100):
            state, moves = ENGINE.apply(state, bet)
            actions.append(bet)
            win += house_win(moves)
        deal: dict[str, Any] = {"type": public["next_action"]}
        if keyer:
            count = 3 if deal["type"] == "last_turn" else 2
            deal["cards"] = keyer(public, remaining, count)
            for card in deal["cards"]:
                remaining.remove(card)
        state, moves = ENGINE.apply(state, deal)
        actions.append(deal)
        win += house_win(moves)
    return ctx, actions, win


def cold(public: dict[str, Any], remaining: list[str], count: int) -> list[str]:
    """The banker's card from the rank carrying the most money, the player's from the least."""
    money: dict[str, int] = {}
    for bet in public["bets"]:
        if bet["kind"] == "rank":
            for rank in bet["ranks"]:
                money[rank] = money.get(rank, 0) + (-1 if bet.get("coppered") else 1) * bet["amount"]
    # Ties broken by rank, not by the set's order (which moves with the process's string hashing).
    ranks = sorted({rank_of(c) for c in remaining}, key=lambda r: (money.get(r, 0), rank_index(r)))
    if len(ranks) < 2:
        return remaining[:count]
    banker = next(c for c in remaining if rank_of(c) == ranks[-1])
    player = next(c for c in remaining if rank_of(c) == ranks[0])
    return [banker, player, *[c for c in remaining if c not in (banker, player)][: count - 2]]


def test_the_recorded_deal_replays_to_its_own_win_on_its_own_cards() -> None:
    ctx, actions, win = play(3)
    assert ctx.deck is not None

    # Re-dealing "fresh" cards that happen to be the recorded order gives the recorded win.
    class Recorded(random.Random):
        def shuffle(self, x: Any, *args: Any) -> None:
            x[:] = ctx.deck[1:]

    assert simulate_wins(ctx, actions, n=1, rng=Recorded()) == [win]


def test_fair_deals_give_p_values_spread_like_a_uniform() -> None:
    deals, n = 40, 49
    upper, lower = [], []
    for seed in range(deals):
        ctx, actions, win = play(1000 + seed)
        simulated = simulate_wins(ctx, actions, n=n, rng=mc_rng(seed, 1))
        upper.append(empirical_upper(simulated, win))
        lower.append(empirical_lower(simulated, win))
    for p_values in (upper, lower):
        for alpha in (0.05, 0.1, 0.25, 0.5):
            share = sum(p <= alpha for p in p_values) / deals
            # A valid p-value is at most alpha this often (3 standard errors of slack), and
            # a useful one is not stuck near 1 (a win the null cannot reach or always reaches).
            assert share <= alpha + 3 * (alpha * (1 - alpha) / deals) ** 0.5, (alpha, share)
        assert sum(p <= 0.5 for p in p_values) / deals >= 0.25
        assert 0.3 <= sum(p_values) / deals <= 0.75


def test_a_cold_deck_gives_a_p_value_next_to_the_smallest_the_simulations_show() -> None:
    n = 99
    ctx, actions, win = play(77, keyer=cold)
    simulated = simulate_wins(ctx, actions, n=n, rng=mc_rng(77, 1))
    # beyond all but at most one of 99 fair re-deals (seeds 77-81: p 0.01-0.02; with the bets that
    # the re-deals make impossible left out, as until 2026-11-28, the null was narrower: 0.01 each)
    assert empirical_upper(simulated, win) <= 2 / (n + 1)


def test_the_simulations_are_a_function_of_the_round_id_and_the_seed() -> None:
    ctx, actions, _ = play(5)
    first = simulate_wins(ctx, actions, n=20, rng=mc_rng(42, 1))
    assert simulate_wins(ctx, actions, n=20, rng=mc_rng(42, 1)) == first
    assert simulate_wins(ctx, actions, n=20, rng=mc_rng(43, 1)) != first
    assert simulate_wins(ctx, actions, n=20, rng=mc_rng(42, 2)) != first


def test_a_window_sum_reaches_small_p_values_by_drawing_more() -> None:
    # Eight rounds each +1 or -1 with even odds: all eight +1 has chance 1/256 = 0.0039.
    rounds = [[1, -1]] * 8
    upper, lower, draws = sum_p_values(
        rounds, 8, rng=random.Random(1), draws=500, max_draws=256_000, min_hits=100
    )
    assert draws > 500  # fewer than 100 of the first 500 reach 8: it drew more
    assert 0.0039 * 0.75 <= upper <= 0.0039 * 1.25
    assert lower == 1.0
    few = sum_p_values(rounds, 8, rng=random.Random(1), draws=500, max_draws=500)
    assert few[2] == 500
    assert few[0] >= 1 / 501
    assert sum_p_values([], 0, rng=random.Random(1), draws=10, max_draws=10) == (1.0, 1.0, 0)


def late_bet_deal(seed: int, kind: str) -> tuple[TableContext, list[dict[str, Any]]]:
    """An electronic deal with one $100 bet of player 1 that most re-deals make impossible: after
    the 20th turn on a rank with one card left (``kind`` "case"), or a call of the turn."""
    ctx = context(shuffle(FULL_DECK, f"{seed:064x}"))
    state, _ = ENGINE.start(ctx)
    actions: list[dict[str, Any]] = []
    while not state.over:
        public = ENGINE.public_state(state)
        bet: dict[str, Any] | None = None
        if kind == "case" and len(public["turns"]) == 20:
            case = next(r for r, row in public["casekeeper"].items() if row["left"] == 1)
            bet = {"type": "bet", "player": 1, "ranks": [case], "amount": 10_000}
        calls = [a for a in ENGINE.legal_actions(state) if a["type"] == "call_turn"]
        if kind == "call" and calls:
            bet = {
                "type": "call_turn",
                "player": 1,
                "order": calls[0]["choices"]["order"][0],
                "amount": 10_000,
            }
        for action in ([bet] if bet else []) + [{"type": public["next_action"]}]:
            state, _ = ENGINE.apply(state, action)
            actions.append(action)
    return ctx, actions


@pytest.mark.parametrize(("kind", "seed", "most_zeros"), [("case", 11, 0.2), ("call", 12, 0.05)])
def test_a_bet_the_re_deal_makes_impossible_still_stakes_its_money(
    kind: str, seed: int, most_zeros: float
) -> None:
    # A simulated deal with the $100 bet out of play shows a house win of 0 (so does one where the
    # case bet won once and lost after). Left out, as until 2026-11-28, 40 % of these re-deals
    # showed 0 for the case bet and all of them for the call; moved to what the re-deal has left
    # (a live rank, an order of the last three), 14 % and none.
    ctx, actions = late_bet_deal(seed, kind)
    assert sum(a["type"] in {"bet", "call_turn"} for a in actions) == 1
    simulated = simulate_wins(ctx, actions, n=200, rng=mc_rng(seed, 1))
    assert sum(win == 0 for win in simulated) / len(simulated) <= most_zeros
    assert {win > 0 for win in simulated if win} == {True, False}  # won and lost under fair deals


def test_a_deal_beyond_its_re_deals_gets_more_of_them_and_an_ordinary_one_does_not() -> None:
    # The cold deck's win is beyond every one of 20 fair re-deals: its null grows (20, 80, 180)
    # until two reach it or the cap; this fair deal's win is among its first 20 and they suffice
    # (9 of 12 fair deals, seeds 1000-1011, stay at 20; the others grow to 80).
    def rng_for(seed: int) -> Callable[[int], random.Random]:
        return lambda done: mc_rng(seed, 1, f"hold:{done}")

    ctx, actions, win = play(77, keyer=cold)
    grown = null_of_deal(ctx, actions, observed=win, first=20, most=180, rng_for=rng_for(77))
    assert len(grown) == 180
    assert grown[:20] == simulate_wins(ctx, actions, n=20, rng=mc_rng(77, 1, "hold:0"))  # the same start
    ctx, actions, win = play(1004)
    fair = null_of_deal(ctx, actions, observed=win, first=20, most=180, rng_for=rng_for(1004))
    assert len(fair) == 20
    assert min(sum(w >= win for w in fair), sum(w <= win for w in fair)) >= 2
    # what a run found before is not simulated again
    again = null_of_deal(ctx, actions, observed=win, first=20, most=180, rng_for=rng_for(1004), known=fair)
    assert again == fair
