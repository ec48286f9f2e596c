"""The exact distribution of splits in a fair Faro deal, and of a dealer's splits over many deals.

A deal's 25 decisions are the pairs (banker, player) at positions 1-2, 3-4, … 49-50 of the 51
cards under the soda (the 51st card is the hock); a split is a pair of one rank. With the soda
of some rank gone, 12 ranks have 4 cards under it and one has 3 (every rank alike, so which one
does not matter). The count is not binomial (the pairs share one deck), and a normal tail of a
dealer's total over a few deals is too rough for a false-alert budget, so the distribution is
computed exactly, by inclusion-exclusion:

* the chance that ``m`` given pairs are all splits is
  ``m! [x^m] Π_r Σ_j c_r! / ((c_r - 2j)! j!) x^j  x  (51 - 2m)! / 51!``
  (``j`` of the pairs take rank ``r``, which has ``c_r`` cards);
* the factorial moments are ``F_m = C(25, m)`` times that, and
  ``P(S = k) = Σ_m (-1)^(m-k) C(m, k) F_m``.

All in exact fractions, then floats. Mean 25/17 = 1.4706, as before.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb, factorial

PAIRS = 25
UNDER_SODA = 51
RANK_COUNTS = (3,) + (4,) * 12


def _poly_mul(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


@cache
def deal_split_pmf() -> tuple[float, ...]:
    """P(a fair deal has k splits), k = 0 … 25."""
    g = [1]
    for c in RANK_COUNTS:
        g = _poly_mul(g, [factorial(c) // (factorial(c - 2 * j) * factorial(j)) for j in range(c // 2 + 1)])
    factorial_moments = [
        Fraction(comb(PAIRS, m) * factorial(m) * g[m] * factorial(UNDER_SODA - 2 * m), factorial(UNDER_SODA))
        if m < len(g)
        else Fraction(0)
        for m in range(PAIRS + 1)
    ]
    pmf = [
        sum(((-1) ** (m - k) * comb(m, k) * factorial_moments[m] for m in range(k, PAIRS + 1)), Fraction(0))
        for k in range(PAIRS + 1)
    ]
    return tuple(float(p) for p in pmf)


@cache
def splits_over_deals_pmf(deals: int) -> tuple[float, ...]:
    """P(k splits in ``deals`` independent fair deals): the per-deal distribution convolved."""
    one = deal_split_pmf()
    support = max(k for k, p in enumerate(one) if p > 0) + 1
    one = one[:support]
    total: list[float] = [1.0]
    for _ in range(deals):
        nxt = [0.0] * (len(total) + support - 1)
        for i, a in enumerate(total):
            if a:
                for j, b in enumerate(one):
                    nxt[i + j] += a * b
        total = nxt
    return tuple(total)


def splits_tail(deals: int, splits: int) -> float:
    """P(at least ``splits`` splits in ``deals`` fair deals)."""
    if splits <= 0:
        return 1.0
    pmf = splits_over_deals_pmf(deals)
    return min(1.0, sum(pmf[splits:]))
