"""The small statistics behind the detectors and the bench: Wilson intervals, Benjamini–Hochberg,
Monte Carlo p-values. Pure functions, checked against values worked out by hand or printed in
the papers that introduced them."""

from __future__ import annotations

import random

import pytest

from tables.detection.stats import (
    benjamini_hochberg,
    bh_adjusted,
    empirical_lower,
    empirical_upper,
    wilson_interval,
)

# Benjamini & Hochberg (1995), section 4: fifteen p-values from a study of myocardial
# infarction; at q = 0.05 the procedure rejects the four smallest (Bonferroni only three).
BH_1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262,
           0.5719, 0.6528, 0.7590, 1.0000]  # fmt: skip


def test_wilson_interval_matches_worked_values() -> None:
    # 0 of 10: (0, z²/(n+z²)) = (0, 0.2775); 5 of 10: 0.5 ± 0.2634; 9 of 10: (0.5958, 0.9821).
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(9, 10) == pytest.approx((0.5958, 0.9821), abs=1e-4)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(10, 10)[0] < 0.75
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_wilson_interval_covers_the_true_rate_about_95_percent_of_the_time() -> None:
    rng = random.Random(7)
    p, n, runs = 0.9, 20, 4000
    covered = 0
    for _ in range(runs):
        k = sum(rng.random() < p for _ in range(n))
        low, high = wilson_interval(k, n)
        covered += low <= p <= high
    assert 0.92 <= covered / runs <= 0.98


def test_benjamini_hochberg_rejects_the_four_smallest_of_the_1995_example() -> None:
    rejected = benjamini_hochberg(BH_1995, 0.05)
    assert rejected == [True] * 4 + [False] * 11
    # The step-up: p_(4) = 0.0095 <= 4 * 0.05/15 = 0.0133, p_(5) = 0.0201 > 5 * 0.05/15 = 0.0167 and
    # no later p_(k) is under its line; Bonferroni (0.05/15 = 0.0033) would stop at three.
    assert sum(p <= 0.05 / 15 for p in BH_1995) == 3
    adjusted = bh_adjusted(BH_1995)
    assert [q <= 0.05 for q in adjusted] == rejected
    assert adjusted[3] == pytest.approx(0.0095 * 15 / 4)
    assert adjusted == sorted(adjusted)  # monotone in the p-values


def test_benjamini_hochberg_step_up_rejects_a_larger_p_when_a_later_one_clears_its_line() -> None:
    # p_(1) = 0.02 > 0.05/3 but p_(2) = 0.03 <= 2 * 0.05/3: step-up rejects both.
    assert benjamini_hochberg([0.03, 0.02, 0.9], 0.05) == [True, True, False]
    assert benjamini_hochberg([0.03, 0.04, 0.9], 0.05) == [False, False, False]
    assert benjamini_hochberg([], 0.05) == []


def test_monte_carlo_p_values_count_the_observed_as_one_of_the_draws() -> None:
    simulated = list(range(100))  # 0..99
    assert empirical_upper(simulated, 95) == pytest.approx(6 / 101)  # 95..99 and the observed
    assert empirical_upper(simulated, 1000) == pytest.approx(1 / 101)  # never zero
    assert empirical_lower(simulated, 4) == pytest.approx(6 / 101)
