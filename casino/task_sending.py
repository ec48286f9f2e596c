"""Send a Celery task without letting a broker outage hold up the caller.

Celery's own ``apply_async`` retries the broker (connection retries, then the publish retry
policy) and has no socket timeout: with Redis refusing it costs about a second, with Redis
hung or unreachable it blocks without end, and a web request, or the transaction hook that
sends after commit, waits with it. Here a send gets one try on a pooled connection whose
sockets time out after ``TASK_SEND_TIMEOUT_SECONDS``; a failure is logged and reported to
the caller (``None``), never raised. So work that must happen needs a record of its own
that a beat task re-sends from (the audit's ``sent_at``, a sweep of unrated rounds …).

``send_task_after_commit`` is the same send run by ``transaction.on_commit``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from celery import Task
from django.conf import settings
from django.db import transaction
from kombu import Connection
from kombu.connection import ConnectionPool
from kombu.exceptions import KombuError

logger = logging.getLogger(__name__)

_pools: dict[tuple[int, str, float], ConnectionPool] = {}
_pools_lock = threading.Lock()


def _timeout() -> float:
    return float(settings.TASK_SEND_TIMEOUT_SECONDS)


def _pool(task: Task) -> ConnectionPool:
    """Connections with short socket timeouts and no reconnect loop: one per process, URL and budget.

    Keyed by process too: a pool made before a fork (gunicorn, prefork) is not shared with it.
    """
    app = task.app
    timeout = _timeout()
    key = (os.getpid(), str(app.conf.broker_write_url or app.conf.broker_url), timeout)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            options = {
                "socket_timeout": timeout,
                "socket_connect_timeout": timeout,
                "max_retries": 0,  # kombu's connect loop: one attempt
            }
            connection: Connection = app.connection_for_write(transport_options=options)
            pool = _pools[key] = connection.Pool(limit=app.conf.broker_pool_limit or None)
        return pool


def forget_send_pools() -> None:
    """Close the pooled connections (tests that stop a broker or point Celery at another)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.force_close_all()


def send_task(
    task: Task, *, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None, **options: Any
) -> str | None:
    """Hand ``task`` to the broker within about twice ``TASK_SEND_TIMEOUT_SECONDS``, or give up.

    Returns the task's id once the broker has the message, ``None`` when it could not be
    sent (logged as a warning). ``options`` are ``apply_async``'s (``task_id``, ``queue`` …).
    """
    pool = _pool(task)
    try:
        connection = pool.acquire(block=True, timeout=_timeout())
    except KombuError as error:
        logger.warning("task %s not sent: no broker connection free (%s)", task.name, error)
        return None
    try:
        # RuntimeError: the Redis result backend, subscribing to the result before the message
        # goes out, gives up reconnecting with one (its retries are bounded in the settings).
        errors = (
            KombuError,
            OSError,
            RuntimeError,
            *connection.connection_errors,
            *connection.channel_errors,
        )
        try:
            result = task.apply_async(args=args, kwargs=kwargs, connection=connection, retry=False, **options)
        except errors as error:
            connection.collect()  # broken: the next user of this pool slot connects afresh
            logger.warning(
                "task %s not sent: broker unavailable (%s: %s)", task.name, type(error).__name__, error
            )
            return None
    finally:
        connection.release()
    return str(result.id)


def send_task_after_commit(
    task: Task,
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    on_sent: Callable[[str], None] | None = None,
    **options: Any,
) -> None:
    """``send_task`` once the current transaction commits (at once outside one).

    ``on_sent(task_id)`` runs after a successful send, e.g. to mark the row the task was for.
    """

    def _send() -> None:
        task_id = send_task(task, args=args, kwargs=kwargs, **options)
        if task_id is not None and on_sent is not None:
            on_sent(task_id)

    transaction.on_commit(_send, robust=True)  # whatever happens, the committed answer stands
