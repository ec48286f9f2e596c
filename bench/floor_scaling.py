"""The floor scaled out: ``bench/run-floor --web N [--audit-on none,primary,replica]``.

One ``bench.floor_bench`` run per step, each on a fresh floor, and a table of them all:

* ``--web N``: steps of 1, 2 … N gunicorn servers behind one address (``bench.scale_out``: each
  deploy/'s configuration with ``--workers`` workers, all on one port with ``SO_REUSEPORT``). The
  offered load grows with them: ``--tables`` tables per server (``--fixed-load``: the same floor
  at every step), so a step shows whether the servers it adds carry more taps.
* ``--audit-on``: each step again with the audit's computation reading (``bench.audit_loop``,
  back to back while the floor plays) from the primary or from a streaming replica. These steps
  run on a primary and a replica of the bench's own (``bench.postgres_pair``: the machine's
  cluster cannot stream), and so do their ``none`` steps, so every row of one table compares
  like with like.

For each step: requests and taps answered a second, the p99s, errors, and where the machine's
CPU went (shares of all its cores over the load: gunicorn, the primary's backends, the replica's
processes, Celery, the audit, the bench's own client, and the whole machine busy, which also
shows other work on a shared machine), the primary's CPU per request: the figures that name the
next bottleneck. Each step's full report goes to ``build/bench/floor-web<N>-<audit>.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import signal
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench import app_db, floor_bench, load_test
from bench.harness import markdown_table, percentile, stop_after, write_report
from bench.postgres_pair import PostgresPair
from bench.served import Processes

STEP_BUDGET = 900.0  # seconds a step may take besides its load: setting up its floor, checks


def steps(
    profile: floor_bench.Profile, web: int, audits: list[str], fixed_load: bool
) -> list[floor_bench.Profile]:
    return [
        dataclasses.replace(
            profile,
            web=n,
            tables=profile.tables if fixed_load else profile.tables * n,
            audit_on="" if audit == "none" else audit,
        )
        for audit in audits
        for n in range(1, web + 1)
    ]


def run_step(profile: floor_bench.Profile, env: str, output: Path, keep_db: bool) -> dict[str, Any]:
    """One floor run (``floor_bench.run_floor``), its report written; its run returned."""
    processes = Processes(floor_bench.LABEL)
    redis_db = load_test.free_redis_db()
    try:
        with tempfile.TemporaryDirectory(prefix="casekeeper-floor-") as tmp:
            run = floor_bench.run_floor(profile, processes, redis_db, tmp)
    finally:
        processes.stop_all()
        load_test.empty_redis_db(redis_db)
        if not keep_db:
            app_db.drop_database(floor_bench.DB_NAME)
    write_report(floor_bench.report(run, env), output)
    return run


def _p99(values: list[float]) -> str:
    return f"{percentile(values, 0.99) * 1000:.0f}" if values else "–"


def row(run: dict[str, Any]) -> list[str]:
    profile: floor_bench.Profile = run["profile"]
    tally = run["tally"]
    seconds = profile.seconds
    requests_made = sum(len(v) for k, v in tally.latencies.items() if not k.startswith("lag: "))
    taps = tally.accepted["action"] + tally.accepted["round"]
    endpoints = {label: values for label, values, _, _ in floor_bench.endpoint_rows(run)}
    action = endpoints["`POST /api/v1/rounds/{id}/actions` (action API)"]
    pit = endpoints["`GET /pit/live/` (pit screens)"]
    balance = endpoints["`GET /api/v1/players/me/balance` (kiosks)"]
    _, errors = floor_bench.split_failures(tally)
    cores = (os.cpu_count() or 1) * run["elapsed"]

    def share(cpu: float) -> str:
        return f"{cpu / cores * 100:.0f}"

    audits = run["audit_runs"]
    audit_text = "–"
    if audits:
        median = statistics.median(a["seconds"] for a in audits)
        on_replica = sum(1 for a in audits if a["on_replica"])
        audit_text = f"{len(audits)} × {median:.1f} s ({on_replica} on the replica)"
    checks = floor_bench.verdicts(run, errors)
    return [
        f"{profile.web} × {profile.workers}",
        profile.audit_on or "none",
        str(len(run["floor"]["tables"])),
        f"{requests_made / seconds:.1f}",
        f"{taps / seconds:.1f}",
        _p99(action),
        _p99(pit),
        _p99(balance),
        str(sum(errors.values())),
        f"{run['machine_busy'] * 100:.0f}",
        share(run["app_cpu"]),
        share(run["db_cpu"]),
        share(run["replica_cpu"]),
        share(run["celery_cpu"]),
        share(run["audit_cpu"]),
        share(run["client_cpu"]),
        f"{run['db_cpu'] / requests_made * 1000:.2f}" if requests_made else "–",
        f"{run['app_cpu'] / requests_made * 1000:.2f}" if requests_made else "–",
        audit_text,
        f"{run['wal_bytes'] / run['elapsed'] / 1024:,.0f}",
        f"{sum(ok for _, ok in checks)} of {len(checks)}",
    ]


COLUMNS = (
    "web servers × workers",
    "audit reads",
    "tables",
    "requests/s",
    "taps/s",
    "action p99 ms",
    "pit p99 ms",
    "balance p99 ms",
    "errors",
    "machine busy %",
    "gunicorn %",
    "primary %",
    "replica %",
    "Celery %",
    "audit %",
    "client %",
    "primary ms / request",
    "gunicorn ms / request",
    "audits run (median)",
    "WAL KiB/s",
    "checks",
)


def table(runs: list[dict[str, Any]], env: str, load: str) -> str:
    lines = [
        "# The floor scaled out (`bench/run-floor --web`)",
        "",
        env,
        "",
        f"{load} Each step is a fresh floor for {runs[0]['profile'].seconds:.0f} s. CPU columns are "
        f"shares of all {os.cpu_count()} cores over the load: gunicorn's workers, the primary's "
        "backends of the floor's database, the replica's processes, Celery worker and beat, the "
        "audit's process, the bench's client; \"machine busy\" is every process on the machine "
        "(a shared machine's other work shows there only). p99s are the client's. WAL KiB/s: the "
        "primary's WAL written a second, what a replica streams (on the shared cluster: everyone's).",
        *markdown_table("Per step:", COLUMNS, [row(run) for run in runs]),
        "",
        *(bottleneck(run) for run in runs),
        "",
    ]
    return "\n".join(lines)


def bottleneck(run: dict[str, Any]) -> str:
    """The next bottleneck of one step, named by its figure: the machine's cores when it was busy
    throughout, else the server group that used the most CPU; and how much sooner the web tier
    runs out of cores than the primary (their CPU per request)."""
    profile: floor_bench.Profile = run["profile"]
    cores = (os.cpu_count() or 1) * run["elapsed"]
    groups = {
        "gunicorn": run["app_cpu"],
        "the primary": run["db_cpu"],
        "the replica": run["replica_cpu"],
        "Celery": run["celery_cpu"],
        "the audit": run["audit_cpu"],
    }
    busiest = max(groups, key=lambda name: groups[name])
    first = (
        f"this machine's cores ({run['machine_busy'] * 100:.0f} % busy)"
        if run["machine_busy"] >= 0.95
        else f"{busiest} ({groups[busiest] / cores * 100:.0f} % of the cores)"
    )
    ratio = run["app_cpu"] / run["db_cpu"] if run["db_cpu"] else float("inf")
    return (
        f"- {profile.web} × {profile.workers}, audit {profile.audit_on or 'none'}: "
        f"the bottleneck is {first}; "
        f"gunicorn spends {ratio:.1f} × the primary's CPU per request, so the web tier runs out of cores "
        f"{ratio:.1f} × sooner than a primary of as many."
    )


def sweep(args: argparse.Namespace, profile: floor_bench.Profile) -> int:
    """Every step of ``--web`` × ``--audit-on``; the table to ``args.output``. Exit 0 when every
    step had no error and passed every check."""
    audits: list[str] = args.audit_on or ["none"]
    plan = steps(profile, args.web or 1, audits, args.fixed_load)
    private = any(audit != "none" for audit in audits)
    stop_after(sum(step.seconds + STEP_BUDGET for step in plan) + (120 if private else 0))
    if (args.web or 1) > (os.cpu_count() or 1):
        app_db.log(f"--web {args.web} is more servers than this machine's {os.cpu_count()} cores")
    runs: list[dict[str, Any]] = []
    pair = PostgresPair() if private else None
    try:
        if pair is not None:
            app_db.log("starting a primary and a replica of the bench's own (deploy/scripts/make-*)")
            pair.start()
            app_db.SERVER_URL = pair.primary_url("").rstrip("/")
        env = app_db.describe_machine()
        for step in plan:
            if pair is not None:
                replica_url = pair.replica_url(floor_bench.DB_NAME) if step.audit_on == "replica" else ""
                step = dataclasses.replace(step, replica_url=replica_url, replica_dir=str(pair.replica_dir))
            name = f"floor-web{step.web}-{step.audit_on or 'none'}.md"
            app_db.log(
                f"step: {step.web} web server(s), {step.tables} tables, audit on {step.audit_on or 'none'}"
            )
            runs.append(run_step(step, env, args.output.parent / name, args.keep_db))
    finally:
        signal.alarm(0)
        if pair is not None:
            with contextlib.suppress(Exception):
                pair.stop()
    load = (
        f"The same floor of {profile.tables} tables at every step."
        if args.fixed_load
        else f"{profile.tables} tables per web server."
    )
    write_report(table(runs, env, load), args.output.parent / "floor-scaling.md")
    passed = True
    for run in runs:
        _, errors = floor_bench.split_failures(run["tally"])
        passed = passed and all(ok for _, ok in floor_bench.verdicts(run, errors))
    return 0 if passed else 1
