"""``legal_actions`` for every engine and shoe: what it lists, ``apply`` accepts.

The contract is ``Engine.legal_actions`` (tables/games/base.py): a concrete entry is applied
as it is; a template is applied once every field in ``needs`` is filled from its hints. This
walks random rounds of every game with an electronic and a manual shoe and, at every state
on the way, applies every concrete entry and one filling of every template. Issue 20 found
Farmer's manual shoe listing ``deal`` and ``hit`` as concrete, which ``apply`` refused.

The filler knows only the documented conventions, plus the hints engines document of their
own: Tonk's count-only ``spread`` (``held``, ``unseen``, ``with``: the cards must make a
spread) and Farmer's ``one_card_each``.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tables.games.base import TableContext
from tables.games.cards import FARMER_DECK, FULL_DECK, RANKS, SUITS
from tables.games.registry import engine_for
from tables.games.shoe import shuffle
from tables.games.stakes import VARIANTS
from tables.games.tonk import spread_kind

HINT_KEYS = frozenset(
    {"needs", "optional", "choices", "count", "bounds", "min_amount", "max_amount", "chip"}
    | {"max_player_action", "held", "unseen", "with", "one_card_each"}
)
# (fewest, most) players dealt in; Faro's punters are any ids, three of them here.
PLAYERS = {"faro": (3, 3), "farmer": (2, 8), "fan_tan": (3, 8), "newmarket": (3, 8), "tonk": (2, 4)}
PLAYERS["stakes"] = (2, 6)
WALK_BOUND = 1_500  # actions; every walk below ends far sooner
CHECKED: Counter[str] = Counter()  # concrete entries and templates applied, for the report


def context(game: str, shoe: str, rng: random.Random) -> TableContext:
    fewest, most = PLAYERS[game]
    count = rng.randint(fewest, most)
    seats = dict(
        zip(sorted(rng.sample(range(1, 10), count)), rng.sample(range(100, 999), count), strict=True)
    )
    deck = FARMER_DECK if game == "farmer" else FULL_DECK
    electronic = shoe == "electronic" and game != "stakes"
    rules: dict[str, Any] = {}
    if game == "stakes":
        rules = {"variant": rng.choice(sorted(VARIANTS))}
    if game == "tonk":
        rules = {"slap": rng.random() < 0.8, "caught_drop_pays": rng.choice([1, 2])}
    seed = f"{rng.getrandbits(256):064x}"
    return TableContext(
        rules=rules,
        seats=seats,
        min_bet=100,
        max_bet=5_000,
        ante=100,
        deck=shuffle(deck, seed) if electronic else None,
        extra_decks=(shuffle(deck, seed[::-1]),) if electronic and game == "farmer" else (),
        carry={},
    )


# --- filling a template --------------------------------------------------------------------


def fill(entry: Mapping[str, Any], state: Any, rng: random.Random, punters: list[int]) -> dict[str, Any]:
    """One filling of ``entry`` that keeps to its hints and names no card twice."""
    action = {key: value for key, value in entry.items() if key not in HINT_KEYS}
    choices: Mapping[str, Any] = entry.get("choices", {})
    count: Mapping[str, Any] = entry.get("count", {})
    used: set[str] = set()

    def cards(n: int, pool: list[str]) -> list[str]:
        picked = rng.sample([c for c in pool if c not in used], n)
        used.update(picked)
        return picked

    for need in entry.get("needs", []):
        field = rng.choice(need.split("|"))
        pool: Any = choices.get(field)
        if field == "amount":
            low, high, chip = entry["min_amount"], entry["max_amount"], entry["chip"]
            capped = entry.get("max_player_action") is not None
            action["amount"] = low if capped else rng.randrange(low, high + 1, chip)
        elif field == "player" and pool is None:
            action["player"] = rng.choice(punters)  # Faro: any player id, the table says who
        elif field == "cards" and "held" in entry:
            action["cards"] = tonk_spread(entry, state, rng)
        elif field in ("cards", "hands") and isinstance(count.get(field), Mapping):
            dealt = {key: cards(n, pool) for key, n in count[field].items()}
            one_each = entry.get("one_card_each")
            action[field] = {key: hand[0] for key, hand in dealt.items()} if one_each else dealt
        elif field == "cards":
            action["cards"] = cards(count["cards"], pool)
        elif field == "totals":
            bounds = entry["bounds"]["totals"]
            action["totals"] = {str(p): rng.randint(*bounds[str(p)]) for p in pool}
        elif field == "scores":
            action["scores"] = {str(p): rng.randint(0, 60) for p in pool}
        elif all(isinstance(c, str) and c in FULL_DECK for c in pool):
            action[field] = cards(1, pool)[0]
        else:
            action[field] = rng.choice(pool)
    return action


def tonk_spread(entry: Mapping[str, Any], state: Any, rng: random.Random) -> list[str]:
    """Tonk's count-only spread: three cards of the choices that make a spread, at most
    ``unseen`` not ``held``, holding ``with``, not leaving only the card just taken where
    it fits nowhere (the rule of play its ``legal_actions`` documents)."""
    pool, held = set(entry["choices"]["cards"]), list(entry["held"])
    threes: list[tuple[str, ...]] = [
        three
        for rank in RANKS
        for three in itertools.combinations(sorted(c for c in pool if c[:-1] == rank), 3)
    ]
    for suit in SUITS:
        for start in range(12):
            threes.append(tuple((*RANKS, "A")[value] + suit for value in range(start, start + 3)))
    tables = [spread.cards for spread in state.spreads]
    fits = []
    for three in threes:
        outside = sum(card not in held for card in three)
        rest = [card for card in held if card not in three]
        stranded = (
            rest == [state.taken]
            and outside == entry["unseen"]
            and not any(spread_kind((*cards, state.taken)) for cards in [*tables, three])
        )
        holds_with = entry.get("with", three[0]) in three
        if set(three) <= pool and outside <= entry["unseen"] and not stranded and holds_with:
            fits.append(list(three))
    return rng.choice(fits)


# --- the walk ------------------------------------------------------------------------------


def progress(game: str, legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The entry to move on with, biased so that rounds end: deal on in Faro, draw from the
    stock in Tonk, play rather than pass in Fan Tan and Newmarket."""
    preferred: list[dict[str, Any]] = []
    if game == "faro" and rng.random() < 0.6:
        preferred = [a for a in legal if a["type"] in ("soda", "turn", "last_turn")]
    if game == "tonk" and rng.random() < 0.8:
        preferred = [a for a in legal if a.get("from") == "stock"]
    if game in ("fan_tan", "newmarket") and rng.random() < 0.9:
        preferred = [a for a in legal if a["type"] not in ("pass", "penalty")]
    return rng.choice(preferred or legal)


def check_every_entry(engine: Any, state: Any, rng: random.Random, punters: list[int]) -> None:
    legal = engine.legal_actions(state)
    assert legal, "legal_actions is never empty before the round is over"
    for entry in legal:
        template = "needs" in entry
        action = fill(entry, state, rng, punters) if template else entry
        engine.apply(state, action)  # IllegalAction here is the failure
        CHECKED["template" if template else "concrete"] += 1


@pytest.mark.parametrize("shoe", ["electronic", "manual"])
@pytest.mark.parametrize("game", sorted(PLAYERS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64))
def test_property_every_listed_action_and_every_filled_template_is_accepted(
    game: str, shoe: str, seed: int
) -> None:
    rng = random.Random(seed)
    engine = engine_for(game)
    ctx = context(game, shoe, rng)
    punters = list(ctx.seats.values())
    state, _ = engine.start(ctx)
    steps = 0
    for steps in range(WALK_BOUND):  # noqa: B007 - the count is the event below
        if engine.is_over(state):
            break
        check_every_entry(engine, state, rng, punters)
        entry = progress(game, engine.legal_actions(state), rng)
        state, _ = engine.apply(state, fill(entry, state, rng, punters) if "needs" in entry else entry)
    assert engine.is_over(state)
    assert engine.legal_actions(state) == []
    event(f"actions: {steps // 50 * 50}+")
