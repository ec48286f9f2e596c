"""A new gunicorn worker's first answers: what a dealer waits for after a worker is replaced.

    bench/run-first-answer [--trials N] [--keep-db]
    .venv/bin/python -m bench.first_answer [--trials N] [--keep-db]

Not a test. ``deploy/gunicorn.conf.py`` retires a worker after about 5,000 requests
(``max_requests``) and the master forks a new one; a worker that dies is replaced the same way.
Whatever the new worker has not loaded yet, its first request loads.

A throwaway database (``casekeeper_bench_first``) gets ``bench.rounds_bench``'s floor (Faro tables,
each with a dealer's API token and seated punters) and one live Faro deal. gunicorn serves it with
one worker, started as deploy/ starts it. Then, ``--trials`` times for each kind of request, the
worker is stopped with SIGTERM (as ``max_requests`` retires it), the master forks its successor,
and that kind is the new worker's first request; every kind is then asked twice, the second time
warm. Kinds:
an API read of a table, a Faro bet through the API, and the console's sign-in page (a template).
The report gives each kind's first and warm answers (client wall time, ms), printed as markdown
and written to ``build/bench/first-answer.md``.
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("BENCH_ROUNDS_DB", "casekeeper_bench_first")  # before rounds_bench reads it

from bench.app_db import ROOT, describe_machine, drop_database, free_port, fresh_database, log
from bench.harness import children_of, markdown_table, percentile, write_report
from bench.rounds_bench import DB_NAME, STARTUP_TIMEOUT, service_env
from bench.served import Processes, run_child, start_gunicorn, wait_until_up

OUTPUT = ROOT / "build" / "bench" / "first-answer.md"
FORK_TIMEOUT = 30.0
SETTLE = 0.5  # seconds after the new worker's pid appears: the fork is done, nothing is asked yet


def _new_worker(master: int, old: int) -> int:
    """Stop the worker ``old``; wait for the master to fork its successor and return its pid."""
    os.kill(old, signal.SIGTERM)
    deadline = time.monotonic() + FORK_TIMEOUT
    while time.monotonic() < deadline:
        workers = [pid for pid in children_of(master) if pid != old]
        if workers:
            time.sleep(SETTLE)
            return workers[0]
        time.sleep(0.05)
    raise RuntimeError("gunicorn forked no new worker")


def _requests(base: str, table: dict[str, Any], round_id: int) -> dict[str, Callable[[], int]]:
    """Each kind of request, sent on a fresh connection; returns its status code."""
    import requests

    auth = {"Authorization": f"Token {table['token']}"}
    bets = iter(range(10**6))

    def api_read() -> int:
        return requests.get(f"{base}/api/v1/tables/{table['id']}", headers=auth, timeout=30).status_code

    def api_bet() -> int:
        amount = 500 + 100 * (next(bets) % 20)
        body = {"type": "bet", "player": table["players"][0], "target": "high", "amount": amount}
        return requests.post(
            f"{base}/api/v1/rounds/{round_id}/actions", json=body, headers=auth, timeout=30
        ).status_code

    def sign_in_page() -> int:
        return requests.get(f"{base}/console/login/", timeout=30).status_code

    return {"API read of a table": api_read, "Faro bet (API)": api_bet, "console sign-in page": sign_in_page}


def _timed(call: Callable[[], int]) -> float:
    started = time.perf_counter()
    status = call()
    if status not in (200, 201):
        raise RuntimeError(f"answered {status}")
    return (time.perf_counter() - started) * 1000


def measure(trials: int) -> dict[str, dict[str, list[float]]]:
    import requests

    fresh_database(DB_NAME, service_env(), synchronous_commit=True, timeout=300)
    processes = Processes("first-answer")
    try:
        floor = run_child("bench.rounds_bench", "setup", service_env())
        table = floor["tables"][0]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_gunicorn(processes, service_env(), port=port, workers=1)
        wait_until_up(
            base, server, path="/healthz", timeout=STARTUP_TIMEOUT, log=processes.log_path("gunicorn")
        )
        started = requests.post(
            f"{base}/api/v1/tables/{table['id']}/rounds",
            json={"shoe": "electronic"},
            headers={"Authorization": f"Token {table['token']}"},
            timeout=30,
        )
        started.raise_for_status()
        kinds = _requests(base, table, int(started.json()["id"]))
        seen: dict[str, dict[str, list[float]]] = {kind: {"first": [], "warm": []} for kind in kinds}
        worker = children_of(server.pid)[0]
        for trial in range(trials * len(kinds)):
            first = list(kinds)[trial % len(kinds)]
            worker = _new_worker(server.pid, worker)
            seen[first]["first"].append(_timed(kinds[first]))
            for call in kinds.values():  # each kind's own first use, then warm
                _timed(call)
            for kind, call in kinds.items():
                seen[kind]["warm"].append(_timed(call))
            log(f"trial {trial + 1}: {first} first, {seen[first]['first'][-1]:.0f} ms")
        return seen
    finally:
        processes.stop_all()


def report(seen: dict[str, dict[str, list[float]]], trials: int) -> str:
    def ms(values: list[float], pick: Callable[[list[float]], float]) -> str:
        return f"{pick(values):,.1f}" if values else "–"

    def median(values: list[float]) -> float:
        return percentile(values, 0.5)

    rows = [
        (kind, ms(got["first"], median), ms(got["first"], max), ms(got["warm"], median), ms(got["warm"], max))
        for kind, got in seen.items()
    ]
    lines = [
        "# A new worker's first answers",
        "",
        describe_machine(),
        "",
        f"gunicorn (`deploy/gunicorn.conf.py`, one sync worker, DEBUG off). {trials} trials per kind: the"
        " worker is stopped (SIGTERM), the master forks a new one, and that kind is its first request;"
        " then every kind twice, the second time warm. Client wall time on 127.0.0.1, a new connection each.",
        *markdown_table(
            "Client wall time per answer:",
            ("request", "first answer p50 ms", "first answer max ms", "warm p50 ms", "warm max ms"),
            rows,
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trials", type=int, default=5, help="new workers per kind of request")
    parser.add_argument("--keep-db", action="store_true", help=f"leave {DB_NAME} for inspection")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    try:
        seen = measure(args.trials)
    finally:
        if not args.keep_db:
            drop_database(DB_NAME)
    write_report(report(seen, args.trials), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
