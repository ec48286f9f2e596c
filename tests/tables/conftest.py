"""Fixtures of the table tests driven through the HTTP API (tests/factories.py ``ApiFloor``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.factories import ApiFloor
from tests.tables.api_tables import assert_ledger_sound


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


@pytest.fixture
def rounds_replay_exactly(floor: ApiFloor) -> Iterator[None]:
    """After the test every round, live or settled, replays to its stored state and settlements
    (``tables.replay.check_round`` and ``manage.py replay_round``), and the ledger balances.
    A module asks for it with ``pytestmark = pytest.mark.usefixtures("rounds_replay_exactly")``."""
    yield
    floor.assert_rounds_replay()
    assert_ledger_sound()
