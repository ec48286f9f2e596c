"""The Celery app, so that ``celery -A casino worker`` and ``celery -A casino beat`` work.

Signals carry the web request's id into the task (as a header) and time every task.
"""

import contextlib
import os
import time
from typing import Any

from celery import Celery
from celery.signals import before_task_publish, task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.local")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_started: dict[str, tuple[float, Any]] = {}


@before_task_publish.connect
def _add_request_id(headers: dict[str, Any] | None = None, **_: Any) -> None:
    from casino.observability.request_id import attach_to_task_headers

    if headers is not None:
        attach_to_task_headers(headers)


@task_prerun.connect
def _task_started(task_id: str = "", task: Any = None, **_: Any) -> None:
    from casino.observability.context import RequestInfo, current_request

    request_id = (
        getattr(task.request, "request_id", None) or (task.request.headers or {}).get("request_id") or task_id
    )
    token = current_request.set(RequestInfo(request_id=str(request_id)))
    _started[task_id] = (time.perf_counter(), token)


@task_postrun.connect
def _task_finished(task_id: str = "", task: Any = None, state: str = "", **_: Any) -> None:
    from casino.observability.context import current_request
    from casino.observability.metrics import TASK_DURATION

    started, token = _started.pop(task_id, (None, None))
    if started is not None:
        TASK_DURATION.labels(getattr(task, "name", "?"), state or "?").observe(time.perf_counter() - started)
    if token is not None:
        # A task finished in another context (a pool that moved it) has nothing to undo.
        with contextlib.suppress(ValueError):
            current_request.reset(token)
