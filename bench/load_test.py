"""Load test: the whole service under gunicorn and Celery, driven over HTTP at 32 tables at once.

    bench/run-load [--quick]                 # 60 s of load (20 s with --quick)
    .venv/bin/python -m bench.load_test [--quick] [--duration S] [--keep-db]

Not a test: it prints a markdown report and writes it to build/bench/load.md; the exit status
is 0 only when every check after the run passes.

1. A throwaway database ``casekeeper_load`` is created and migrated. The floor is set up
   through the services in a child process: 16 Faro tables (3 punters each) and 4 tables of
   each player-pot game (Farmer, Fan Tan, Newmarket, Tonk; 4 players each), a dealer per
   table, every player bought in and seated, API tokens issued.
2. The service runs as in production: gunicorn with ``deploy/gunicorn.conf.py`` (4 sync
   workers) on 127.0.0.1 and a Celery worker (``celery -A casino worker``), with
   ``casino.settings.local``, DEBUG off, JSON logs at WARNING, Prometheus multiprocess
   metrics in a temporary directory. Celery and the cache use a Redis database of their own
   (the first empty one of 12-15), so no other worker on this Redis sees the run's tasks.
3. One client thread per table deals rounds back to back over HTTP for the set time:
   Faro with the electronic shoe (bets chosen like ``tables.simulation.bots.faro_bets``,
   called turns, removals, turns to the last turn); the pot games with a *manual* shoe
   that the client shuffles itself, so it knows every card it keys. The client folds the
   pure engine (``tables.games.<game>.ENGINE``) locally over the same actions, picks legal
   actions from ``legal_actions`` and checks after every action that the server's public
   state equals its own. Beside them a cashier thread posts buy-ins and cash-outs and two
   kiosk threads read players' balances. Every money POST carries an ``Idempotency-Key``;
   a few are sent again with the same key (at once or later) and must come back replayed,
   the same round version and transfers, or the same transfer.
4. Afterwards: the Celery queue must drain, then gunicorn and the worker are stopped and a
   child process checks the database (trial balance, zero-sum transfers, stored balances,
   one RoundAction per accepted action, every round replays, every settled round rated).
   The database is dropped and the Redis database emptied, even after an error; every
   process started here is stopped through its own process group, and nothing else.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bench.app_db import (
    ROOT,
    SETTINGS,
    backends,
    describe_machine,
    drop_database,
    free_port,
    fresh_database,
    identify,
    log,
    run_captured,
    served_env,
    staff,
)
from bench.harness import children_of, cpu_seconds, markdown_table, percentile, stop_after, write_report
from bench.served import (
    VENV_BIN,
    Processes,
    answer_child,
    bench_parser,
    run_child,
    start_service,
    wait_until_up,
)

OUTPUT = ROOT / "build" / "bench" / "load.md"
REDIS_SERVER = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")
REDIS_DBS = (12, 13, 14, 15)  # the run takes the first empty one
DB_NAME = "casekeeper_load"

FARO_TABLES = 16
FARO_PUNTERS = 3
POT_GAMES = ("farmer", "fan_tan", "newmarket", "tonk")
POT_TABLES_PER_GAME = 4
POT_PLAYERS = 4
WORKERS = 4
CELERY_CONCURRENCY = 2
KIOSKS = 2  # threads reading balances
TRAY = 10_000_000  # cents in each Faro tray
PLAYER_PASSWORD = "load-player-pass-1"  # every player's, so a bench can sign one in
BUY_IN = 100_000_000  # cents per player: never the limit during a run
FARO: dict[str, Any] = {"min_bet": 500, "max_bet": 50_000, "ante": 0, "rules": {}}
# The pot tables as tables.simulation.night sets them up (limits, antes, rake).
POT_SPECS: dict[str, dict[str, Any]] = {
    "farmer": {
        "min_bet": 100,
        "max_bet": 5_000,
        "ante": 500,
        "rules": {"rake": {"kind": "percent", "percent": 5, "cap": 500}},
    },
    "fan_tan": {
        "min_bet": 100,
        "max_bet": 5_000,
        "ante": 100,
        "rules": {"rake": {"kind": "percent", "percent": 5, "cap": 500}},
    },
    "newmarket": {"min_bet": 100, "max_bet": 5_000, "ante": 100, "rules": {}},
    "tonk": {"min_bet": 100, "max_bet": 10_000, "ante": 500, "rules": {}},
}
RETRY_NOW = 0.03  # share of money POSTs sent again at once with the same key
RETRY_LATER = 0.02  # share kept and sent again a few requests later
SEND_ATTEMPTS = 6  # a POST that meets a connection error or a 5xx is resent with its key
REQUEST_TIMEOUT = 30.0
STARTUP_TIMEOUT = 90.0
DRAIN_TIMEOUT = 90.0  # for the Celery queue after the load
ACTION_CAP = 1500  # engine steps per pot round; more means the client is looping
BUDGET = 900.0  # seconds for everything but the load itself
HINT_KEYS = frozenset(
    {
        "needs",
        "optional",
        "choices",
        "count",
        "bounds",
        "min_amount",
        "max_amount",
        "chip",
        "max_player_action",
    }
)
PASSIVE = frozenset({"pass", "drop", "bid", "slap"})


@dataclass(frozen=True)
class Profile:
    name: str
    seconds: float


QUICK = Profile("quick", 20.0)
FULL = Profile("full", 60.0)


def service_env(redis_db: int | None = None, metrics_dir: str | None = None) -> dict[str, str]:
    """The service's environment: production-like settings, the bench database, our own Redis db."""
    env = {**os.environ, **served_env(DB_NAME, label="load", LOG_FORMAT="json")}
    if redis_db is not None:
        url = f"{REDIS_SERVER}/{redis_db}"
        env |= {"REDIS_URL": url, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url}
    if metrics_dir is not None:
        env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    return env


# --------------------------------------------------------------------------- database and child steps


def child_setup(
    *,
    faro_tables: int = FARO_TABLES,
    pot_tables_per_game: int = POT_TABLES_PER_GAME,
    plan: list[tuple[str, dict[str, Any], int]] | None = None,
) -> dict[str, Any]:
    """The floor, made through the services: staff, tables opened, players bought in and seated.

    The sizes are parameters so that a bench that needs a smaller floor (``bench.faults``) reuses it;
    ``plan`` (game, limits and rules, players seated; one entry a table) replaces them for a bench
    with a floor of its own (``bench.floor_bench``).
    """
    import django

    django.setup()
    from casino.models import Role
    from casino.services import buy_in, create_player, issue_token
    from ledger.models import Transfer
    from tables.services import assign_dealer, create_table, open_table, seat_player

    boss, cashier = staff("load-pit", Role.PIT_BOSS), staff("load-cage", Role.CASHIER)
    if plan is None:
        plan = [("faro", FARO, FARO_PUNTERS)] * faro_tables + [
            (game, POT_SPECS[game], POT_PLAYERS) for game in POT_GAMES for _ in range(pot_tables_per_game)
        ]
    tables, players = [], []
    for t, (game, spec, seated) in enumerate(plan):
        dealer = staff(f"load-dealer-{t}", Role.DEALER)
        table = create_table(
            actor=boss,
            name=f"{game} {t + 1}",
            game=game,
            min_bet=spec["min_bet"],
            max_bet=spec["max_bet"],
            ante=spec["ante"],
            rules=spec["rules"],
        )
        assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
        open_table(actor=dealer, table_id=table.pk, opening_inventory=TRAY if game == "faro" else 0)
        seats = {}
        for s in range(1, seated + 1):
            name = f"load-{t}-{s}"
            player = create_player(actor=cashier, username=name, password=PLAYER_PASSWORD, name=name)
            identify(cashier, player)  # a bankroll past the CTR line needs an ID on file
            buy_in(actor=cashier, player=player, amount=BUY_IN)
            seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=s)
            seats[s] = player.pk
            players.append({"id": player.pk, "token": issue_token(user=player.user)})
        table.refresh_from_db()
        tables.append(
            {
                "id": table.pk,
                "game": game,
                "token": issue_token(user=dealer),
                "seats": seats,
                "min_bet": table.min_bet,
                "max_bet": table.max_bet,
                "ante": table.ante,
                "rules": table.rules,
            }
        )
    return {
        "tables": tables,
        "players": players,
        "cashier_token": issue_token(user=cashier),
        "transfers": Transfer.objects.count(),
        "buy_ins": Transfer.objects.filter(kind="buy_in").count(),
    }


def child_verify(*, rounds_after: int = 0) -> dict[str, Any]:
    """The database after the run: the books, one row per accepted action, replays, ratings.

    Only rounds with a primary key above ``rounds_after`` are replayed (a bench that loaded a
    synthetic night beforehand replays the live rounds alone).
    """
    import django

    django.setup()
    from django.db import connection

    from ledger.models import Transfer
    from ledger.selectors import get_trial_balance
    from tables.models import Round, RoundAction, RoundStatus
    from tables.ratings.models import RoundStat
    from tables.replay import check_round

    trial = get_trial_balance()

    def scalar(sql: str) -> int:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return int(cursor.fetchone()[0])

    failures = []
    for round_ in Round.objects.filter(pk__gt=rounds_after).order_by("pk"):
        check = check_round(round_)
        if not check.ok:
            failures.append({"round": round_.pk, "game": round_.game, "problems": check.problems[:2]})
    by_game = Counter(Round.objects.values_list("game", flat=True))
    return {
        "actions": RoundAction.objects.count(),
        "rounds": Round.objects.count(),
        "rounds_by_game": dict(by_game),
        "settled": Round.objects.filter(status=RoundStatus.SETTLED).count(),
        "rated": RoundStat.objects.count(),
        "transfers": Transfer.objects.count(),
        "buy_ins": Transfer.objects.filter(kind="buy_in").count(),
        "cash_outs": Transfer.objects.filter(kind="cash_out").count(),
        "total_debits": trial.total_debits,
        "total_credits": trial.total_credits,
        "balance_sum": sum(row.balance for row in trial.rows),
        "unbalanced_transfers": scalar(
            "SELECT count(*) FROM (SELECT transfer_id FROM ledger_entry GROUP BY transfer_id"
            " HAVING sum(amount) <> 0 OR count(*) <> 2 * count(DISTINCT leg)) t"
        ),
        "transfers_without_entries": scalar(
            "SELECT count(*) FROM ledger_transfer t"
            " WHERE NOT EXISTS (SELECT 1 FROM ledger_entry e WHERE e.transfer_id = t.id)"
        ),
        "balance_mismatches": scalar(
            "SELECT count(*) FROM ledger_account a LEFT JOIN"
            " (SELECT account_id, sum(amount) AS s FROM ledger_entry GROUP BY account_id) e"
            " ON e.account_id = a.id WHERE a.balance <> coalesce(e.s, 0)"
        ),
        "replay_failures": failures,
    }


# --------------------------------------------------------------------------- processes


def free_redis_db() -> int:
    import redis

    for number in REDIS_DBS:
        client = redis.Redis.from_url(f"{REDIS_SERVER}/{number}")
        try:
            if client.dbsize() == 0:
                return number
        finally:
            client.close()
    raise RuntimeError(f"no empty Redis database among {REDIS_DBS}; the run needs one of its own")


def empty_redis_db(number: int) -> None:
    import redis

    client = redis.Redis.from_url(f"{REDIS_SERVER}/{number}")
    try:
        client.flushdb()
    finally:
        client.close()


def redis_queue(number: int) -> tuple[int, int]:
    """(tasks waiting in the default queue, tasks taken but not acknowledged)."""
    import redis

    client = redis.Redis.from_url(f"{REDIS_SERVER}/{number}")
    try:
        return int(client.llen("celery")), int(client.hlen("unacked"))
    finally:
        client.close()


class CpuSampler(threading.Thread):
    """CPU time used by groups of processes, sampled every half second from /proc.

    Sampling (rather than reading before and after) keeps processes that end during the run:
    database sessions are closed after ``CONN_MAX_AGE`` and replaced, gunicorn recycles workers.
    """

    def __init__(self, groups: dict[str, Callable[[], list[int]]]) -> None:
        super().__init__(daemon=True)
        self.groups = groups
        self.base = {name: self._read(pids()) for name, pids in groups.items()}
        self.last = {name: dict(values) for name, values in self.base.items()}
        self.stopping = threading.Event()

    @staticmethod
    def _read(pids: list[int]) -> dict[int, float]:
        return {pid: cpu_seconds([pid]) for pid in pids}

    def sample(self) -> None:
        for name, pids in self.groups.items():
            for pid, used in self._read(pids()).items():
                if used or pid not in self.last[name]:
                    self.last[name][pid] = used

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            with contextlib.suppress(Exception):  # a process or session gone between list and read
                self.sample()

    def finish(self) -> None:
        self.stopping.set()
        self.join(timeout=10)
        with contextlib.suppress(Exception):
            self.sample()

    def used(self, name: str) -> float:
        base = self.base[name]
        return sum(value - base.get(pid, 0.0) for pid, value in self.last[name].items())


def wait_for_worker(env: dict[str, str], worker: subprocess.Popen[bytes], log: Path) -> None:
    """The Celery worker answers a ping (so tasks sent during the load are taken at once)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited; see {log}")
        done = run_captured(
            [str(VENV_BIN / "celery"), "-A", "casino", "inspect", "ping", "--timeout", "2"],
            env=env,
            timeout=60,
        )
        if done.returncode == 0 and "pong" in done.stdout:
            return
        time.sleep(1)
    raise RuntimeError(f"the Celery worker did not answer within {STARTUP_TIMEOUT:.0f}s")


# --------------------------------------------------------------------------- the client


@dataclass
class Tally:
    """What one client thread saw."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    accepted: Counter[str] = field(default_factory=Counter)  # keys that got their 2xx, by kind
    failures: Counter[str] = field(default_factory=Counter)  # requests that did not get their answer
    resent: Counter[str] = field(default_factory=Counter)  # resends after a connection error or 5xx
    retries: int = 0  # deliberate resends with the same key
    retries_same: int = 0
    retry_problems: list[str] = field(default_factory=list)
    state_checks: int = 0
    state_mismatches: list[str] = field(default_factory=list)
    settled: int = 0


class Client:
    """One thread's HTTP session: keyed POSTs with resends, deliberate retries, timings."""

    def __init__(self, base: str, token: str, tally: Tally, rng: random.Random, deadline: float) -> None:
        import requests

        self.base = base
        self.tally = tally
        self.rng = rng
        self.deadline = deadline
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.later: deque[tuple[str, str, dict[str, Any], str, Any]] = deque(maxlen=20)

    def get(self, label: str, path: str, token: str | None = None) -> Any:
        import requests

        headers = {"Authorization": f"Token {token}"} if token else None
        started = time.perf_counter()
        try:
            response = self.session.get(f"{self.base}{path}", headers=headers, timeout=REQUEST_TIMEOUT)
        except requests.RequestException as error:
            self.tally.failures[f"{label}: {type(error).__name__}"] += 1
            return None
        self.tally.latencies[label].append(time.perf_counter() - started)
        if response.status_code != 200:
            self.tally.failures[f"{label}: {response.status_code}"] += 1
            return None
        return response.json()

    def send(self, label: str, path: str, body: dict[str, Any], key: str) -> tuple[int, Any, bool]:
        """POST with an Idempotency-Key; a connection error or a 5xx is resent with the same key."""
        import requests

        for _ in range(SEND_ATTEMPTS):
            started = time.perf_counter()
            try:
                response = self.session.post(
                    f"{self.base}{path}",
                    json=body,
                    headers={"Idempotency-Key": key},
                    timeout=REQUEST_TIMEOUT,
                )
            except requests.RequestException as error:
                self.tally.resent[f"{label}: {type(error).__name__}"] += 1
                time.sleep(0.2)
                continue
            self.tally.latencies[label].append(time.perf_counter() - started)
            if response.status_code >= 500:
                self.tally.resent[f"{label}: {response.status_code}"] += 1
                time.sleep(0.2)
                continue
            try:
                data = response.json()
            except ValueError:
                data = None
            return response.status_code, data, response.headers.get("Idempotent-Replayed") == "true"
        return 0, None, False

    def post(self, kind: str, label: str, path: str, body: dict[str, Any], expect: int) -> Any:
        """A money POST: its own key, the answer checked, sometimes sent again with the same key."""
        key = uuid.uuid4().hex
        status, data, _ = self.send(label, path, body, key)
        if status != expect or not isinstance(data, dict):
            code = data.get("error", {}).get("code", "?") if isinstance(data, dict) else "no answer"
            self.tally.failures[f"{label}: {status} {code}"] += 1
            return None
        self.tally.accepted[kind] += 1
        if self.rng.random() < RETRY_NOW:
            self.retry(label, path, body, key, data)
        elif self.rng.random() < RETRY_LATER:
            self.later.append((kind, path, body, key, data))
        if self.later and self.rng.random() < 0.05:
            _, old_path, old_body, old_key, old_data = self.later.popleft()
            self.retry(label, old_path, old_body, old_key, old_data)
        return data

    def retry(self, label: str, path: str, body: dict[str, Any], key: str, first: dict[str, Any]) -> None:
        """The same request with the same key: it must be replayed, nothing moved twice."""
        self.tally.retries += 1
        status, data, replayed = self.send("idempotent retry (replayed)", path, body, key)
        same = replayed and isinstance(data, dict) and data == first
        if same:
            self.tally.retries_same += 1
            return
        what = "round version" if "version" in first else "transfer"
        detail = (
            f"{label}: status {status}, replayed={replayed}, {what} "
            f"{first.get('version', first.get('transfer_id'))} → "
            f"{data.get('version', data.get('transfer_id')) if isinstance(data, dict) else None}"
        )
        self.tally.retry_problems.append(detail)

    def flush_later(self) -> None:
        while self.later:
            kind, path, body, key, data = self.later.popleft()
            self.retry(kind, path, body, key, data)

    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline


# Faro: electronic shoe, the dealer's console as the bots use it.


def drive_faro(
    base: str,
    table: dict[str, Any],
    deadline: float,
    seed: int,
    tally: Tally,
    client_class: type[Client] = Client,
) -> None:
    from tables.simulation.bots import chip_amount, faro_bets

    rng = random.Random(seed)
    client = client_class(base, table["token"], tally, rng, deadline)
    players = sorted(int(p) for p in table["seats"].values())
    budgets = dict.fromkeys(players, BUY_IN)

    def act(round_: dict[str, Any], action: dict[str, Any]) -> dict[str, Any] | None:
        label = f"faro {action['type']}"
        path = f"/api/v1/rounds/{round_['id']}/actions"
        return client.post("action", label, path, {**action, "version": round_["version"]}, 200)

    try:
        while not client.out_of_time():
            round_ = client.post(
                "round", "start round", f"/api/v1/tables/{table['id']}/rounds", {"shoe": "electronic"}, 201
            )
            if round_ is None:
                return
            while not client.out_of_time() and round_["state"]["next_action"] is not None:
                public = round_["state"]
                for bet in faro_bets(rng, public, budgets, chip=int(public["chip"])):
                    round_ = act(round_, bet) or round_
                public = round_["state"]
                if public["bets"] and rng.random() < 0.08:
                    round_ = (
                        act(round_, {"type": "remove_bet", "bet": rng.choice(public["bets"])["id"]}) or round_
                    )
                public = round_["state"]
                if public["next_action"] == "last_turn" and public["can_call_turn"] and rng.random() < 0.4:
                    left = [r for r, row in public["casekeeper"].items() for _ in range(int(row["left"]))]
                    rng.shuffle(left)
                    amount = chip_amount(
                        rng, low=FARO["min_bet"], high=FARO["max_bet"], chip=100, budget=BUY_IN
                    )
                    call = {
                        "type": "call_turn",
                        "player": rng.choice(players),
                        "order": left,
                        "amount": amount,
                    }
                    round_ = act(round_, call) or round_
                dealt = act(round_, {"type": round_["state"]["next_action"]})
                if dealt is None:
                    return  # the report shows the failure; this table stops
                round_ = dealt
            if round_["status"] == "settled":
                tally.settled += 1
    except Exception as error:  # a client bug must not hang the run: record it and stop the table
        tally.failures[f"faro client crashed: {type(error).__name__}: {error}"[:160]] += 1
    finally:
        client.flush_later()


# Pot games: a manual shoe the client shuffles, the engine folded locally.


def canonical(value: Any) -> Any:
    """What a value looks like after a JSON round trip (tuples → lists, int keys → strings)."""
    return json.loads(json.dumps(value))


def take(shoe: list[str], n: int) -> list[str]:
    cards, shoe[:n] = shoe[:n], []
    if len(cards) != n:
        raise RuntimeError("the client's shoe ran out")
    return cards


def fillable(template: dict[str, Any]) -> bool:
    needs = template.get("needs") or ()
    return all(
        need in {"hands", "upcard", "amount"} or (need == "card" and template.get("type") in {"draw", "hit"})
        for need in needs
    )


def fill(template: dict[str, Any], shoe: list[str], rng: random.Random) -> dict[str, Any]:
    """A template's ``needs`` filled: cards from the top of the client's shoe, amounts in chips."""
    action = {k: v for k, v in template.items() if k not in HINT_KEYS}
    for need in template.get("needs") or ():
        if need == "hands":
            action["hands"] = {str(k): take(shoe, int(n)) for k, n in template["count"]["hands"].items()}
        elif need in {"upcard", "card"}:
            card = take(shoe, 1)[0]
            choices = (template.get("choices") or {}).get(need)
            if choices is not None and card not in choices:
                raise RuntimeError(f"{card} from the client's shoe is not a legal {need}")
            action[need] = card
        elif need == "amount":
            chip = int(template.get("chip", 100))
            low = int(template["min_amount"])
            high = min(int(template["max_amount"]), low + 5 * chip)
            action["amount"] = low + chip * rng.randint(0, (high - low) // chip)
    return action


def choose_pot_action(
    game: str, engine: Any, state: Any, shoe: list[str], rng: random.Random
) -> dict[str, Any]:
    """A legal action from ``legal_actions`` (play over passing, as the bots do), cards keyed."""
    if game == "fan_tan" and state.phase == "deal":
        return {"type": "deal", "hands": {str(p.player): take(shoe, p.dealt) for p in state.players}}
    if game == "farmer" and state.phase == "deal":
        return {"type": "deal", "cards": {str(p): take(shoe, 1)[0] for p in state.order}}
    legal = engine.legal_actions(state)
    if game == "stakes":  # a card-room result: no cards to key, the night's bot names the outcome
        from tables.simulation.bots import pick_action

        action = pick_action(rng, legal)
        if action is None:
            raise RuntimeError(f"no usable legal action among {legal[:5]}")
        return action
    keyed = [a for a in legal if "hands" in (a.get("needs") or ())]  # full tracking, never count-only
    if keyed:
        return fill(keyed[0], shoe, rng)
    usable = [a for a in legal if fillable(a)]
    if not usable:
        raise RuntimeError(f"no usable legal action among {legal[:5]}")
    plays = [a for a in usable if a.get("type") not in PASSIVE]
    if game == "tonk":  # mostly from the stock, so the stock runs down and the deal ends
        stock = [a for a in plays if a.get("type") == "draw" and a.get("from") == "stock"]
        if stock and rng.random() < 0.7:
            plays = stock
    action = fill(rng.choice(plays if plays and rng.random() < 0.92 else usable), shoe, rng)
    if game == "farmer" and action["type"] == "hit" and "card" not in action:  # older engines: no needs
        action["card"] = take(shoe, 1)[0]
    return action


def drive_pot(
    base: str,
    table: dict[str, Any],
    deadline: float,
    seed: int,
    tally: Tally,
    client_class: type[Client] = Client,
) -> None:
    from tables.games.base import TableContext
    from tables.games.cards import FARMER_DECK, FULL_DECK

    game = table["game"]
    engine = importlib.import_module(f"tables.games.{game}").ENGINE
    rng = random.Random(seed)
    client = client_class(base, table["token"], tally, rng, deadline)
    seats = {int(seat): int(player) for seat, player in table["seats"].items()}
    limits = {"min_bet": table["min_bet"], "max_bet": table["max_bet"]}
    carry: dict[str, Any] = {}

    def agrees(state: Any, round_: dict[str, Any], after: str) -> bool:
        tally.state_checks += 1
        if canonical(engine.public_state(state)) == round_["state"]:
            return True
        tally.state_mismatches.append(f"{game} table {table['id']} round {round_['id']} after {after}")
        return False

    try:
        while not client.out_of_time():
            ctx = TableContext(
                rules=table["rules"],
                seats=seats,
                min_bet=table["min_bet"],
                max_bet=table["max_bet"],
                ante=table["ante"],
                deck=None,
                carry=carry,
            )
            state, _ = engine.start(ctx)
            round_ = client.post(
                "round", "start round", f"/api/v1/tables/{table['id']}/rounds", {"shoe": "manual"}, 201
            )
            if round_ is None or not agrees(state, round_, "start"):
                return
            shoe = list(FARMER_DECK if game == "farmer" else FULL_DECK)
            rng.shuffle(shoe)
            for _ in range(ACTION_CAP):
                if engine.is_over(state) or client.out_of_time():
                    break
                action = choose_pot_action(game, engine, state, shoe, rng)
                path = f"/api/v1/rounds/{round_['id']}/actions"
                answer = client.post(
                    "action", f"{game} action", path, {**action, "version": round_["version"]}, 200
                )
                if answer is None:
                    return  # the mirror may be off now: stop this table; the report shows why
                round_ = answer
                state, _ = engine.apply(state, {**action, "limits": limits})
                if not agrees(state, round_, action["type"]):
                    return
            if not engine.is_over(state):
                if not client.out_of_time():
                    tally.failures[f"{game} round did not end in {ACTION_CAP} actions"] += 1
                return
            tally.settled += 1
            carry = canonical(engine.carry_out(state))
    except Exception as error:
        tally.failures[f"{game} client crashed: {type(error).__name__}: {error}"[:160]] += 1
    finally:
        client.flush_later()


def drive_cage(
    base: str,
    token: str,
    players: list[int],
    deadline: float,
    seed: int,
    tally: Tally,
    client_class: type[Client] = Client,
) -> None:
    """A cashier: small buy-ins and cash-outs, back to back, each keyed."""
    rng = random.Random(seed)
    client = client_class(base, token, tally, rng, deadline)
    try:
        while not client.out_of_time():
            player = rng.choice(players)
            amount = rng.choice((2_000, 5_000, 10_000, 25_000))
            if rng.random() < 0.6:
                client.post(
                    "buy_in", "cage buy-in", "/api/v1/cage/buy-ins", {"player": player, "amount": amount}, 201
                )
            else:
                client.post(
                    "cash_out",
                    "cage cash-out",
                    "/api/v1/cage/cash-outs",
                    {"player": player, "amount": amount},
                    201,
                )
    finally:
        client.flush_later()


def drive_kiosk(
    base: str,
    players: list[dict[str, Any]],
    deadline: float,
    seed: int,
    tally: Tally,
    client_class: type[Client] = Client,
) -> None:
    """Players reading their own balance (``/players/me/balance``) with their own tokens."""
    rng = random.Random(seed)
    client = client_class(base, "", tally, rng, deadline)
    del client.session.headers["Authorization"]
    while not client.out_of_time():
        player = rng.choice(players)
        body = client.get("balance read", "/api/v1/players/me/balance", token=player["token"])
        if body is not None and body["total"] != body["available"] + body["in_play"]:
            tally.failures["balance read: total != available + in_play"] += 1


def warm_up(base: str, floor: dict[str, Any]) -> None:
    """A few reads on every worker first, so no measured request pays for a cold process."""
    import requests

    def reads(table: dict[str, Any]) -> None:
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {table['token']}"
            for _ in range(3):
                with contextlib.suppress(requests.RequestException):
                    session.get(f"{base}/api/v1/tables/{table['id']}", timeout=REQUEST_TIMEOUT)

    threads = [threading.Thread(target=reads, args=(table,), daemon=True) for table in floor["tables"]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=REQUEST_TIMEOUT * 3)


def drive(base: str, floor: dict[str, Any], duration: float) -> tuple[list[Tally], float]:
    started = time.monotonic()
    deadline = started + duration
    jobs: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
    for i, table in enumerate(floor["tables"]):
        target = drive_faro if table["game"] == "faro" else drive_pot
        jobs.append((target, (base, table, deadline, 1000 + i)))
    player_ids = [p["id"] for p in floor["players"]]
    jobs.append((drive_cage, (base, floor["cashier_token"], player_ids, deadline, 7)))
    for k in range(KIOSKS):
        jobs.append((drive_kiosk, (base, floor["players"], deadline, 70 + k)))
    tallies = [Tally() for _ in jobs]
    threads = [
        threading.Thread(target=target, args=(*args, tally), daemon=True)
        for (target, args), tally in zip(jobs, tallies, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(1.0, deadline - time.monotonic()) + REQUEST_TIMEOUT * SEND_ATTEMPTS)
    elapsed = time.monotonic() - started
    stuck = sum(thread.is_alive() for thread in threads)
    if stuck:
        tallies[0].failures[f"{stuck} client threads still running after the deadline"] += 1
    return tallies, elapsed


def merge(tallies: list[Tally]) -> Tally:
    """Every thread's ``Tally`` summed field by field, so a field added to ``Tally`` is never left out:
    latencies joined by label, counters updated, counts and lists added."""
    total = Tally()
    for tally in tallies:
        for label, values in tally.latencies.items():
            total.latencies[label] += values
        for item in fields(Tally):
            mine, theirs = getattr(total, item.name), getattr(tally, item.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            elif item.name != "latencies":
                setattr(total, item.name, mine + theirs)
    return total


SERVER_PATHS = (
    ("POST", "/api/v1/tables/{id}/rounds"),
    ("POST", "/api/v1/rounds/{id}/actions"),
    ("POST", "/api/v1/cage/buy-ins"),
    ("POST", "/api/v1/cage/cash-outs"),
    ("GET", "/api/v1/players/me/balance"),
)


def server_times(access_log: Path, since: int = 0) -> dict[tuple[str, str], list[float]]:
    """Milliseconds per request as gunicorn logged them (access log, one JSON object a line), from
    byte ``since`` of the log on (where it ended when the measured load began)."""
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    with contextlib.suppress(OSError), access_log.open("rb") as log:
        log.seek(since)
        lines = log.read().decode(errors="replace").splitlines()
        for line in lines:
            if not line.startswith('{"request_id"'):
                continue
            with contextlib.suppress(ValueError, KeyError):
                entry = json.loads(line)
                times[(entry["method"], re.sub(r"/\d+", "/{id}", entry["path"]))].append(float(entry["ms"]))
    return times


def scrape_metrics(base: str) -> dict[str, float]:
    """A few totals from /metrics (all gunicorn workers, multiprocess mode)."""
    import requests

    wanted = (
        "casekeeper_ledger_transfers_total",
        "casekeeper_refused_actions_total",
        "casekeeper_api_errors_total",
    )
    totals: dict[str, float] = dict.fromkeys(wanted, 0.0)
    try:
        text = requests.get(f"{base}/metrics", timeout=10).text
    except requests.RequestException:
        return {}
    for line in text.splitlines():
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in totals:
            totals[name] += float(line.rsplit(" ", 1)[1])
    return totals


# --------------------------------------------------------------------------- the run


def run_load(duration: float, processes: Processes, redis_db: int, metrics_dir: str) -> dict[str, Any]:
    fresh_database(DB_NAME, service_env(), synchronous_commit=True, timeout=300)
    floor = run_child("bench.load_test", "setup", service_env(redis_db))
    env = service_env(redis_db, metrics_dir)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server, worker = start_service(
        processes, env, port=port, workers=WORKERS, celery_concurrency=CELERY_CONCURRENCY
    )
    wait_until_up(base, server, path="/readyz", timeout=STARTUP_TIMEOUT, log=processes.log_path("gunicorn"))
    wait_for_worker(env, worker, processes.log_path("celery"))
    warm_up(base, floor)
    cpu = CpuSampler(
        {
            "gunicorn": lambda: children_of(server.pid),
            "celery": lambda: [worker.pid, *children_of(worker.pid)],
            "postgres": lambda: backends(DB_NAME),
        }
    )
    log(f"driving {len(floor['tables'])} tables for {duration:.0f} s")
    cpu.start()
    tallies, elapsed = drive(base, floor, duration)
    load_after = os.getloadavg()
    drained_at = time.monotonic()
    while time.monotonic() - drained_at < DRAIN_TIMEOUT and redis_queue(redis_db) != (0, 0):
        time.sleep(0.5)
    queue_left = redis_queue(redis_db)
    drain_seconds = time.monotonic() - drained_at
    cpu.finish()
    metrics = scrape_metrics(base)
    processes.stop("gunicorn")
    processes.stop("celery")
    checks = run_child("bench.load_test", "verify", service_env(redis_db))
    tally = merge(tallies)
    served = server_times(processes.log_path("gunicorn"))
    return {
        "elapsed": elapsed,
        "tally": tally,
        "floor": {"tables": len(floor["tables"]), "players": len(floor["players"])},
        "setup_transfers": floor["transfers"],
        "setup_buy_ins": floor["buy_ins"],
        "checks": checks,
        "metrics": metrics,
        "queue_left": queue_left,
        "drain_seconds": drain_seconds,
        "app_cpu": cpu.used("gunicorn"),
        "celery_cpu": cpu.used("celery"),
        "db_cpu": cpu.used("postgres"),
        "load_after": load_after,
        "redis_db": redis_db,
        "served": {f"{method} {path}": served.get((method, path), []) for method, path in SERVER_PATHS},
    }


# --------------------------------------------------------------------------- report


ENDPOINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("`POST /tables/{id}/rounds` (start a round)", ("start round",)),
    (
        "`POST /rounds/{id}/actions`, Faro",
        ("faro bet", "faro remove_bet", "faro turn", "faro call_turn", "faro last_turn"),
    ),
    *((f"`POST /rounds/{{id}}/actions`, {g.replace('_', ' ').title()}", (f"{g} action",)) for g in POT_GAMES),
    ("`POST /cage/buy-ins`", ("cage buy-in",)),
    ("`POST /cage/cash-outs`", ("cage cash-out",)),
    ("`GET /players/me/balance`", ("balance read",)),
    ("idempotent retries (same key, replayed)", ("idempotent retry (replayed)",)),
)


def row(label: str, values: list[float], elapsed: float) -> str:
    p50, p99 = percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000
    return f"| {label} | {len(values):,} | {len(values) / elapsed:,.1f} | {p50:.1f} | {p99:.1f} |"


def report(profile: Profile, env: str, run: dict[str, Any]) -> str:
    tally: Tally = run["tally"]
    checks = run["checks"]
    elapsed = run["elapsed"]
    lat = tally.latencies
    requests_made = sum(len(v) for v in lat.values())
    actions = tally.accepted["action"]
    load = ", ".join(f"{x:.1f}" for x in run["load_after"])
    lines = [f"# Load test ({profile.name})", "", f"{env}; at the end of the load: {load}", ""]
    lines += [
        f"gunicorn (`deploy/gunicorn.conf.py`, {WORKERS} sync workers) and a Celery worker "
        f"(concurrency {CELERY_CONCURRENCY}) on 127.0.0.1, `{SETTINGS}` with DEBUG off, JSON logs at "
        f"WARNING. {run['floor']['tables']} tables dealt at once for {elapsed:.1f} s: {FARO_TABLES} Faro "
        f"(electronic shoe, {FARO_PUNTERS} punters) and {POT_TABLES_PER_GAME} each of "
        f"{', '.join(POT_GAMES)} (manual shoe keyed by the client, {POT_PLAYERS} players), one client "
        f"thread per table, plus a cashier thread and {KIOSKS} balance-reading threads "
        f"({run['floor']['players']} players). Latency is the client's wall time per request, "
        "queueing for a worker included.",
        "",
        "## Throughput",
        "",
        "| | total | per second |",
        "|---|---:|---:|",
        f"| HTTP requests | {requests_made:,} | {requests_made / elapsed:,.1f} |",
        f"| round actions accepted | {actions:,} | {actions / elapsed:,.1f} |",
        f"| rounds started | {tally.accepted['round']:,} | {tally.accepted['round'] / elapsed:,.2f} |",
        f"| rounds settled | {tally.settled:,} | {tally.settled / elapsed:,.2f} |",
    ]
    transfers = checks["transfers"] - run["setup_transfers"]
    lines.append(f"| ledger transfers posted | {transfers:,} | {transfers / elapsed:,.1f} |")
    lines += [
        "",
        "## Latency by endpoint",
        "",
        "| endpoint | requests | per s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    every_action: list[float] = []
    for label, keys in ENDPOINTS:
        values = [v for k in keys for v in lat.get(k, [])]
        if "actions" in label:
            every_action += values
        if values:
            lines.append(row(label, values, elapsed))
    lines.append(row("all round actions", every_action, elapsed))
    lines += [
        "",
        "Faro actions by type:",
        "",
        "| action | requests | per s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in ("bet", "remove_bet", "turn", "call_turn", "last_turn"):
        if lat.get(f"faro {kind}"):
            lines.append(row(kind, lat[f"faro {kind}"], elapsed))
    lines += markdown_table(
        "Time in the server (gunicorn's access log: from a worker taking the request to its response; "
        "the rest of the client's time is queueing for one of the workers, retries included):",
        ("endpoint", "requests", "p50 ms", "p99 ms"),
        [
            (
                f"`{name}`",
                f"{len(values):,}",
                f"{percentile(values, 0.5):.0f}",
                f"{percentile(values, 0.99):.0f}",
            )
            for name, values in run["served"].items()
            if values
        ],
    )
    if requests_made:
        lines += [
            "",
            f"Server CPU per request: gunicorn workers {run['app_cpu'] / requests_made * 1000:.1f} ms, "
            f"PostgreSQL backends {run['db_cpu'] / requests_made * 1000:.1f} ms; the Celery worker used "
            f"{run['celery_cpu']:.1f} CPU-s in all (ratings of settled rounds).",
        ]
    if run["metrics"]:
        m = run["metrics"]
        lines.append(
            f"`/metrics` after the run: {m['casekeeper_ledger_transfers_total']:,.0f} transfers counted "
            f"by the workers, {m['casekeeper_refused_actions_total']:,.0f} refused actions, "
            f"{m['casekeeper_api_errors_total']:,.0f} API error responses."
        )
    lines += ["", "## Checks after the run", "", *verdict_lines(verdicts(run))]
    if tally.failures:
        lines += ["", "Failed requests:", ""] + [f"- {k} ×{n}" for k, n in tally.failures.most_common(15)]
    lines += problem_lines(tally, checks)
    return "\n".join(lines) + "\n"


def verdict_lines(verdicts: list[tuple[str, bool]]) -> list[str]:
    """The checks after a run as a report's bullets, each with its verdict."""
    return [f"- {text} → {'ok' if ok else '**FAILED**'}" for text, ok in verdicts]


def problem_lines(tally: Tally, checks: dict[str, Any]) -> list[str]:
    """What went wrong in the rounds (bad replays of retries, client/server state drift, rounds
    that do not replay), the first 15 of each, for the end of a report; nothing when all is well."""
    lines: list[str] = []
    for title, problems in (
        ("Retries that did not replay:", tally.retry_problems),
        ("Server state differing from the client's engine:", tally.state_mismatches),
        ("Rounds that do not replay:", checks["replay_failures"]),
    ):
        if problems:
            lines += ["", title, ""] + [f"- {p}" for p in problems[:15]]
    return lines


def verdicts(run: dict[str, Any]) -> list[tuple[str, bool]]:
    tally: Tally = run["tally"]
    checks = run["checks"]
    resent = sum(tally.resent.values())
    buy_ins = checks["buy_ins"] - run["setup_buy_ins"]
    rounds = ", ".join(f"{g} {n}" for g, n in sorted(checks["rounds_by_game"].items()))
    return [
        (
            f"requests that did not get their answer: {sum(tally.failures.values())}; "
            f"resent after a connection error or 5xx: {resent}",
            not tally.failures and not resent,
        ),
        (
            f"trial balance: debits {checks['total_debits']:,} = credits {checks['total_credits']:,}, "
            f"sum of balances {checks['balance_sum']}",
            checks["total_debits"] == checks["total_credits"] and checks["balance_sum"] == 0,
        ),
        (
            f"every transfer nets to zero with 2 entries per leg ({checks['unbalanced_transfers']} do not, "
            f"{checks['transfers_without_entries']} have no entries); stored balances = sum of entries "
            f"({checks['balance_mismatches']} differ)",
            not (
                checks["unbalanced_transfers"]
                or checks["transfers_without_entries"]
                or checks["balance_mismatches"]
            ),
        ),
        (
            f"RoundAction rows {checks['actions']:,} = accepted (200) action keys "
            f"{tally.accepted['action']:,} (idempotent retries replayed, not applied again)",
            checks["actions"] == tally.accepted["action"],
        ),
        (
            f"rounds {checks['rounds']:,} ({rounds}) = accepted (201) round starts "
            f"{tally.accepted['round']:,}",
            checks["rounds"] == tally.accepted["round"],
        ),
        (
            f"cage transfers: buy-ins {buy_ins:,} = accepted {tally.accepted['buy_in']:,}, cash-outs "
            f"{checks['cash_outs']:,} = accepted {tally.accepted['cash_out']:,}",
            buy_ins == tally.accepted["buy_in"] and checks["cash_outs"] == tally.accepted["cash_out"],
        ),
        (
            f"idempotent retries: {tally.retries_same} of {tally.retries} came back replayed with the same "
            "body (round version and settlements' transfers, or transfer id and balance)",
            tally.retries > 0 and tally.retries_same == tally.retries,
        ),
        (
            f"replay: {checks['rounds'] - len(checks['replay_failures'])} of {checks['rounds']} rounds "
            "replay exactly (`tables.replay.check_round`)",
            not checks["replay_failures"],
        ),
        (
            f"pot games: the server's public state equalled the client's engine "
            f"{tally.state_checks:,} times, differed {len(tally.state_mismatches)} times",
            tally.state_checks > 0 and not tally.state_mismatches,
        ),
        (
            f"Celery: queue drained in {run['drain_seconds']:.1f} s (left: {run['queue_left'][0]} waiting, "
            f"{run['queue_left'][1]} unacknowledged); settled rounds {checks['settled']:,}, rated "
            f"{checks['rated']:,}",
            run["queue_left"] == (0, 0) and checks["rated"] == checks["settled"],
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        __doc__,
        quick_help="20 s of load instead of 60 s",
        duration_help="seconds of load (overrides the profile)",
        database=DB_NAME,
        output=OUTPUT,
    )
    args = parser.parse_args(argv)
    if answer_child(args, {"setup": child_setup, "verify": child_verify}):
        return 0
    profile = QUICK if args.quick else FULL
    duration = args.duration or profile.seconds
    stop_after(duration + BUDGET)  # the whole run, cleanup included, is bounded
    env = describe_machine()
    processes = Processes("load")
    redis_db = free_redis_db()
    try:
        with tempfile.TemporaryDirectory(prefix="casekeeper-load-metrics-") as metrics_dir:
            run = run_load(duration, processes, redis_db, metrics_dir)
    finally:
        signal.alarm(120)  # cleanup gets its own bound
        processes.stop_all()
        empty_redis_db(redis_db)
        if not args.keep_db:
            drop_database(DB_NAME)
        signal.alarm(0)
    text = report(profile, env, run)
    write_report(text, args.output)
    return 0 if all(ok for _, ok in verdicts(run)) else 1


if __name__ == "__main__":
    sys.exit(main())
