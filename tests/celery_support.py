"""Real Celery workers for tests: a thread (solo pool) on Redis, consuming a queue of its own.

Every task a test sends is routed to that queue, so a developer's worker on the same Redis
never runs the test's tasks against another database, and the test's worker never takes theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery.contrib.testing.worker import start_worker
from django.conf import settings
from kombu import pools

from casino.celery import app as celery_app
from tests import stages


def route_all_tasks_to(queue: str | None) -> None:
    """Send every task to ``queue`` (None: back to the configured routes)."""
    celery_app.conf.task_routes = {"*": {"queue": queue}} if queue else settings.CELERY_TASK_ROUTES
    forget_routes()


def route_to_own_queues(prefix: str) -> dict[str, str]:
    """Route each task as the settings do, to ``<prefix>-<queue>`` instead of ``<queue>``: the
    deployed routing on queues of the test's own. Returns {configured queue: the test's queue}."""
    renamed = {queue.name: f"{prefix}-{queue.name}" for queue in settings.CELERY_TASK_QUEUES}
    celery_app.conf.task_routes = {
        pattern: {**route, "queue": renamed[route["queue"]]}
        for pattern, route in settings.CELERY_TASK_ROUTES.items()
    }
    forget_routes()
    return renamed


def forget_routes() -> None:
    """Make the next send route by ``task_routes`` as the config now has them."""
    celery_app.amqp.flush_routes()
    celery_app.amqp.__dict__.pop("router", None)  # kombu's cached_property: rebuilt on next send


@contextmanager
def worker_on(queue: str) -> Iterator[Any]:
    """A real worker (not ``task_always_eager``) on the Redis broker and result backend."""
    stages.require("worker", "a real Celery worker")
    try:
        with start_worker(
            celery_app,
            pool="solo",
            concurrency=1,
            perform_ping_check=False,
            queues=[queue],
            loglevel="WARNING",
            shutdown_timeout=30,
        ) as worker:
            yield worker
    finally:
        forget_broker_pools()


def forget_broker_pools() -> None:
    """Close and forget the app's pooled broker connections: the next send opens new ones.

    A stopping worker closes them, yet the app keeps them, and so does kombu's registry (keyed
    by broker URL, so a new connection to the same URL gets the closed pool back). Without
    this, the next task sent in the same process fails with "Acquire on closed pool". Also
    what a test that points Celery at another broker needs before and after.
    """
    pools.reset()
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@contextmanager
def celery_on(url: str) -> Iterator[None]:
    """Point Celery's broker and result backend at ``url`` (a private Redis a test may stop).

    Every pooled connection is forgotten on the way in and out (the app's, kombu's, the
    non-blocking sender's and the result backend's), so sends go where the config now says.
    """
    conf = celery_app.conf
    old = (conf.broker_url, conf.result_backend)
    conf.broker_url = conf.result_backend = url
    forget_celery_connections()
    try:
        yield
    finally:
        conf.broker_url, conf.result_backend = old
        forget_celery_connections()


def forget_celery_connections() -> None:
    from casino.task_sending import forget_send_pools

    forget_broker_pools()
    forget_send_pools()
    # The result backend is per thread (or shared, if thread safe): dropped in every thread, it is
    # rebuilt from the config on next use.
    celery_app._backend_cache = None
    celery_app._local.__dict__.pop("backend", None)
