"""Full floor benchmark: 200 tables dealt on a realistic clock, the pit watching, kiosks reading.

    bench/run-floor [--quick] [--seconds S] [--tables N] [--workers N] [--read-pool N] [--keep-db]
    bench/run-floor --web N [--audit-on none,primary,replica] [--fixed-load]   # bench.floor_scaling
    .venv/bin/python -m bench.floor_bench [...]

Not a test: it prints a markdown report and writes it to build/bench/floor.md; the exit status is
0 only when there were no errors and every check after the run passed (the latency targets are
printed beside the figures, not enforced: a shared machine's load moves them).

1. A throwaway database ``casekeeper_floor`` is created and migrated; ``bench.load_test``'s
   ``child_setup`` builds the floor through the services from a plan that mixes the games as
   ``simulate_night`` does (``tables.simulation.specs.GAME_MIX`` and ``SPECS``: half Faro, the
   rest Farmer, Fan Tan, Newmarket, Tonk and card-room stakes games).
2. The service runs as deploy/ runs it (``bench.served.start_service``): gunicorn with
   ``deploy/gunicorn.conf.py`` (4 sync workers), a Celery worker (concurrency 2) and Celery beat,
   ``casino.settings.local`` with DEBUG off, on an empty Redis database of its own; gunicorn and
   the worker also time each request's and task's CPU (``bench.cpu_probe``), and how long a
   request waited for a core.
3. The load is open loop: every stream has its own clock (``Clock``), and a request goes out when
   its time comes, not when the previous answer is back (a stream only waits for its own
   previous answer, as a dealer does; that wait shows as the stream's schedule lag).
   * Each table's dealer taps at Poisson moments, mean ``MEAN_GAP`` s apart (200 tables: about
     50 taps/s). Nine tables in ten are dealt through the API with the dealer's token and an
     ``Idempotency-Key`` per tap, by ``bench.load_test``'s drivers (Faro from the electronic
     shoe with the night's bots' bets; the pot games with a manual shoe keyed by the client,
     which folds the engine and picks from ``legal_actions``; stakes by the night's bot).
   * Every tenth table (a Faro table) is dealt through the dealer console as a browser would:
     a signed-in session, htmx's ``HX-Request`` and ``X-CSRFToken`` headers, a one-time form
     token per tap; the next tap is read off the screen the answer carries.
   * 10 pit screens (signed-in pit bosses) poll ``GET /pit/live/`` every 5 s.
   * Kiosks read players' balances (``GET /players/me/balance``) at 20/s, Poisson
     (``--read-pool N``: from a second gunicorn of N workers, an experiment deploy/ does not run).
4. Afterwards the Celery queue drains, the bench waits for every settled round's ``RoundStat``
   (watched every second during the run, so "rated within 10 s" is measured), and
   ``bench.load_test``'s checks run on the database: trial balance, zero-sum transfers, stored
   balances, one RoundAction per accepted tap, every round replays (``tables.replay``).
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import psycopg

from bench import app_db, cpu_probe, load_test, scale_out
from bench.harness import children_of, percentile, stop_after, write_report
from bench.load_test import CpuSampler, Tally
from bench.served import (
    DEPLOYED_WORKER_NICE,
    PROBED_CONFIG,
    Processes,
    answer_child,
    bench_parser,
    run_child,
    start_gunicorn,
    start_service,
    wait_until_up,
)

OUTPUT = app_db.ROOT / "build" / "bench" / "floor.md"
DB_NAME = os.environ.get("BENCH_FLOOR_DB", "casekeeper_floor")  # another name: two runs side by side
LABEL = "floor"
MEAN_GAP = 4.0  # seconds between one dealer's taps, on average (Poisson)
CONSOLE_EVERY = 10  # every tenth table is dealt through the console (GAME_MIX puts Faro first)
PIT_SCREENS = 10
PIT_EVERY = 5.0  # seconds: the pit's htmx poll
KIOSK_RATE = 20.0  # balance reads per second, all kiosks together, each read a thread of its own
SEATED = {"faro": load_test.FARO_PUNTERS, "stakes": 3}  # the others: load_test.POT_PLAYERS
STAFF_PASSWORD = "floor-staff-pass-1"  # console dealers and pit bosses sign in with it
SIGN_IN_TIMEOUT = 180.0  # 30 PBKDF2 checks at once on 4 workers, before the load: slow on a busy machine
RATED_WITHIN = 10.0  # seconds from a round's settling to its RoundStat
RATING_WAIT = 30.0  # seconds after the load for the last ratings
HX = {"HX-Request": "true"}
# The console form that posts each tap (its id, sent by htmx as HX-Trigger); a round start's form has none.
FORM_OF_KIND = {
    "bet": "bet-form",
    "remove_bet": "take-down",
    "soda": "deal-form",
    "turn": "deal-form",
    "last_turn": "deal-form",
}
TARGETS = {"action": 50.0, "pit_p99": 150.0, "pit_p50": 40.0, "balance": 20.0}
BUDGET = 1200.0  # seconds for everything but the load: setup of 200 tables, checks, cleanup
# A refusal is the service saying no to a tap in words (400 illegal, 409 conflict); any other
# non-2xx answer, a 5xx, a resend or no answer at all is an error.
REFUSAL_STATUSES = ("400", "409")
STALE_TAP = "stale tap (refused)"  # the latency label of a tap sent from a screen one action behind
# The client is one Python process of about 210 threads (every dealer, the pit screens, the
# kiosks), and some of them fold engines to check the server's states. A thread whose answer has
# arrived waits for Python's GIL before it can note the time, up to the switch interval (5 ms by
# default) each time it asks; 1 ms shortens that wait, which is the client's and not the server's
# (bench/README.md, "A new worker's first answer"). A dealer's tablet has no such wait.
CLIENT_SWITCH_MS = 1.0


@dataclass(frozen=True)
class Profile:
    name: str
    seconds: float
    tables: int
    workers: int = load_test.WORKERS  # gunicorn's sync workers (deploy/gunicorn.conf.py's default)
    worker_nice: int = DEPLOYED_WORKER_NICE  # the Celery worker's niceness
    client_switch_ms: float = CLIENT_SWITCH_MS  # how often the client's threads hand over the GIL
    stale_taps: float = 0.0  # the share of API taps first sent once with the round's previous version
    read_pool: int = 0  # workers of a second gunicorn serving only the balance reads (0: none)
    read_pool_nice: int = 0  # that pool's niceness (negative: ahead of the taps' pool for a core)
    web: int = 1  # gunicorn servers behind the one address (``bench.scale_out``), each with ``workers``
    audit_on: str = ""  # "primary" or "replica": the audit reads there while the floor plays
    replica_url: str = ""  # the served app's REPLICA_DATABASE_URL (``--audit-on replica``)
    replica_dir: str = ""  # the replica's data directory: its processes' CPU is sampled


QUICK = Profile("quick", 20.0, 40)
FULL = Profile("full", 120.0, 200)


# --------------------------------------------------------------------------- the floor (child step)


def floor_plan(tables: int) -> list[tuple[str, dict[str, Any], int]]:
    """One entry a table, mixed as ``simulate_night`` mixes them (its game mix, limits and rules)."""
    from tables.simulation.specs import GAME_MIX, SPECS, STAKES_VARIANTS

    plan = []
    for index in range(tables):
        game = GAME_MIX[index % len(GAME_MIX)]
        spec = SPECS[game]
        rules = dict(spec.rules)
        if game == "stakes":
            rules["variant"] = STAKES_VARIANTS[(index // len(GAME_MIX)) % len(STAKES_VARIANTS)]
        limits = {"min_bet": spec.min_bet, "max_bet": spec.max_bet, "ante": spec.ante, "rules": rules}
        plan.append((game, limits, SEATED.get(game, load_test.POT_PLAYERS)))
    return plan


def child_setup() -> dict[str, Any]:
    """``load_test.child_setup`` on the mixed plan, plus the staff who sign in (console, pit)."""
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.test.utils import override_settings

    from casino.models import Role, User

    staff_hash = make_password(STAFF_PASSWORD)  # the served app's own hasher: these sign in
    # Hundreds of players never sign in during the run: spare them PBKDF2 here (override_settings
    # also empties the hashers' cache).
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        floor = load_test.child_setup(plan=floor_plan(int(os.environ["FLOOR_TABLES"])))
    console = [i for i, table in enumerate(floor["tables"]) if i % CONSOLE_EVERY == 0]
    for i in console:
        if floor["tables"][i]["game"] != "faro":
            raise RuntimeError(f"table {i} is {floor['tables'][i]['game']}: the console tables are Faro")
        floor["tables"][i]["console"] = f"load-dealer-{i}"  # load_test.child_setup's dealer names
    pit = [app_db.staff(f"floor-pit-{k}", Role.PIT_BOSS).username for k in range(PIT_SCREENS)]
    signing_in = [*pit, *(floor["tables"][i]["console"] for i in console)]
    User.objects.filter(username__in=signing_in).update(password=staff_hash)
    return {**floor, "pit": pit}


# --------------------------------------------------------------------------- the clock


class Clock:
    """One stream's schedule, open loop: every moment is drawn up front, from the run's start.

    ``wait`` sleeps until the next moment (at once when the stream is behind) and records in
    ``tally`` how late the request goes out (latencies ``lag: <stream>``): a stream is late only
    while its own previous answer is awaited. Nothing starts after the deadline; the moments
    scheduled are counted (``accepted["scheduled: <stream>"]``) so the report shows what was not
    sent. ``catch_up=False`` (a pit screen's poll) drops the moments missed while an answer was
    awaited instead of sending them back to back.
    """

    def __init__(
        self,
        rng: random.Random,
        mean: float,
        deadline: float,
        tally: Tally,
        stream: str,
        *,
        poisson: bool = True,
        catch_up: bool = True,
    ) -> None:
        at = time.monotonic() + (0.0 if poisson else rng.uniform(0, mean))
        self.moments: list[float] = []
        while True:
            at += rng.expovariate(1 / mean) if poisson else (mean if self.moments else 0.0)
            if at >= deadline:
                break
            self.moments.append(at)
        self.moments.reverse()  # popped from the end: the earliest first
        self.deadline, self.catch_up, self.tally, self.stream = deadline, catch_up, tally, stream
        tally.accepted[f"scheduled: {stream}"] += len(self.moments)

    def wait(self) -> bool:
        """True when it is time for the next request; False (at the deadline) once the run is over."""
        now = time.monotonic()
        if not self.catch_up:
            while len(self.moments) > 1 and self.moments[-2] <= now:
                self.moments.pop()
        if not self.moments or now >= self.deadline:
            time.sleep(max(0.0, self.deadline - now))
            return False
        at = self.moments.pop()
        time.sleep(max(0.0, at - now))
        self.tally.latencies[f"lag: {self.stream}"].append(time.monotonic() - at)
        return True


class PacedClient(load_test.Client):
    """A dealer's API client: ``load_test.Client`` whose taps (not its deliberate idempotent retries)
    wait for the table's ``Clock``; it names the table's game to ``bench.cpu_probe``."""

    def __init__(
        self,
        base: str,
        token: str,
        tally: Tally,
        rng: random.Random,
        deadline: float,
        *,
        game: str,
        stale_taps: float = 0.0,
    ) -> None:
        super().__init__(base, token, tally, rng, deadline)
        self.clock = Clock(random.Random(rng.random()), MEAN_GAP, deadline, tally, "API dealer")
        self.session.headers[cpu_probe.GAME_HEADER] = game
        self.stale_taps = stale_taps

    def post(self, kind: str, label: str, path: str, body: dict[str, Any], expect: int) -> Any:
        if not self.clock.wait():
            return None
        if kind == "action" and body.get("version", 0) > 0 and self.rng.random() < self.stale_taps:
            self.stale_tap(label, path, body)
        return super().post(kind, label, path, body, expect)

    def stale_tap(self, label: str, path: str, body: dict[str, Any]) -> None:
        """The tap sent first from a screen one action behind (a double tap, a slow screen): the
        service refuses it in words (409 stale_round) and moves nothing; then the tap itself."""
        stale = {**body, "version": body["version"] - 1}
        status, data, _ = self.send(STALE_TAP, path, stale, uuid.uuid4().hex)
        code = data.get("error", {}).get("code", "?") if isinstance(data, dict) else "no answer"
        self.tally.failures[f"{label} (stale version): {status} {code}"] += 1


# --------------------------------------------------------------------------- console and pit sessions


def sign_in(base: str, username: str) -> Any:
    """A browser session signed in through ``/console/login/`` (CSRF cookie, then the form)."""
    import requests

    session = requests.Session()
    session.get(f"{base}/console/login/", timeout=SIGN_IN_TIMEOUT)
    answer = session.post(
        f"{base}/console/login/",
        data={
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "username": username,
            "password": STAFF_PASSWORD,
        },
        timeout=SIGN_IN_TIMEOUT,
        allow_redirects=False,
    )
    if answer.status_code != 302:
        raise RuntimeError(f"{username} could not sign in: {answer.status_code} {answer.text[:200]}")
    return session


@dataclass
class Screen:
    """What the console's Faro screen (the htmx partial) offers now, read off its HTML."""

    round_id: int | None = None
    version: str = ""
    dealing: str = ""  # soda, turn or last_turn: the dealing form's action
    dead: list[str] = field(default_factory=list)
    bets: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, html: str, table_id: int) -> Screen:
        live = re.search(rf"/console/tables/{table_id}/rounds/(\d+)/faro/", html)
        if live is None:
            return cls()
        dealing = re.search(rf"/rounds/{live.group(1)}/faro/(soda|turn|last_turn)/\"", html)
        version = re.search(r'name="version" value="(\d+)"', html)
        return cls(
            round_id=int(live.group(1)),
            version=version.group(1) if version else "",
            dealing=dealing.group(1) if dealing else "",
            dead=re.findall(r'class="rank[^"]*\bdead\b[^"]*" data-rank="([^"]+)"', html),
            bets=sorted(set(re.findall(r'data-bet="([^"]+)"', html))),
        )

    def after_bet(self, html: str) -> Screen:
        """A bet's answer from the bet form says only what changed (``tables.console.dealer.answers``):
        the new version, and the new chip if the bet is on the cards."""
        version = re.search(r'name="version" value="(\d+)"', html)
        placed = re.findall(r'data-bet="([^"]+)"', html)
        return replace(
            self,
            version=version.group(1) if version else self.version,
            bets=sorted({*self.bets, *placed}),
        )


def console_fields(bet: dict[str, Any]) -> dict[str, Any]:
    """A bot's Faro bet as the console's bet form posts it (``FaroBetForm``)."""
    fields: dict[str, Any] = {"player": bet["player"], "amount": bet["amount"]}
    if "ranks" in bet:
        fields["ranks"] = bet["ranks"]
    if "target" in bet:
        fields["target"] = bet["target"]
    if bet.get("coppered"):
        fields["coppered"] = "on"
    return fields


def drive_console_faro(
    base: str,
    table: dict[str, Any],
    session: Any,
    deadline: float,
    seed: int,
    tally: Tally,
    *,
    clock: Any = None,
) -> None:
    """A dealer at the console: start a deal, bets (the night's bots), removals, turns, on the clock
    (``clock``: anything with ``wait() -> bool`` that paces the taps; a Poisson ``Clock`` if none)."""
    import requests

    from tables.simulation.bots import faro_bets

    rng = random.Random(seed)
    schedule = random.Random(rng.random())
    clock = clock or Clock(schedule, MEAN_GAP, deadline, tally, "console dealer")
    budgets = dict.fromkeys((int(p) for p in table["seats"].values()), load_test.BUY_IN)
    limits = {"min_bet": table["min_bet"], "max_bet": table["max_bet"]}
    prefix = f"{base}/console/tables/{table['id']}"
    csrf = session.cookies["csrftoken"]
    headers = {**HX, "X-CSRFToken": csrf}
    plan: list[tuple[str, dict[str, Any]]] = []
    try:
        screen = Screen.read(session.get(f"{prefix}/", headers=HX, timeout=30).text, table["id"])
        while True:
            if not plan:
                if screen.round_id is None:
                    plan = [("start", {"shoe": "electronic"})]
                else:
                    public = {"limits": limits, "dead_ranks": screen.dead}
                    plan = [("bet", console_fields(b)) for b in faro_bets(rng, public, budgets, chip=100)]
                    if screen.bets and rng.random() < 0.08:
                        plan.append(("remove_bet", {"bet": rng.choice(screen.bets)}))
                    plan.append((screen.dealing or "turn", {}))
            kind, fields = plan.pop(0)
            if not clock.wait():
                return
            if kind == "start":
                label, url, what = "console start round", f"{prefix}/deal/", "round"
            else:
                label, what = f"console faro {kind}", "action"
                url = f"{prefix}/rounds/{screen.round_id}/faro/{kind}/"
                fields = {**fields, "version": screen.version}
            data = {**fields, "token": secrets.token_urlsafe(18), "csrfmiddlewaretoken": csrf}
            # Each tap names its form, as htmx does (HX-Trigger): a bet and a dealing step that
            # leaves the deal live are answered in part (tables.console.dealer.answers).
            form_id = FORM_OF_KIND.get(kind)
            sent_by = {**headers, "HX-Trigger": form_id} if form_id else headers
            started = time.perf_counter()
            try:
                answer = session.post(url, data=data, headers=sent_by, timeout=load_test.REQUEST_TIMEOUT)
            except requests.RequestException as error:
                tally.failures[f"{label}: {type(error).__name__}"] += 1
                return
            tally.latencies[label].append(time.perf_counter() - started)
            status = str(answer.status_code)
            if answer.status_code == 200:
                tally.accepted[what] += 1
                if kind == "last_turn":
                    tally.settled += 1
            elif status in REFUSAL_STATUSES and "<" in answer.text[:200]:
                tally.failures[f"{label}: {status} refused on the screen"] += 1
                plan.clear()  # the screen shows the refusal; the dealer reads it again
            else:
                tally.failures[f"{label}: {status} {answer.text[:80]!r}"] += 1
                return
            bet_in_part = kind == "bet" and answer.status_code == 200 and "HX-Retarget" in answer.headers
            # A dealing step's parts hold all Screen.read looks for: the bet form, the dealing form, the bets.
            screen = screen.after_bet(answer.text) if bet_in_part else Screen.read(answer.text, table["id"])
    except Exception as error:  # a client bug must not hang the run: record it and stop the table
        tally.failures[f"console client crashed: {type(error).__name__}: {error}"[:160]] += 1


def drive_pit(base: str, session: Any, deadline: float, seed: int, tally: Tally) -> None:
    """A pit screen: ``GET /pit/live/`` as its htmx poll sends it, every ``PIT_EVERY`` seconds."""
    import requests

    clock = Clock(random.Random(seed), PIT_EVERY, deadline, tally, "pit", poisson=False, catch_up=False)
    while clock.wait():
        started = time.perf_counter()
        try:
            answer = session.get(f"{base}/pit/live/", headers=HX, timeout=load_test.REQUEST_TIMEOUT)
        except requests.RequestException as error:
            tally.failures[f"pit live: {type(error).__name__}"] += 1
            continue
        tally.latencies["pit live"].append(time.perf_counter() - started)
        if answer.status_code != 200:
            tally.failures[f"pit live: {answer.status_code}"] += 1


class OneRead(load_test.Client):
    """A kiosk that reads once: ``load_test.drive_kiosk`` with it is a single balance read."""

    def out_of_time(self) -> bool:
        done = getattr(self, "done", False)
        self.done = True
        return done


def drive_kiosks(base: str, players: list[dict[str, Any]], deadline: float, seed: int, tally: Tally) -> None:
    """Balance reads at Poisson moments, ``KIOSK_RATE`` a second, each in a thread of its own: the
    kiosks are separate devices, so a slow answer holds back no other read."""
    rng = random.Random(seed)
    clock = Clock(random.Random(rng.random()), 1 / KIOSK_RATE, deadline, tally, "kiosk")
    reads: list[tuple[threading.Thread, Tally]] = []
    while clock.wait():
        own = Tally()
        args = (base, players, deadline, rng.randrange(1 << 30), own)
        thread = threading.Thread(
            target=load_test.drive_kiosk, args=args, kwargs={"client_class": OneRead}, daemon=True
        )
        thread.start()
        reads.append((thread, own))
    for thread, own in reads:
        thread.join(timeout=max(0.1, deadline + load_test.REQUEST_TIMEOUT - time.monotonic()))
        for label, values in own.latencies.items():
            tally.latencies[label] += values
        tally.failures.update(own.failures)


# --------------------------------------------------------------------------- ratings, watched


class RatingWatch(threading.Thread):
    """Every second: which settled rounds have a RoundStat; the first sighting times the rating.

    A round's delay is (the moment it was first seen rated) - ``ended_at``, both PostgreSQL's
    clock, so it is an upper bound within one polling period.
    """

    SQL = (
        "SELECT r.id, s.round_id IS NOT NULL, extract(epoch FROM clock_timestamp() - r.ended_at)"
        " FROM tables_round r LEFT JOIN tables_roundstat s ON s.round_id = r.id WHERE r.status = 'settled'"
    )

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.conn = psycopg.connect(app_db.db_url(DB_NAME), autocommit=True)
        self.backend_pid = self.conn.info.backend_pid
        self.delays: dict[int, float] = {}
        self.unrated: set[int] = set()
        self.stopping = threading.Event()

    def poll(self) -> None:
        for round_id, rated, age in self.conn.execute(self.SQL).fetchall():
            if rated and round_id not in self.delays:
                self.delays[round_id] = float(age)
                self.unrated.discard(round_id)
            elif not rated:
                self.unrated.add(round_id)

    def run(self) -> None:
        while not self.stopping.wait(1.0):
            with contextlib.suppress(psycopg.Error):
                self.poll()

    def finish(self, wait: float) -> None:
        """Go on polling until every settled round is rated or ``wait`` seconds have passed."""
        give_up = time.monotonic() + wait
        while time.monotonic() < give_up:
            time.sleep(1.0)
            if not self.unrated:
                break
        self.stopping.set()
        self.join(timeout=10)
        with contextlib.suppress(psycopg.Error):
            self.poll()
        self.conn.close()


# --------------------------------------------------------------------------- the run


def service_env(redis_db: int, metrics_dir: str, cpu_dir: str) -> dict[str, str]:
    url = f"{load_test.REDIS_SERVER}/{redis_db}"
    return {
        cpu_probe.DIR_VARIABLE: cpu_dir,
        **os.environ,
        **app_db.served_env(DB_NAME, label=LABEL, LOG_FORMAT="json"),
        "REDIS_URL": url,
        "CELERY_BROKER_URL": url,
        "CELERY_RESULT_BACKEND": url,
        "CACHE_KEY_PREFIX": "ck-floor",
        "PROMETHEUS_MULTIPROC_DIR": metrics_dir,
    }


def parallel(jobs: Sequence[Callable[[], Any]], timeout: float) -> list[Any]:
    """Run each job in a thread of its own; their results in order (an exception is raised here)."""
    results: list[Any] = [None] * len(jobs)

    def run(index: int) -> None:
        try:
            results[index] = jobs[index]()
        except Exception as error:
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    for result in results:
        if isinstance(result, Exception):
            raise result
    return results


def drive(
    base: str,
    floor: dict[str, Any],
    sessions: dict[str, Any],
    duration: float,
    stale_taps: float = 0.0,
    kiosk_base: str | None = None,
) -> tuple[dict[str, list[Tally]], float, float]:
    """Every stream in a thread of its own for ``duration`` s; (tallies by group, wall s, client CPU s).
    ``kiosk_base``: where the kiosks read balances (a pool of their own, as a proxy would route them)."""
    started = time.monotonic()
    deadline = started + duration
    groups: dict[str, list[tuple[Callable[..., None], tuple[Any, ...]]]] = {
        "api": [],
        "console": [],
        "pit": [],
        "kiosk": [],
    }
    for i, table in enumerate(floor["tables"]):
        if "console" in table:
            args = (base, table, sessions[table["console"]], deadline, 1000 + i)
            groups["console"].append((drive_console_faro, args))
        else:
            target = load_test.drive_faro if table["game"] == "faro" else load_test.drive_pot
            groups["api"].append(
                (
                    partial(
                        target,
                        client_class=partial(PacedClient, game=table["game"], stale_taps=stale_taps),
                    ),
                    (base, table, deadline, 1000 + i),
                )
            )
    for k, username in enumerate(floor["pit"]):
        groups["pit"].append((drive_pit, (base, sessions[username], deadline, 50 + k)))
    groups["kiosk"].append((drive_kiosks, (kiosk_base or base, floor["players"], deadline, 70)))
    tallies: dict[str, list[Tally]] = {name: [Tally() for _ in jobs] for name, jobs in groups.items()}
    threads = [
        threading.Thread(target=target, args=(*args, tally), daemon=True)
        for name, jobs in groups.items()
        for (target, args), tally in zip(jobs, tallies[name], strict=True)
    ]
    client_cpu = time.process_time()
    for thread in threads:
        thread.start()
    give_up = deadline + load_test.REQUEST_TIMEOUT * 2  # one bound for all: a request started by the deadline
    for thread in threads:
        thread.join(timeout=max(0.1, give_up - time.monotonic()))
    client_cpu = time.process_time() - client_cpu
    elapsed = time.monotonic() - started
    stuck = sum(thread.is_alive() for thread in threads)
    if stuck:
        tallies["api"][0].failures[f"{stuck} client threads still running after the deadline"] += 1
    return tallies, elapsed, client_cpu


READ_POOL = "gunicorn-reads"  # the second pool's name and log, with --read-pool


def start_read_pool(
    processes: Processes, env: dict[str, str], profile: Profile
) -> tuple[str, subprocess.Popen[bytes]]:
    """A second gunicorn, deploy/'s configuration with ``profile.read_pool`` workers, for the kiosks'
    balance reads alone, as a proxy routing ``GET /api/v1/players/{id}/balance`` to it would have it.
    Its workers are warmed with reads as the main pool's are; (its base URL, its process)."""
    port = app_db.free_port()
    base = f"http://127.0.0.1:{port}"
    readers = start_gunicorn(
        processes,
        env,
        port=port,
        workers=profile.read_pool,
        config=PROBED_CONFIG,
        name=READ_POOL,
        nice=profile.read_pool_nice,
    )
    wait_until_up(
        base, readers, path="/readyz", timeout=load_test.STARTUP_TIMEOUT, log=processes.log_path(READ_POOL)
    )
    return base, readers


def log_ends(processes: Processes, pools: Sequence[str]) -> dict[str, int]:
    """Where each pool's access log ends now: ``served_times`` reads only what comes after (the
    warm-up's requests, the pit's first renders among them, are not the load's)."""
    return {pool: processes.log_path(pool).stat().st_size for pool in pools}


def served_times(processes: Processes, since: dict[str, int]) -> dict[tuple[str, str], list[float]]:
    """gunicorn's access-log times per endpoint, over every pool in ``since``, after its mark."""
    times: dict[tuple[str, str], list[float]] = {}
    for pool, mark in since.items():
        for key, values in load_test.server_times(processes.log_path(pool), mark).items():
            times.setdefault(key, []).extend(values)
    return times


def run_floor(profile: Profile, processes: Processes, redis_db: int, tmp: str) -> dict[str, Any]:
    metrics_dir = Path(tmp) / "metrics"
    metrics_dir.mkdir()
    cpu_dir = Path(tmp) / "cpu"
    cpu_dir.mkdir()
    env = service_env(redis_db, str(metrics_dir), str(cpu_dir))
    if profile.web > 1:
        env |= scale_out.REUSE_PORT
    if profile.replica_url:
        env["REPLICA_DATABASE_URL"] = profile.replica_url
    app_db.log(f"creating and migrating {DB_NAME}")
    app_db.fresh_database(DB_NAME, env, synchronous_commit=True, timeout=300)
    app_db.log(f"setting up {profile.tables} tables (child process)")
    floor = run_child("bench.floor_bench", "setup", env | {"FLOOR_TABLES": str(profile.tables)})
    port = app_db.free_port()
    base = f"http://127.0.0.1:{port}"
    server, worker = start_service(
        processes,
        env,
        port=port,
        workers=profile.workers,
        celery_concurrency=load_test.CELERY_CONCURRENCY,
        beat_schedule=Path(tmp) / "celerybeat-schedule",
        probed=True,
        worker_nice=profile.worker_nice,
    )
    wait_until_up(
        base, server, path="/readyz", timeout=load_test.STARTUP_TIMEOUT, log=processes.log_path("gunicorn")
    )
    more_web = scale_out.start_more_web(processes, env, port=port, workers=profile.workers, web=profile.web)
    for k, more in enumerate(more_web, start=2):
        log = processes.log_path(scale_out.web_name(k))
        wait_until_up(base, more, path="/readyz", timeout=load_test.STARTUP_TIMEOUT, log=log)
    kiosk_base, readers = start_read_pool(processes, env, profile) if profile.read_pool else (base, None)
    load_test.wait_for_worker(env, worker, processes.log_path("celery"))
    app_db.log("signing in the console dealers and the pit bosses; warming up")
    names = [*floor["pit"], *(t["console"] for t in floor["tables"] if "console" in t)]
    sessions = dict(
        zip(names, parallel([partial(sign_in, base, n) for n in names], SIGN_IN_TIMEOUT), strict=True)
    )
    load_test.warm_up(base, floor)
    if readers:
        load_test.warm_up(kiosk_base, floor)
    pit_pages = [partial(sessions[n].get, f"{base}/pit/live/", headers=HX, timeout=60) for n in floor["pit"]]
    parallel(pit_pages, 120)
    watch = RatingWatch()
    # The audit reads where the served app would: the replica when it has REPLICA_DATABASE_URL.
    audit = scale_out.start_audit_loop(processes, env, profile.seconds) if profile.audit_on else None
    cpu = CpuSampler(
        {
            "gunicorn": lambda: (
                children_of(server.pid)
                + (children_of(readers.pid) if readers else [])
                + [pid for more in more_web for pid in children_of(more.pid)]
            ),
            "celery": lambda: [worker.pid, *children_of(worker.pid), processes.running["beat"].pid],
            "postgres": lambda: [pid for pid in app_db.backends(DB_NAME) if pid != watch.backend_pid],
            "replica": scale_out.group(lambda: scale_out.replica_pids(profile.replica_dir)),
            "audit": scale_out.group(lambda: [audit.pid] if audit else []),
        }
    )
    load_before = os.getloadavg()
    probe_marks = cpu_probe.marks(cpu_dir)
    web_logs = [scale_out.web_name(k) for k in range(1, profile.web + 1)]
    log_marks = log_ends(processes, [*web_logs, *([READ_POOL] if readers else [])])
    app_db.log(f"driving {len(floor['tables'])} tables for {profile.seconds:.0f} s")
    cpu.start()
    watch.start()
    sys.setswitchinterval(profile.client_switch_ms / 1000)
    machine_before, wal_before = scale_out.machine_busy(), scale_out.wal_position()
    tallies, elapsed, client_cpu = drive(
        base, floor, sessions, profile.seconds, profile.stale_taps, kiosk_base
    )
    machine_after, wal_after = scale_out.machine_busy(), scale_out.wal_position()
    cpu.finish()
    audit_runs = scale_out.audit_runs(processes, audit, timeout=BUDGET) if audit else []
    load_after = os.getloadavg()
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    drained_at = time.monotonic()
    while time.monotonic() - drained_at < load_test.DRAIN_TIMEOUT and load_test.redis_queue(redis_db) != (
        0,
        0,
    ):
        time.sleep(0.5)
    queue_left = load_test.redis_queue(redis_db)
    drain_seconds = time.monotonic() - drained_at
    watch.finish(RATING_WAIT)
    processes.stop_all()
    probed = cpu_probe.read(cpu_dir, probe_marks)
    app_db.log("checking the database")
    checks = run_child("bench.load_test", "verify", env)
    return {
        "profile": profile,
        "elapsed": elapsed,
        "tallies": tallies,
        "tally": load_test.merge([t for group in tallies.values() for t in group]),
        "floor": floor,
        "setup_transfers": floor["transfers"],
        "setup_buy_ins": floor["buy_ins"],
        "checks": checks,
        "queue_left": queue_left,
        "drain_seconds": drain_seconds,
        "rating_delays": watch.delays,
        "unrated": sorted(watch.unrated),
        "app_cpu": cpu.used("gunicorn"),
        "db_cpu": cpu.used("postgres"),
        "celery_cpu": cpu.used("celery"),
        "client_cpu": client_cpu,
        "replica_cpu": cpu.used("replica"),
        "audit_cpu": cpu.used("audit"),
        "machine_busy": scale_out.busy_share(machine_before, machine_after),
        "audit_runs": audit_runs,
        "wal_bytes": wal_after - wal_before,
        "load_before": load_before,
        "load_after": load_after,
        "uptime": uptime,
        "served": served_times(processes, log_marks),
        "probed": probed,
    }


# --------------------------------------------------------------------------- report


def _values(tallies: list[Tally], match: Callable[[str], bool]) -> list[float]:
    return [
        v for tally in tallies for label, values in tally.latencies.items() if match(label) for v in values
    ]


def _is_api_action(label: str) -> bool:
    return label.startswith("faro ") or label.endswith(" action")


def _served(run: dict[str, Any], match: Callable[[str, str], bool]) -> list[float]:
    return [v for (method, path), values in run["served"].items() if match(method, path) for v in values]


def split_failures(tally: Tally) -> tuple[Counter[str], Counter[str]]:
    """(refusals, errors): a 400 or 409 in words is a refusal; anything else that failed is an error."""
    refusals: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for key, count in tally.failures.items():
        status = re.search(r": (\d{3})\b", key)
        (refusals if status and status.group(1) in REFUSAL_STATUSES else errors)[key] += count
    for key, count in tally.resent.items():
        errors[f"resent after {key}"] += count
    return refusals, errors


def _ms(seconds: list[float], fraction: float) -> str:
    return f"{percentile(seconds, fraction) * 1000:.1f}" if seconds else "–"


def _target(value: float, limit: float) -> str:
    return f"≤ {limit:.0f} ms: {'met' if value <= limit else '**missed**'}"


def endpoint_rows(run: dict[str, Any]) -> list[tuple[str, list[float], list[float], str]]:
    """(endpoint, client seconds, server ms from the access log, target) for each row of the table."""
    t = run["tallies"]
    api_actions = _values(t["api"], _is_api_action)
    console_actions = _values(t["console"], lambda label: label.startswith("console faro "))
    pit = _values(t["pit"], lambda label: label == "pit live")
    balance = _values(t["kiosk"], lambda label: label == "balance read")

    def p99(values: list[float]) -> float:
        return percentile(values, 0.99) * 1000 if values else float("inf")

    def p50(values: list[float]) -> float:
        return percentile(values, 0.5) * 1000 if values else float("inf")

    pit_target = f"p50 {_target(p50(pit), TARGETS['pit_p50'])}; p99 {_target(p99(pit), TARGETS['pit_p99'])}"
    return [
        (
            "`POST /api/v1/rounds/{id}/actions` (action API)",
            api_actions,
            _served(run, lambda m, p: m == "POST" and p == "/api/v1/rounds/{id}/actions"),
            f"p99 {_target(p99(api_actions), TARGETS['action'])}",
        ),
        (
            "`POST /console/…/faro/{kind}/` (action console, htmx)",
            console_actions,
            _served(run, lambda m, p: m == "POST" and "/faro/" in p),
            f"p99 {_target(p99(console_actions), TARGETS['action'])} (as the API's)",
        ),
        ("`GET /pit/live/` (pit screens)", pit, _served(run, lambda m, p: p == "/pit/live/"), pit_target),
        (
            "`GET /api/v1/players/me/balance` (kiosks)",
            balance,
            _served(run, lambda m, p: p == "/api/v1/players/me/balance"),
            f"p99 {_target(p99(balance), TARGETS['balance'])}",
        ),
        (
            "`POST /api/v1/tables/{id}/rounds` (start a round, API)",
            _values(t["api"], lambda label: label == "start round"),
            _served(run, lambda m, p: m == "POST" and p == "/api/v1/tables/{id}/rounds"),
            "",
        ),
        (
            "`POST /console/tables/{id}/deal/` (start a round, console)",
            _values(t["console"], lambda label: label == "console start round"),
            _served(run, lambda m, p: m == "POST" and p == "/console/tables/{id}/deal/"),
            "",
        ),
        (
            "stale taps (API, the round's previous version: 409)",
            _values(t["api"], lambda label: label == STALE_TAP),
            [],
            "",
        ),
        (
            "idempotent retries (API, same key, replayed)",
            _values(t["api"], lambda label: label == "idempotent retry (replayed)"),
            [],
            "",
        ),
    ]


def rating_verdict(run: dict[str, Any]) -> tuple[str, bool]:
    delays = list(run["rating_delays"].values())
    late = sum(d > RATED_WITHIN for d in delays)
    worst = f"{max(delays):.1f}" if delays else "–"
    text = (
        f"ratings: {len(delays):,} settled rounds rated ({len(run['unrated'])} not), "
        f"{len(delays) - late:,} of them seen rated within {RATED_WITHIN:.0f} s of settling; "
        f"slowest {worst} s (polled every second)"
    )
    return text, bool(delays) and not late and not run["unrated"]


def verdicts(run: dict[str, Any], errors: Counter[str]) -> list[tuple[str, bool]]:
    """``load_test``'s checks (its "no failed request" line replaced by errors vs refusals), ratings."""
    shared = [
        item
        for item in load_test.verdicts(run)
        if not item[0].startswith("requests that did not get their answer")
    ]
    return [
        (
            f"errors (non-2xx other than a 400/409 refusal, no answer, resends): {sum(errors.values())}",
            not errors,
        ),
        *shared,
        rating_verdict(run),
    ]


# Where a request's path and the dealer's game put it in the CPU table (the rest: method and path).
PROBE_ROWS = (
    ("POST /api/v1/rounds/{id}/actions", "action API: {game}"),
    ("POST /api/v1/tables/{id}/rounds", "start a round, API"),
    ("POST /console/tables/{id}/rounds/{id}/faro/", "action console (htmx): faro {kind}"),
    ("POST /console/tables/{id}/deal/", "start a round, console"),
    ("GET /pit/live/", "`/pit/live/`"),
    ("GET /api/v1/players/me/balance", "balance read"),
)


def probe_row(what: str, game: str) -> str:
    for start, row in PROBE_ROWS:
        if what.startswith(start):  # a console tap's kind (bet, turn …) ends its path
            return row.format(game=game or "?", kind=what[len(start) :].strip("/"))
    return f"`{what}`"


def linger_line(lingers: list[int], run: dict[str, Any]) -> str:
    """How long the workers waited, after each answer, for its client to close the connection."""
    if not lingers:
        return "Waits of the gunicorn workers for a client to close its connection: none measured."
    waits = sorted(ns / 1e6 for ns in lingers)  # ms
    workers = run["profile"].workers + run["profile"].read_pool  # every pool's workers linger
    held = sum(waits) / 1000
    return (
        "After each answer a sync worker half-closes the connection and waits for the client to "
        "close its side before it takes the next request (gunicorn's graceful close): "
        f"{len(waits):,} waits, p50 {percentile(waits, 0.5):.2f} ms, p99 "
        f"{percentile(waits, 0.99):.2f} ms, longest {waits[-1]:.1f} ms, {held:,.1f} "
        f"worker-seconds in all ({held / (workers * run['elapsed']) * 100:.1f} % of the "
        "workers' time). Behind deploy/'s proxy the proxy is the client."
    )


def wait_lines(waits: dict[str, list[tuple[int, ...]]]) -> list[str]:
    """Where a request's time in the worker went, for the slowest 1 % of each endpoint: on a core
    (the worker's and its backend's CPU), runnable but waiting for one (the scheduler's run delay of
    both), and the rest (the network between them, locks, the disk)."""
    if not waits:
        return []
    lines = [
        "Time in the worker, from `pre_request` to `post_request` (the access log's span, without "
        "reading the request), split for the slowest 1 % of the requests of each endpoint with 100 "
        "or more into time on a core (the worker's and its PostgreSQL backend's CPU), time runnable "
        "but waiting for a core (both processes' run delay, /proc/<pid>/schedstat) and the rest "
        "(waiting on each other over the socket, on a lock, on the disk). The worker and its "
        "backend overlap a little (one is still on a core or waiting for one while the other "
        "wakes), so the parts can add up to a little more than the time: the rest is then negative.",
        "",
        "| endpoint | requests | in the worker p50 / p99 ms | mean ms: in the worker = on a core + "
        "waiting + the rest | slowest 1 %: ms in the worker | on a core | waiting for a core | the rest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, values in sorted(waits.items(), key=lambda item: -len(item[1])):
        if len(values) < 100:
            continue
        ordered = sorted(values)
        slowest = ordered[len(ordered) - max(1, len(ordered) // 100) :]
        mean_wall, mean_waited, mean_cpu = (sum(v[i] for v in ordered) / len(ordered) / 1e6 for i in range(3))
        wall, waited, cpu = (sum(v[i] for v in slowest) / len(slowest) / 1e6 for i in range(3))
        walls = [v[0] / 1e6 for v in ordered]
        lines.append(
            f"| {label} | {len(values):,} | {percentile(walls, 0.5):.1f} / {percentile(walls, 0.99):.1f} "
            f"| {mean_wall:.1f} = {mean_cpu:.1f} + {mean_waited:.1f} + "
            f"{mean_wall - mean_cpu - mean_waited:.1f} "
            f"| {wall:.1f} | {cpu:.1f} | {waited:.1f} | {wall - cpu - waited:.1f} |"
        )
    return lines


def cpu_lines(run: dict[str, Any]) -> list[str]:
    """Server CPU per request by endpoint (and game), and per Celery task, from ``bench.cpu_probe``."""
    rows: dict[str, list[tuple[int, int]]] = {}
    tasks: dict[str, list[tuple[int, int]]] = {}
    pauses: list[int] = []  # the gunicorn workers' full garbage collections, wall ns each
    lingers: list[int] = []  # the workers' waits for a client to close its connection, wall ns each
    waits: dict[str, list[tuple[int, ...]]] = {}  # per request: (wall, waiting for a core, CPU) ns
    for (kind, what, game), values in run["probed"].items():
        if kind == "wait":
            waits.setdefault(probe_row(what, game), []).extend(values)
            continue
        if kind == "gc":
            pauses += [wall for wall, _ in values]
            continue
        if kind == "linger":
            lingers += [wall for wall, _ in values]
            continue
        into = rows.setdefault(probe_row(what, game), []) if kind == "request" else tasks.setdefault(what, [])
        into += values
    total = sum(app + db for values in rows.values() for app, db in values) / 1e9
    lines = [
        "Server CPU per request by endpoint, measured in the served processes (`bench.cpu_probe`: "
        "the gunicorn worker's own CPU from `pre_request` to `post_request`, and its PostgreSQL "
        "backend's from /proc/<pid>/schedstat; every request answered from the load's start until "
        f"the service stopped). In all {total:,.1f} CPU-s measured this way, against gunicorn "
        f"{run['app_cpu']:,.1f} + PostgreSQL {run['db_cpu']:,.1f} CPU-s sampled from /proc "
        "(the sample also has accepting and parsing the request, and autovacuum).",
        "",
        "| endpoint | requests | gunicorn ms / req | PostgreSQL ms / req | total ms / req | CPU-s | share |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]

    def line(label: str, values: list[tuple[int, int]], of: float) -> str:
        app = sum(a for a, _ in values) / 1e6
        db = sum(d for _, d in values) / 1e6
        n = len(values)
        return (
            f"| {label} | {n:,} | {app / n:.2f} | {db / n:.2f} | {(app + db) / n:.2f} "
            f"| {(app + db) / 1000:,.1f} | {(app + db) / 1000 / of * 100 if of else 0:.0f}% |"
        )

    for label, values in sorted(rows.items(), key=lambda item: -sum(a + d for a, d in item[1])):
        lines.append(line(label, values, total))
    pauses.sort()
    lines += [
        "",
        "Full collections of Python's cycle collector in the gunicorn workers (each stops the request "
        f"it runs in): {len(pauses)}"
        + (
            f", p50 {pauses[len(pauses) // 2] / 1e6:.1f} ms, longest {pauses[-1] / 1e6:.1f} ms, "
            f"{sum(pauses) / 1e9:.2f} s in all."
            if pauses
            else "."
        ),
        "",
        linger_line(lingers, run),
        "",
        *wait_lines(waits),
    ]
    if tasks:
        task_total = sum(app + db for values in tasks.values() for app, db in values) / 1e9
        lines += [
            "",
            f"Celery tasks (the prefork child's CPU and its PostgreSQL backend's; {task_total:,.1f} CPU-s "
            f"measured, {run['celery_cpu']:,.1f} CPU-s sampled for worker and beat):",
            "",
            "| task | tasks | worker ms / task | PostgreSQL ms / task | total ms / task | CPU-s | share |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *(line(f"`{name}`", values, task_total) for name, values in sorted(tasks.items())),
        ]
    return [*lines, ""]


def report(run: dict[str, Any], env: str) -> str:
    profile: Profile = run["profile"]
    elapsed = profile.seconds  # rates are per second of the load window
    tail = run["elapsed"] - profile.seconds  # answers to requests sent by its end came this much later
    tally: Tally = run["tally"]
    refusals, errors = split_failures(tally)
    requests_made = sum(len(v) for k, v in tally.latencies.items() if not k.startswith("lag: "))
    taps = tally.accepted["action"] + tally.accepted["round"]
    tables = len(run["floor"]["tables"])
    console_tables = sum("console" in t for t in run["floor"]["tables"])
    games = Counter(t["game"] for t in run["floor"]["tables"])
    lines = [
        f"# Full floor ({profile.name})",
        "",
        env,
        "",
        f"Load average: {', '.join(f'{x:.2f}' for x in run['load_before'])} before the load, "
        f"{', '.join(f'{x:.2f}' for x in run['load_after'])} at its end (`uptime`: {run['uptime']}).",
        "",
        f"gunicorn (`deploy/gunicorn.conf.py`, {profile.workers} sync workers"
        + (
            f"; the kiosks' reads go to a second pool of {profile.read_pool}, niceness "
            f"{profile.read_pool_nice}"
            if profile.read_pool
            else ""
        )
        + "), a Celery worker "
        f"(concurrency {load_test.CELERY_CONCURRENCY}, niceness {profile.worker_nice}) and Celery beat "
        "on 127.0.0.1, DEBUG off. "
        f"{tables} tables ({', '.join(f'{g} {n}' for g, n in sorted(games.items()))}) for {elapsed:.0f} s; "
        f"the last answers came {tail:.1f} s after its end. "
        f"{console_tables} of the Faro tables dealt through the console (htmx), the rest through the API. "
        f"Each dealer taps at Poisson moments {MEAN_GAP:.0f} s apart on average (offered: "
        f"{tables / MEAN_GAP:.0f} taps/s), {PIT_SCREENS} pit screens poll `/pit/live/` every "
        f"{PIT_EVERY:.0f} s, kiosks read balances at {KIOSK_RATE:.0f}/s. Open loop: a request goes out at "
        "its scheduled moment, not after the previous answer (a dealer waits only for their own last tap). "
        'Latency is the client\'s wall time, queueing for a gunicorn worker included; "server" is '
        "gunicorn's access-log time for the same endpoint. The client's threads hand over Python's GIL "
        f"every {profile.client_switch_ms:g} ms."
        + (
            f" {profile.stale_taps:.0%} of the API dealers' taps are first sent once from a screen one "
            "action behind (the round's previous version), which the service refuses (409 stale_round)."
            if profile.stale_taps
            else ""
        ),
        "",
        "| endpoint | requests | per s | p50 ms | p99 ms | server p50 / p99 ms | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for label, values, served, target in endpoint_rows(run):
        server = f"{percentile(served, 0.5):.0f} / {percentile(served, 0.99):.0f}" if served else "–"
        lines.append(
            f"| {label} | {len(values):,} | {len(values) / elapsed:,.1f} | {_ms(values, 0.5)} "
            f"| {_ms(values, 0.99)} | {server} | {target} |"
        )
    lags = {k: v for k, v in tally.latencies.items() if k.startswith("lag: ")}
    lines += [
        "",
        f"Dealer taps answered 2xx: {taps:,} ({taps / elapsed:,.1f}/s); rounds settled: {tally.settled:,}; "
        f"all requests: {requests_made:,} ({requests_made / elapsed:,.1f}/s).",
        "",
        "Schedule lag (how late a request went out after its moment: only while the stream's previous "
        "answer was awaited, so it also shows whether the client kept up): "
        + "; ".join(f"{k[5:]} p50 {_ms(v, 0.5)} / p99 {_ms(v, 0.99)} ms" for k, v in sorted(lags.items())),
        "",
        "Sent / scheduled before the end (a request still due when the time ran out was waiting behind its "
        "stream's previous answer; a pit screen skips the polls it missed): "
        + "; ".join(
            f"{k[5:]} {len(v):,} / {tally.accepted[f'scheduled: {k[5:]}']:,}" for k, v in sorted(lags.items())
        ),
        "",
    ]
    if requests_made:
        app, db = run["app_cpu"] / requests_made * 1000, run["db_cpu"] / requests_made * 1000
        lines += [
            f"CPU per request (server, /proc, all endpoints together): gunicorn workers {app:.1f} ms + "
            f"PostgreSQL backends {db:.1f} ms = {app + db:.1f} ms; Celery worker and beat "
            f"{run['celery_cpu']:.1f} CPU-s in all. The client (this process, every thread): "
            f"{run['client_cpu'] / requests_made * 1000:.1f} ms per request, "
            f"{run['client_cpu'] / run['elapsed'] * 100:.0f}% of one core.",
            "",
            *cpu_lines(run),
        ]
    lines += [
        f"Refusals (400/409 in words, counted apart from errors): {sum(refusals.values())}"
        + "".join(f"\n- {k} ×{n}" for k, n in refusals.most_common(10)),
        "",
        f"Errors: {sum(errors.values())}" + "".join(f"\n- {k} ×{n}" for k, n in errors.most_common(15)),
        "",
        "## Checks after the run",
        "",
    ]
    lines += load_test.verdict_lines(verdicts(run, errors))
    delays = sorted(run["rating_delays"].values())
    if delays:
        lines.append(
            f"\nRating delay (settled → RoundStat seen): p50 {percentile(delays, 0.5):.1f} s, "
            f"p99 {percentile(delays, 0.99):.1f} s, max {delays[-1]:.1f} s over {len(delays):,} rounds."
        )
    lines += load_test.problem_lines(tally, run["checks"])
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        __doc__,
        quick_help=f"{QUICK.seconds:.0f} s at {QUICK.tables} tables"
        f" instead of {FULL.seconds:.0f} s at {FULL.tables}",
        duration_help="seconds of load (overrides the profile)",
        database=DB_NAME,
        output=OUTPUT,
    )
    parser.add_argument("--seconds", type=float, dest="duration", help="the same as --duration")
    parser.add_argument("--tables", type=int, help="tables on the floor (overrides the profile)")
    parser.add_argument(
        "--workers", type=int, default=load_test.WORKERS, help="gunicorn sync workers (GUNICORN_WORKERS)"
    )
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=DEPLOYED_WORKER_NICE,
        help="the Celery worker's niceness (deploy/'s: %(default)s)",
    )
    parser.add_argument(
        "--client-switch-ms",
        type=float,
        default=CLIENT_SWITCH_MS,
        help="how often the client's threads hand over Python's GIL, ms (Python's default: 5)",
    )
    parser.add_argument(
        "--stale-taps",
        type=float,
        default=0.0,
        help="share of API dealer taps first sent from a screen one action behind, refused 409 (0.05: 5 %%)",
    )
    parser.add_argument(
        "--read-pool",
        type=int,
        default=0,
        help="serve the balance reads from a second gunicorn of this many workers, as a proxy routing "
        "them to a pool of their own would (0, deploy/'s: every request to one pool)",
    )
    parser.add_argument(
        "--read-pool-nice", type=int, default=0, help="that pool's niceness (negative needs root)"
    )
    parser.add_argument(
        "--web",
        type=int,
        default=0,
        help="steps of 1 .. N gunicorn servers behind one address, --tables tables each, and a table of "
        "throughput, p99 and CPU shares (bench.floor_scaling); N up to this machine's cores",
    )
    parser.add_argument(
        "--audit-on",
        type=scale_out.parse_audits,
        help="none,primary,replica: each --web step with the audit reading there while the floor plays "
        "(on a primary and a replica of the bench's own)",
    )
    parser.add_argument(
        "--fixed-load",
        action="store_true",
        help="with --web: the same --tables at every step, not per server",
    )
    args = parser.parse_args(argv)
    if answer_child(args, {"setup": child_setup}):
        return 0
    base = QUICK if args.quick else FULL
    profile = Profile(
        base.name,
        args.duration or base.seconds,
        args.tables or base.tables,
        args.workers,
        args.worker_nice,
        args.client_switch_ms,
        args.stale_taps,
        args.read_pool,
        args.read_pool_nice,
    )
    if args.web or args.audit_on:
        from bench import floor_scaling

        return floor_scaling.sweep(args, profile)
    stop_after(profile.seconds + BUDGET)
    env = app_db.describe_machine()
    processes = Processes(LABEL)
    redis_db = load_test.free_redis_db()
    try:
        with tempfile.TemporaryDirectory(prefix="casekeeper-floor-") as tmp:
            run = run_floor(profile, processes, redis_db, tmp)
    finally:
        signal.alarm(120)
        processes.stop_all()
        load_test.empty_redis_db(redis_db)
        if not args.keep_db:
            app_db.drop_database(DB_NAME)
        signal.alarm(0)
    write_report(report(run, env), args.output)
    _, errors = split_failures(run["tally"])
    return 0 if all(ok for _, ok in verdicts(run, errors)) else 1


if __name__ == "__main__":
    sys.exit(main())
