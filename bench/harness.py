"""A stdlib-only harness for timed worker processes, shared by both virtualenvs.

Both the project venv (Casekeeper, raw SQL) and ``.bench-venv`` (django-hordak) import this
module, so it must not import Django or anything outside the standard library.

A *factory* is named ``"package.module:function"``; in each spawned worker it is called as
``factory(index, params)`` and returns ``op(i)``, which performs transfer number ``i``. Each
worker does its setup and warm-up, waits at a barrier with the others, then calls ``op`` until
its time is up. Throughput is the number of measured transfers over the wall time from the
first worker's start to the last worker's end.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import queue as queue_module
import signal
import statistics
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

SETUP_TIMEOUT = 120.0  # seconds for every worker to import, connect, set up and warm up
DRAIN_TIMEOUT = 60.0  # seconds past the measured duration for results to come back


def resolve(reference: str) -> Callable[..., Any]:
    module_name, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def write_report(text: str, output: Path) -> None:
    """The bench's report: written to ``output`` (its folder made if need be) and to stdout."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    print(text)


def markdown_table(caption: str, columns: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A report's table as lines: a blank line, ``caption``, a blank line, the header, the rows.

    The first column (what a row is about) is left-aligned, the figures after it right-aligned.
    """
    return [
        "",
        caption,
        "",
        "| " + " | ".join(columns) + " |",
        "|---|" + "---:|" * (len(columns) - 1),
        *("| " + " | ".join(cells) + " |" for cells in rows),
    ]


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summarize_latencies(seconds: list[float]) -> dict[str, float]:
    """p50 / p99 / mean of a list of durations, in milliseconds."""
    if not seconds:
        return {"p50_ms": float("nan"), "p99_ms": float("nan"), "mean_ms": float("nan")}
    return {
        "p50_ms": percentile(seconds, 0.50) * 1000,
        "p99_ms": percentile(seconds, 0.99) * 1000,
        "mean_ms": statistics.fmean(seconds) * 1000,
    }


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc; gone processes count 0)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime and stime: fields 14 and 15 of stat
    return total / ticks


def backend_cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) of a PostgreSQL backend on this machine, from /proc; 0 if unknown."""
    return cpu_seconds([pid]) if pid else 0.0


def children_of(ppid: int) -> list[int]:
    """The processes whose parent is ``ppid`` (a server's workers), from /proc."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == ppid:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def _worker(
    factory: str,
    index: int,
    params: dict[str, Any],
    duration: float,
    warmup: int,
    max_ops: int,
    barrier: Any,
    results: Any,
) -> None:
    try:
        op = resolve(factory)(index, params)
        for i in range(warmup):
            op(i)
    except BaseException:
        results.put({"index": index, "error": traceback.format_exc()})
        barrier.abort()
        return
    try:
        barrier.wait(timeout=SETUP_TIMEOUT)
    except threading.BrokenBarrierError:
        results.put({"index": index, "error": "another worker failed during setup"})
        return
    latencies: list[float] = []
    i = warmup
    backend_pid = getattr(op, "backend_pid", None)
    server_cpu = backend_cpu_seconds(backend_pid)
    client_cpu = time.process_time()
    started = time.monotonic()
    deadline = started + duration
    try:
        while i - warmup < max_ops:
            before = time.perf_counter()
            op(i)
            latencies.append(time.perf_counter() - before)
            i += 1
            if time.monotonic() >= deadline:
                break
    except BaseException:
        results.put({"index": index, "error": traceback.format_exc()})
        return
    finished = time.monotonic()
    client_cpu = time.process_time() - client_cpu
    server_cpu = backend_cpu_seconds(backend_pid) - server_cpu if backend_pid else float("nan")
    results.put(
        {
            "index": index,
            "client_cpu": client_cpu,
            "server_cpu": server_cpu,
            "count": i - warmup,
            "total_ops": i,
            "started": started,
            "finished": finished,
            "latencies": latencies,
        }
    )


def run_workers(
    factory: str,
    *,
    workers: int,
    params: dict[str, Any],
    duration: float,
    warmup: int,
    max_ops: int = 10**9,
) -> dict[str, Any]:
    """Run ``workers`` processes of ``factory`` for ``duration`` seconds; raise if any failed."""
    context = mp.get_context("spawn")
    barrier = context.Barrier(workers + 1)
    results = context.Queue()
    processes = [
        context.Process(
            target=_worker,
            args=(factory, index, params, duration, warmup, max_ops, barrier, results),
            daemon=True,
        )
        for index in range(workers)
    ]
    for process in processes:
        process.start()
    collected: list[dict[str, Any]] = []
    try:
        try:
            barrier.wait(timeout=SETUP_TIMEOUT)
        except threading.BrokenBarrierError:
            errors = _drain_errors(results, workers)
            raise RuntimeError(f"{factory}: worker setup failed:\n" + "\n".join(errors)) from None
        deadline = time.monotonic() + duration + DRAIN_TIMEOUT
        while len(collected) < workers:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(
                    f"{factory}: workers did not report within {duration + DRAIN_TIMEOUT:.0f}s"
                )
            try:
                collected.append(results.get(timeout=remaining))
            except queue_module.Empty:
                continue
        errors = [item["error"] for item in collected if "error" in item]
        if errors:
            raise RuntimeError(f"{factory}: worker failed:\n" + "\n".join(errors))
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
    count = sum(item["count"] for item in collected)
    wall = max(item["finished"] for item in collected) - min(item["started"] for item in collected)
    latencies = [value for item in collected for value in item["latencies"]]
    return {
        "workers": workers,
        "transfers": count,
        "total_ops": sum(item["total_ops"] for item in collected),
        "seconds": wall,
        "tps": count / wall if wall > 0 else 0.0,
        # CPU per transfer is far less sensitive to other load on the machine than wall time.
        "client_cpu_ms": sum(item["client_cpu"] for item in collected) / count * 1000
        if count
        else float("nan"),
        "server_cpu_ms": sum(item["server_cpu"] for item in collected) / count * 1000
        if count
        else float("nan"),
        **summarize_latencies(latencies),
    }


def _drain_errors(results: Any, expected: int) -> list[str]:
    errors: list[str] = []
    give_up = time.monotonic() + 10
    while len(errors) < expected and time.monotonic() < give_up:
        try:
            item = results.get(timeout=1)
        except queue_module.Empty:
            continue
        if "error" in item:
            errors.append(f"worker {item['index']}: {item['error']}")
    return errors or ["(no error reported; a worker may have been killed)"]


def _call(reference: str, params: dict[str, Any], results: Any) -> None:
    try:
        results.put({"result": resolve(reference)(params)})
    except BaseException:
        results.put({"error": traceback.format_exc()})


def call_in_child(reference: str, params: dict[str, Any], *, timeout: float) -> Any:
    """Run ``reference(params)`` in a fresh spawned process and return its (picklable) result."""
    context = mp.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_call, args=(reference, params, results), daemon=True)
    process.start()
    try:
        try:
            outcome = results.get(timeout=timeout)
        except queue_module.Empty:
            raise TimeoutError(f"{reference} did not finish within {timeout:.0f}s") from None
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
    if "error" in outcome:
        raise RuntimeError(f"{reference} failed:\n{outcome['error']}")
    return outcome["result"]


class Stop(BaseException):
    """Raised by SIGALRM, SIGTERM or SIGINT so that every ``finally`` runs."""


def _stop(signum: int, frame: Any) -> None:
    raise Stop(f"stopped by signal {signal.Signals(signum).name}")


def stop_after(seconds: float) -> None:
    """Turn SIGTERM, SIGINT and an alarm in ``seconds`` into ``Stop``: a bounded run that cleans up."""
    for signum in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop)
    signal.alarm(int(seconds))
