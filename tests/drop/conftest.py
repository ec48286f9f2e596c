"""The drop's floor: an open table with its dealer, a funded player and two count team members."""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role, User
from tables.models import Table
from tests import factories


@pytest.fixture
def counter(system_accounts: None) -> User:
    return factories.staff(Role.COUNT_TEAM, name="Cora Count")


@pytest.fixture
def second_counter(system_accounts: None) -> User:
    return factories.staff(Role.COUNT_TEAM, name="Sam Second")


@pytest.fixture
def open_table(table: Table) -> Table:
    """``table`` open with $1,000.00 in its tray."""
    factories.open_table_for(table, inventory=100_000)
    table.refresh_from_db()
    return table


@pytest.fixture
def client_of(login: Any) -> Any:
    return login
