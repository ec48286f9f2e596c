"""deploy/gunicorn.conf.py's hooks: the master loads what a worker's first request would (the URL
configuration, the templates) and freezes the imported app before each fork; a worker opens its
database connection before its first request, and collects again and freezes its warm-up once,
after its WARM_AFTER_REQUESTS-th answer."""

from __future__ import annotations

import gc
import runpy
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.template import TemplateSyntaxError, engines

from casino.preload import connect_database, load_for_workers, project_templates

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
    cache = [["built", i] for i in range(100)]  # what the first requests leave in a worker's caches (tracked)
    hook(worker, None, {}, None)
    frozen = gc.get_freeze_count()
    assert frozen >= before + len(cache)
    later = [["built after", i] for i in range(100)]  # lists: tracked, and frozen only if frozen again
    hook(worker, None, {}, None)  # not again
    # A frozen object that dies leaves the count (another test's thread may drop one meanwhile),
    # so the count may shrink; freezing again would have added ``later``.
    assert gc.get_freeze_count() < frozen + len(later)
    assert worker.served == warm + 1


def test_the_master_loads_the_url_configuration_and_the_templates_before_the_first_fork(
    config: dict[str, Any],
) -> None:
    """A forked worker inherits them: its first request costs what its next does
    (``bench/run-first-answer``: about 0.6 s more before, on the 2-core bench machine)."""
    logged: list[str] = []
    server = SimpleNamespace(log=SimpleNamespace(info=lambda text, *args: logged.append(text % args)))
    loader = engines["django"].engine.template_loaders[0]  # Django's cached loader
    loader.reset()  # as in a master that has drawn no page yet
    config["when_ready"](server)
    names = project_templates()
    assert "console/base.html" in names
    assert "pit/_live.html" in names
    assert not any(name.startswith(("admin/", "rest_framework/")) for name in names)  # ours only
    assert set(names) <= set(loader.get_template_cache)
    assert logged == [f"Imported the URL configuration and compiled {len(names)} templates for the workers"]


def test_a_template_that_does_not_compile_is_logged_and_the_server_still_starts(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    engine = engines["django"]
    real = engine.get_template

    def broken_pit(name: str) -> Any:
        if name == "pit/_live.html":
            raise TemplateSyntaxError("Invalid block tag")
        return real(name)

    monkeypatch.setattr(engine, "get_template", broken_pit)
    assert load_for_workers() == len(project_templates()) - 1
    assert "template pit/_live.html does not compile" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_a_worker_opens_its_database_connection_before_its_first_request(config: dict[str, Any]) -> None:
    connection.close()
    assert connection.connection is None
    config["post_worker_init"](SimpleNamespace())
    assert connection.connection is not None
    assert connection.is_usable()


def test_a_worker_boots_when_the_database_cannot_be_reached(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def unreachable() -> None:
        raise OperationalError("connection failed: Connection refused")

    monkeypatch.setattr(connection, "ensure_connection", unreachable)
    assert connect_database() is False
    assert "the database could not be reached" in caplog.text
