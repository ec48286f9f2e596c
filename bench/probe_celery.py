"""The Celery app with every task's CPU measured (``bench.cpu_probe``): ``celery -A bench.probe_celery``."""

from typing import Any

from celery.signals import task_postrun, task_prerun

from bench.cpu_probe import Probe
from casino.celery import app

__all__ = ["app"]

_TASKS = Probe("task")


@task_prerun.connect
def _started(**_: Any) -> None:
    _TASKS.start()


@task_postrun.connect
def _finished(task: Any = None, **_: Any) -> None:
    _TASKS.finish(getattr(task, "name", "?"))
