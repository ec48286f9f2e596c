"""What ``bench/run-floor --web N --audit-on ...`` adds to one floor run (``bench.floor_bench``).

* More web processes behind one address: N gunicorn servers, each deploy/'s configuration with
  its own workers, all bound to the same port with ``SO_REUSEPORT`` (gunicorn's ``--reuse-port``),
  so the kernel spreads the connections over them as a proxy spreads them over web hosts.
* The audit reading while the floor plays (``bench.audit_loop``, at the audit pool's niceness),
  from the primary or from the replica.
* The CPU of the replica's processes and of the audit, beside the floor's groups, and the whole
  machine's busy share (the machine is shared: other work shows there and nowhere else).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from bench import app_db
from bench.harness import children_of
from bench.served import DEPLOYED_WORKER_NICE, PROBED_CONFIG, VENV_BIN, Processes, start_gunicorn

REUSE_PORT = {"GUNICORN_CMD_ARGS": "--reuse-port"}
AUDITS = ("none", "primary", "replica")  # where the audit reads while the floor plays (none: no audit)


def parse_audits(value: str) -> list[str]:
    """``--audit-on``'s comma list."""
    audits = [part.strip() for part in value.split(",") if part.strip()]
    if not audits or any(a not in AUDITS for a in audits):
        raise argparse.ArgumentTypeError(f"--audit-on takes {', '.join(AUDITS)} (comma list), not {value!r}")
    return audits


def web_name(index: int) -> str:
    """The first server is the floor bench's own ``gunicorn``; the others ``gunicorn-2`` ..."""
    return "gunicorn" if index == 1 else f"gunicorn-{index}"


def start_more_web(
    processes: Processes, env: dict[str, str], *, port: int, workers: int, web: int
) -> list[subprocess.Popen[bytes]]:
    """Servers 2..``web`` on ``port`` beside the first (which ``env`` already started with
    ``REUSE_PORT``); each has deploy/'s configuration and ``workers`` workers."""
    return [
        start_gunicorn(processes, env, port=port, workers=workers, config=PROBED_CONFIG, name=web_name(k))
        for k in range(2, web + 1)
    ]


def replica_pids(directory: str) -> list[int]:
    """The replica cluster's postmaster and its children (its replay among them)."""
    if not directory:
        return []
    try:
        leader = int((Path(directory) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    return [leader, *children_of(leader)]


def start_audit_loop(processes: Processes, env: dict[str, str], seconds: float) -> subprocess.Popen[bytes]:
    """``bench.audit_loop`` for ``seconds``, its JSON line in its log."""
    return processes.start(
        "audit",
        [
            "nice",
            "-n",
            str(DEPLOYED_WORKER_NICE),
            str(VENV_BIN / "python"),
            "-m",
            "bench.audit_loop",
            str(seconds),
        ],
        env,
    )


def audit_runs(processes: Processes, audit: subprocess.Popen[bytes], timeout: float) -> list[dict[str, Any]]:
    """The audit loop's runs, once it has finished its last (it starts none after the load)."""
    audit.wait(timeout=timeout)
    for line in reversed(processes.log_path("audit").read_text(errors="replace").splitlines()):
        if line.startswith('{"runs"'):
            return list(json.loads(line)["runs"])
    raise RuntimeError(f"the audit loop printed no runs; see {processes.log_path('audit')}")


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def busy_share(before: tuple[float, float], after: tuple[float, float]) -> float:
    busy, total = after[0] - before[0], after[1] - before[1]
    return busy / total if total else 0.0


def wal_position() -> int:
    """Where the primary's WAL ends now, in bytes: its growth over a run is what a replica streams
    (only the bench's own on a primary of its own; on a shared cluster, everyone's)."""
    with psycopg.connect(app_db.db_url("postgres"), autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def group(pids: Callable[[], list[int]]) -> Callable[[], list[int]]:
    """A CPU group that is empty when there is nothing to sample (no replica, no audit)."""

    def read() -> list[int]:
        try:
            return pids()
        except (OSError, ValueError):
            return []

    return read
