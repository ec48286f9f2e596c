"""IDEMPOTENCY_TTL: stored first responses are kept that long for retries, then beat purges them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from casino.celery import app as celery_app
from casino.idempotency import Replayed, fingerprint, run_once
from casino.models import IdempotencyRecord, User
from casino.services import purge_idempotency_records
from casino.tasks import purge_idempotency_records_task
from tests import factories
from tests.celery_support import worker_on

MINUTE = timedelta(minutes=1)


def _post(user: User, key: str) -> Any:
    """A POST under ``key``: a fresh run returns the action's result, a retry ``Replayed``."""
    return run_once(
        user=user,
        key=key,
        method="POST",
        path="/api/v1/cage/buy-ins",
        digest=fingerprint("POST /api/v1/cage/buy-ins", {"amount": 100}),
        action=lambda: {"key": key},
        outcome=lambda result: (201, result),
        conflict_message="used with another body",
    )


def _aged(user: User, key: str, age: timedelta) -> None:
    """A stored first response to ``key``, made ``age`` ago."""
    _post(user, key)
    IdempotencyRecord.objects.filter(user=user, key=key).update(created_at=timezone.now() - age)


@pytest.mark.django_db
def test_the_purge_deletes_only_records_past_the_ttl() -> None:
    user = factories.staff("cashier")
    _aged(user, "old", settings.IDEMPOTENCY_TTL + MINUTE)
    _aged(user, "older", settings.IDEMPOTENCY_TTL * 3)
    _aged(user, "young", settings.IDEMPOTENCY_TTL - MINUTE)
    _post(user, "new")

    assert purge_idempotency_records() == 2

    assert set(IdempotencyRecord.objects.filter(user=user).values_list("key", flat=True)) == {"young", "new"}


@pytest.mark.django_db
def test_a_retry_within_the_ttl_is_still_replayed_after_a_purge() -> None:
    user = factories.staff("cashier")
    _aged(user, "young", settings.IDEMPOTENCY_TTL - MINUTE)
    _aged(user, "old", settings.IDEMPOTENCY_TTL + MINUTE)

    purge_idempotency_records()

    assert _post(user, "young") == Replayed(status=201, body={"key": "young"})
    assert _post(user, "old") == {"key": "old"}  # past the TTL the key runs afresh


def test_beat_purges_idempotency_records_with_a_task_the_worker_knows() -> None:
    celery_app.loader.import_default_modules()
    entry = settings.CELERY_BEAT_SCHEDULE["purge-idempotency-records"]
    assert entry["task"] == purge_idempotency_records_task.name
    assert entry["task"] in celery_app.tasks


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_the_purge(task_queue: str) -> None:
    user = factories.staff("cashier")
    _aged(user, "old", settings.IDEMPOTENCY_TTL + MINUTE)
    _aged(user, "young", settings.IDEMPOTENCY_TTL - MINUTE)

    with worker_on(task_queue):
        assert purge_idempotency_records_task.delay().get(timeout=60) == 1

    assert list(IdempotencyRecord.objects.filter(user=user).values_list("key", flat=True)) == ["young"]
