"""CPU per request and per Celery task, measured inside the served processes (``bench/run-floor``).

The floor's /proc sampling gives one figure for all endpoints together; to know which endpoint
or game costs what, each gunicorn request and each Celery task is timed where it runs: the
process's own CPU (``time.process_time_ns``: a sync worker or a prefork child runs one thing at a
time) and the CPU of the PostgreSQL backend behind its Django connection (``/proc/<pid>/schedstat``,
nanoseconds), read before and after. Each measurement is a JSON line ``[what, game, app ns, db ns]``
in a file of the process's own under ``$BENCH_CPU_DIR``; ``read`` sums them. A request also gets a
"wait" line ``[what, game, wall ns, ns runnable but waiting for a core, CPU ns]``: the wait is the
worker's and its backend's, from the second field of the same schedstat files (the scheduler's run
delay), and the CPU theirs together, so a slow request shows what its time was spent on.

Bench-only: gunicorn loads the hooks through ``bench/probe_gunicorn.conf.py`` (deploy/'s settings
plus these two hooks), the Celery worker runs ``celery -A bench.probe_celery``. A dealer's API client names
its table's game in an ``X-Bench-Game`` header, which the app ignores.
"""

from __future__ import annotations

import gc
import json
import os
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

DIR_VARIABLE = "BENCH_CPU_DIR"
GAME_HEADER = "X-Bench-Game"


def _schedstat(path: str) -> tuple[int, int] | None:
    """(ns on a core, ns runnable but waiting for one) of a task so far, from its schedstat."""
    try:
        with open(path) as stat:
            on_core, waited, _ = stat.read().split()
    except (OSError, ValueError):  # the server is not on this machine, or the process is gone
        return None
    return int(on_core), int(waited)


def _backend() -> tuple[int, int, int] | None:
    """(pid, CPU ns, run delay ns) so far of the PostgreSQL backend behind this thread's Django
    connection."""
    from django.db import connection

    raw = connection.connection
    if raw is None or raw.closed:
        return None
    pid = raw.info.backend_pid
    stat = _schedstat(f"/proc/{pid}/schedstat")
    return None if stat is None else (pid, *stat)


def _own_wait() -> int:
    """This thread's run delay so far: ns it was runnable but not on a core."""
    stat = _schedstat("/proc/thread-self/schedstat")
    return 0 if stat is None else stat[1]


class Probe:
    """One process's measurements: ``start`` before a request or task, ``finish`` after it."""

    def __init__(self, kind: str, waits: Probe | None = None) -> None:
        self.kind = kind
        self.waits = waits  # where ``finish`` also writes the wall time and the waits for a core
        self.pid = 0
        self.out: Any = None
        self.started: tuple[int, tuple[int, int, int] | None, int, int] = (0, None, 0, 0)

    def start(self) -> None:
        self.started = (time.process_time_ns(), _backend(), time.perf_counter_ns(), _own_wait())

    def finish(self, what: str, game: str = "") -> None:
        cpu, backend, wall, waited = self.started
        app = time.process_time_ns() - cpu
        wall = time.perf_counter_ns() - wall
        waited = _own_wait() - waited
        after = _backend()
        db = 0
        if after is not None:  # a connection opened during the request: all of its CPU is this one's
            before = backend if backend is not None and backend[0] == after[0] else (after[0], 0, 0)
            db = after[1] - before[1]
            waited += after[2] - before[2]
        self.record(what, game, app, db)
        if self.waits is not None:
            self.waits.record(what, game, wall, waited, app + db)

    def record(self, what: str, game: str, *figures: int) -> None:
        if self.pid != os.getpid():  # first use in a forked worker or pool child: a file of its own
            self.pid = os.getpid()
            folder = Path(os.environ[DIR_VARIABLE])
            self.out = (folder / f"{self.kind}-{self.pid}.jsonl").open("a", buffering=1)
        self.out.write(json.dumps([what, game, *figures]) + "\n")


def marks(folder: Path) -> dict[str, int]:
    """Where each file ends now: ``read(folder, marks)`` later reads only what came after."""
    return {path.name: path.stat().st_size for path in folder.glob("*.jsonl")}


def read(
    folder: Path, since: dict[str, int], until: dict[str, int] | None = None
) -> dict[tuple[str, str, str], list[tuple[int, ...]]]:
    """(kind, what, game) → [(app ns, db ns), ...] from every process's file, after ``since`` and
    up to ``until`` (other ``marks``; the end if none) (for the kinds "wait", "gc" and "linger":
    their own figures, wall ns first)."""
    found: dict[tuple[str, str, str], list[tuple[int, ...]]] = defaultdict(list)
    for path in folder.glob("*.jsonl"):
        kind = path.name.split("-", 1)[0]
        start = since.get(path.name, 0)
        with path.open("rb") as lines:
            lines.seek(start)
            text = lines.read(-1 if until is None else max(0, until.get(path.name, 0) - start)).decode()
        for line in text.splitlines():
            try:
                what, game, *figures = json.loads(line)
            except ValueError:  # a line cut short when the process was stopped
                continue
            found[(kind, what, game)].append(tuple(figures))
    return found


# --------------------------------------------------------------------------- gunicorn hooks

_REQUESTS = Probe("request", waits=Probe("wait"))
_COLLECTIONS = Probe("gc")  # each full collection of Python's cycle collector in a worker: its wall ns
_WATCHED: set[int] = set()  # the worker pids whose collections are timed


def _watch_full_collections() -> None:
    """Time this worker's full (oldest-generation) collections, which stop the request running."""
    started = [0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter_ns()
        else:
            _COLLECTIONS.record("full collection", "", time.perf_counter_ns() - started[0], 0)

    gc.callbacks.append(timed)
    _WATCHED.add(os.getpid())


_LINGERS = Probe("linger")  # each wait of a worker for its client to close the connection: wall ns


def watch_lingering() -> None:
    """Time gunicorn's graceful close in each worker: after the answer is sent, a sync worker
    half-closes the socket and waits (up to 2 s) for the client to close its side before it
    accepts the next request, so a client slow to read and close holds the worker."""
    from gunicorn import util

    close_graceful = util.close_graceful

    def timed(sock: Any, *args: Any, **kwargs: Any) -> None:
        started = time.perf_counter_ns()
        try:
            close_graceful(sock, *args, **kwargs)
        finally:
            _LINGERS.record("graceful close", "", time.perf_counter_ns() - started, 0)

    util.close_graceful = timed


def pre_request(worker: Any, req: Any) -> None:
    if os.getpid() not in _WATCHED:
        _watch_full_collections()
    _REQUESTS.start()


def post_request(worker: Any, req: Any, environ: dict[str, Any], resp: Any) -> None:
    path = re.sub(r"/\d+", "/{id}", environ.get("PATH_INFO", "?"))
    game = environ.get("HTTP_" + GAME_HEADER.upper().replace("-", "_"), "")
    _REQUESTS.finish(f"{environ.get('REQUEST_METHOD', '?')} {path}", game)
