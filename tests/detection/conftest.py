"""Detection fixtures: two small simulated nights, detected by a real Celery worker on Redis.

The nights are built once per test session (they are the slow part): a clean one, and one
with every cheat scenario injected (``bench.cheats.inject``). Each is simulated
through the real services with the database committing (``django_db_blocker.unblock()``),
then every detector runs as ``run_detector_task`` on a worker thread (solo pool, not eager)
consuming a queue of its own, twice (the second run must only update). The alerts, the task
summaries and the ground truth are kept as plain data, and the database is flushed, so the
tests below read snapshots and other tests find an empty database.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.backends.signals import connection_created
from pytest_django import DjangoDbBlocker

from bench.cheats.inject import Injector
from ledger.gaming_day import gaming_day_for
from ledger.services import ensure_system_accounts
from tables.detection.detectors import DETECTORS
from tables.detection.models import Alert
from tables.detection.tasks import run_detector_task
from tables.simulation.night import NightConfig, simulate_night
from tests.celery_support import route_all_tasks_to, worker_on

TASK_TIMEOUT = 120

# 5 Faro tables and a card room, two passes: enough play for every detector to look at.
CLEAN = NightConfig(tables=6, players=26, rounds=2, seed=5, games=("faro", "stakes"), stakes_rounds=6)
# 3 Faro tables (the stacker's, the fill abuser's, the cold deck's) and the three card-room
# tables the stakes scenarios add; every scenario at a rate that shows in four passes.
INJECT = {
    "split_stacker": 1.0,
    "colluders": 1.0,
    "dumper": 1.0,
    "dealer_partner": 1.0,
    "structurer": 1.0,
    "chip_walker": 1.0,
    "limit_prober": 0.5,
    "fill_abuser": 1.0,
    "short_count": 0.5,
    "cold_deck": 1.0,
}
INJECTED = NightConfig(tables=3, players=40, rounds=4, seed=12, games=("faro", "stakes"), stakes_rounds=10)


@dataclass
class DetectedNight:
    config: NightConfig
    tables: int
    days: list[dt.date]
    truth: dict[str, Any] | None
    alerts: list[dict[str, Any]]
    first_runs: list[dict[str, Any]]
    second_runs: list[dict[str, Any]]
    seconds: dict[str, float] = field(default_factory=dict)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [a for a in self.alerts if a["kind"] == kind]

    def scenario(self, name: str) -> dict[str, Any]:
        assert self.truth is not None
        return next(item for item in self.truth["scenarios"] if item["scenario"] == name)


def _async_commit(sender: Any, connection: Any, **kwargs: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")


def flush() -> None:
    """Empty every table (TRUNCATE: the ledger's no-DELETE triggers do not fire) and put back
    the cage and rake accounts of ledger migration 0003."""
    call_command("flush", interactive=False, verbosity=0)
    ensure_system_accounts()


def snapshot(alert: Alert) -> dict[str, Any]:
    return {
        "id": alert.pk,
        "kind": alert.kind,
        "detector": alert.detector,
        "severity": alert.severity,
        "table": alert.table_id,
        "dealer": alert.dealer_id,
        "player": alert.player_id,
        "gaming_day": alert.gaming_day,
        "summary": alert.summary,
        "evidence": alert.evidence,
        "status": alert.status,
        "detections": alert.detections,
        "dedup_key": alert.dedup_key,
    }


def detect_night(config: NightConfig, inject: dict[str, float] | None = None) -> DetectedNight:
    """The night of ``config`` with the cheats of ``inject`` on top (none: a clean night), detected."""
    flush()
    started = time.monotonic()
    first_day = gaming_day_for()
    injector = Injector(inject) if inject else None
    summary = simulate_night(config, hooks=injector)
    simulated = time.monotonic() - started
    days = sorted({first_day, gaming_day_for()})
    first, second = [], []
    for runs in (first, second):
        sent = [run_detector_task.delay(name, day.isoformat()) for day in days for name in DETECTORS]
        runs += [result.get(timeout=TASK_TIMEOUT) for result in sent]
    # The detectors' alerts: a count's own alert is written with its slip (tables.slips.alerts),
    # when a simulated closer is short, and is judged by tests/slips, not by the detectors' truth.
    alerts = [snapshot(a) for a in Alert.objects.filter(detector__in=DETECTORS).order_by("pk")]
    return DetectedNight(
        config=config,
        tables=summary.tables,
        days=days,
        truth=injector.truth() if injector else None,
        alerts=alerts,
        first_runs=first,
        second_runs=second,
        seconds={"simulate": simulated, "detect": time.monotonic() - started - simulated},
    )


@pytest.fixture(scope="session")
def nights(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Iterator[dict[str, DetectedNight]]:
    queue = f"detect-test-{uuid.uuid4().hex[:12]}"
    route_all_tasks_to(queue)
    connection_created.connect(_async_commit)
    try:
        with django_db_blocker.unblock():
            with connection.cursor() as cursor:
                cursor.execute("SET synchronous_commit TO off")
            with worker_on(queue):
                built = {"clean": detect_night(CLEAN), "injected": detect_night(INJECTED, INJECT)}
            flush()
        yield built
    finally:
        connection_created.disconnect(_async_commit)
        route_all_tasks_to(None)


@pytest.fixture
def clean(nights: dict[str, DetectedNight]) -> DetectedNight:
    return nights["clean"]


@pytest.fixture
def injected(nights: dict[str, DetectedNight]) -> DetectedNight:
    return nights["injected"]


@pytest.fixture(scope="session")
def system_accounts_back_after_flushes(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[None]:
    """Transactional tests end with a flush that removes the cage and rake rows; put them back."""
    yield
    with django_db_blocker.unblock():
        ensure_system_accounts()


@pytest.fixture
def detect_worker(task_queue: str, system_accounts_back_after_flushes: None) -> Iterator[Any]:
    """A real worker thread (solo pool) on the Redis broker and result backend, for one test."""
    with worker_on(task_queue) as worker:
        yield worker
