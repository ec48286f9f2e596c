"""Rounds benchmark: the Faro engine alone, then Faro actions over HTTP at 8 tables at once.

    bench/run-rounds [--quick]              # 30 s of HTTP load (10 s with --quick)
    .venv/bin/python -m bench.rounds_bench [--quick] [--duration S] [--keep-db]

Not a test: it prints a markdown report and writes it to build/bench/rounds.md.

(a) Engine: one scripted Faro deal (opening bets, two bets a turn, removals, 24 turns, calls,
    the last turn) is generated once from a fixed seed, then replayed through
    ``tables.games.faro.ENGINE`` for a few seconds, with and without ``public_state`` (which
    the service computes after every action). No database.
(b) HTTP: a throwaway database ``casekeeper_bench_rounds`` is created and migrated, a floor is
    set up through the services (8 Faro tables, a dealer each, 3 funded punters seated at
    each), and the app is served by gunicorn (4 sync workers) on 127.0.0.1 with
    ``casino.settings.local``, DEBUG off. One client thread per table deals electronic-shoe
    rounds back to back (bets and turns, as a dealer's console would send them) for a fixed
    time, timing each request. Then gunicorn is stopped and the ledger and the rounds are
    checked: trial balance equal and summing to 0, one RoundAction row per 200 response, and
    every round replaying exactly. Each request's CPU is also measured in the worker that
    answers it (``bench.cpu_probe``), so the report gives a Faro action's apart from a round
    start's (issue 22's first target is per action).
(c) Calibration, after those checks, under the same gunicorn and the same client: a bare Django
    view, the same answer from a DRF view with the API's token authentication, a view running
    only an action's SQL, and that SQL in a DRF view (``bench.rounds_calibration``, routed by the
    bench-only ``bench.rounds_settings``), so the report shows what a tap costs at the least in
    this stack on this machine beside what the product's tap costs, from /proc and as measured
    in the workers. The database is dropped at the end.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import signal
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench import cpu_probe, floor_bench
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
    served_env,
    staff,
)
from bench.harness import children_of, cpu_seconds, markdown_table, percentile, write_report
from bench.served import VENV_BIN, Processes, answer_child, bench_parser, run_child, wait_until_up

OUTPUT = ROOT / "build" / "bench" / "rounds.md"
# BENCH_ROUNDS_DB lets two runs share one PostgreSQL server without dropping each other's database.
DB_NAME = os.environ.get("BENCH_ROUNDS_DB", "casekeeper_bench_rounds")

TABLES = 8
WORKERS = 4
PUNTERS = 3
TRAY = 10_000_000  # cents in each tray
BUY_IN = 100_000_000  # cents per punter: never the limit during a run
MIN_BET, MAX_BET = 500, 50_000
REQUEST_TIMEOUT = 30.0
STARTUP_TIMEOUT = 240.0  # gunicorn's four workers import Django at once: minutes on a loaded 2-core machine
BUDGET = 900.0  # seconds for everything but the measured load: migrate, setup, checks, cleanup
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
PLACEMENTS: tuple[tuple[str, ...], ...] = (
    *((r,) for r in RANKS),
    ("K", "A"),
    ("Q", "10"),
    ("A", "3"),
    ("10", "3"),
    ("10", "4", "9"),
    ("6", "7", "8"),
    ("9", "8", "5", "6"),
)
TARGETS = ("even", "odd", "high")
POSITIONS = (5, 80)  # an early and a late action of a deal: their answers must cost the same


@dataclass(frozen=True)
class Profile:
    name: str
    http_seconds: float
    engine_seconds: float  # per engine measurement
    calibration_seconds: float  # per calibration endpoint
    repeat_seconds: float  # per repeat of (d), the interleaved comparison


QUICK = Profile("quick", 10.0, 1.5, 5.0, 6.0)
FULL = Profile("full", 30.0, 4.0, 10.0, 12.0)
REPEATS = 3  # (d)'s repeats, by default
INTERLEAVE_WARM_UP = 2.0  # s of (d) before its first repeat: every session's first requests
FLOOR_ROUTE = "drf-sql-action"  # (d)'s floor: the action's SQL in a DRF view
CONSOLE_REQUEST = "POST /console/tables/{id}/rounds/{id}/faro/"  # then the tap's kind and a slash
# The kinds of tap both the API and the console send in (d); the console's answer to each is
# compared with the API's to the same kind.
SHARED_KINDS = ("bet", "remove_bet", "turn", "last_turn")
CHECKED_TABLES = "BENCH_ROUNDS_CHECKED_TABLES"  # child_verify's tables, comma-separated (all if unset)
PROBE_CONFIG = "bench/probe_plain_gunicorn.conf.py"  # each request's CPU, by bench.cpu_probe
PROBE_DIR = ROOT / "build" / "bench" / "rounds-cpu"
PROBE_SETTLE = 0.5  # s: a worker notes a request's CPU just after its answer has gone out
# bench.cpu_probe's names (method and path, ids as {id}) of the two requests the product answers.
ACTION_REQUEST, START_REQUEST = "POST /api/v1/rounds/{id}/actions", "POST /api/v1/tables/{id}/rounds"
# (c): what each calibration endpoint of bench.rounds_calibration stands for, and its route.
CALIBRATIONS = (
    ("a bare Django view (small JSON, all the middleware)", "bare"),
    ("the same answer from a DRF view (the API's token read, parser, permission, renderer)", "drf-bare"),
    ("an action's SQL alone (psycopg, prepared, no ORM or DRF)", "sql-action"),
    ("the same SQL in a DRF view (the floor of a tap with DRF)", "drf-sql-action"),
)


def service_env() -> dict[str, str]:
    # The app as casino.settings.local serves it, plus the calibration routes (bench-only).
    return {
        **os.environ,
        **served_env(DB_NAME, label="rounds"),
        "DJANGO_SETTINGS_MODULE": "bench.rounds_settings",
        cpu_probe.DIR_VARIABLE: str(PROBE_DIR),
    }


# --------------------------------------------------------------------------- (a) the engine


def choose_bet(
    rng: random.Random, state: dict[str, Any], player: int, *, target: bool
) -> dict[str, Any] | None:
    """A legal bet for this moment of the deal (a live placement, an amount within limits)."""
    amount = rng.randrange(MIN_BET, 5_000, 100)
    if target:
        return {"type": "bet", "player": player, "target": rng.choice(TARGETS), "amount": amount}
    left = state["casekeeper"]
    live = [p for p in PLACEMENTS if all(left[r]["left"] > 0 for r in p)]
    if not live:
        return None
    ranks = list(rng.choice(live))
    return {
        "type": "bet",
        "player": player,
        "ranks": ranks,
        "amount": amount,
        "coppered": rng.random() < 0.25,
    }


def scripted_deal(seed: str) -> tuple[Any, list[dict[str, Any]]]:
    """One Faro deal as the service would feed it to the engine (limits injected on each action)."""
    from tables.games.base import TableContext
    from tables.games.cards import FULL_DECK
    from tables.games.faro import ENGINE
    from tables.games.shoe import shuffle

    ctx = TableContext(
        rules={},
        seats={1: 1, 2: 2, 3: 3},
        min_bet=MIN_BET,
        max_bet=MAX_BET,
        ante=0,
        deck=shuffle(FULL_DECK, seed),
    )
    rng = random.Random(7)
    limits = {"min_bet": MIN_BET, "max_bet": MAX_BET}
    state, _ = ENGINE.start(ctx)
    actions: list[dict[str, Any]] = []

    def act(action: dict[str, Any]) -> dict[str, Any]:
        nonlocal state
        payload = {**action, "limits": limits}
        state, _ = ENGINE.apply(state, payload)
        actions.append(payload)
        return ENGINE.public_state(state)

    public = ENGINE.public_state(state)
    for player in (1, 2, 3):
        for target in (False, True):
            bet = choose_bet(rng, public, player, target=target)
            if bet:
                public = act(bet)
    turn = 0
    while public["next_action"] == "turn":
        public = act({"type": "turn"})
        turn += 1
        for target in (False, True):
            bet = choose_bet(rng, public, 1 + (turn + target) % 3, target=target)
            if bet:
                public = act(bet)
        if turn % 4 == 0 and public["bets"]:
            public = act({"type": "remove_bet", "bet": public["bets"][0]["id"]})
    if public["can_call_turn"]:
        left = [r for r in RANKS for _ in range(public["casekeeper"][r]["left"])]
        public = act({"type": "call_turn", "player": 1, "order": left, "amount": 1_000})
    act({"type": "last_turn"})
    return ctx, actions


def bench_engine(seconds: float) -> dict[str, Any]:
    from tables.games.faro import ENGINE

    ctx, actions = scripted_deal("5eed" * 16)
    kinds = Counter("bet (even/odd/high)" if a.get("target") else a["type"] for a in actions)

    def measure(with_public: bool) -> tuple[float, float, int]:
        """(CPU seconds, wall seconds, deals): CPU time is what the engine costs on a busy machine."""
        deals = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.perf_counter() - wall < seconds:
            state, _ = ENGINE.start(ctx)
            for action in actions:
                state, _ = ENGINE.apply(state, action)
                if with_public:
                    ENGINE.public_state(state)
            deals += 1
        return time.process_time() - cpu, time.perf_counter() - wall, deals

    results = {}
    for label, with_public in (("apply", False), ("apply + public_state", True)):
        cpu, wall, deals = measure(with_public)
        results[label] = {
            "actions_per_cpu_s": deals * len(actions) / cpu,
            "actions_per_s": deals * len(actions) / wall,
            "deal_ms": cpu / deals * 1000,
            "deals": deals,
        }
    return {"actions": len(actions), "kinds": dict(kinds), "results": results}


# --------------------------------------------------------------------------- (b) database, app, load


def child_setup() -> dict[str, Any]:
    """The floor, made through the services: staff, tables opened, punters bought in and seated.
    (b) deals ``tables``; (d) deals ``pairs``: for each client an API table and a console table
    whose dealer signs in with ``floor_bench.STAFF_PASSWORD``."""
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password

    from casino.models import Role, User
    from casino.services import buy_in, create_player, issue_token
    from tables.services import assign_dealer, create_table, open_table, seat_player

    boss, cashier = staff("bench-pit", Role.PIT_BOSS), staff("bench-cage", Role.CASHIER)

    def faro_table(n: int, dealer_name: str) -> dict[str, Any]:
        dealer = staff(dealer_name, Role.DEALER)
        table = create_table(actor=boss, name=f"Faro {n + 1}", game="faro", min_bet=MIN_BET, max_bet=MAX_BET)
        assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
        open_table(actor=dealer, table_id=table.pk, opening_inventory=TRAY)
        players = []
        for p in range(PUNTERS):
            name = f"punter-{n}-{p}"
            player = create_player(actor=cashier, username=name, password="bench-punter-pass-1", name=name)
            identify(cashier, player)  # a bankroll past the CTR line needs an ID on file
            buy_in(actor=cashier, player=player, amount=BUY_IN)
            seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=p + 1)
            players.append(player.pk)
        return {
            "id": table.pk,
            "token": issue_token(user=dealer),
            "players": players,
            "seats": {str(p + 1): player for p, player in enumerate(players)},
            "min_bet": MIN_BET,
            "max_bet": MAX_BET,
            "dealer": dealer_name,
        }

    tables = [faro_table(t, f"bench-dealer-{t}") for t in range(TABLES)]
    pairs = [
        {
            "api": faro_table(TABLES + t, f"bench-dealer-{TABLES + t}"),
            "console": faro_table(2 * TABLES + t, f"bench-console-{t}"),
        }
        for t in range(TABLES)
    ]
    console = [pair["console"]["dealer"] for pair in pairs]
    User.objects.filter(username__in=console).update(password=make_password(floor_bench.STAFF_PASSWORD))
    return {"tables": tables, "pairs": pairs}


def child_verify() -> dict[str, Any]:
    import django

    django.setup()
    from casino.models import Player
    from ledger.selectors import get_trial_balance
    from tables.accounts import layout_code
    from tables.models import Round, RoundAction, RoundStatus, Seat
    from tables.replay import check_round

    trial = get_trial_balance()
    # With CHECKED_TABLES set, the rounds and actions of those tables only ((d)'s, after (c) has
    # written into (b)'s last rounds).
    only = [int(t) for t in os.environ.get(CHECKED_TABLES, "").split(",") if t]
    rounds = Round.objects.filter(table_id__in=only) if only else Round.objects.all()
    actions = RoundAction.objects.filter(round__table_id__in=only) if only else RoundAction.objects.all()
    failures = [r.pk for r in rounds.order_by("pk") if not check_round(r).ok]
    # For (c): each table's last round, and a wallet and a layout its first seat's player has.
    calibration = {}
    for table, round_ in Round.objects.order_by("table_id", "number").values_list("table_id", "pk"):
        seat = Seat.objects.filter(table_id=table, left_at__isnull=True).order_by("number").first()
        if seat is not None:
            wallet = Player.objects.filter(pk=seat.player_id).values_list("wallet__code", flat=True).get()
            calibration[str(table)] = {
                "round": round_,
                "debit": wallet,
                "credit": layout_code(table, seat.player_id),
            }
    return {
        "calibration": calibration,
        "actions": actions.count(),
        "rounds": rounds.count(),
        "settled": rounds.filter(status=RoundStatus.SETTLED).count(),
        "total_debits": trial.total_debits,
        "total_credits": trial.total_credits,
        "balance_sum": sum(row.balance for row in trial.rows),
        "replay_failures": failures,
    }


def gunicorn_command(port: int) -> list[str]:
    return [
        str(VENV_BIN / "gunicorn"),
        "casino.wsgi:application",
        "-c",
        PROBE_CONFIG,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
        "--timeout",
        "60",
        "--log-level",
        "warning",
    ]


@dataclass
class Tally:
    """What one client thread saw: latencies per request kind, 2xx counts, failures."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    ok_actions: int = 0
    ok_rounds: int = 0
    settled: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    # The nth action of a deal (its round's version): (seconds, response bytes) of each.
    by_position: dict[int, list[tuple[float, int]]] = field(default_factory=lambda: defaultdict(list))
    last: tuple[float, int] = (0.0, 0)


def drive_table(
    base: str,
    table: dict[str, Any],
    deadline: float,
    seed: int,
    tally: Tally,
    *,
    pace: Any = None,
    name_kinds: bool = False,
) -> None:
    """Deal electronic-shoe rounds back to back at one table until the deadline passes (``pace``:
    a ``wait() -> bool`` each request waits for; ``name_kinds``: each request names its kind to
    ``bench.cpu_probe``, so its CPU is told apart per kind)."""
    import requests

    rng = random.Random(seed)
    session = requests.Session()
    session.headers["Authorization"] = f"Token {table['token']}"

    def post(kind: str, path: str, body: dict[str, Any], expect: int) -> dict[str, Any] | None:
        if pace is not None and not pace.wait():
            return None
        headers = {cpu_probe.GAME_HEADER: kind} if name_kinds else None
        started = time.perf_counter()
        try:
            response = session.post(f"{base}{path}", json=body, headers=headers, timeout=REQUEST_TIMEOUT)
        except requests.RequestException as error:
            tally.failures[f"{kind}: {type(error).__name__}"] += 1
            return None
        tally.last = (time.perf_counter() - started, len(response.content))
        tally.latencies[kind].append(tally.last[0])
        try:
            answer: Any = response.json()
        except ValueError:
            answer = None
        if response.status_code != expect or not isinstance(answer, dict):
            code = answer.get("error", {}).get("code", "?") if isinstance(answer, dict) else "not JSON"
            tally.failures[f"{kind}: {response.status_code} {code}"] += 1
            return None
        return answer

    def act(kind: str, round_: dict[str, Any], action: dict[str, Any]) -> dict[str, Any] | None:
        body = post(
            kind, f"/api/v1/rounds/{round_['id']}/actions", {**action, "version": round_["version"]}, 200
        )
        if body is not None:
            tally.ok_actions += 1
            tally.by_position[int(body["version"])].append(tally.last)
        return body

    try:
        deal_rounds(post, act, rng, table, deadline, tally)
    except Exception as error:
        tally.failures[f"client crashed: {type(error).__name__}: {error}"[:200]] += 1


def deal_rounds(
    post: Any, act: Any, rng: random.Random, table: dict[str, Any], deadline: float, tally: Tally
) -> None:
    players = table["players"]
    while time.monotonic() < deadline:
        round_ = post("start round", f"/api/v1/tables/{table['id']}/rounds", {"shoe": "electronic"}, 201)
        if round_ is None:
            return
        tally.ok_rounds += 1
        turn = 0
        while time.monotonic() < deadline and round_["state"]["next_action"] is not None:
            state = round_["state"]
            for target in (False, True):
                bet = choose_bet(rng, state, players[(turn + target) % len(players)], target=target)
                if bet and (next_round := act("bet", round_, bet)) is not None:
                    round_, state = next_round, next_round["state"]
            if turn % 4 == 3 and state["bets"]:
                removed = act("remove_bet", round_, {"type": "remove_bet", "bet": state["bets"][0]["id"]})
                round_ = removed or round_
            if state["next_action"] == "last_turn" and round_["state"]["can_call_turn"]:
                left = [r for r in RANKS for _ in range(round_["state"]["casekeeper"][r]["left"])]
                call = {"type": "call_turn", "player": players[0], "order": left, "amount": 1_000}
                round_ = act("call_turn", round_, call) or round_
            kind = round_["state"]["next_action"]
            dealt = act(kind, round_, {"type": kind})
            if dealt is None:
                return  # something is wrong: stop this table, the report shows the failure
            round_ = dealt
            turn += 1
        if round_["status"] == "settled":
            tally.settled += 1


def warm_up(base: str, tables: list[dict[str, Any]]) -> None:
    """A few reads from every table's thread first, so no measured request pays a cold worker."""
    import requests

    def reads(table: dict[str, Any]) -> None:
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {table['token']}"
            for _ in range(4):
                session.get(f"{base}/api/v1/tables/{table['id']}", timeout=REQUEST_TIMEOUT)

    threads = [threading.Thread(target=reads, args=(table,), daemon=True) for table in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=REQUEST_TIMEOUT * 4)


def calibrate(
    base: str,
    tables: list[dict[str, Any]],
    targets: dict[str, dict[str, Any]],
    workers: list[int],
    route: str,
    seconds: float,
) -> dict[str, Any]:
    """One calibration endpoint driven as the actions were (a thread per table, back to back):
    its requests, latencies, failures and the server CPU they cost."""
    import requests

    def drive(table: dict[str, Any], deadline: float | None, tally: Tally) -> None:
        target = targets[str(table["id"])]
        body = {"type": "bet", "debit": target["debit"], "credit": target["credit"]}
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {table['token']}"
            for n in itertools.count():
                if (deadline is None and n == 3) or (deadline is not None and time.monotonic() >= deadline):
                    return
                started = time.perf_counter()
                try:
                    response = session.post(
                        f"{base}/bench/{route}/{target['round']}", json=body, timeout=REQUEST_TIMEOUT
                    )
                except requests.RequestException as error:
                    tally.failures[type(error).__name__] += 1
                    continue
                tally.latencies[route].append(time.perf_counter() - started)
                if response.status_code != 200:
                    tally.failures[str(response.status_code)] += 1

    def run(deadline: float | None) -> list[Tally]:
        tallies = [Tally() for _ in tables]
        threads = [
            threading.Thread(target=drive, args=(table, deadline, tallies[i]), daemon=True)
            for i, table in enumerate(tables)
            if str(table["id"]) in targets
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + REQUEST_TIMEOUT * 4)
        return tallies

    run(None)  # a few requests first: every worker's connection is open before CPU is sampled
    time.sleep(PROBE_SETTLE)
    probe_marks = cpu_probe.marks(PROBE_DIR)
    app_cpu = cpu_seconds(workers)
    db_cpu = {pid: cpu_seconds([pid]) for pid in backends(DB_NAME)}
    tallies = run(time.monotonic() + seconds)
    app_cpu = cpu_seconds(workers) - app_cpu
    db_cpu_used = sum(cpu_seconds([pid]) - db_cpu.get(pid, 0.0) for pid in backends(DB_NAME))
    time.sleep(PROBE_SETTLE)
    probed = [
        m
        for (kind, what, _), ms in cpu_probe.read(PROBE_DIR, probe_marks).items()
        if kind == "request" and what == f"POST /bench/{route}/{{id}}"
        for m in ms
    ]
    failures: Counter[str] = Counter()
    for tally in tallies:
        failures.update(tally.failures)
    return {
        "route": route,
        "latencies": [v for tally in tallies for v in tally.latencies[route]],
        "failures": dict(failures),
        "app_cpu": app_cpu,
        "db_cpu": db_cpu_used,
        "probed": probed,
    }


# --------------------------------------------------------------------------- (d) interleaved


class Rotation:
    """One client's parties taking turns, one request each in a fixed order, so whatever the
    machine does meanwhile (other work, its speed drifting) falls on each party alike. A party
    gets a ``Turn`` (a clock for the drivers: ``wait()`` before each request) and leaves when
    its driver returns; the others then go round without it."""

    def __init__(self, parties: int, deadline: float) -> None:
        self.changed = threading.Condition()
        self.deadline = deadline
        self.present = list(range(parties))
        self.holder = 0

    def _hand_over(self, party: int) -> None:
        if self.holder == party and self.present:
            later = [p for p in self.present if p > party]
            self.holder = later[0] if later else self.present[0]
            self.changed.notify_all()

    def turn(self, party: int) -> Turn:
        return Turn(self, party)


class Turn:
    """A party's place in a ``Rotation``."""

    def __init__(self, rotation: Rotation, party: int) -> None:
        self.rotation, self.party, self.holding = rotation, party, False

    def wait(self) -> bool:
        """True when this party may send its next request; False once the run is over."""
        rotation = self.rotation
        with rotation.changed:
            if self.holding:  # the previous request has been answered: the next party's turn
                self.holding = False
                rotation._hand_over(self.party)
            while rotation.holder != self.party:
                left = rotation.deadline - time.monotonic()
                if left <= 0:
                    return False
                rotation.changed.wait(timeout=left)
            self.holding = time.monotonic() < rotation.deadline
            return self.holding

    def leave(self) -> None:
        with self.rotation.changed:
            self.rotation.present.remove(self.party)
            self.rotation._hand_over(self.party)
            self.rotation.changed.notify_all()


def drive_floor(base: str, table: dict[str, Any], target: dict[str, Any], turn: Turn, tally: Tally) -> None:
    """The floor's requests (the action's SQL in a DRF view), one a turn, with the table's token."""
    import requests

    body = {"type": "bet", "debit": target["debit"], "credit": target["credit"]}
    with requests.Session() as session:
        session.headers["Authorization"] = f"Token {table['token']}"
        while turn.wait():
            started = time.perf_counter()
            try:
                response = session.post(
                    f"{base}/bench/{FLOOR_ROUTE}/{target['round']}", json=body, timeout=REQUEST_TIMEOUT
                )
            except requests.RequestException as error:
                tally.failures[f"floor: {type(error).__name__}"] += 1
                return
            tally.latencies["floor"].append(time.perf_counter() - started)
            if response.status_code != 200:
                tally.failures[f"floor: {response.status_code}"] += 1
                return


def interleave(
    base: str,
    floor: dict[str, Any],
    targets: dict[str, dict[str, Any]],
    repeats: int,
    seconds: float,
) -> dict[str, Any]:
    """(d): each client takes turns between an API Faro table, the floor's request and a console
    Faro table, for ``repeats`` windows of ``seconds`` after a warm-up; per window the CPU per
    request of each, as measured in the workers."""
    sessions = [floor_bench.sign_in(base, pair["console"]["dealer"]) for pair in floor["pairs"]]
    for session, pair in zip(sessions, floor["pairs"], strict=True):  # each console dealer's first screen
        session.get(f"{base}/console/tables/{pair['console']['id']}/", headers=floor_bench.HX, timeout=30)
    started = time.monotonic()
    deadline = started + INTERLEAVE_WARM_UP + repeats * seconds
    api_tallies = [Tally() for _ in floor["pairs"]]
    floor_tallies = [Tally() for _ in floor["pairs"]]
    console_tallies = [floor_bench.Tally() for _ in floor["pairs"]]
    threads = []
    for i, pair in enumerate(floor["pairs"]):
        rotation = Rotation(3, deadline)
        target = targets[str(floor["tables"][i]["id"])]
        parties: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = [
            (drive_table, (base, pair["api"], deadline, 2000 + i, api_tallies[i]), {"name_kinds": True}),
            (drive_floor, (base, floor["tables"][i], target), {}),
            (
                floor_bench.drive_console_faro,
                (base, pair["console"], sessions[i], deadline, 3000 + i, console_tallies[i]),
                {},
            ),
        ]
        for party, (driver, args, kwargs) in enumerate(parties):
            turn = rotation.turn(party)
            if driver is drive_floor:
                args = (*args, turn, floor_tallies[i])
            elif driver is drive_table:
                kwargs = {**kwargs, "pace": turn}
            else:
                kwargs = {"clock": turn}

            def run(
                driver: Any = driver, args: tuple[Any, ...] = args, kwargs: Any = kwargs, turn: Turn = turn
            ) -> None:
                try:
                    driver(*args, **kwargs)
                finally:
                    turn.leave()

            threads.append(threading.Thread(target=run, daemon=True))
    for thread in threads:
        thread.start()
    windows = []
    boundary = started + INTERLEAVE_WARM_UP
    time.sleep(max(0.0, boundary - time.monotonic()))
    since = cpu_probe.marks(PROBE_DIR)
    for _ in range(repeats):
        boundary += seconds
        time.sleep(max(0.0, boundary - time.monotonic()))
        until = cpu_probe.marks(PROBE_DIR)
        windows.append((since, until))
        since = until
    for thread in threads:
        thread.join(timeout=REQUEST_TIMEOUT * 4)
    time.sleep(PROBE_SETTLE)
    measured = [
        {
            f"{what}|{game}": values
            for (kind, what, game), values in cpu_probe.read(PROBE_DIR, since, until).items()
            if kind == "request"
        }
        for since, until in windows
    ]
    failures: Counter[str] = Counter()
    every: list[Any] = [*api_tallies, *floor_tallies, *console_tallies]
    for counted in every:
        failures.update(counted.failures)
    return {
        "windows": measured,
        "seconds": seconds,
        "failures": dict(failures),
        "api_actions": sum(t.ok_actions for t in api_tallies),
        "api_rounds": sum(t.ok_rounds for t in api_tallies),
        "console_actions": sum(t.accepted["action"] for t in console_tallies),
        "console_rounds": sum(t.accepted["round"] for t in console_tallies),
        "floor_requests": sum(len(t.latencies["floor"]) for t in floor_tallies),
        "latencies": {
            "API Faro action": [
                v for t in api_tallies for k, vs in t.latencies.items() if k != "start round" for v in vs
            ],
            "the floor (the action's SQL in a DRF view)": [
                v for t in floor_tallies for v in t.latencies["floor"]
            ],
            "console Faro tap": [
                v
                for t in console_tallies
                for k, vs in t.latencies.items()
                if k.startswith("console faro")
                for v in vs
            ],
        },
    }


def run_http(
    duration: float, calibration_seconds: float, repeats: int, repeat_seconds: float
) -> dict[str, Any]:
    fresh_database(DB_NAME, service_env(), synchronous_commit=True, timeout=300)
    processes = Processes("rounds")
    try:
        floor = run_child("bench.rounds_bench", "setup", service_env())
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        shutil.rmtree(PROBE_DIR, ignore_errors=True)
        PROBE_DIR.mkdir(parents=True)
        server = processes.start("gunicorn", gunicorn_command(port), service_env())
        wait_until_up(
            base, server, path="/healthz", timeout=STARTUP_TIMEOUT, log=processes.log_path("gunicorn")
        )
        warm_up(base, floor["tables"])
        time.sleep(PROBE_SETTLE)
        probe_marks = cpu_probe.marks(PROBE_DIR)
        tallies = [Tally() for _ in floor["tables"]]
        workers = children_of(server.pid)
        app_cpu = cpu_seconds(workers)
        db_cpu = {pid: cpu_seconds([pid]) for pid in backends(DB_NAME)}
        started = time.monotonic()
        deadline = started + duration
        threads = [
            threading.Thread(
                target=drive_table, args=(base, table, deadline, 1000 + i, tallies[i]), daemon=True
            )
            for i, table in enumerate(floor["tables"])
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=duration + REQUEST_TIMEOUT * 4)
        elapsed = time.monotonic() - started
        app_cpu = cpu_seconds(workers) - app_cpu
        db_cpu_used = sum(cpu_seconds([pid]) - db_cpu.get(pid, 0.0) for pid in backends(DB_NAME))
        time.sleep(PROBE_SETTLE)
        probed = {
            what: measured
            for (kind, what, _), measured in cpu_probe.read(PROBE_DIR, probe_marks).items()
            if kind == "request" and what in (ACTION_REQUEST, START_REQUEST)
        }
        checks = run_child("bench.rounds_bench", "verify", service_env())
        calibration = [
            calibrate(base, floor["tables"], checks["calibration"], workers, route, calibration_seconds)
            for _, route in CALIBRATIONS
        ]
        log(f"(d) interleaved: {repeats} x {repeat_seconds:.0f} s")
        interleaved = interleave(base, floor, checks["calibration"], repeats, repeat_seconds)
        dealt = [str(pair[side]["id"]) for pair in floor["pairs"] for side in ("api", "console")]
        interleaved["checks"] = run_child(
            "bench.rounds_bench", "verify", {**service_env(), CHECKED_TABLES: ",".join(dealt)}
        )
        processes.stop("gunicorn")
    finally:
        processes.stop_all()
    latencies: dict[str, list[float]] = defaultdict(list)
    for tally in tallies:
        for kind, values in tally.latencies.items():
            latencies[kind] += values
    failures: Counter[str] = Counter()
    for tally in tallies:
        failures.update(tally.failures)
    positions: dict[int, list[tuple[float, int]]] = {n: [] for n in POSITIONS}
    for tally in tallies:
        for n in POSITIONS:
            positions[n] += tally.by_position.get(n, [])
    return {
        "elapsed": elapsed,
        "latencies": latencies,
        "positions": positions,
        "ok_actions": sum(t.ok_actions for t in tallies),
        "ok_rounds": sum(t.ok_rounds for t in tallies),
        "settled": sum(t.settled for t in tallies),
        "failures": dict(failures),
        "checks": checks,
        "app_cpu": app_cpu,
        "db_cpu": db_cpu_used,
        "calibration": calibration,
        "probed": probed,
        "interleaved": interleaved,
    }


# --------------------------------------------------------------------------- report


def position_row(n: int, seen: list[tuple[float, int]]) -> tuple[str, ...]:
    """The cells for the nth action of a deal: its latency and its answer's size."""
    times, sizes = [t for t, _ in seen], [float(b) for _, b in seen]
    return (
        f"{n}th",
        str(len(seen)),
        f"{percentile(times, 0.5) * 1000:.1f}",
        f"{percentile(times, 0.99) * 1000:.1f}",
        f"{percentile(sizes, 0.5):,.0f}",
        f"{max(sizes):,.0f}",
    )


def mean_ms(measured: list[tuple[int, int]]) -> tuple[float, float]:
    """The mean gunicorn and PostgreSQL ms of requests measured in the workers (``bench.cpu_probe``)."""
    return (
        sum(app for app, _ in measured) / len(measured) / 1e6,
        sum(db for _, db in measured) / len(measured) / 1e6,
    )


def calibration_table(http: dict[str, Any], requests_made: int) -> list[str]:
    """(c): server CPU per request of the product's requests beside the calibration endpoints."""

    def row(
        label: str, count: int, app: float, db: float, latencies: list[float], probed: list[tuple[int, int]]
    ) -> tuple[str, ...]:
        app_ms, db_ms = app / count * 1000, db / count * 1000
        in_workers = "–"
        if probed:
            app_in, db_in = mean_ms(probed)
            in_workers = f"{app_in:.2f} + {db_in:.2f} = {app_in + db_in:.2f}"
        return (
            label,
            f"{count:,}",
            f"{percentile(latencies, 0.5) * 1000:.1f}",
            f"{app_ms:.2f}",
            f"{db_ms:.2f}",
            f"{app_ms + db_ms:.2f}",
            in_workers,
        )

    every = [v for values in http["latencies"].values() for v in values]
    rows = [
        row(
            "Faro actions and round starts (the product)",
            requests_made,
            http["app_cpu"],
            http["db_cpu"],
            every,
            http["probed"].get(ACTION_REQUEST, []),
        )
    ]
    for (label, _), measured in zip(CALIBRATIONS, http["calibration"], strict=True):
        count = len(measured["latencies"])
        if count:
            rows.append(
                row(
                    label,
                    count,
                    measured["app_cpu"],
                    measured["db_cpu"],
                    measured["latencies"],
                    measured["probed"],
                )
            )
    failures = {m["route"]: m["failures"] for m in http["calibration"] if m["failures"]}
    return markdown_table(
        "(c) Calibration, after the checks: server CPU per request under the same gunicorn and client"
        + (f" (failures: {failures})" if failures else ""),
        (
            "Request",
            "count",
            "p50 ms",
            "gunicorn ms",
            "PostgreSQL ms",
            "total ms",
            "in the workers: gunicorn + PostgreSQL ms (the product: a Faro action)",
        ),
        rows,
    )


def probed_lines(http: dict[str, Any]) -> list[str]:
    """Issue 22's first target is per Faro action: the figure above also has the round starts,
    each about two actions' worth. Their CPU as measured in the workers is taken out of it."""
    actions = http["probed"].get(ACTION_REQUEST, [])
    starts = http["probed"].get(START_REQUEST, [])
    made = sum(len(values) for kind, values in http["latencies"].items() if kind != "start round")
    if not actions or not made:
        return []

    action_app, action_db = mean_ms(actions)
    start_app, start_db = mean_ms(starts) if starts else (0.0, 0.0)
    app_ms = (http["app_cpu"] - start_app * len(starts) / 1000) / made * 1000
    db_ms = (http["db_cpu"] - start_db * len(starts) / 1000) / made * 1000
    return [
        "",
        f"Measured in the workers (`bench.cpu_probe`, from gunicorn's `pre_request` to `post_request`, "
        f"so without reading the request): a Faro action {action_app:.2f} + {action_db:.2f} = "
        f"{action_app + action_db:.2f} ms ({len(actions):,}), a round start {start_app:.2f} + "
        f"{start_db:.2f} = {start_app + start_db:.2f} ms ({len(starts):,}). **Server CPU per Faro "
        f"action** (issue 22, target 1): the /proc figures above without the round starts' measured "
        f"CPU, over the {made:,} actions: gunicorn {app_ms:.2f} + PostgreSQL {db_ms:.2f} = "
        f"**{app_ms + db_ms:.2f} ms**.",
    ]


def _mean_cpu(values: list[tuple[int, ...]]) -> float:
    """Mean ms of CPU (gunicorn + PostgreSQL) per request measured in the workers."""
    return sum(app + db for app, db in values) / len(values) / 1e6 if values else float("nan")


def _split_cpu(values: list[tuple[int, ...]]) -> tuple[float, float]:
    """Mean ms per request of gunicorn's CPU and of PostgreSQL's, apart."""
    if not values:
        return float("nan"), float("nan")
    return (
        sum(app for app, _ in values) / len(values) / 1e6,
        sum(db for _, db in values) / len(values) / 1e6,
    )


def window_figures(window: dict[str, list[tuple[int, ...]]]) -> dict[str, Any]:
    """One repeat of (d): each party's CPU per request and the two ratios."""
    api = {
        k: window.get(f"{ACTION_REQUEST}|{k}", [])
        for k in ("bet", "remove_bet", "turn", "call_turn", "last_turn")
    }
    console = {k: window.get(f"{CONSOLE_REQUEST}{k}/|", []) for k in SHARED_KINDS}
    every_api = [m for values in api.values() for m in values]
    floor = window.get(f"POST /bench/{FLOOR_ROUTE}/{{id}}|", [])
    shared = [k for k in SHARED_KINDS if api[k] and console[k]]
    # The console's taps weighed by the API's mix of kinds, so the ratio compares like with like.
    api_at_mix = sum(len(api[k]) * _mean_cpu(api[k]) for k in shared)
    console_at_mix = sum(len(api[k]) * _mean_cpu(console[k]) for k in shared)
    weight = sum(len(api[k]) for k in shared)
    return {
        "api": (len(every_api), _mean_cpu(every_api)),
        "floor": (len(floor), _mean_cpu(floor)),
        "product_floor": _mean_cpu(every_api) / _mean_cpu(floor) if floor and every_api else float("nan"),
        "console": (
            sum(len(console[k]) for k in shared),
            console_at_mix / weight if weight else float("nan"),
        ),
        "api_shared": api_at_mix / weight if weight else float("nan"),
        "console_api": console_at_mix / api_at_mix if api_at_mix else float("nan"),
        "by_kind": {
            k: (len(api[k]), _mean_cpu(api[k]), len(console[k]), _mean_cpu(console[k])) for k in SHARED_KINDS
        },
        "split": {
            "API Faro action": _split_cpu(every_api),
            "the floor": _split_cpu(floor),
            "console tap": _split_cpu([m for k in shared for m in console[k]]),
        },
    }


def spread(values: list[float]) -> str:
    """The median and the range of a figure over (d)'s repeats."""
    values = [v for v in values if v == v]  # NaN where a repeat lacked the requests
    if not values:
        return "–"
    ordered = sorted(values)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return f"**{median:.2f}** ({ordered[0]:.2f}–{ordered[-1]:.2f})"


def interleaved_lines(interleaved: dict[str, Any]) -> list[str]:
    """(d)'s report: per repeat and over the repeats, the product against its floor and the
    console against the API."""
    figures = [window_figures(window) for window in interleaved["windows"]]
    lines = [
        "",
        f"## (d) Interleaved: the product, its floor and the console, {len(figures)} repeats of "
        f"{interleaved['seconds']:.0f} s",
        "",
        f"Each of the {TABLES} clients takes turns, one request each: a Faro action through the API "
        "(its own table, dealt as in (b)), the floor (the action's SQL in a DRF view, as in (c)), a "
        "tap at the console (its own Faro table, dealt as a browser does: session, CSRF, form "
        "token, htmx). Whatever the machine does meanwhile falls on the three alike, so the ratios "
        "hold where the CPU figures move. CPU per request (gunicorn + PostgreSQL) as measured in "
        "the workers. The console's taps are weighed by the API's mix of kinds "
        f"({', '.join(SHARED_KINDS)}).",
    ]
    rows = []
    for n, f in enumerate(figures, 1):
        rows.append(
            (
                str(n),
                f"{f['api'][1]:.2f} ({f['api'][0]:,})",
                f"{f['floor'][1]:.2f} ({f['floor'][0]:,})",
                f"{f['product_floor']:.2f}",
                f"{f['console'][1]:.2f} ({f['console'][0]:,})",
                f"{f['api_shared']:.2f}",
                f"{f['console_api']:.2f}",
            )
        )
    rows.append(
        (
            "median (min–max)",
            spread([f["api"][1] for f in figures]),
            spread([f["floor"][1] for f in figures]),
            spread([f["product_floor"] for f in figures]),
            spread([f["console"][1] for f in figures]),
            spread([f["api_shared"] for f in figures]),
            spread([f["console_api"] for f in figures]),
        )
    )
    lines += markdown_table(
        "CPU ms per request (requests):",
        (
            "repeat",
            "API Faro action",
            "floor",
            "product ÷ floor (target ≤ 1.3)",
            "console tap",
            "API action at the console's kinds",
            "console ÷ API (target ≤ 1.2)",
        ),
        rows,
    )
    lines += markdown_table(
        "By kind, medians over the repeats:",
        ("kind", "API requests", "API CPU ms", "console requests", "console CPU ms", "console ÷ API"),
        [
            (
                kind,
                f"{sum(f['by_kind'][kind][0] for f in figures):,}",
                spread([f["by_kind"][kind][1] for f in figures]),
                f"{sum(f['by_kind'][kind][2] for f in figures):,}",
                spread([f["by_kind"][kind][3] for f in figures]),
                spread([f["by_kind"][kind][3] / f["by_kind"][kind][1] for f in figures]),
            )
            for kind in SHARED_KINDS
        ],
    )
    lines += markdown_table(
        "Where the CPU goes, medians over the repeats (ms per request):",
        ("request", "gunicorn", "PostgreSQL"),
        [
            (
                what,
                spread([f["split"][what][0] for f in figures]),
                spread([f["split"][what][1] for f in figures]),
            )
            for what in figures[0]["split"]
        ]
        if figures
        else [],
    )
    lines += markdown_table(
        "Client latency over the whole phase (one request in flight per client):",
        ("Request", "count", "p50 ms", "p99 ms"),
        [
            (
                label,
                f"{len(values):,}",
                f"{percentile(values, 0.5) * 1000:.1f}",
                f"{percentile(values, 0.99) * 1000:.1f}",
            )
            for label, values in interleaved["latencies"].items()
        ],
    )
    checks, failures = interleaved["checks"], interleaved["failures"]
    accepted = interleaved["api_actions"] + interleaved["console_actions"]
    started = interleaved["api_rounds"] + interleaved["console_rounds"]
    lines += [
        "",
        f"- refused or failed requests: {sum(failures.values())}"
        + (f" ({', '.join(f'{k} x{n}' for k, n in failures.items())})" if failures else "")
        + (" → ok" if not failures else " → **CHECK**"),
        f"- (d)'s tables: RoundAction rows {checks['actions']:,} = accepted taps {accepted:,}, rounds "
        f"{checks['rounds']} = rounds started {started} → "
        + ("ok" if checks["actions"] == accepted and checks["rounds"] == started else "**MISMATCH**"),
        f"- replay: {checks['rounds'] - len(checks['replay_failures'])} of {checks['rounds']} rounds "
        "replay exactly → "
        + ("ok" if not checks["replay_failures"] else f"**FAILED** {checks['replay_failures'][:10]}"),
    ]
    return lines


def interleaved_healthy(interleaved: dict[str, Any]) -> bool:
    checks = interleaved["checks"]
    return (
        not interleaved["failures"]
        and checks["actions"] == interleaved["api_actions"] + interleaved["console_actions"]
        and checks["rounds"] == interleaved["api_rounds"] + interleaved["console_rounds"]
        and not checks["replay_failures"]
    )


def report(profile: Profile, env: str, engine: dict[str, Any], http: dict[str, Any]) -> str:
    lines = [f"# Rounds benchmark ({profile.name})", "", env, ""]
    lines += ["## (a) Faro engine, no database", ""]
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(engine["kinds"].items()))
    lines += [
        f"One scripted deal = {engine['actions']} actions ({kinds}), replayed from `start` again and again.",
        "",
    ]
    lines += [
        "| Engine work per action | actions per CPU-s | actions/s (wall) | full deal (CPU) | deals timed |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, r in engine["results"].items():
        lines.append(
            f"| `{label}` | {r['actions_per_cpu_s']:,.0f} | {r['actions_per_s']:,.0f} "
            f"| {r['deal_ms']:.2f} ms | {r['deals']:,} |"
        )
    lines += [
        "",
        "CPU time is the figure to compare across runs; wall time also counts whatever else the machine ran.",
    ]
    lines += ["", f"## (b) HTTP, Faro, {TABLES} tables at once", ""]
    lines += [
        f"gunicorn, {WORKERS} sync workers on 127.0.0.1, `{SETTINGS}` with DEBUG off; {TABLES} client "
        "threads, one per table, each dealing electronic-shoe rounds back to back (two bets a turn, a "
        f"removal every fourth turn, a called turn when allowed) for {http['elapsed']:.1f} s. Latency is "
        "the client's wall time per request (queueing for a worker included).",
        "",
        "| Request | count | per s | p50 ms | p99 ms |",
        "|---|---:|---:|---:|---:|",
    ]
    elapsed = http["elapsed"]
    order = ["bet", "remove_bet", "turn", "call_turn", "last_turn"]
    every = [v for k in order for v in http["latencies"].get(k, [])]
    rows = [(k, http["latencies"].get(k, [])) for k in order] + [("all actions", every)]
    rows.append(("start round (`POST /tables/{id}/rounds`)", http["latencies"].get("start round", [])))
    for label, values in rows:
        if not values:
            continue
        p50, p99 = percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000
        lines.append(f"| {label} | {len(values):,} | {len(values) / elapsed:,.1f} | {p50:.1f} | {p99:.1f} |")
    lines += markdown_table(
        "Early and late in a deal (the nth accepted action of its round; a deal is about 85):",
        ("Action of the deal", "count", "p50 ms", "p99 ms", "response bytes p50", "bytes max"),
        [position_row(n, seen) for n, seen in http["positions"].items() if seen],
    )
    requests_made = sum(len(v) for v in http["latencies"].values())
    if requests_made:
        app_ms, db_ms = http["app_cpu"] / requests_made * 1000, http["db_cpu"] / requests_made * 1000
        lines += [
            "",
            f"Server CPU per request (all {requests_made:,} requests): gunicorn workers {app_ms:.1f} ms, "
            f"PostgreSQL backends {db_ms:.1f} ms. These count only work done for this benchmark, so they "
            "hold on a busy machine where the latencies above do not.",
        ]
        lines += probed_lines(http)
        lines += calibration_table(http, requests_made)
    checks = http["checks"]
    lines += ["", "## Integrity after the run", ""]
    failures = http["failures"]
    lines.append(
        f"- refused or failed requests: {sum(failures.values())}"
        + (f" ({', '.join(f'{k} x{n}' for k, n in failures.items())})" if failures else "")
        + (" → ok" if not failures else " → **CHECK**")
    )
    same = checks["actions"] == http["ok_actions"]
    lines.append(
        f"- RoundAction rows {checks['actions']:,} = 200 responses {http['ok_actions']:,} → "
        + ("ok (no action lost or doubled)" if same else "**MISMATCH**")
    )
    rounds_ok = checks["rounds"] == http["ok_rounds"]
    lines.append(
        f"- rounds {checks['rounds']} = 201 responses {http['ok_rounds']} ({checks['settled']} settled, "
        "the rest cut off by the clock) → " + ("ok" if rounds_ok else "**MISMATCH**")
    )
    balanced = checks["total_debits"] == checks["total_credits"] and checks["balance_sum"] == 0
    lines.append(
        f"- trial balance: debits {checks['total_debits']:,} = credits {checks['total_credits']:,}, "
        f"sum of balances {checks['balance_sum']} → " + ("ok" if balanced else "**UNBALANCED**")
    )
    replays = checks["replay_failures"]
    lines.append(
        f"- replay: {checks['rounds'] - len(replays)} of {checks['rounds']} rounds replay exactly → "
        + ("ok" if not replays else f"**FAILED** {replays[:10]}")
    )
    lines += interleaved_lines(http["interleaved"])
    return "\n".join(lines) + "\n"


def healthy(http: dict[str, Any]) -> bool:
    checks = http["checks"]
    return (
        not http["failures"]
        and not any(measured["failures"] for measured in http["calibration"])
        and checks["actions"] == http["ok_actions"]
        and checks["rounds"] == http["ok_rounds"]
        and checks["total_debits"] == checks["total_credits"]
        and checks["balance_sum"] == 0
        and not checks["replay_failures"]
        and interleaved_healthy(http["interleaved"])
    )


def _out_of_time(signum: int, frame: Any) -> None:
    raise TimeoutError(f"the benchmark ran past its {BUDGET:.0f} s budget (plus the load time)")


def main(argv: list[str] | None = None) -> int:
    parser = bench_parser(
        __doc__,
        quick_help="10 s of HTTP load instead of 30 s",
        duration_help="seconds of HTTP load (overrides the profile)",
        database=DB_NAME,
        output=OUTPUT,
    )
    parser.add_argument(
        "--repeats", type=int, default=REPEATS, help=f"repeats of (d), the interleaved comparison ({REPEATS})"
    )
    parser.add_argument("--repeat-seconds", type=float, help="seconds of each of (d)'s repeats")
    args = parser.parse_args(argv)
    if answer_child(args, {"setup": child_setup, "verify": child_verify}):
        return 0
    profile = QUICK if args.quick else FULL
    duration = args.duration or profile.http_seconds
    signal.signal(signal.SIGALRM, _out_of_time)
    repeat_seconds = args.repeat_seconds or profile.repeat_seconds
    signal.alarm(int(duration + BUDGET + args.repeats * repeat_seconds))  # the whole run, cleanup included
    env = describe_machine()
    log(f"engine: {profile.engine_seconds:.1f} s per measurement")
    engine = bench_engine(profile.engine_seconds)
    log(f"HTTP: {TABLES} tables, {WORKERS} gunicorn workers, {duration:.0f} s")
    try:
        http = run_http(duration, profile.calibration_seconds, args.repeats, repeat_seconds)
    finally:
        if not args.keep_db:
            drop_database(DB_NAME)
    text = report(profile, env, engine, http)
    write_report(text, args.output)
    return 0 if healthy(http) else 1


if __name__ == "__main__":
    sys.exit(main())
