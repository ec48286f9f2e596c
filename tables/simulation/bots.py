"""Players and dealers as bots: they choose actions the way people at the table would.

Bots read the engine's state through ``legal_actions`` (what the console offers a dealer)
and a seeded ``random.Random``, so a night is reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from tables.games.base import without_hints
from tables.games.faro_layout import PLACEMENTS

FARO_TARGETS = ("even", "odd", "high")
# Sorted once so a seeded choice is reproducible (PLACEMENTS is a set of sets).
SINGLE_RANKS = sorted(sorted(p)[0] for p in PLACEMENTS if len(p) == 1)
MULTI_RANKS = sorted(sorted(p) for p in PLACEMENTS if len(p) > 1)


def chip_amount(rng: random.Random, *, low: int, high: int, chip: int, budget: int) -> int | None:
    """A believable bet: mostly near the minimum, sometimes bigger, always whole chips."""
    top = min(high, budget)
    if top < low:
        return None
    units = max(low // chip, 1)
    multiplier = rng.choice((1, 1, 1, 2, 2, 3, 5, 10))
    amount = min(units * multiplier * chip, top)
    return amount - amount % chip if amount >= low else None


def faro_bets(
    rng: random.Random, public: Mapping[str, Any], players: Mapping[int, int], *, chip: int
) -> list[dict[str, Any]]:
    """Bets a few players place before a turn: single ranks mostly, some splits, coppers, calls."""
    limits = public.get("limits") or {}
    low, high = int(limits.get("min_bet", chip)), int(limits.get("max_bet", chip * 100))
    dead = set(public.get("dead_ranks") or ())
    bets: list[dict[str, Any]] = []
    for player, budget in players.items():
        if rng.random() > 0.35:
            continue
        amount = chip_amount(rng, low=low, high=high, chip=chip, budget=budget)
        if amount is None:
            continue
        roll = rng.random()
        if roll < 0.7:
            live = [rank for rank in SINGLE_RANKS if rank not in dead]
            if live:
                bets.append(
                    {
                        "type": "bet",
                        "player": player,
                        "ranks": [rng.choice(live)],
                        "amount": amount,
                        "coppered": rng.random() < 0.15,
                    }
                )
        elif roll < 0.9:
            live_multi = [p for p in MULTI_RANKS if not set(p) & dead]
            if live_multi:
                bets.append(
                    {"type": "bet", "player": player, "ranks": rng.choice(live_multi), "amount": amount}
                )
        else:
            bets.append(
                {"type": "bet", "player": player, "target": rng.choice(FARO_TARGETS), "amount": amount}
            )
    return bets


def pick_action(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One legal action, preferring play over passing; templates get their ``needs`` filled.

    ``legal_actions`` marks open choices with ``needs`` and hints (``choices``,
    ``min_amount`` …; see ``Engine.legal_actions``). Templates a bot cannot fill (cards it
    cannot know) are skipped.
    """
    playable = [a for a in legal if _fillable(a)]
    if not playable:
        return None
    plays = [a for a in playable if a.get("type") not in {"pass", "drop", "bid", "slap"}]
    candidates = plays if plays and rng.random() < 0.92 else playable
    return _fill(rng, rng.choice(candidates))


def _fillable(action: Mapping[str, Any]) -> bool:
    choices = action.get("choices") or {}
    return all(need == "amount" or need in choices for need in action.get("needs") or ())


def _fill(rng: random.Random, template: Mapping[str, Any]) -> dict[str, Any]:
    action = without_hints(template)
    choices = template.get("choices") or {}
    for need in template.get("needs") or ():
        if need == "amount":
            action["amount"] = int(template.get("min_amount", template.get("chip", 100)))
        elif need == "scores":
            action["scores"] = {str(player): rng.randint(0, 60) for player in choices["scores"]}
        else:
            action[need] = rng.choice(list(choices[need]))
    return action
