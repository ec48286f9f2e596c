"""Faults in a deployment: processes killed with SIGKILL while they hold work, nothing lost or doubled.

(a) A Celery worker (``celery -A casino worker``, a real subprocess) is killed, whole process
    group, in the middle of the end-of-night audit. The task was taken with ``acks_late``, so
    Redis still holds it as unacknowledged; once it has been out longer than the visibility
    timeout (``CELERY_VISIBILITY_TIMEOUT``, a few seconds here) a new worker restores it and
    runs it again, and the audit finishes. The ledger is untouched by all of it.
(b) A gunicorn worker (``deploy/gunicorn.conf.py``, 2 workers) is killed while a stream of
    Faro bets with ``Idempotency-Key`` headers is running, first while its request is inside
    a transaction, then at an arbitrary moment. Clients resend failed requests with the same
    key; afterwards every bet is on the ledger exactly once and no transfer is half-posted.

Both subprocesses use pytest-django's test database (``DATABASE_URL`` built from the test
connection), so the tests are transactional: the other processes see committed rows only.
Celery messages go to a Redis database of their own (``FAULT_REDIS_DB``) and a queue named
for the test, so no other worker on this Redis takes them and a short visibility timeout
restores no one else's tasks. Every process started here is stopped by its process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
import pytest
import redis
import requests
from django.db import connection

from casino.celery import app as celery_app
from casino.models import IdempotencyRecord, Player, User
from ledger.gaming_day import gaming_day_for
from ledger.models import Account, ClosedGamingDay, Entry, Transfer
from ledger.selectors import get_trial_balance
from tables.accounts import layout_code
from tables.audit.models import AuditReport, AuditStatus
from tables.models import RoundAction
from tables.rounds import start_round
from tables.services import seat_player
from tables.simulation.night import NightConfig, simulate_night
from tests import factories
from tests.celery_support import forget_broker_pools, forget_routes
from tests.redis_support import free_port

pytestmark = [pytest.mark.outage, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the virtualenv running pytest has celery and gunicorn
FAULT_REDIS_DB = 11
VISIBILITY_TIMEOUT = 4  # seconds, for the killed worker's task to be restored
START_TIMEOUT = 60.0


# --------------------------------------------------------------------------- helpers


def database_url(application: str = "") -> str:
    """pytest-django's test database, for the subprocesses (named, to find their sessions)."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="")
    if s["PASSWORD"]:
        auth += ":" + quote(s["PASSWORD"], safe="")
    host = s["HOST"] or "127.0.0.1"
    url = f"postgres://{auth}@{host}:{s['PORT'] or 5432}/{s['NAME']}"
    return f"{url}?application_name={application}" if application else url


def service_env(application: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.test",
        "DATABASE_URL": database_url(application),
        "PYTHONPATH": str(ROOT),
        "LOG_LEVEL": "WARNING",
        "LOG_FORMAT": "text",
        **extra,
    }


def wait_for(predicate: Callable[[], Any], *, timeout: float, what: str, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def children_of(ppid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == ppid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return sorted(found)


class Service:
    """A subprocess in its own session, so it and its children are signalled by group only."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.log_path = log
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def kill(self) -> None:
        """SIGKILL to the whole group: the machine running it died."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # whatever is left in the group
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self._log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]


def backends(application: str, *, waiting: bool = False) -> set[int]:
    """A subprocess's PostgreSQL sessions on the test database (optionally: those waiting for a lock)."""
    sql = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s"
    if waiting:
        sql += " AND wait_event_type = 'Lock'"
    with connection.cursor() as cursor:
        cursor.execute(sql, [application])
        return {row[0] for row in cursor.fetchall()}


@contextlib.contextmanager
def held(sql: str, params: tuple[Any, ...] = ()) -> Iterator[int]:
    """Run ``sql`` in a transaction on a connection of its own and keep its locks until exit.

    A session-level advisory lock outlives the rollback, and closing the connection frees it
    only once the server's backend has exited, a moment later: so it is freed here, before the
    caller goes on."""
    with psycopg.connect(database_url()) as conn:
        conn.execute(sql, params)
        pid = conn.info.backend_pid
        try:
            yield pid
        finally:
            conn.rollback()
            conn.execute("SELECT pg_advisory_unlock_all()")


def row_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
    return counts


def assert_books_balance() -> None:
    """No transfer half-posted, every stored balance its entries' sum, the trial balance equal."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT transfer_id, sum(amount), count(*), count(DISTINCT leg) FROM ledger_entry"
            " GROUP BY transfer_id HAVING sum(amount) <> 0 OR count(*) <> 2 * count(DISTINCT leg)"
        )
        assert cursor.fetchall() == [], "transfers whose entries do not net to zero in two per leg"
        cursor.execute(
            "SELECT t.id FROM ledger_transfer t"
            " WHERE NOT EXISTS (SELECT 1 FROM ledger_entry e WHERE e.transfer_id = t.id)"
        )
        assert cursor.fetchall() == [], "transfers without entries"
        cursor.execute(
            "SELECT a.code, a.balance, coalesce(sum(e.amount), 0) FROM ledger_account a"
            " LEFT JOIN ledger_entry e ON e.account_id = a.id GROUP BY a.id"
            " HAVING a.balance <> coalesce(sum(e.amount), 0)"
        )
        assert cursor.fetchall() == [], "stored balances that are not the sum of their entries"
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits
    assert sum(row.balance for row in trial.rows) == 0


def _reset_producers() -> None:
    """Forget pooled broker connections and routes, so the next message goes where the config
    now says."""
    forget_broker_pools()
    forget_routes()


@dataclass(frozen=True)
class Broker:
    url: str
    queue: str


@pytest.fixture
def fault_broker(settings: Any) -> Iterator[Broker]:
    """Celery on its own Redis database and queue for this test (the audit's and everything else).

    Ratings tasks from the simulated night, and the report files the audit asks for when it
    is done, go to queues nobody consumes (deleted at the end): the test's worker runs the
    audit only.
    """
    parts = urlsplit(settings.CELERY_BROKER_URL)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{FAULT_REDIS_DB}", "", ""))
    queue = f"faults-{uuid.uuid4().hex[:12]}"
    settings.AUDIT_QUEUE = queue
    old_url, old_routes = celery_app.conf.broker_url, celery_app.conf.task_routes
    celery_app.conf.broker_url = url
    celery_app.conf.task_routes = {
        "tables.tasks.rate_round_task": {"queue": f"{queue}-ratings"},
        "*": {"queue": queue},
    }
    _reset_producers()
    try:
        yield Broker(url=url, queue=queue)
    finally:
        celery_app.conf.broker_url = old_url
        celery_app.conf.task_routes = old_routes
        _reset_producers()
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(f"*{queue}*"):  # the queues and kombu's bindings of them
            client.delete(key)
        client.close()


def unacknowledged(broker: Broker, task_id: str) -> bool:
    """Whether the broker holds a delivered, unacknowledged message of this task (kombu's Redis
    transport keeps them in the ``unacked`` hash until the ack, or until it restores them)."""
    client = redis.Redis.from_url(broker.url)
    try:
        return any(json.loads(raw)[0]["headers"].get("id") == task_id for raw in client.hvals("unacked"))
    finally:
        client.close()


def start_worker(broker: Broker, name: str, log_dir: Path) -> Service:
    return Service(
        [
            str(BIN / "celery"),
            "-A",
            "casino",
            "worker",
            "--concurrency=1",
            "-Q",
            broker.queue,
            "-n",
            f"{name}@%h",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        service_env(
            name,
            CELERY_BROKER_URL=broker.url,
            CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
            AUDIT_QUEUE=f"{broker.queue}-files",  # the report's PDF, drawn after the audit: not needed here
        ),
        log_dir / f"{name}.log",
    )


# --------------------------------------------------------------------------- (a) the audit's worker


def test_an_audit_whose_worker_is_killed_is_redelivered_and_finishes(
    auditor: User, login: Any, fault_broker: Broker, tmp_path: Path
) -> None:
    summary = simulate_night(NightConfig(tables=2, players=6, rounds=1, seed=5, games=("faro",)))
    assert summary.rounds > 0
    day = gaming_day_for()
    client = login(auditor)
    before = row_counts()
    ledger_before = list(Account.objects.order_by("code").values_list("code", "balance", "held"))

    # The audit will stop at its first read of the round actions, so the kill lands mid-run:
    # after the report went "running", after the day's close committed, before the end.
    with held("LOCK TABLE tables_roundaction IN ACCESS EXCLUSIVE MODE"):
        first = start_worker(fault_broker, "faults-first", tmp_path)
        try:
            response = client.post(f"/api/v1/gaming-days/{day}/close", {"force": True}, format="json")
            assert response.status_code == 202, response.content
            task_id = response.json()["task_id"]

            def stuck_mid_run() -> bool:
                report = AuditReport.objects.get(gaming_day=day)
                # Its first read of the actions is the rating of the day's unrated rounds, before
                # the sections count their steps: running, waiting on the lock, is mid-run.
                return report.status == AuditStatus.RUNNING and bool(backends("faults-first", waiting=True))

            wait_for(stuck_mid_run, timeout=START_TIMEOUT, what=f"the audit to run\n{first.output()}")
            taken_by = time.monotonic()  # the worker took the message before this
            dying = backends("faults-first")
            assert dying, "the worker's database sessions"
            first.kill()
        finally:
            first.stop()
    # The dead worker's sessions end once PostgreSQL sees their sockets closed (the one waiting
    # for the lock as soon as it gets it); until then its advisory lock would make a rerun skip.
    wait_for(lambda: not backends("faults-first"), timeout=30, what="the killed worker's sessions to end")

    report = AuditReport.objects.get(gaming_day=day)
    assert report.status == AuditStatus.RUNNING, "killed mid-run, the report is left running"
    assert report.runs == 1
    assert ClosedGamingDay.objects.filter(day=day).count() == 1, "the close committed before the kill"
    assert celery_app.AsyncResult(task_id).state != "SUCCESS"
    assert unacknowledged(fault_broker, task_id), "Redis keeps the dead worker's message unacknowledged"

    # Redis restores the unacknowledged message once it has been out longer than the visibility
    # timeout: a worker restores such messages when it starts (and every few minutes after).
    time.sleep(max(0.0, taken_by + VISIBILITY_TIMEOUT + 1 - time.monotonic()))
    second = start_worker(fault_broker, "faults-second", tmp_path)
    try:
        finished = wait_for(
            lambda: AuditReport.objects.filter(gaming_day=day, status=AuditStatus.DONE).first(),
            timeout=90,
            what=f"the redelivered audit to finish\n{second.output()}",
            every=0.25,
        )
        outcome = celery_app.AsyncResult(task_id).get(timeout=30)
    finally:
        second.stop()

    assert finished.task_id == task_id, "the same task ran again: it was redelivered, not requeued by us"
    assert not unacknowledged(fault_broker, task_id), "acknowledged by the second worker"
    assert finished.runs == 2
    assert outcome["status"] == "done"
    assert outcome["report"] == finished.pk
    data = finished.data
    assert [f for f in data["findings"] if f["severity"] == "critical"] == []
    assert all(check["passed"] for check in data["checks"]), data["checks"]
    assert data["trial_balance"]["balanced"]
    assert data["summary"]["rounds"] == summary.rounds

    # Nothing moved: only what the audit writes (its report, the day's close, action-log rows,
    # and the ratings of rounds whose rating task never ran: here every one, since their queue
    # has no worker; the audit rates them first, its handle and win are those rows).
    after = row_counts()
    changed = {table for table in before.keys() | after.keys() if before.get(table) != after.get(table)}
    audit_writes = {"tables_auditreport", "ledger_closedgamingday", "casino_auditlog"}
    audit_writes |= {"tables_checkpoint", "tables_evidencechain", "tables_evidencemark"}
    assert changed <= audit_writes | {"tables_roundstat", "tables_roundplayerstat"}, changed
    assert after["ledger_closedgamingday"] == before["ledger_closedgamingday"] + 1
    assert list(Account.objects.order_by("code").values_list("code", "balance", "held")) == ledger_before
    assert_books_balance()


# --------------------------------------------------------------------------- (b) a web worker


@dataclass
class Sent:
    body: dict[str, Any]
    status: int = 0
    answer: dict[str, Any] | None = None
    attempts: int = 0
    errors: list[str] = field(default_factory=list)


class BetStream:
    """Threads placing Faro bets on one round, each with its own key, resent on failure."""

    def __init__(self, base: str, token: str, round_id: int, players: list[int], threads: int) -> None:
        self.base = base
        self.token = token
        self.round_id = round_id
        self.players = players
        self.sent: dict[str, Sent] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(target=self._run, args=(random.Random(n),), daemon=True) for n in range(threads)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in self.threads), "a client thread hung"

    def accepted(self) -> int:
        with self.lock:
            return sum(1 for s in self.sent.values() if s.status == 200)

    def resent(self) -> int:
        with self.lock:
            return sum(1 for s in self.sent.values() if s.errors)

    def post(self, session: requests.Session, key: str, body: dict[str, Any]) -> requests.Response | str:
        try:
            return session.post(
                f"{self.base}/api/v1/rounds/{self.round_id}/actions",
                json=body,
                headers={"Idempotency-Key": key},
                timeout=30,
            )
        except requests.RequestException as error:
            return type(error).__name__

    def _run(self, rng: random.Random) -> None:
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {self.token}"
            while not self.stopping.is_set():
                key = uuid.uuid4().hex
                body = {
                    "type": "bet",
                    "player": rng.choice(self.players),
                    "ranks": [rng.choice(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))],
                    "amount": 100 * rng.randint(1, 50),
                }
                sent = Sent(body=body)
                with self.lock:
                    self.sent[key] = sent
                # A failed request (the worker died under it, a 5xx) is sent again with the same key
                # until it gets its answer, however long the stream has been told to stop.
                for _ in range(40):
                    sent.attempts += 1
                    response = self.post(session, key, body)
                    if isinstance(response, str):
                        sent.errors.append(response)
                    elif response.status_code >= 500:
                        sent.errors.append(str(response.status_code))
                    else:
                        sent.status, sent.answer = response.status_code, response.json()
                        break
                    time.sleep(0.25)


def test_bets_survive_a_gunicorn_worker_killed_mid_stream(
    pit_boss: User, dealer: User, cashier: User, tmp_path: Path
) -> None:
    table: Any = factories.TableFactory(actor=pit_boss, dealer=dealer, min_bet=100, max_bet=1_000_000)
    factories.open_table_for(table, inventory=10_000_000)
    funded = 5_000_000
    players: list[Player] = [
        cast(Player, factories.PlayerFactory(actor=cashier, funded=funded)) for _ in range(6)
    ]
    for player in players:
        seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    round_ = start_round(actor=dealer, table_id=table.pk, shoe="electronic")
    token = factories.token_for(dealer)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    server = Service(
        [
            str(BIN / "gunicorn"),
            "casino.wsgi:application",
            "-c",
            "deploy/gunicorn.conf.py",
            "--no-control-socket",
        ],
        service_env(
            "faults-gunicorn",
            GUNICORN_BIND=f"127.0.0.1:{port}",
            GUNICORN_WORKERS="2",
            ALLOWED_HOSTS="127.0.0.1",
            PROMETHEUS_MULTIPROC_DIR=str(metrics),
        ),
        tmp_path / "gunicorn.log",
    )
    stream = BetStream(base, token, round_.pk, [p.pk for p in players], threads=4)
    try:

        def ready() -> bool:
            assert server.process.poll() is None, server.output()
            with contextlib.suppress(requests.RequestException):
                return requests.get(f"{base}/healthz", timeout=2).status_code == 200
            return False

        wait_for(ready, timeout=START_TIMEOUT, what="gunicorn", every=0.25)
        workers = wait_for(lambda: len(children_of(server.process.pid)) == 2, timeout=30, what="2 workers")
        assert workers
        # The master loaded what a worker's first request would (casino.preload) before forking.
        assert "templates for the workers" in server.log_path.read_text(errors="replace")
        stream.start()
        wait_for(lambda: stream.accepted() >= 20, timeout=60, what="20 bets")

        # 1. A worker dies while its request is inside a transaction: the bets wait for the
        #    table's row lock (held here), their idempotency records inserted, nothing committed.
        with held("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", (table.pk,)):
            wait_for(
                lambda: len(backends("faults-gunicorn", waiting=True)) >= 2,
                timeout=30,
                what="both workers in a bet",
            )
            victim = children_of(server.process.pid)[0]
            os.kill(victim, signal.SIGKILL)
            time.sleep(0.3)
        wait_for(
            lambda: len(set(children_of(server.process.pid)) - {victim}) == 2,
            timeout=60,
            what="gunicorn to replace the worker",
        )
        wait_for(lambda: stream.resent() >= 1, timeout=30, what="the interrupted bet to be resent")
        mark = stream.accepted()
        wait_for(lambda: stream.accepted() >= mark + 20, timeout=60, what="20 more bets")

        # 2. A worker dies at whatever moment it is at.
        os.kill(children_of(server.process.pid)[-1], signal.SIGKILL)
        mark = stream.accepted()
        wait_for(
            lambda: stream.accepted() >= mark + 20, timeout=60, what="20 more bets after the second kill"
        )
        stream.stop()

        # Deliberate retries of accepted bets: replayed, not placed again.
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {token}"
            for key, first in random.Random(1).sample(sorted(stream.sent.items()), 10):
                again = stream.post(session, key, first.body)
                assert not isinstance(again, str), again
                assert again.status_code == 200
                assert again.headers.get("Idempotent-Replayed") == "true"
                assert first.answer is not None
                assert again.json()["version"] == first.answer["version"]
    finally:
        stream.stopping.set()
        server.stop()

    sent = stream.sent
    assert all(s.status == 200 for s in sent.values()), {k: (s.status, s.errors) for k, s in sent.items()}
    assert stream.resent() >= 1, "the first kill interrupted a request, which was resent"

    # Every bet exactly once: one idempotency record per key, one RoundAction at the version its
    # answer gave, one transfer for that action, and no bet without a key.
    records = {r.key: r for r in IdempotencyRecord.objects.filter(user=dealer)}
    assert set(records) == set(sent)
    assert all(r.status_code == 200 for r in records.values())
    versions = {key: (s.answer or {})["version"] for key, s in sent.items()}
    assert {key: (r.response_body or {}).get("version") for key, r in records.items()} == versions
    actions = {a.seq: a for a in RoundAction.objects.filter(round=round_)}
    assert len(actions) == len(sent) == len(set(versions.values()))
    assert set(actions) == set(versions.values())
    for key, s in sent.items():
        payload = actions[versions[key]].payload
        assert {k: payload[k] for k in s.body} == s.body
        transfer = Transfer.objects.get(key=f"round:{round_.pk}:action:{versions[key]}")
        entries = list(Entry.objects.filter(transfer=transfer).values_list("amount", flat=True))
        assert sorted(entries) == [-s.body["amount"], s.body["amount"]]
        assert actions[versions[key]].transfer_id == transfer.pk

    # The chips: each player's layout holds exactly what they bet, their wallet the rest.
    for player in players:
        staked = sum(s.body["amount"] for s in sent.values() if s.body["player"] == player.pk)
        layout = Account.objects.filter(code=layout_code(table.pk, player.pk)).first()
        assert (layout.balance if layout else 0) == staked
        player.wallet.refresh_from_db()
        assert player.wallet.balance == funded - staked
    assert Transfer.objects.filter(meta__round=round_.pk, meta__action__gt=0).count() == len(sent)
    assert_books_balance()
