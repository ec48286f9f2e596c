"""Audit fixtures: a real Celery worker on Redis (in a thread, not eager) and quick commits.

The worker consumes a queue of its own (``AUDIT_QUEUE``), so a developer's worker running
on the same Redis never takes the test's task, and the test's worker never takes theirs.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from pytest_django.plugin import blocking_manager_key

from casino.celery import app as celery_app
from ledger.services import ensure_system_accounts
from tests.celery_support import route_all_tasks_to, worker_on
from tests.db_support import fast_commits_on_every_connection


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A transactional test ends with a flush that empties ``ledger_account``, cage and rake
    rows (migration 0003) included: put them back at once, for whatever test runs next."""
    yield
    marker = item.get_closest_marker("django_db")
    if marker is not None and marker.kwargs.get("transaction"):
        with item.config.stash[blocking_manager_key].unblock():
            ensure_system_accounts()


@pytest.fixture
def fast_commits(db: None) -> Iterator[None]:
    with fast_commits_on_every_connection():
        yield


@pytest.fixture
def audit_queue(settings: Any) -> Iterator[str]:
    """A queue of the test's own; every task the test sends goes there (the night's ratings too),
    so no other worker on this Redis runs them against another database."""
    queue = f"audit-test-{uuid.uuid4().hex[:12]}"
    settings.AUDIT_QUEUE = queue
    route_all_tasks_to(queue)
    yield queue
    route_all_tasks_to(None)


@pytest.fixture
def audit_worker(audit_queue: str) -> Iterator[Any]:
    """A real worker thread (solo pool) on the Redis broker and result backend."""
    with worker_on(audit_queue) as worker:
        yield worker


class TaskStates:
    """Every state the result backend publishes for tasks (Redis pub/sub), in order."""

    def __init__(self) -> None:
        self.client = redis.Redis.from_url(settings.CELERY_RESULT_BACKEND)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.psubscribe("celery-task-meta-*")
        self.seen: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            message = self.pubsub.get_message(timeout=0.1)
            if message and message.get("type") == "pmessage":
                self.seen.append(json.loads(message["data"]))

    def of(self, task_id: str) -> list[dict[str, Any]]:
        return [state for state in self.seen if state.get("task_id") == task_id]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.pubsub.close()
        self.client.close()


@pytest.fixture
def task_states() -> Iterator[TaskStates]:
    states = TaskStates()
    yield states
    states.close()


@pytest.fixture
def wait_for_task() -> Callable[[str], Any]:
    def _wait(task_id: str, timeout: float = 120.0) -> Any:
        return celery_app.AsyncResult(task_id).get(timeout=timeout, propagate=True)

    return _wait
