"""The audit through a broker outage and a killed worker (issue 18, item 13).

* Closing a day while the broker is down (stopped, or hung: a paused redis-server that accepts
  connections and answers nothing) answers 202 at once with the report recorded as queued and
  unsent; once the broker is back, the sweep (``sweep_audits_task``, run by a real worker)
  sends it under the same task id and the worker completes it.
* A worker SIGKILLed mid-audit (a real ``celery worker`` subprocess) leaves the report running
  with a heartbeat that stops; the sweep sees it stale with no session holding its lock,
  queues it again and a worker completes it once: one report, one audited entry, and the
  original message, were Redis to redeliver it, is skipped.

Brokers here are private redis-servers (tests/redis_support.py); results stay on the shared Redis.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import Error
from django.db.models import F
from django.test import Client

from casino.celery import app as celery_app
from casino.models import ActionLog, User
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay
from tables.audit import checks
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.selectors import get_liveness
from tables.audit.services import LOCK_CLASS, UNSENT_GRACE, run_audit, sweep_audits
from tables.audit.tasks import sweep_audits_task
from tables.simulation.night import NightConfig, simulate_night
from tests.celery_support import forget_routes, worker_on
from tests.deploy.test_faults import Broker, backends, held, start_worker, wait_for
from tests.redis_support import PrivateRedis, celery_broker, private_redis

pytestmark = pytest.mark.outage

SLOW_SEND = 3.0  # seconds; the send gives up after ~0.2 s (TASK_SEND_TIMEOUT_SECONDS), before the fix: never


def _yesterday() -> dt.date:
    return gaming_day_for() - dt.timedelta(days=1)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    with private_redis(tmp_path) as server:
        yield server


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("outage", ["stopped", "hung"])
def test_a_close_during_a_broker_outage_is_202_and_the_sweep_sends_it_later(
    outage: str,
    auditor: User,
    login: Any,
    audit_queue: str,
    broker: PrivateRedis,
    wait_for_task: Callable[[str], Any],
) -> None:
    client = login(auditor)
    day = _yesterday().isoformat()
    with celery_broker(broker.url):
        if outage == "hung":
            broker.start()
            broker.pause()
        began = time.monotonic()
        response = client.post(f"/api/v1/gaming-days/{day}/close", {}, format="json")
        took = time.monotonic() - began
        assert response.status_code == 202, response.content
        assert took < SLOW_SEND, f"the close waited {took:.1f}s for the broker"
        task_id = response.json()["task_id"]
        report = AuditReport.objects.get()
        assert (report.status, report.task_id, report.sent_at) == (AuditStatus.QUEUED, task_id, None)
        again = client.post(f"/api/v1/gaming-days/{day}/close", {}, format="json")
        assert again.status_code == 202
        assert again.json()["task_id"] == task_id, "a close while one is queued returns it"
        # As the beat finds it a little later (a fresh close gets UNSENT_GRACE to send on its own).
        AuditReport.objects.filter(pk=report.pk).update(requested_at=F("requested_at") - UNSENT_GRACE * 2)
        assert sweep_audits().unsent == [report.pk], "still down: nothing sent, nothing lost"

        if outage == "hung":
            broker.resume()
        else:
            broker.start()
        with worker_on(audit_queue):
            # What beat does every AUDIT_SWEEP_SECONDS: the sweep, run by a worker, sends the audit.
            sweep = sweep_audits_task.delay().get(timeout=60)
            assert sweep["sent"] == [report.pk]
            outcome = wait_for_task(task_id)
    assert outcome["status"] == "done"
    report.refresh_from_db()
    assert (report.status, report.task_id, report.runs, report.restarts) == (AuditStatus.DONE, task_id, 1, 0)
    assert report.sent_at is not None
    assert ClosedGamingDay.objects.filter(day=_yesterday()).count() == 1
    body = client.get(f"/api/v1/gaming-days/{day}/report").json()
    assert (body["status"], body["task_id"], body["stale"]) == ("done", task_id, False)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_audit_is_restarted_by_the_sweep_and_finishes_once(
    auditor: User,
    login: Any,
    broker: PrivateRedis,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    queue = f"audit-killed-{uuid.uuid4().hex[:12]}"
    settings.AUDIT_QUEUE = queue
    broker.start()
    old_routes = celery_app.conf.task_routes
    # The night's ratings go to a queue nobody reads (on the private Redis, gone at the end).
    celery_app.conf.task_routes = {
        "tables.tasks.rate_round_task": {"queue": f"{queue}-ratings"},
        "*": {"queue": queue},
    }
    try:
        with celery_broker(broker.url):
            summary = simulate_night(NightConfig(tables=2, players=6, rounds=1, seed=5, games=("faro",)))
            assert summary.rounds > 0
            day = gaming_day_for()
            client = login(auditor)
            monkeypatch.setenv("AUDIT_HEARTBEAT_SECONDS", "0.3")  # the worker subprocess's beat

            # The run stops at its first read of the round actions; the kill lands mid-run.
            with held("LOCK TABLE tables_roundaction IN ACCESS EXCLUSIVE MODE"):
                first = start_worker(Broker(url=broker.url, queue=queue), "audit-killed", tmp_path)
                try:
                    response = client.post(f"/api/v1/gaming-days/{day}/close", {"force": True}, format="json")
                    assert response.status_code == 202, response.content
                    task_id = response.json()["task_id"]

                    def stuck_mid_run() -> AuditReport | None:
                        report = AuditReport.objects.get(gaming_day=day)
                        waiting = backends("audit-killed", waiting=True)
                        return report if report.status == AuditStatus.RUNNING and waiting else None

                    stuck = wait_for(stuck_mid_run, timeout=60, what=f"the audit to run\n{first.output()}")
                    beat = stuck.heartbeat_at
                    assert beat is not None
                    # Blocked on the lock, the run still beats (from its heartbeat thread).
                    wait_for(
                        lambda: AuditReport.objects.filter(pk=stuck.pk, heartbeat_at__gt=beat).exists(),
                        timeout=30,
                        what="a heartbeat while the audit waits",
                    )
                    first.kill()
                finally:
                    first.stop()
            wait_for(
                lambda: not backends("audit-killed"), timeout=30, what="the killed worker's sessions to end"
            )

            dead = AuditReport.objects.get(gaming_day=day)
            assert (dead.status, dead.runs, dead.task_id) == (AuditStatus.RUNNING, 1, task_id)
            assert not ActionLog.objects.filter(action="gaming_day.audited").exists()

            settings.AUDIT_STALE_SECONDS = 2.0  # the sweep's threshold (this process)
            with worker_on(queue):
                wait_for(
                    lambda: dead.pk in sweep_audits().restarted,
                    timeout=60,
                    what="the sweep to find the run dead",
                    every=0.5,
                )
                finished = wait_for(
                    lambda: AuditReport.objects.filter(pk=dead.pk, status=AuditStatus.DONE).first(),
                    timeout=120,
                    what="the restarted audit to finish",
                    every=0.25,
                )
                outcome = celery_app.AsyncResult(task_id).get(timeout=30)
    finally:
        celery_app.conf.task_routes = old_routes
        forget_routes()

    assert outcome["status"] == "done"
    assert (finished.task_id, finished.runs, finished.restarts) == (task_id, 2, 1)
    assert AuditReport.objects.count() == 1
    assert ClosedGamingDay.objects.filter(day=day).count() == 1
    assert ActionLog.objects.filter(action="gaming_day.audit_restarted").count() == 1
    assert ActionLog.objects.filter(action="gaming_day.audited").count() == 1
    data = finished.data
    assert sorted(row["id"] for row in data["tables"]) == sorted(summary.table_ids)
    assert data["summary"]["rounds"] == summary.rounds
    assert all(check["passed"] for check in data["checks"]), data["checks"]
    assert [f for f in data["findings"] if f["severity"] == "critical"] == []

    # The dead worker's own message, should Redis redeliver it after its visibility timeout:
    # the same task, done already, so the report is left as it is.
    again = run_audit(report_id=finished.pk, task_id=task_id)
    assert (again.runs, again.finished_at, again.data) == (2, finished.finished_at, data)


# --------------------------------------------------------------------------- the sweep, without a worker


def _running(day: dt.date, *, silent_for: float, restarts: int = 0) -> AuditReport:
    beat = dt.datetime.now(tz=dt.UTC) - dt.timedelta(seconds=silent_for)
    return AuditReport.objects.create(
        gaming_day=day,
        requested_at=beat,
        status=AuditStatus.RUNNING,
        task_id=str(uuid.uuid4()),
        sent_at=beat,
        started_at=beat,
        heartbeat_at=beat,
        runs=1 + restarts,
        restarts=restarts,
    )


@pytest.mark.django_db
def test_the_sweep_restarts_only_runs_that_are_silent_and_unlocked(
    system_accounts: None, auditor: User, login: Any, settings: Any, broker: PrivateRedis
) -> None:
    settings.AUDIT_STALE_SECONDS = 60
    alive = _running(_yesterday(), silent_for=5)
    silent = _running(_yesterday() - dt.timedelta(days=1), silent_for=600)

    client = login(auditor)
    body = client.get(f"/api/v1/gaming-days/{silent.gaming_day}/report").json()
    assert body["status"] == "running"
    assert body["stale"] is True
    assert body["seconds_since_heartbeat"] >= 600
    assert silent.heartbeat_at is not None
    assert body["heartbeat_at"] == silent.heartbeat_at.isoformat()
    assert client.get(f"/api/v1/gaming-days/{alive.gaming_day}/report").json()["stale"] is False
    page = Client()
    page.force_login(auditor)
    shown = page.get(f"/audit/{silent.gaming_day}/").content.decode()
    assert "Last heartbeat from its worker" in shown
    assert "the worker seems to have stopped" in shown
    assert "seems to have stopped" not in page.get(f"/audit/{alive.gaming_day}/").content.decode()

    # A session holds the run's lock: its worker may be alive, only slow; nothing is restarted.
    with held("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, silent.pk)), celery_broker(broker.url):
        assert sweep_audits().restarted == []
    silent.refresh_from_db()
    assert silent.status == AuditStatus.RUNNING

    with celery_broker(broker.url):  # down: the restarted run waits, queued, for the next sweep
        result = sweep_audits()
    assert (result.restarted, result.sent, result.unsent) == ([silent.pk], [], [silent.pk])
    silent.refresh_from_db()
    alive.refresh_from_db()
    assert alive.status == AuditStatus.RUNNING
    assert (silent.status, silent.restarts) == (AuditStatus.QUEUED, 1)
    assert (
        ActionLog.objects.filter(action="gaming_day.audit_restarted", object_id=str(silent.pk)).count() == 1
    )


@pytest.mark.django_db
def test_a_run_that_keeps_dying_is_failed_not_restarted_forever(
    system_accounts: None, settings: Any, broker: PrivateRedis
) -> None:
    settings.AUDIT_MAX_RESTARTS = 2
    report = _running(_yesterday(), silent_for=600, restarts=2)
    with celery_broker(broker.url):
        result = sweep_audits()
    assert (result.restarted, result.failed) == ([], [report.pk])
    report.refresh_from_db()
    assert report.status == AuditStatus.FAILED
    assert "stopped 3 times" in report.error
    assert get_liveness(report).stale is False


def test_the_broker_must_not_redeliver_an_audit_still_running(settings: Any) -> None:
    assert checks.check_audit_fits_the_broker() == []
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
    settings.AUDIT_TIME_LIMIT_SECONDS = 1800
    found = checks.check_audit_fits_the_broker()
    assert [(type(e), e.id) for e in found] == [(Error, "tables.E001")]
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 7200}
    settings.AUDIT_HEARTBEAT_SECONDS = 40
    assert [e.id for e in checks.check_audit_fits_the_broker()] == ["tables.E002"]
