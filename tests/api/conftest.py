"""API fixtures: every test starts with the cage; the matrix modules share one built floor."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import transaction
from pytest_django import DjangoDbBlocker

from ledger.services import ensure_system_accounts
from tests.api.world import World, build_world


@pytest.fixture(autouse=True)
def _floor_accounts(system_accounts: None) -> None:
    """Every API test may move chips, so the cage must exist even after a transactional flush."""


@pytest.fixture(scope="session", autouse=True)
def _restore_system_accounts_at_end(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[None]:
    """The concurrency test commits and is flushed afterwards, taking migration 0003's cage and
    rake rows with it; put them back so a ``--reuse-db`` session after this one finds them."""
    yield
    with django_db_blocker.unblock():
        ensure_system_accounts()


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """One floor per module, built inside a transaction that is rolled back after the module.

    Each test still runs in its own savepoint (the ``db`` fixture), so what a test changes is
    undone before the next one and every test sees the same starting floor.
    """
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            ensure_system_accounts()
            yield build_world()
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
