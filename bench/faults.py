"""Fault injection: the deployed service under load while its pieces fail, and what it did about it.

    bench/run-faults [--quick] [--keep-db]
    .venv/bin/python -m bench.faults [--quick] [--duration S] [--keep-db] [--output PATH]

Not a test. It prints a markdown table of the faults it injected and what happened, writes it to
build/bench/faults.md, and exits 0 only when the issue's goals hold: no invariant violation, no
HTML 500, and no request held up more than 1 s longer than the slowest request of the fault-free
baseline.

The service runs as ``bench/run-load`` runs it (``bench.load_test``): gunicorn with
``deploy/gunicorn.conf.py`` (4 sync workers), a Celery worker (concurrency 2) and Celery beat, with
``casino.settings.local``, DEBUG off, JSON logs at WARNING, on a throwaway database
``casekeeper_faults``. Two things differ, so that the faults touch nothing shared:

* Redis (broker, results and cache) is a **private** ``redis-server`` on a free port, started here
  with an append-only file in a temporary directory, so that stopping it loses no queued task;
* the app reaches PostgreSQL through ``bench.tcp_proxy`` on a private port, which the bench can
  cut; the shared cluster is never stopped. The bench's own checks connect directly.

Before the service starts, a child process loads yesterday's synthetic gaming day of
``bench.audit_bench`` (20 Faro tables x 12 deals, so an audit runs for seconds) and sets up a small
live floor through ``bench.load_test.child_setup`` (2 Faro tables, 1 each of Farmer, Fan Tan,
Newmarket and Tonk). The load is ``bench.load_test``'s client (one thread per table, a cashier, a
balance kiosk) plus a player signing in every few seconds; its requests go through
``FaultClient``, which records every attempt and resends a keyed POST that got no answer or a 5xx,
with the same ``Idempotency-Key``, until it is answered.

Phases, one after the other; in each the load runs, the fault is injected and lifted, the load
goes on a while, then the load pauses (no request in flight), the bench waits (bounded) for the
deferred work (ratings, the audit) and checks the database:

0. no fault (the baseline for the latencies);
1. two gunicorn workers SIGKILLed under load, a few seconds apart (the master replaces them);
2. PostgreSQL refusing connections (the proxy closed, its connections reset), then back;
3. PostgreSQL hung (the proxy accepts connections and holds every byte), then back (not with --quick);
4. the private Redis stopped mid-deal, then started again;
5. the Celery worker's pool processes SIGKILLed mid-audit (``POST /gaming-days/{yesterday}/close``);
6. the whole Celery worker SIGKILLed mid-audit, and started again a second later, as systemd's
   ``Restart=always`` would.

The checks after each phase: the ledger sums to zero (debits = credits, balances sum to 0, every
transfer nets to 0), every stored balance equals the sum of its entries, no wallet below zero or
below its holds, every live round replays (``tables.replay.check_round``), and every round settled
in the phase has its ``RoundStat`` (rated).

Everything is bounded: each phase's load by its timeline, each request by 40 s (gunicorn's own
timeout is 30 s), a keyed POST by ``MAX_ATTEMPTS`` resends, the deferred work by ``RATED_WITHIN``
and ``AUDIT_WITHIN``, start-up, child steps and the pause by timeouts, the whole run by a SIGALRM
budget. SIGTERM and Ctrl-C run the same cleanup: the load stops, every process started here is
stopped through its own process group (nothing else is signalled), the proxy closes, the database
is dropped.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench import load_test
from bench.app_db import (
    ROOT,
    SERVER_URL,
    SETTINGS,
    db_url,
    describe_machine,
    drop_database,
    free_port,
    fresh_database,
    log,
    run_captured,
    served_env,
    staff,
)
from bench.harness import children_of, stop_after, write_report
from bench.served import (
    Processes,
    answer_child,
    bench_parser,
    run_child,
    start_beat,
    start_gunicorn,
    start_worker,
    wait_until_up,
)
from bench.tcp_proxy import TcpProxy

OUTPUT = ROOT / "build" / "bench" / "faults.md"
DB_NAME = "casekeeper_faults"
LABEL = "faults"
WORKERS = 4
CELERY_CONCURRENCY = 2
FARO_TABLES = 2
POT_TABLES_PER_GAME = 1
NIGHT = {"tables": 20, "rounds": 12, "seed": 18}  # yesterday, for the audit (bench.audit_bench)
REQUEST_TIMEOUT = 40.0  # above gunicorn's 30 s timeout, so the server gives up first
MAX_ATTEMPTS = 100  # a keyed POST is resent (0.25 s, doubling to 1 s) until answered, at most this often
LOGIN_EVERY = 4.0  # seconds between sign-ins; the token throttle allows 20 a minute from one address
RATED_WITHIN = 60.0  # seconds after the fault is lifted: the issue wants every round rated within a minute
# Seconds after the kill for the audit to finish: a dead run is declared after AUDIT_STALE_SECONDS
# (60) and restarted by the next audit sweep (every 30 s), then it runs again.
AUDIT_WITHIN = 120.0
START_TIMEOUT = 90.0
PAUSE_TIMEOUT = REQUEST_TIMEOUT + 10
RESTART_AFTER = 1.0  # seconds before a killed Celery worker is started again (systemd: 0.1 s)
BUDGET = 1200.0  # seconds for the whole run, cleanup included
SLACK = 1.0  # the goal: no request held up more than this beyond the baseline's slowest

NEGATIVE_WALLETS_SQL = (
    "SELECT count(*) FROM ledger_account WHERE purpose = 'wallet' AND (balance < 0 OR balance < held)"
)
# Settled live rounds (pk above %s) that ended between two moments and have no RoundStat.
OUTAGE_UNRATED_SQL = (
    "SELECT count(*) FILTER (WHERE s.round_id IS NULL), count(*) FROM tables_round r"
    " LEFT JOIN tables_roundstat s ON s.round_id = r.id"
    " WHERE r.id > %s AND r.status = 'settled' AND r.ended_at BETWEEN %s AND %s"
)
# Settled live rounds (pk above %s) that ended at or after %s and have no RoundStat.
UNRATED_SQL = (
    "SELECT count(*) FILTER (WHERE s.round_id IS NULL), count(*) FROM tables_round r"
    " LEFT JOIN tables_roundstat s ON s.round_id = r.id"
    " WHERE r.id > %s AND r.status = 'settled' AND r.ended_at >= %s"
)
REPORT_SQL = (
    "SELECT status, progress_done, progress_total, runs, finished_at FROM tables_auditreport"
    " WHERE gaming_day = %s"
)


@dataclass(frozen=True)
class Profile:
    name: str
    baseline: float  # the fault-free phase
    before: float  # load before each fault
    after: float  # load after each fault is lifted
    redis_down: float
    postgres_down: float
    stall: bool  # run the "PostgreSQL hung" phase

    @property
    def phases(self) -> int:
        return 7 if self.stall else 6


FULL = Profile("full", baseline=10.0, before=4.0, after=12.0, redis_down=20.0, postgres_down=10.0, stall=True)
QUICK = Profile("quick", baseline=6.0, before=3.0, after=8.0, redis_down=10.0, postgres_down=6.0, stall=False)


# --------------------------------------------------------------------------- child steps (Django)


def child_setup() -> dict[str, Any]:
    """Yesterday's synthetic night first (it numbers its rows from 1), then the live floor."""
    import django

    django.setup()
    from django.db.models import Max

    from bench.audit_bench import build_night
    from casino.models import Player, Role
    from casino.services import issue_token
    from tables.models import Round

    night = build_night(NIGHT)
    rounds_after = Round.objects.aggregate(top=Max("pk"))["top"] or 0
    floor = load_test.child_setup(faro_tables=FARO_TABLES, pot_tables_per_game=POT_TABLES_PER_GAME)
    signer = Player.objects.select_related("user").get(pk=floor["players"][0]["id"])
    return {
        **floor,
        "night": night,
        "rounds_after": rounds_after,
        "pit_token": issue_token(user=staff("load-pit", Role.PIT_BOSS)),
        "login": signer.user.username,
    }


def child_verify() -> dict[str, Any]:
    """``load_test.child_verify`` (books, stored balances, replays) on the live rounds, plus wallets."""
    checks = load_test.child_verify(rounds_after=int(os.environ["FAULTS_ROUNDS_AFTER"]))
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(NEGATIVE_WALLETS_SQL)
        checks["negative_wallets"] = int(cursor.fetchone()[0])
    return checks


# --------------------------------------------------------------------------- the client


@dataclass(frozen=True, slots=True)
class Event:
    """One HTTP attempt as the client saw it."""

    started: float  # time.monotonic()
    seconds: float
    label: str
    status: int  # 0: no answer (refused, reset, timed out)
    json: bool  # the answer's Content-Type is JSON

    @property
    def failed(self) -> bool:
        return self.status == 0 or self.status >= 500


class Gate:
    """Lets the clients' requests through while a phase runs and holds them between phases.

    So the checks see a quiet database, and every request belongs to exactly one phase. A client
    waiting at the gate keeps its round open; it goes on where it stopped when the gate reopens.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.open = False
        self.stopped = False
        self.inflight = 0

    def enter(self) -> bool:
        """Wait for the gate; False once the run is stopping."""
        with self.cond:
            while not self.open and not self.stopped:
                self.cond.wait()
            if self.stopped:
                return False
            self.inflight += 1
            return True

    def leave(self) -> None:
        with self.cond:
            self.inflight -= 1
            self.cond.notify_all()

    def resume(self) -> None:
        with self.cond:
            self.open = True
            self.cond.notify_all()

    def pause(self, timeout: float) -> int:
        """Close the gate and wait for the requests in flight; returns how many are still out."""
        with self.cond:
            self.open = False
            self.cond.wait_for(lambda: self.inflight == 0, timeout=timeout)
            return self.inflight

    def stop(self) -> None:
        with self.cond:
            self.stopped = True
            self.cond.notify_all()


class FaultClient(load_test.Client):
    """``load_test.Client`` whose every attempt is recorded and held at the gate.

    A keyed POST that gets no answer or a 5xx is resent with its key until it is answered (the
    drivers then go on dealing, as a dealer would), at most ``MAX_ATTEMPTS`` times. ``bind`` makes
    the subclass that the drivers instantiate, with the run's gate and event list.
    """

    gate: Gate
    events: list[Event]

    @classmethod
    def bind(cls, gate: Gate, events: list[Event]) -> type[FaultClient]:
        return type("BoundFaultClient", (cls,), {"gate": gate, "events": events})

    def attempt(
        self, method: str, label: str, path: str, *, body: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        """One request, recorded; the response, or None when there was no answer or the run stops."""
        import requests

        if not self.gate.enter():
            return None
        started = time.monotonic()
        response = None
        try:
            response = self.session.request(
                method, f"{self.base}{path}", json=body, headers=headers, timeout=REQUEST_TIMEOUT
            )
        except requests.RequestException:
            pass
        finally:
            status = response.status_code if response is not None else 0
            is_json = response is not None and "json" in response.headers.get("Content-Type", "")
            self.events.append(Event(started, time.monotonic() - started, label, status, is_json))
            self.gate.leave()
        return response

    def send(self, label: str, path: str, body: dict[str, Any], key: str) -> tuple[int, Any, bool]:
        wait = 0.25
        for _ in range(MAX_ATTEMPTS):
            response = self.attempt("POST", label, path, body=body, headers={"Idempotency-Key": key})
            if response is not None and response.status_code < 500:
                try:
                    data = response.json()
                except ValueError:
                    data = None
                return response.status_code, data, response.headers.get("Idempotent-Replayed") == "true"
            if self.out_of_time():
                break
            self.tally.resent[label] += 1
            time.sleep(wait)
            wait = min(wait * 2, 1.0)
        return 0, None, False

    def get(self, label: str, path: str, token: str | None = None) -> Any:
        headers = {"Authorization": f"Token {token}"} if token else None
        response = self.attempt("GET", label, path, headers=headers)
        if response is not None and response.status_code == 200:
            with contextlib.suppress(ValueError):
                return response.json()
        time.sleep(0.5)  # a kiosk does not hammer a failing server
        return None

    def out_of_time(self) -> bool:
        return self.gate.stopped


def drive_logins(base: str, username: str, client_class: type[FaultClient], tally: load_test.Tally) -> None:
    """A player signing in every few seconds (``POST /auth/token``), as at shift change."""
    client = client_class(base, "", tally, random.Random(18), math.inf)
    del client.session.headers["Authorization"]
    body = {"username": username, "password": load_test.PLAYER_PASSWORD}
    while not client.out_of_time():
        client.attempt("POST", "sign in", "/api/v1/auth/token", body=body)
        time.sleep(LOGIN_EVERY)


# --------------------------------------------------------------------------- phases


class Watch(threading.Thread):
    """``ready()`` polled in the background from now until ``deadline``, while the load goes on.

    ``result()`` (after the load paused) is the first moment it held, or None: so a recovery
    is timed when it happened, not when the bench got round to looking.
    """

    def __init__(self, ready: Callable[[], bool], deadline: float) -> None:
        super().__init__(daemon=True)
        self.ready = ready
        self.deadline = deadline
        self.done_at: float | None = None
        self.start()

    def run(self) -> None:
        self.done_at = FaultBench.poll(self.ready, self.deadline, every=0.25)

    def result(self) -> float | None:
        self.join(timeout=max(0.0, self.deadline - time.monotonic()) + 15)
        return self.done_at


@dataclass
class Wait:
    """Deferred work a phase waited for: what, when it was done (None: not within ``bound``).

    ``recovery``: the work the fault held up, so the recovery time includes it.
    """

    what: str
    done_at: float | None
    bound: float
    recovery: bool = True


@dataclass
class Phase:
    name: str
    fault: bool = True
    started: float = 0.0
    ended: float = 0.0
    fault_at: float = 0.0
    lifted_at: float = 0.0
    db_since: dt.datetime | None = None
    waits: list[Wait] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    after_pause: list[Callable[[], None]] = field(default_factory=list)  # waits run once the load paused
    client_failures: Counter[str] = field(default_factory=Counter)  # what the drivers gave up on
    clients_alive: int = 0
    unrated: tuple[int, int] = (0, 0)  # (not rated, settled) among the rounds settled in the phase


class FaultBench:
    """The service, its private Redis and PostgreSQL path, the load, and the phases."""

    def __init__(self, profile: Profile, redis_down: float | None) -> None:
        self.profile = profile
        self.redis_down = redis_down or profile.redis_down
        self.processes = Processes(LABEL)
        self.tmp = tempfile.TemporaryDirectory(prefix="casekeeper-faults-")
        self.metrics_dir = Path(self.tmp.name) / "metrics"
        self.metrics_dir.mkdir()
        self.redis_port = free_port()
        server = urlsplit(SERVER_URL)
        self.proxy = TcpProxy((server.hostname or "127.0.0.1", server.port or 5432), free_port())
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.gate = Gate()
        self.events: list[Event] = []
        self.threads: list[threading.Thread] = []
        self.tallies: list[load_test.Tally] = []
        self.floor: dict[str, Any] = {}
        self.celery_starts = 0
        self.redis_starts = 0
        self.failures_so_far: Counter[str] = Counter()
        self.phases: list[Phase] = []
        self.served_since = 0.0  # wall clock when the service started, to spot code edited during the run

    # ------------------------------------------------------------------ environment and processes

    def env(self, *, direct: bool = False) -> dict[str, str]:
        """The service's environment; ``direct``: PostgreSQL's own port (the bench's steps), not the proxy."""
        redis = f"redis://127.0.0.1:{self.redis_port}/0"
        env = {
            **os.environ,
            **served_env(DB_NAME, label=LABEL, LOG_FORMAT="json"),
            "REDIS_URL": redis,
            "CELERY_BROKER_URL": redis,
            "CELERY_RESULT_BACKEND": redis,
            "CACHE_KEY_PREFIX": "ck-faults",
            "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir),
        }
        if not direct:
            parts = urlsplit(db_url(DB_NAME))
            user = parts.netloc.rpartition("@")[0]
            netloc = f"{user}@127.0.0.1:{self.proxy.port}" if user else f"127.0.0.1:{self.proxy.port}"
            env["DATABASE_URL"] = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        return env

    def start_redis(self) -> None:
        """The private Redis: append-only file in the temporary directory, so a restart keeps the queue."""
        import redis

        self.redis_starts += 1
        name = "redis" if self.redis_starts == 1 else f"redis-{self.redis_starts}"
        self.processes.start(
            name,
            [
                "redis-server",
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--dir",
                self.tmp.name,
            ],
            dict(os.environ),
        )
        client = redis.Redis(port=self.redis_port, socket_timeout=2)
        deadline = time.monotonic() + 20
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.RedisError as error:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"redis-server did not answer on {self.redis_port}") from error
                    time.sleep(0.1)
        finally:
            client.close()

    def stop_redis(self) -> None:
        for name in [n for n in self.processes.running if n.startswith("redis")]:
            self.processes.stop(name)

    def start_celery(self) -> subprocess.Popen[bytes]:
        self.celery_starts += 1
        name = "celery" if self.celery_starts == 1 else f"celery-{self.celery_starts}"
        return start_worker(
            self.processes,
            self.env(),
            concurrency=CELERY_CONCURRENCY,
            name=name,
            hostname=f"faults-{self.celery_starts}@%h",
            peerless=False,
        )

    def celery(self) -> subprocess.Popen[bytes]:
        name = "celery" if self.celery_starts == 1 else f"celery-{self.celery_starts}"
        return self.processes.running[name]

    def start(self) -> None:
        """Database, data, Redis, proxy, gunicorn, Celery worker and beat; the load, held at the gate."""
        log(f"creating and migrating {DB_NAME}")
        fresh_database(DB_NAME, self.env(direct=True), synchronous_commit=True, timeout=300)
        self.start_redis()
        log("loading yesterday's night and setting up the floor (child process)")
        self.floor = run_child("bench.faults", "setup", self.env(direct=True))
        self.proxy.start()
        self.served_since = time.time()
        server = start_gunicorn(self.processes, self.env(), port=self.port, workers=WORKERS)
        worker = self.start_celery()
        start_beat(self.processes, self.env(), schedule=Path(self.tmp.name) / "celerybeat-schedule")
        wait_until_up(
            self.base, server, path="/readyz", timeout=START_TIMEOUT, log=self.processes.log_path("gunicorn")
        )
        load_test.wait_for_worker(self.env(), worker, self.processes.log_path("celery"))
        load_test.warm_up(self.base, self.floor)
        self.start_load()

    def start_load(self) -> None:
        client_class = FaultClient.bind(self.gate, self.events)
        jobs: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        for i, table in enumerate(self.floor["tables"]):
            target = load_test.drive_faro if table["game"] == "faro" else load_test.drive_pot
            jobs.append((target, (self.base, table, math.inf, 1000 + i)))
        player_ids = [p["id"] for p in self.floor["players"]]
        jobs.append((load_test.drive_cage, (self.base, self.floor["cashier_token"], player_ids, math.inf, 7)))
        jobs.append((load_test.drive_kiosk, (self.base, self.floor["players"], math.inf, 70)))
        for target, args in jobs:
            tally = load_test.Tally()
            self.tallies.append(tally)
            self.threads.append(
                threading.Thread(target=target, args=(*args, tally, client_class), daemon=True)
            )
        tally = load_test.Tally()
        self.tallies.append(tally)
        self.threads.append(
            threading.Thread(
                target=drive_logins, args=(self.base, self.floor["login"], client_class, tally), daemon=True
            )
        )
        for thread in self.threads:
            thread.start()

    def close(self) -> None:
        """Stop the load, every process started here, and the proxy (each step bounded)."""
        self.gate.stop()
        for thread in self.threads:
            thread.join(timeout=5)
        self.processes.stop_all()
        self.proxy.close()
        self.tmp.cleanup()

    # ------------------------------------------------------------------ database reads (direct)

    def sql(self, query: str, params: list[Any] | None = None) -> tuple[Any, ...]:
        with psycopg.connect(db_url(DB_NAME), connect_timeout=10) as conn:
            row = conn.execute(query.encode(), params or []).fetchone()
        return tuple(row) if row else ()

    def unrated(self, since: dt.datetime) -> tuple[int, int]:
        missing, settled = self.sql(UNRATED_SQL, [self.floor["rounds_after"], since])
        return int(missing), int(settled)

    # ------------------------------------------------------------------ the phase skeleton

    def run_phase(self, phase: Phase, fault: Callable[[Phase], None], rated_within: float = 20.0) -> Phase:
        """Load → fault (injected and lifted by ``fault``) → load → pause → deferred work → checks.

        ``rated_within``: seconds after the fault is lifted for every round settled in the phase
        to be rated.
        """
        log(f"phase: {phase.name}")
        since: dt.datetime = self.sql("SELECT now()")[0]
        phase.db_since = since
        phase.started = time.monotonic()
        self.gate.resume()
        try:
            time.sleep(self.profile.before)
            phase.fault_at = phase.lifted_at = time.monotonic()
            fault(phase)
            time.sleep(self.profile.after)
        finally:
            left = self.gate.pause(PAUSE_TIMEOUT)
            phase.ended = time.monotonic()
        if left:
            phase.notes.append(f"{left} requests still out {PAUSE_TIMEOUT:.0f} s after the load paused")
        phase.clients_alive = sum(t.is_alive() for t in self.threads)
        phase.events = [e for e in self.events if phase.started <= e.started < phase.ended]
        failures = sum((t.failures for t in self.tallies), Counter())
        phase.client_failures = failures - self.failures_so_far
        self.failures_so_far = failures
        for hook in phase.after_pause:
            hook()
        since = phase.db_since
        # Rounds settled just before the pause get a few seconds whatever the bound.
        deadline = max(phase.lifted_at + rated_within, time.monotonic() + 10)
        done_at = self.poll(lambda: self.unrated(since)[0] == 0, deadline)
        phase.unrated = self.unrated(since)
        phase.waits.append(
            Wait(
                "every round settled in the phase rated (polled once the load paused)",
                done_at,
                deadline - phase.lifted_at,
                recovery=False,
            )
        )
        log("checking the database (child process)")
        try:
            phase.checks = run_child(
                "bench.faults",
                "verify",
                self.env(direct=True) | {"FAULTS_ROUNDS_AFTER": str(self.floor["rounds_after"])},
            )
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
            # e.g. the app's code, edited while the bench runs, no longer imports: the row says so.
            phase.checks = {"error": str(error).strip().splitlines()[-1][:300]}
        self.phases.append(phase)
        return phase

    def sign_ins(self, phase: Phase, when: str) -> str:
        """The answers to the sign-ins sent between the fault and now, e.g. "2 × 200"."""
        answers = Counter(
            ("no answer" if e.status == 0 else str(e.status)) + ("" if e.json or e.status < 500 else " HTML")
            for e in list(self.events)
            if e.label == "sign in" and e.started >= phase.fault_at
        )
        got = ", ".join(f"{n} × {what}" for what, n in sorted(answers.items())) or "none sent"
        return f"sign-ins {when}: {got}"

    @staticmethod
    def poll(ready: Callable[[], bool], deadline: float, every: float = 0.5) -> float | None:
        """The moment ``ready()`` first held, or None if it did not by ``deadline``."""
        while True:
            with contextlib.suppress(psycopg.Error):
                if ready():
                    return time.monotonic()
            if time.monotonic() >= deadline:
                return None
            time.sleep(every)

    # ------------------------------------------------------------------ the faults

    def baseline(self) -> Phase:
        phase = Phase("none (baseline)", fault=False)
        return self.run_phase(
            phase, lambda p: time.sleep(max(0.0, self.profile.baseline - self.profile.before))
        )

    def kill_gunicorn_workers(self) -> Phase:
        master = self.processes.running["gunicorn"]

        def fault(phase: Phase) -> None:
            victims = sorted(children_of(master.pid))[:2]
            for n, pid in enumerate(victims):
                if n:
                    time.sleep(3)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                phase.lifted_at = time.monotonic()
            back = self.poll(
                lambda: len(set(children_of(master.pid)) - set(victims)) >= WORKERS,
                phase.lifted_at + 30,
                every=0.1,
            )
            phase.waits.append(Wait(f"gunicorn back to {WORKERS} workers", back, 30))
            phase.notes.append(f"SIGKILL to 2 of {WORKERS} workers, 3 s apart")

        return self.run_phase(Phase(f"gunicorn: 2 of {WORKERS} workers SIGKILLed under load"), fault)

    def postgres_refuses(self) -> Phase:
        down = self.profile.postgres_down
        return self.postgres_out(
            f"refusing connections for {down:.0f} s", cut=self.proxy.refuse, mend=self.proxy.restore
        )

    def postgres_stalls(self) -> Phase:
        down = self.profile.postgres_down
        return self.postgres_out(
            f"hung for {down:.0f} s (connects, never answers)", cut=self.proxy.stall, mend=self.proxy.resume
        )

    def postgres_out(self, how: str, *, cut: Callable[[], None], mend: Callable[[], None]) -> Phase:
        """PostgreSQL out of reach through the proxy (``cut`` to ``mend``) for ``postgres_down`` s,
        sign-ins tried during the outage: the two outages differ only in what the proxy does."""

        def fault(phase: Phase) -> None:
            cut()
            time.sleep(self.profile.postgres_down)
            mend()
            phase.lifted_at = time.monotonic()
            phase.notes.append(self.sign_ins(phase, "during the outage"))

        return self.run_phase(Phase(f"PostgreSQL {how}"), fault)

    def redis_stopped(self) -> Phase:
        def fault(phase: Phase) -> None:
            down_from = self.sql("SELECT now()")[0]
            self.stop_redis()
            time.sleep(self.redis_down)
            self.start_redis()
            phase.lifted_at = time.monotonic()
            down_until = self.sql("SELECT now()")[0]
            phase.notes.append(self.sign_ins(phase, "during the outage"))

            window = [self.floor["rounds_after"], down_from, down_until]
            watch = Watch(
                lambda: self.sql(OUTAGE_UNRATED_SQL, window)[0] == 0, phase.lifted_at + RATED_WITHIN
            )

            def rated() -> None:
                done = watch.result()
                missing, settled = self.sql(OUTAGE_UNRATED_SQL, window)
                phase.waits.append(Wait("the rounds settled during the outage rated", done, RATED_WITHIN))
                phase.notes.append(f"{settled} rounds settled during the outage, {missing} not rated")

            phase.after_pause.append(rated)

        return self.run_phase(
            Phase(f"Redis stopped mid-deal for {self.redis_down:.0f} s"), fault, rated_within=RATED_WITHIN
        )

    def kill_worker_mid_audit(self, *, whole: bool) -> Phase:
        day = self.floor["night"]["day"]
        pit = FaultClient.bind(self.gate, self.events)(
            self.base, self.floor["pit_token"], load_test.Tally(), random.Random(5), math.inf
        )

        def fault(phase: Phase) -> None:
            response = pit.attempt("POST", "close gaming day", f"/api/v1/gaming-days/{day}/close", body={})
            if response is None or response.status_code != 202:
                status = response.status_code if response is not None else "no answer"
                phase.notes.append(f"the close got {status}; no audit to kill")
                phase.waits.append(Wait("the audit done", None, 0))
                return
            seen: list[tuple[Any, ...]] = []

            def running() -> bool:
                seen[:] = [self.sql(REPORT_SQL, [day])]
                if not seen[0]:
                    return False
                status, done, total = seen[0][:3]
                return status == "done" or (status == "running" and total > 0 and done > 0)

            if self.poll(running, time.monotonic() + 60, every=0.05) is None:
                phase.notes.append(f"the audit did not start within 60 s ({_report_text(seen)})")
                phase.waits.append(Wait("the audit done", None, 0))
                return
            if seen[0][0] == "done":
                phase.notes.append("the audit finished before it could be killed")
                return
            at_kill = _report_text(seen)
            worker = self.celery()
            phase.fault_at = time.monotonic()
            if whole:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(worker.pid, signal.SIGKILL)
                worker.wait(timeout=10)
                time.sleep(RESTART_AFTER)
                self.start_celery()
                phase.notes.append(f"killed at {at_kill}; worker started again after {RESTART_AFTER:.0f} s")
            else:
                pool = children_of(worker.pid)
                for pid in pool:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                phase.notes.append(f"{len(pool)} pool processes killed at {at_kill}")
            phase.lifted_at = time.monotonic()

            watch = Watch(lambda: self.sql(REPORT_SQL, [day])[:1] == ("done",), phase.fault_at + AUDIT_WITHIN)

            def finished() -> None:
                done = watch.result()
                phase.waits.append(Wait("the audit done", done, AUDIT_WITHIN))
                phase.notes.append(f"then {_report_text([self.sql(REPORT_SQL, [day])])}")

            phase.after_pause.append(finished)

        what = (
            "Celery worker SIGKILLed mid-audit, restarted"
            if whole
            else "Celery pool processes SIGKILLed mid-audit"
        )
        return self.run_phase(Phase(what), fault)

    def run(self) -> None:
        """Every phase in turn; ``self.phases`` keeps the finished ones if one fails."""
        self.start()
        self.baseline()
        self.kill_gunicorn_workers()
        self.postgres_refuses()
        if self.profile.stall:
            self.postgres_stalls()
        self.redis_stopped()
        self.kill_worker_mid_audit(whole=False)
        self.kill_worker_mid_audit(whole=True)


def _report_text(rows: list[tuple[Any, ...]]) -> str:
    if not rows or not rows[0]:
        return "no report row"
    status, done, total, runs = rows[0][:4]
    return f"{status} {done}/{total}, run {runs}"


# --------------------------------------------------------------------------- report


def violations(phase: Phase) -> dict[str, int]:
    """Each invariant's count of violations after the phase (0 everywhere is the goal)."""
    c = phase.checks
    if "error" in c:
        return {"rounds settled in the phase and not rated": phase.unrated[0]}
    return {
        "debits ≠ credits": int(c["total_debits"] != c["total_credits"]),
        "balances do not sum to 0": int(c["balance_sum"] != 0),
        "transfers not netting to 0": c["unbalanced_transfers"] + c["transfers_without_entries"],
        "stored balance ≠ sum of entries": c["balance_mismatches"],
        "wallets below 0 or below their holds": c["negative_wallets"],
        "rounds that do not replay": len(c["replay_failures"]),
        "rounds settled in the phase and not rated": phase.unrated[0],
    }


def recovery(phase: Phase) -> str:
    """Seconds from the fault's end (the kill, for a kill) until requests and deferred work were fine."""
    if not phase.fault:
        return "–"
    waits = [w for w in phase.waits if w.recovery]
    for wait in waits:
        if wait.done_at is None:
            return f"**not within {wait.bound:.0f} s** ({wait.what})"
    failures = [e for e in phase.events if e.failed and e.started >= phase.fault_at]
    last = max((e.started + e.seconds for e in failures), default=phase.lifted_at)
    if failures and last > phase.ended - 2.0:
        return f"**still failing** {phase.ended - phase.lifted_at:.0f} s after"
    done = max([last, phase.lifted_at, *(w.done_at for w in waits if w.done_at is not None)])
    return f"{done - phase.lifted_at:.1f} s"


def longest(phase: Phase) -> float:
    return max((e.seconds for e in phase.events), default=0.0)


def failures_by_endpoint(phase: Phase) -> list[str]:
    counts = Counter(
        (e.label, "no answer" if e.status == 0 else f"{e.status} {'JSON' if e.json else 'HTML'}")
        for e in phase.events
        if e.failed
    )
    return [f"{label}: {what} ×{n}" for (label, what), n in counts.most_common(8)]


def code_edited_since(moment: float) -> list[str]:
    """The app's Python files changed after the service started: its processes may run older code than
    the checks, so a replay difference may come from the edit rather than from the fault."""
    return sorted(
        str(path.relative_to(ROOT))
        for package in ("casino", "ledger", "tables")
        for path in (ROOT / package).rglob("*.py")
        if path.stat().st_mtime > moment
    )


def revision() -> str:
    done = run_captured(["git", "describe", "--always", "--dirty"], timeout=10)
    return done.stdout.strip() or "unknown"


def report(
    machine: str, profile: Profile, phases: list[Phase], floor: dict[str, Any], edited: list[str]
) -> str:
    night = floor["night"]
    lines = [
        f"# Faults ({profile.name})",
        "",
        f"{machine} · code {revision()}",
        "",
        f"gunicorn (`deploy/gunicorn.conf.py`, {WORKERS} sync workers), a Celery worker (concurrency "
        f"{CELERY_CONCURRENCY}) and beat, `{SETTINGS}` with DEBUG off, on `{DB_NAME}`; a private Redis; "
        f"PostgreSQL through a proxy the bench can cut. Load: {len(floor['tables'])} tables dealt over "
        "HTTP (bench.load_test's client), a cashier, a balance kiosk and a sign-in every "
        f"{LOGIN_EVERY:.0f} s; a keyed POST that gets no answer or a 5xx is resent with its key. "
        f"Yesterday's night for the audit: {night['tables']} tables, {night['rounds']:,} rounds, "
        f"{night['actions']:,} actions.",
        "",
        "| fault | requests | 5xx (HTML / JSON) | no answer | invariant violations | longest request "
        "| recovery | what happened |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for phase in phases:
        failed5 = [e for e in phase.events if e.status >= 500]
        html = sum(not e.json for e in failed5)
        lines.append(
            f"| {phase.name} | {len(phase.events):,} | {len(failed5)} ({html} / {len(failed5) - html}) "
            f"| {sum(e.status == 0 for e in phase.events)} | {sum(violations(phase).values())}"
            f"{' (**checks did not run**)' if 'error' in phase.checks else ''} "
            f"| {longest(phase):.1f} s | {recovery(phase)} | {'; '.join(phase.notes) or '–'} |"
        )
    lines += [
        "",
        "*requests*: every HTTP attempt, resends included. *no answer*: refused, reset or timed out. "
        "*longest request*: the client's wall time, queueing for a worker included. *recovery*: from "
        "the end of the fault (the kill itself, for a kill) until the last failed request ended and "
        "the deferred work (ratings of the phase's rounds, the audit, gunicorn's workers) was done.",
        "",
        "## Goals",
        "",
    ]
    lines += [f"- {text} → {'met' if ok else '**not met**'}" for text, ok in goals(phases, profile.phases)]
    if edited:
        lines += [
            "",
            f"Warning: {len(edited)} files of the app changed while it ran ({', '.join(edited[:6])}"
            f"{' …' if len(edited) > 6 else ''}); gunicorn and Celery may have run older code than the "
            "checks, so a round that does not replay may show the edit, not the fault.",
        ]
    lines += ["", "## Details", ""]
    for phase in phases:
        lines.append(f"### {phase.name}")
        lines.append("")
        if phase.fault:
            lines.append(
                f"- fault at +{phase.fault_at - phase.started:.1f} s, lifted at "
                f"+{phase.lifted_at - phase.started:.1f} s, "
                f"load paused at +{phase.ended - phase.started:.1f} s"
            )
        for wait in phase.waits:
            when = (
                f"after {wait.done_at - phase.lifted_at:.1f} s"
                if wait.done_at is not None
                else f"not within {wait.bound:.0f} s"
            )
            lines.append(f"- {wait.what}: {when}")
        lines.append(f"- rounds settled in the phase: {phase.unrated[1]}, not rated: {phase.unrated[0]}")
        lines.append(
            f"- client threads still dealing at the end: {phase.clients_alive} of {len(floor['tables']) + 3}"
        )
        if "error" in phase.checks:
            lines.append(f"- **the checks did not run**: {phase.checks['error']}")
        bad = {k: v for k, v in violations(phase).items() if v}
        lines.append(
            "- invariants: " + ("all hold" if not bad else ", ".join(f"{k}: {v}" for k, v in bad.items()))
        )
        for failure in phase.checks.get("replay_failures", [])[:3]:
            lines.append(f"  - replay: {failure}")
        fails = failures_by_endpoint(phase)
        if fails:
            lines.append("- failed requests: " + "; ".join(fails))
        if phase.client_failures:
            gave_up = "; ".join(f"{what} ×{n}" for what, n in phase.client_failures.most_common(6))
            lines.append(f"- what the client threads gave up on: {gave_up}")
        lines.append("")
    return "\n".join(lines)


def goals(phases: list[Phase], expected: int) -> list[tuple[str, bool]]:
    total = sum(sum(violations(p).values()) for p in phases)
    unchecked = [p.name for p in phases if "error" in p.checks]
    html = sum(1 for p in phases for e in p.events if e.status >= 500 and not e.json)
    base = max((longest(p) for p in phases if not p.fault), default=0.0)
    slow = [f"{p.name}: {longest(p):.1f} s" for p in phases if p.fault and longest(p) > base + SLACK]
    return [
        (f"phases run: {len(phases)} of {expected}", len(phases) == expected),
        (f"phases whose checks did not run: {', '.join(unchecked) or 'none'}", not unchecked),
        (f"invariant violations: {total} (goal 0)", total == 0),
        (f"5xx answers that are not JSON: {html} (goal 0)", html == 0),
        (
            f"no request in a fault phase more than {SLACK:.0f} s longer than the baseline's longest "
            f"({base:.1f} s): {'; '.join(slow) or 'none was'}",
            not slow,
        ),
    ]


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        __doc__,
        quick_help="shorter load windows and outages; no 'PostgreSQL hung' phase",
        duration_help="seconds Redis stays down (default 20, 10 with --quick)",
        database=DB_NAME,
        output=OUTPUT,
    )
    args = parser.parse_args(argv)
    if answer_child(args, {"setup": child_setup, "verify": child_verify}, default=str):
        return 0
    profile = QUICK if args.quick else FULL
    stop_after(BUDGET)
    machine = describe_machine()
    bench = FaultBench(profile, args.duration)
    failure: BaseException | None = None
    try:
        bench.run()
    except Exception as error:  # report the phases that ran, then fail
        failure = error
    finally:
        signal.alarm(120)  # cleanup gets its own bound
        try:
            bench.close()
        finally:
            if not args.keep_db:
                drop_database(DB_NAME)
            signal.alarm(0)
    if not bench.phases:
        if failure is not None:
            raise failure
        return 1
    text = report(machine, profile, bench.phases, bench.floor, code_edited_since(bench.served_since))
    if failure is not None:
        text += f"\nThe run stopped early: {type(failure).__name__}: {failure}\n"
    write_report(text, args.output)
    if failure is not None:
        log(f"stopped early: {failure!r}")
        return 2
    return 0 if all(ok for _, ok in goals(bench.phases, profile.phases)) else 1


if __name__ == "__main__":
    sys.exit(main())
