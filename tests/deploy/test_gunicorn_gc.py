"""deploy/gunicorn.conf.py's collector hooks: the master freezes the imported app before each fork,
a worker collects again and freezes its warm-up once, after its WARM_AFTER_REQUESTS-th answer."""

from __future__ import annotations

import gc
import runpy
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


@pytest.fixture
def config() -> Iterator[dict[str, Any]]:
    """The config as gunicorn's master loads it (it turns the collector off); the test process's
    collector is put back as it was afterwards."""
    was_enabled = gc.isenabled()
    loaded = runpy.run_path(str(CONFIG))
    yield loaded
    gc.unfreeze()
    if was_enabled:
        gc.enable()


def test_the_master_imports_with_the_collector_off_and_freezes_before_a_fork(config: dict[str, Any]) -> None:
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0
    held = [{"imported": i} for i in range(100)]  # tracked objects the "master" holds
    config["pre_fork"](None, None)
    assert gc.get_freeze_count() >= len(held)
    worker = SimpleNamespace()
    config["post_fork"](None, worker)
    assert gc.isenabled()
    assert worker.served == 0


def test_a_worker_freezes_its_warm_up_once_after_that_many_answers(config: dict[str, Any]) -> None:
    worker = SimpleNamespace()
    config["post_fork"](None, worker)
    hook, warm = config["post_request"], config["WARM_AFTER_REQUESTS"]
    for _ in range(warm - 1):
        hook(worker, None, {}, None)
    before = gc.get_freeze_count()
    assert before == 0  # nothing frozen in the worker until then
    cache = [{"built": i} for i in range(100)]  # what the first requests leave in a worker's caches
    hook(worker, None, {}, None)
    frozen = gc.get_freeze_count()
    assert frozen >= before + len(cache)
    hook(worker, None, {}, None)  # not again
    assert gc.get_freeze_count() == frozen
    assert worker.served == warm + 1
