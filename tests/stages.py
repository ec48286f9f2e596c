"""The suite's two stages, and the check that keeps each test in the right one.

The gate stage runs in parallel (``pytest -n 2 -m "not browser and not worker and not outage"``);
the second stage runs what needs Chromium, a real Celery worker or a Redis of its own to stop.
A test that starts a worker or a private Redis without its mark would run in the gate, beside
another process's tests: ``require`` fails it with the mark to add instead.
"""

from __future__ import annotations

import pytest

SECOND_STAGE = ("browser", "worker", "outage")
GATE = " and ".join(f"not {mark}" for mark in SECOND_STAGE)

# Fixtures that start a real Celery worker: a test using one is a ``worker`` test.
WORKER_FIXTURES = frozenset({"audit_worker", "ratings_worker", "detect_worker", "nights"})

_running: pytest.Item | None = None


def classify(item: pytest.Item) -> None:
    """Give a test the marks its fixtures imply (Chromium, a real worker)."""
    names = set(getattr(item, "fixturenames", ()))
    if "browser" in names:
        item.add_marker(pytest.mark.browser)
    if names & WORKER_FIXTURES:
        item.add_marker(pytest.mark.worker)


def running(item: pytest.Item | None) -> None:
    global _running
    _running = item


def require(mark: str, what: str) -> None:
    """Fail the running test unless it runs in the second stage (``mark`` is the one to add)."""
    if _running is not None and not any(_running.get_closest_marker(name) for name in SECOND_STAGE):
        pytest.fail(f"{_running.nodeid} starts {what}: mark it @pytest.mark.{mark} (tests/stages.py)")
