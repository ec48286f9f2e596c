"""Small exact statistics for the detectors (pure Python, no SciPy).

Counts of rare events are judged with exact tails rather than normal approximations:
``poisson_binomial_tail`` is P(K >= k) for a sum of independent Bernoulli trials with
their own probabilities (a player's wins over rounds of different sizes), by dynamic
programming over the trials.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def poisson_binomial_pmf(probabilities: Sequence[float]) -> list[float]:
    pmf = [1.0]
    for p in probabilities:
        p = min(max(p, 0.0), 1.0)
        nxt = [0.0] * (len(pmf) + 1)
        for k, mass in enumerate(pmf):
            nxt[k] += mass * (1 - p)
            nxt[k + 1] += mass * p
        pmf = nxt
    return pmf


def tail_at_least(probabilities: Sequence[float], k: int) -> float:
    """P(K >= k) where K is the number of successes among the trials."""
    if k <= 0:
        return 1.0
    pmf = poisson_binomial_pmf(probabilities)
    return min(1.0, sum(pmf[k:]))


def tail_at_most(probabilities: Sequence[float], k: int) -> float:
    """P(K <= k)."""
    if k < 0:
        return 0.0
    pmf = poisson_binomial_pmf(probabilities)
    return min(1.0, sum(pmf[: k + 1]))


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


def normal_upper(z: float) -> float:
    """P(Z >= z)."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def rounded(value: float, places: int = 4) -> float:
    return float(f"{value:.{places}g}") if value and abs(value) < 1e-3 else round(value, places)
