"""One worker pool per queue, as deploy/ runs them: a long audit never holds up the pit's floor.

Two real workers (``celery -A casino worker -Q <queue>``, subprocesses, as deploy/entrypoint.sh
starts a pool), one on the audit's queue and one on the floor's, each on a queue named for this
test, and the tasks routed by the settings' own routes onto them
(``tests.celery_support.route_to_own_queues``). The audit is held mid-run by a lock on the round
actions it reads; meanwhile the pit's floor refresh, routed to the floor's queue, is done. A
refresh sent to the audit's queue instead waits behind the audit: what one pool for every task
would do to all of them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import current_app
from django.core.cache import cache

from casino.celery import app as celery_app
from casino.models import User
from casino.task_sending import send_task
from ledger.gaming_day import gaming_day_for
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.services import RUN_AUDIT_TASK
from tables.console.pit.floor import REFRESH_TASK, CardForms
from tables.simulation.night import NightConfig, simulate_night
from tests.celery_support import forget_broker_pools, route_all_tasks_to, route_to_own_queues
from tests.deploy.test_faults import BIN, Service, backends, held, service_env, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

START_TIMEOUT = 60.0
# The pit's shared floor as two roles see it: each has its own copy in the cache.
ON_THE_FLOOR_QUEUE = CardForms(False, False, False, False)
ON_THE_AUDIT_QUEUE = CardForms(True, False, False, False)


@pytest.fixture
def queues(settings: Any) -> Iterator[dict[str, str]]:
    """The settings' routes onto queues of this test's own; the queues deleted at the end."""
    prefix = f"pools-{uuid.uuid4().hex[:12]}"
    renamed = route_to_own_queues(prefix)
    settings.AUDIT_QUEUE = renamed[settings.AUDIT_QUEUE]  # the audit's send names its queue itself
    cache.delete_many([ON_THE_FLOOR_QUEUE.key, ON_THE_AUDIT_QUEUE.key])
    try:
        yield renamed
    finally:
        route_all_tasks_to(None)
        forget_broker_pools()
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        for key in client.scan_iter(f"*{prefix}*"):
            client.delete(key)
        client.close()


def start_pool(queue: str, name: str, log_dir: Path, audit_queue: str) -> Service:
    """A pool as deploy/entrypoint.sh starts one: ``celery worker -Q <queue>``, one process."""
    return Service(
        [
            str(BIN / "celery"),
            "-A",
            "casino",
            "worker",
            "--concurrency=1",
            "-Q",
            queue,
            "-n",
            f"{name}@%h",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        service_env(name, AUDIT_QUEUE=audit_queue),
        log_dir / f"{name}.log",
    )


def refresh_floor(forms: CardForms, **options: Any) -> None:
    """What a pit poll does when its copy of the floor ages: ask a worker for the next one."""
    assert send_task(
        current_app.signature(REFRESH_TASK), args=[list(forms.flags)], ignore_result=True, **options
    )


def test_a_long_audit_on_its_pool_does_not_hold_up_the_floor_refresh(
    auditor: User, login: Any, queues: dict[str, str], settings: Any, tmp_path: Path
) -> None:
    assert celery_app.amqp.router.route({}, RUN_AUDIT_TASK)["queue"].name == queues["audit"]
    assert celery_app.amqp.router.route({}, REFRESH_TASK)["queue"].name == queues["floor"]
    summary = simulate_night(NightConfig(tables=2, players=6, rounds=1, seed=5, games=("faro",)))
    assert summary.rounds > 0
    day = gaming_day_for()
    client = login(auditor)

    audit_pool = start_pool(queues["audit"], "pools-audit", tmp_path, queues["audit"])
    floor_pool = start_pool(queues["floor"], "pools-floor", tmp_path, queues["audit"])
    try:
        # The audit stops at its first read of the round actions and stays there while this holds.
        with held("LOCK TABLE tables_roundaction IN ACCESS EXCLUSIVE MODE"):
            response = client.post(f"/api/v1/gaming-days/{day}/close", {"force": True}, format="json")
            assert response.status_code == 202, response.content

            def audit_held() -> bool:
                report = AuditReport.objects.get(gaming_day=day)
                return report.status == AuditStatus.RUNNING and bool(backends("pools-audit", waiting=True))

            wait_for(audit_held, timeout=START_TIMEOUT, what=f"the audit to run\n{audit_pool.output()}")
            refresh_floor(ON_THE_AUDIT_QUEUE, queue=queues["audit"])  # one pool for everything
            refresh_floor(ON_THE_FLOOR_QUEUE)  # routed to the floor's pool

            wait_for(
                lambda: cache.get(ON_THE_FLOOR_QUEUE.key) is not None,
                timeout=START_TIMEOUT,
                what=f"the floor's pool to refresh the floor\n{floor_pool.output()}",
            )
            assert audit_held(), "the audit was still running when the floor was refreshed"
            assert cache.get(ON_THE_AUDIT_QUEUE.key) is None, "the refresh behind the audit waits"
            assert redis.Redis.from_url(settings.CELERY_BROKER_URL).llen(queues["audit"]) == 1

        # The audit goes on once the lock is gone; the refresh queued behind it runs after it.
        wait_for(
            lambda: AuditReport.objects.filter(gaming_day=day, status=AuditStatus.DONE).exists(),
            timeout=120,
            what=f"the audit to finish\n{audit_pool.output()}",
            every=0.25,
        )
        wait_for(
            lambda: cache.get(ON_THE_AUDIT_QUEUE.key) is not None,
            timeout=START_TIMEOUT,
            what=f"the refresh queued behind the audit\n{audit_pool.output()}",
        )
    finally:
        audit_pool.stop()
        floor_pool.stop()
    report = AuditReport.objects.get(gaming_day=day)
    assert report.data["summary"]["rounds"] == summary.rounds
