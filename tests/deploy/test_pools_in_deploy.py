"""deploy/ starts one worker pool per Celery queue and a streaming replica, wherever it runs
(compose, systemd, Procfile); and the settings route each task to the queue its pool expects."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

from casino.celery import app as celery_app

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
QUEUES = [queue.name for queue in settings.CELERY_TASK_QUEUES]


def route(task: str) -> str:
    return str(celery_app.amqp.router.route({}, task)["queue"].name)


def test_the_four_queues() -> None:
    assert QUEUES == ["floor", "ratings", "audit", "detection"]


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("tables.console.tasks.refresh_pit_floor_task", "floor"),
        ("tables.tasks.charge_time_rake_task", "floor"),
        ("tables.tasks.expire_holds_task", "floor"),
        ("casino.tasks.purge_expired_tokens_task", "floor"),
        ("tables.audit.tasks.sweep_audits_task", "floor"),  # quick: it only sends
        ("tables.audit.tasks.audit_previous_gaming_day_task", "floor"),
        ("tables.tasks.rate_round_task", "ratings"),
        ("tables.tasks.rate_unrated_rounds_task", "ratings"),
        ("tables.audit.tasks.run_audit_task", "audit"),
        ("tables.audit.tasks.render_report_files_task", "audit"),
        ("tables.detection.tasks.run_detectors_task", "detection"),
        ("tables.detection.tasks.detect_previous_gaming_day_task", "detection"),
        ("tables.detection.tasks.detect_live_task", "detection"),
        ("a.task.added.later", "floor"),
    ],
)
def test_each_task_goes_to_its_queue(task: str, queue: str) -> None:
    assert route(task) == queue


def test_every_beat_task_goes_to_a_queue_a_pool_consumes() -> None:
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert route(str(entry["task"])) in QUEUES


def test_compose_runs_a_pool_per_queue_and_the_replica() -> None:
    services: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    pools = {name: s for name, s in services.items() if s.get("command") == ["worker"]}
    assert sorted(str(s["environment"]["CELERY_QUEUES"]) for s in pools.values()) == sorted(
        ["floor", "ratings", "${AUDIT_QUEUE:-audit}", "detection"]
    )
    assert "worker" not in services, "no pool takes every queue"
    assert services["db-replica"]["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert "@db-replica:5432/" in services["web"]["environment"]["REPLICA_DATABASE_URL"]
    assert all("REPLICA_DATABASE_URL" in s["environment"] for s in pools.values())


def test_the_procfile_and_systemd_run_a_pool_per_queue() -> None:
    procfile = (DEPLOY / "Procfile").read_text()
    for queue in QUEUES:
        assert f"entrypoint.sh worker {queue}\n" in procfile
    unit = (DEPLOY / "systemd" / "casekeeper-worker@.service").read_text()
    assert "--queues=%i" in unit
    readme = (DEPLOY / "README.md").read_text()
    for queue in QUEUES:
        assert f"casekeeper-worker@{queue}" in readme


@pytest.mark.parametrize(
    "script",
    [
        "entrypoint.sh",
        "scripts/make-primary",
        "scripts/make-replica",
        "postgres/replica.sh",
        "postgres/primary-init.sh",
    ],
)
def test_the_scripts_parse(script: str) -> None:
    done = subprocess.run(["bash", "-n", str(DEPLOY / script)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
