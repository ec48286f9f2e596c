"""Ratings fixtures: a real Celery worker (a thread, solo pool) on Redis, on a queue of its own.

Every task the test sends is routed to that queue, so a developer's worker on the same Redis
never rates the test's rounds against another database, and the test's worker never takes
theirs. Transactional tests end with a flush that removes the cage and rake accounts of
ledger migration 0003; they are put back when the session ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_django import DjangoDbBlocker

from ledger.services import ensure_system_accounts
from tests.celery_support import worker_on
from tests.db_support import fast_commits_on_every_connection


@pytest.fixture(scope="session", autouse=True)
def _system_accounts_back_after_flushes(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[None]:
    yield  # torn down before django_db_setup, so this still writes to the test database
    with django_db_blocker.unblock():
        ensure_system_accounts()


@pytest.fixture
def ratings_worker(task_queue: str) -> Iterator[Any]:
    """A real worker on the Redis broker and result backend (not ``task_always_eager``)."""
    with worker_on(task_queue) as worker:
        yield worker


@pytest.fixture
def fast_commits(transactional_db: None) -> Iterator[None]:
    with fast_commits_on_every_connection():
        yield


@pytest.fixture
def wait_until() -> Callable[..., None]:
    def _wait(condition: Callable[[], bool], *, timeout: float = 120.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what or condition}")
            time.sleep(0.1)

    return _wait
