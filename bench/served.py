"""The app served for a benchmark: Django steps in a child, gunicorn (and Celery) started and stopped.

The HTTP benches (``rounds_bench``, ``load_test``, ``floor_bench``) run the app the same way, so they
share one copy: every server runs in its own session and is stopped through its process group alone,
so a bench never stops a process it did not start; its output goes to
``build/bench/<label>-<name>.log``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench.app_db import ROOT, run_captured

VENV_BIN = ROOT / ".venv" / "bin"
LOG_DIR = ROOT / "build" / "bench"
GUNICORN_CONFIG = "deploy/gunicorn.conf.py"
DEPLOYED_WORKER_NICE = 10  # deploy/ runs the Celery worker under ``nice -n 10`` (entrypoint.sh, systemd)
PROBED_CONFIG = "bench/probe_gunicorn.conf.py"  # the same plus bench.cpu_probe's hooks


def bench_parser(
    description: str, *, quick_help: str, duration_help: str, database: str, output: Path
) -> argparse.ArgumentParser:
    """The options every served bench takes, with the hidden ``--child`` step that ``run_child`` runs."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--duration", type=float, help=duration_help)
    parser.add_argument("--keep-db", action="store_true", help=f"leave {database} for inspection")
    parser.add_argument("--output", type=Path, default=output)
    parser.add_argument("--child", choices=("setup", "verify"), help=argparse.SUPPRESS)
    return parser


def run_child(module: str, step: str, env: dict[str, str]) -> dict[str, Any]:
    """Run ``python -m <module> --child <step>`` (a Django step) and return its last line's JSON."""
    timeout = float(os.environ.get("BENCH_CHILD_TIMEOUT", "600"))  # longer on a machine others load
    done = run_captured([str(VENV_BIN / "python"), "-m", module, "--child", step], env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{step} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def answer_child(
    args: argparse.Namespace, steps: Mapping[str, Callable[[], Any]], *, default: Any = None
) -> bool:
    """In the child ``run_child`` started: run the step ``--child`` names, if this bench has it, and
    print its result as the JSON line ``run_child`` reads (``default``: ``json.dumps``'s, for values
    JSON lacks). True when it ran, so the bench's ``main`` returns at once."""
    step = steps.get(args.child) if args.child else None
    if step is None:
        return False
    print(json.dumps(step(), default=default))
    return True


class Processes:
    """The servers a bench started, each in its own session: stopped by process group only."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def log_path(self, name: str) -> Path:
        return LOG_DIR / f"{self.label}-{name}.log"

    def start(self, name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        output = self.log_path(name).open("wb")
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        output.close()  # the child has its own copy
        self.running[name] = process
        return process

    def stop(self, name: str) -> None:
        process = self.running.pop(name, None)
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        # A worker or pool child that outlived its leader is still in the group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for name in list(self.running):
            self.stop(name)


def wait_until_up(
    base: str, server: subprocess.Popen[bytes], *, path: str, timeout: float, log: Path
) -> None:
    """Poll ``base + path`` until it answers 200; fail early if the server exits."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited ({server.returncode}); see {log}")
        try:
            if requests.get(f"{base}{path}", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"gunicorn did not answer {path} within {timeout:.0f}s; see {log}")


def start_gunicorn(
    processes: Processes,
    env: dict[str, str],
    *,
    port: int,
    workers: int,
    config: str = GUNICORN_CONFIG,
    name: str = "gunicorn",
    nice: int = 0,
) -> subprocess.Popen[bytes]:
    """gunicorn with ``deploy/gunicorn.conf.py`` on 127.0.0.1:``port``, as deploy/systemd starts it
    (``config``: a bench's file that adds hooks to it, ``bench/probe_gunicorn.conf.py``). A second
    pool beside the first gets another ``name`` (its log); ``nice``: its niceness (negative needs
    root)."""
    return processes.start(
        name,
        # No control socket: its default path is shared by every gunicorn on the machine.
        [
            *(["nice", "-n", str(nice)] if nice else []),
            str(VENV_BIN / "gunicorn"),
            "casino.wsgi:application",
            "-c",
            config,
            "--no-control-socket",
        ],
        env | {"GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": str(workers)},
    )


def start_worker(
    processes: Processes,
    env: dict[str, str],
    *,
    concurrency: int,
    name: str = "celery",
    hostname: str | None = None,
    peerless: bool = True,
    app: str = "casino",
    nice: int | None = None,
) -> subprocess.Popen[bytes]:
    """A Celery worker; a bench that starts a second one while the first may linger (``bench.faults``)
    gives it another ``name`` (its log) and ``hostname`` (its node name). ``peerless``: no gossip or
    mingle (a lone worker has no peers); ``bench.faults`` keeps them, as deploy/systemd runs the worker,
    since its Redis outages and kills are meant for the deployed worker. ``app``: the Celery app
    (``bench.probe_celery`` times every task). ``nice``: the worker's niceness (None: deploy/'s,
    ``DEPLOYED_WORKER_NICE``; ``bench/run-floor --worker-nice`` tries others)."""
    nice = DEPLOYED_WORKER_NICE if nice is None else nice
    return processes.start(
        name,
        [
            *(["nice", "-n", str(nice)] if nice else []),
            str(VENV_BIN / "celery"),
            "-A",
            app,
            "worker",
            "--loglevel=WARNING",
            f"--concurrency={concurrency}",
            *(["--without-gossip", "--without-mingle"] if peerless else []),
            *([f"--hostname={hostname}"] if hostname else []),
        ],
        env,
    )


def start_beat(processes: Processes, env: dict[str, str], *, schedule: Path) -> subprocess.Popen[bytes]:
    """Celery beat, its schedule file at ``schedule`` (a bench's temporary folder)."""
    return processes.start(
        "beat",
        [str(VENV_BIN / "celery"), "-A", "casino", "beat", "--loglevel=WARNING", f"--schedule={schedule}"],
        env,
    )


def start_service(
    processes: Processes,
    env: dict[str, str],
    *,
    port: int,
    workers: int,
    celery_concurrency: int,
    beat_schedule: Path | None = None,
    probed: bool = False,
    worker_nice: int | None = None,
) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """gunicorn, a Celery worker and, with ``beat_schedule``, Celery beat, started as deploy/systemd
    starts them; returns (gunicorn, worker). Waiting for them is the caller's. ``probed``: each
    request's and task's CPU written under ``$BENCH_CPU_DIR`` (``bench.cpu_probe``)."""
    config, app = (PROBED_CONFIG, "bench.probe_celery") if probed else (GUNICORN_CONFIG, "casino")
    server = start_gunicorn(processes, env, port=port, workers=workers, config=config)
    worker = start_worker(processes, env, concurrency=celery_concurrency, app=app, nice=worker_nice)
    if beat_schedule is not None:
        start_beat(processes, env, schedule=beat_schedule)
    return server, worker
