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


def binomial_pmf(n: int, p: float) -> list[float]:
    """P(K = k) for k = 0..n, K ~ Binomial(n, p)."""
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def binomial_upper(n: int, k: int) -> float:
    """P(K >= k) for K ~ Binomial(n, 1/2), exact (a fair coin: which of two exchangeable players)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return min(1.0, sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n)


def twice_smaller(a: float, b: float) -> float:
    """Twice the smaller of two p-values, at most 1: a two-sided p from its two tails, or two
    tests of one subject combined (Bonferroni)."""
    return min(1.0, 2 * min(a, b))


def rounded(value: float, places: int = 4) -> float:
    return float(f"{value:.{places}g}") if value and abs(value) < 1e-3 else round(value, places)


def wilson_interval(successes: int, trials: int, *, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95 % by default): honest at 0/n and n/n.

    A rate measured on a few nights is a small sample; the plain ``p ± z·√(p(1-p)/n)`` collapses
    to a point at 0 or 1, which reads a 9-of-9 as certainty. Returns (0, 1) for no trials.
    """
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def benjamini_hochberg(p_values: Sequence[float], fdr: float) -> list[bool]:
    """Which hypotheses Benjamini–Hochberg rejects at false-discovery rate ``fdr``.

    Sort the m p-values, find the largest rank k with p_(k) <= k·fdr/m, reject the k smallest.
    Across a floor's tables, dealers and pairs this keeps the expected share of false alerts
    among the alerts at ``fdr`` however many subjects are tested, where a fixed per-test
    threshold lets the false alerts grow with the floor.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    cut = 0
    for rank, i in enumerate(order, start=1):
        if p_values[i] <= rank * fdr / m:
            cut = rank
    rejected = [False] * m
    for i in order[:cut]:
        rejected[i] = True
    return rejected


def bh_adjusted(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q-values): rejected at rate q iff adjusted <= q."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i], reverse=True)
    adjusted = [1.0] * m
    running = 1.0
    for position, i in enumerate(order):
        rank = m - position
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


def bh_discoveries(p_values: Sequence[float], fdr: float) -> list[tuple[int, float]]:
    """The positions Benjamini–Hochberg rejects at ``fdr``, in order, each with its q-value
    (``bh_adjusted``): the subjects a rule alerts on and the rate each would be found at."""
    hits = benjamini_hochberg(p_values, fdr)
    return [(i, q) for i, (q, hit) in enumerate(zip(bh_adjusted(p_values), hits, strict=True)) if hit]


def monte_carlo_p(hits: int, draws: int) -> float:
    """A Monte Carlo p-value from ``hits`` of ``draws`` null draws as extreme as the observed:
    (k + 1) / (n + 1), never 0 and valid for any n."""
    return (hits + 1) / (draws + 1)


def empirical_upper(simulated: Sequence[float], observed: float) -> float:
    """P(X >= observed) from the simulated values (``monte_carlo_p``)."""
    return monte_carlo_p(sum(1 for x in simulated if x >= observed), len(simulated))


def empirical_lower(simulated: Sequence[float], observed: float) -> float:
    """P(X <= observed) from the simulated values (``monte_carlo_p``)."""
    return monte_carlo_p(sum(1 for x in simulated if x <= observed), len(simulated))
