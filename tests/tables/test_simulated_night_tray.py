"""The simulated night keeps dealing when a Faro tray cannot pay a turn's winners.

The turn is refused whole (``insufficient_funds``: the tray pays winners 1:1, GAMES.md), so the
simulated dealer asks for a fill mid-deal, the cage issues it and the dealer and a pit boss sign
for it, and the turn is dealt again, as on a real floor. Until 2026-11-28 the simulator dealt the
refused turn again and again until its action cap and the night stopped (the bench's test seed
120, one night at the default rates).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tables.models import Round, RoundStatus
from tables.simulation import night
from tables.simulation.night import NightConfig, simulate_night
from tables.slips.models import Slip

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("system_accounts"),
]


def test_a_tray_too_small_for_a_turn_is_filled_mid_deal(monkeypatch: Any) -> None:
    faro = night.SPECS["faro"]
    monkeypatch.setitem(night.SPECS, "faro", dataclasses.replace(faro, opening=faro.min_bet * 2))
    summary = simulate_night(NightConfig(tables=1, players=6, rounds=2, seed=7, games=("faro",)))
    assert summary.rounds == 2
    assert Round.objects.filter(game="faro").count() == 2
    assert not Round.objects.exclude(status=RoundStatus.SETTLED).exists()  # every deal dealt out
    assert summary.fills >= 1
    assert Slip.objects.filter(kind="fill", status="received").count() == summary.fills
