"""The power table behind the claim that 126 shared rounds cannot show half-rate soft play."""

from __future__ import annotations

import pytest

from bench.flow_power import fewest_wins, power
from tables.detection.stats import binomial_upper


@pytest.mark.parametrize("decided", [1, 10, 31, 50])
@pytest.mark.parametrize("line", [5e-4, 0.01, 0.2])
def test_the_line_is_the_detectors_own_direction_p(decided: int, line: float) -> None:
    k = fewest_wins(decided, line)
    assert k > decided or binomial_upper(decided, k) <= line
    assert binomial_upper(decided, k - 1) > line


def test_without_soft_play_the_test_keeps_its_level() -> None:
    assert 0 < power(126, 4, 0.0, 0.01) <= 0.01


def test_more_shared_rounds_find_more_and_126_fall_short_of_the_goal() -> None:
    at_126, at_336 = power(126, 5, 0.5, 5e-4), power(336, 5, 0.5, 5e-4)
    assert at_126 == pytest.approx(0.583, abs=0.001)
    assert at_126 < 0.9 < at_336
