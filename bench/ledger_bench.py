"""Ledger benchmark: Casekeeper's post_transfer vs django-hordak vs a raw-SQL ceiling.

    bench/run-ledger [--quick]                  # sets up .bench-venv, then runs this
    .venv/bin/python -m bench.ledger_bench [--quick]

Not a test: it prints a markdown table (also written to build/bench/ledger.md). Everything runs
on the one PostgreSQL server of BENCH_SERVER_URL (default postgres://root@127.0.0.1:5432), in
three throwaway databases that this script creates and drops:

* ``casekeeper_bench``        Casekeeper's migrations; ``ledger.services.post_transfer``.
* ``casekeeper_bench_raw``    the same migrations (same tables, triggers and indexes); the same
                              two-leg transfer as hand-written SQL through psycopg 3 (the raw-SQL
                              ceiling), and as one PL/pgSQL call (a one-round-trip reference).
* ``casekeeper_bench_hordak`` django-hordak 2.0's migrations; ``Account.transfer_to`` run by
                              bench/hordak_project under ``.bench-venv/bin/python``.

Each throughput cell spawns N worker processes, each with its own connection. A worker sets up
its accounts, warms up, waits for the others at a barrier, then posts one-leg transfers (one
``Leg``, so one debit entry and one credit entry) back and forth for a fixed time.
transfers/s = measured transfers / wall time of the cell.

Balance reads: one account's history is bulk-loaded (generate_series) to 10k, 100k and 1M
entries in ``casekeeper_bench`` and ``ledger.selectors.get_balance`` is timed, with and without
``as_of``. See bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import platform
import random
import signal
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg

from bench.app_db import (
    ROOT,
    admin,
    app_env,
    create_database,
    db_url,
    drop_database,
    log,
    migrate,
    run_captured,
    server_version,
    setup_django,
)
from bench.harness import call_in_child, run_workers, summarize_latencies, write_report

BENCH_PYTHON = ROOT / ".bench-venv" / "bin" / "python"
OUTPUT = ROOT / "build" / "bench" / "ledger.md"
DB_CASEKEEPER = "casekeeper_bench"
DB_RAW = "casekeeper_bench_raw"
DB_HORDAK = "casekeeper_bench_hordak"

AMOUNT = 100  # cents per transfer
FUNDING = 10**12  # cents given to each worker's own account before it starts
SYSTEMS = ("casekeeper", "hordak", "raw", "sqlfn", "rows")
SYSTEM_LABELS = {
    "casekeeper": "Casekeeper",
    "hordak": "django-hordak",
    "raw": "raw SQL",
    "sqlfn": "minimal SQL function",
    "rows": "balance rows only",
}
TARGET_VS_HORDAK = 3.0
TARGET_VS_RAW = 0.40
TARGET_READ_MS = 1.0


@dataclass(frozen=True)
class Scenario:
    name: str
    label: str
    workers: int
    mode: str  # "disjoint": each worker has its own pair; "hot": every worker pairs with one house account


SCENARIOS = (
    Scenario("disjoint-1", "1 worker, disjoint accounts", 1, "disjoint"),
    Scenario("disjoint-4", "4 workers, disjoint accounts", 4, "disjoint"),
    Scenario("hot-4", "4 workers, one hot house account", 4, "hot"),
)


@dataclass(frozen=True)
class Profile:
    name: str
    duration: float  # seconds measured per throughput cell
    warmup: int  # transfers per worker before the barrier
    sizes: tuple[int, ...]  # history lengths for balance reads
    reads: int  # reads per latency figure ...
    read_budget: float  # ... unless this many seconds run out first
    profile_seconds: float  # cProfile / SQL-timing pass on Casekeeper
    rounds: int  # every throughput cell is measured this many times, interleaved; medians are reported
    budget: float  # hard limit for the whole run (seconds)


QUICK = Profile("quick", 2.0, 10, (10_000,), 200, 2.0, 2.0, 1, 300.0)
FULL = Profile("full", 8.0, 50, (10_000, 100_000, 1_000_000), 1000, 8.0, 6.0, 2, 1200.0)


def account_codes(scenario: str, mode: str, index: int) -> tuple[str, str]:
    """A worker's own (funded) account and its partner: its peer, or the shared house account."""
    own = f"b:{scenario}:w{index}"
    partner = f"b:{scenario}:house" if mode == "hot" else f"b:{scenario}:w{index}:peer"
    return own, partner


# --- Casekeeper (runs in spawned workers; Django is imported only there) ---------------------------


def casekeeper_worker(index: int, params: dict[str, Any]) -> Callable[[int], None]:
    """Factory for bench.harness: one-leg post_transfer calls between the worker's two accounts."""
    setup_django(app_env(params["db_url"]))
    from django.db import connection

    from ledger.models import AccountKind, AccountPurpose
    from ledger.services import Leg, open_account, post_transfer

    scenario, run = params["scenario"], params["run_id"]
    own, partner = account_codes(scenario, params["mode"], index)
    open_account(code=own, kind=AccountKind.LIABILITY, purpose=AccountPurpose.WALLET, holder=f"bench:{index}")
    if params["mode"] == "hot":
        open_account(code=partner, kind=AccountKind.ASSET, purpose=AccountPurpose.HOUSE_BANK)
    else:
        open_account(code=partner, kind=AccountKind.LIABILITY, purpose=AccountPurpose.WALLET)
    post_transfer(
        key=f"{run}:fund:{own}", kind="bench_fund", legs=[Leg(debit="cage", credit=own, amount=FUNDING)]
    )
    out, back = (
        [Leg(debit=own, credit=partner, amount=AMOUNT)],
        [Leg(debit=partner, credit=own, amount=AMOUNT)],
    )

    def op(i: int) -> None:
        # Out then back: the house gets each worker's chips before it pays them back, so no
        # account can go negative, whatever the interleaving.
        post_transfer(key=f"{run}:{scenario}:{index}:{i}", kind="bench", legs=out if i % 2 == 0 else back)

    op.backend_pid = connection.connection.info.backend_pid  # type: ignore[attr-defined]
    return op


# --- Raw SQL ceiling (psycopg 3, Casekeeper's tables, no ORM) ---------------------------------------

_LOCK = (
    "SELECT id, balance, held, must_not_go_negative FROM ledger_account "
    "WHERE id = ANY(%s) ORDER BY id FOR UPDATE"
)
_INSERT_TRANSFER = (
    "INSERT INTO ledger_transfer (key, kind, memo, created_at, gaming_day, meta, fingerprint) "
    "VALUES (%s, %s, '', %s, %s, '{}'::jsonb, %s) ON CONFLICT (key) DO NOTHING RETURNING id"
)
_INSERT_ENTRIES = (
    "INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, created_at) "
    "VALUES (%s, %s, 0, %s, %s, %s), (%s, %s, 0, %s, %s, %s)"
)
_UPDATE_ACCOUNTS = """
    UPDATE ledger_account AS a
       SET balance = a.balance + v.delta, debits_posted = a.debits_posted + v.debits,
           credits_posted = a.credits_posted + v.credits, version = a.version + 1
      FROM (VALUES (%s::bigint, %s::bigint, %s::bigint, %s::bigint),
                   (%s::bigint, %s::bigint, %s::bigint, %s::bigint)) AS v(id, delta, debits, credits)
     WHERE a.id = v.id
"""
_CASINO_ZONE = ZoneInfo("America/Los_Angeles")


def _raw_transfer(
    conn: psycopg.Connection, key: str, debit_id: int, credit_id: int, amount: int, kind: str = "bench"
) -> None:
    """BEGIN; lock both accounts in id order; check funds; insert transfer + 2 entries; update; COMMIT."""
    now = dt.datetime.now(dt.UTC)
    local = now.astimezone(_CASINO_ZONE)
    day = local.date() - dt.timedelta(days=1) if local.hour < 6 else local.date()
    fingerprint = hashlib.sha256(f"bench|{debit_id}|{credit_id}|{amount}".encode()).hexdigest()
    with conn.transaction(), conn.cursor() as cur:
        rows = {row[0]: row for row in cur.execute(_LOCK, ([debit_id, credit_id],)).fetchall()}
        _, balance, held, guarded = rows[debit_id]
        if guarded and balance - held < amount:
            raise RuntimeError(f"insufficient funds on account {debit_id}")
        inserted = cur.execute(_INSERT_TRANSFER, (key, kind, now, day, fingerprint)).fetchone()
        if inserted is None:  # idempotent replay of the same key
            return
        transfer_id = inserted[0]
        cur.execute(
            _INSERT_ENTRIES,
            (
                transfer_id, debit_id, -amount, rows[debit_id][1] - amount, now,
                transfer_id, credit_id, amount, rows[credit_id][1] + amount, now,
            ),
        )  # fmt: skip
        cur.execute(_UPDATE_ACCOUNTS, (debit_id, -amount, amount, 0, credit_id, amount, 0, amount))


def _raw_open_account(conn: psycopg.Connection, code: str, kind: str, purpose: str, guarded: bool) -> int:
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO ledger_account (code, name, kind, purpose, holder, must_not_go_negative, "
            "debits_posted, credits_posted, balance, held, version, created_at) "
            "VALUES (%s, %s, %s, %s, '', %s, 0, 0, 0, 0, 0, now()) ON CONFLICT (code) DO NOTHING",
            (code, code, kind, purpose, guarded),
        )
        row = cur.execute("SELECT id FROM ledger_account WHERE code = %s", (code,)).fetchone()
    assert row is not None
    return int(row[0])


def raw_worker(index: int, params: dict[str, Any]) -> Callable[[int], None]:
    """Factory for bench.harness: the same transfers as casekeeper_worker, as plain SQL."""
    conn = psycopg.connect(params["db_url"], autocommit=True)
    scenario, run = params["scenario"], params["run_id"]
    own, partner = account_codes(scenario, params["mode"], index)
    own_id = _raw_open_account(conn, own, "liability", "wallet", True)
    if params["mode"] == "hot":
        partner_id = _raw_open_account(conn, partner, "asset", "house_bank", True)
    else:
        partner_id = _raw_open_account(conn, partner, "liability", "wallet", True)
    cage = conn.execute("SELECT id FROM ledger_account WHERE code = 'cage'").fetchone()
    assert cage is not None
    _raw_transfer(conn, f"{run}:fund:{own}", cage[0], own_id, FUNDING, kind="bench_fund")

    if params.get("rows_only"):
        # Reference only: what keeping a stored balance per account costs with nothing else, no
        # transfer row, no entries, no checks. One UPDATE of both rows in autocommit; the index
        # scan takes the IN list in id order, so the row locks come in pk order, as in a transfer.
        conn.execute(
            "INSERT INTO bench_balance_rows (id, balance) VALUES (%s, %s), (%s, 0) "
            "ON CONFLICT (id) DO NOTHING",
            (own_id, FUNDING, partner_id),
        )
        move = (
            "UPDATE bench_balance_rows SET balance = balance + CASE WHEN id = %s THEN %s ELSE -%s END "
            "WHERE id IN (%s, %s)"
        )

        def op(i: int) -> None:
            debit, credit = (own_id, partner_id) if i % 2 == 0 else (partner_id, own_id)
            conn.execute(move, (credit, AMOUNT, AMOUNT, debit, credit), prepare=True)

    elif params.get("function"):
        # Reference only: the whole transfer in one call, one round trip in autocommit.
        call = "SELECT bench_post_transfer(%s, %s, %s, %s, %s)"

        def op(i: int) -> None:
            debit, credit = (own_id, partner_id) if i % 2 == 0 else (partner_id, own_id)
            fingerprint = hashlib.sha256(f"bench|{debit}|{credit}|{AMOUNT}".encode()).hexdigest()
            conn.execute(call, (f"{run}:{scenario}:{index}:{i}", debit, credit, AMOUNT, fingerprint))

    else:

        def op(i: int) -> None:
            debit, credit = (own_id, partner_id) if i % 2 == 0 else (partner_id, own_id)
            _raw_transfer(conn, f"{run}:{scenario}:{index}:{i}", debit, credit, AMOUNT)

    op.backend_pid = conn.info.backend_pid  # type: ignore[attr-defined]
    return op


# The same transfer as _raw_transfer, as a PL/pgSQL function created in the throwaway raw-SQL
# database only: one leg, accounts by id, no meta, holds or error detail. It is the floor for a
# one-round-trip design; Casekeeper's ledger_post_transfer (migration 0010) adds codes, legs, meta,
# holds, errors.
SQL_FUNCTION = r"""
CREATE FUNCTION bench_post_transfer(p_key text, p_debit bigint, p_credit bigint, p_amount bigint,
                                    p_fingerprint text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz := now();
    v_day date := ((now() AT TIME ZONE 'America/Los_Angeles') - interval '6 hours')::date;
    v_debit_balance bigint;
    v_credit_balance bigint;
    v_held bigint;
    v_guarded boolean;
    v_transfer bigint;
    r record;
BEGIN
    FOR r IN SELECT id, balance, held, must_not_go_negative FROM ledger_account
              WHERE id IN (p_debit, p_credit) ORDER BY id FOR UPDATE LOOP
        IF r.id = p_debit THEN
            v_debit_balance := r.balance; v_held := r.held; v_guarded := r.must_not_go_negative;
        ELSE
            v_credit_balance := r.balance;
        END IF;
    END LOOP;
    IF v_debit_balance IS NULL OR v_credit_balance IS NULL THEN
        RAISE EXCEPTION 'unknown account';
    END IF;
    IF v_guarded AND v_debit_balance - v_held < p_amount THEN
        RAISE EXCEPTION 'insufficient funds on account %', p_debit USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO ledger_transfer (key, kind, memo, created_at, gaming_day, meta, fingerprint)
    VALUES (p_key, 'bench', '', v_now, v_day, '{}'::jsonb, p_fingerprint)
    ON CONFLICT (key) DO NOTHING RETURNING id INTO v_transfer;
    IF v_transfer IS NULL THEN
        SELECT id INTO v_transfer FROM ledger_transfer WHERE key = p_key;
        RETURN v_transfer;
    END IF;
    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, created_at)
    VALUES (v_transfer, p_debit, 0, -p_amount, v_debit_balance - p_amount, v_now),
           (v_transfer, p_credit, 0, p_amount, v_credit_balance + p_amount, v_now);
    UPDATE ledger_account AS a
       SET balance = a.balance + v.delta, debits_posted = a.debits_posted + v.debits,
           credits_posted = a.credits_posted + v.credits, version = a.version + 1
      FROM (VALUES (p_debit, -p_amount, p_amount, 0::bigint),
                   (p_credit, p_amount, 0::bigint, p_amount)) AS v(id, delta, debits, credits)
     WHERE a.id = v.id;
    RETURN v_transfer;
END;
$$;
"""


# The balance-rows-only reference's table (throwaway raw-SQL database only): a stored balance
# per account and nothing else.
ROWS_TABLE = "CREATE TABLE bench_balance_rows (id bigint PRIMARY KEY, balance bigint NOT NULL)"


# --- Balance reads and profiling (spawned children with Django) -------------------------------------


def _timed_reads(call: Callable[[int], object], reads: int, budget: float) -> dict[str, Any]:
    for k in range(min(20, reads)):
        call(k)
    latencies: list[float] = []
    give_up = time.monotonic() + budget
    for k in range(reads):
        before = time.perf_counter()
        call(k)
        latencies.append(time.perf_counter() - before)
        if time.monotonic() > give_up and len(latencies) >= 20:
            break
    return {**summarize_latencies(latencies), "reads": len(latencies)}


def casekeeper_balance_reads(params: dict[str, Any]) -> dict[str, Any]:
    """Time get_balance(code) and get_balance(code, as_of) on the bulk-loaded account."""
    setup_django(app_env(params["db_url"]))
    from django.db import connection

    from ledger.selectors import get_balance
    from ledger.sql import BALANCE_AS_OF

    code, size = params["code"], params["size"]
    start = dt.datetime.fromisoformat(params["start"])
    rng = random.Random(size)
    offsets = [rng.randrange(1, size + 1) for _ in range(params["reads"] + 20)]
    moments = [start + dt.timedelta(seconds=offset) for offset in offsets]

    # Correctness first: entry g is at start + g seconds with balance_after g.
    assert get_balance(code=code) == size, get_balance(code=code)
    for offset, moment in list(zip(offsets, moments, strict=True))[:5]:
        assert get_balance(code=code, as_of=moment) == offset
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM ledger_account WHERE code = %s", [code])
        account_id = cursor.fetchone()[0]

    def stored_by_code(k: int) -> object:
        with connection.cursor() as cursor:
            cursor.execute("SELECT balance FROM ledger_account WHERE code = %s", [code])
            return cursor.fetchone()

    def by_id(k: int) -> object:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT balance_after FROM ledger_entry WHERE account_id = %s AND created_at <= %s "
                "ORDER BY created_at DESC, id DESC LIMIT 1",
                [account_id, moments[k]],
            )
            return cursor.fetchone()

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN ANALYZE " + BALANCE_AS_OF, [moments[0], code])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    reads, budget = params["reads"], params["budget"]
    return {
        "size": size,
        "current": _timed_reads(lambda k: get_balance(code=code), reads, budget),
        "current_sql": _timed_reads(stored_by_code, reads, budget),
        "as_of": _timed_reads(lambda k: get_balance(code=code, as_of=moments[k]), reads, budget),
        "as_of_by_id": _timed_reads(by_id, reads, budget),
        "as_of_plan": plan,
    }


def casekeeper_statements(params: dict[str, Any]) -> list[str]:
    """The SQL statements of one post_transfer call (after warm-up), as Django sends them."""
    setup_django(app_env(params["db_url"]))
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    op = casekeeper_worker(0, params)
    for i in range(4):
        op(i)
    with CaptureQueriesContext(connection) as captured:
        op(4)
    return [query["sql"] for query in captured.captured_queries]


RAW_STATEMENTS = [
    "BEGIN",
    _LOCK,
    _INSERT_TRANSFER,
    _INSERT_ENTRIES,
    " ".join(_UPDATE_ACCOUNTS.split()),
    "COMMIT",
]


def casekeeper_profile(params: dict[str, Any]) -> dict[str, Any]:
    """Where one worker's post_transfer time goes: SQL round trips, COMMIT, and Python CPU by callee."""
    import cProfile
    import io
    import pstats

    setup_django(app_env(params["db_url"]))
    from django.db import connection

    op = casekeeper_worker(0, params)
    for i in range(50):
        op(i)

    # Pass 1, no profiler: wall time per transfer split into the posting function's call, COMMIT
    # and the rest, plus the process's CPU time (what the Python side costs, whatever else the
    # machine runs). The call is timed around ledger.services._execute_post.
    from ledger import services

    sql_time = [0.0]
    commit_time = [0.0]
    original_execute = services._execute_post

    def timed_execute(sql: str, params_: Any) -> Any:
        before = time.perf_counter()
        try:
            return original_execute(sql, params_)
        finally:
            sql_time[0] += time.perf_counter() - before

    original_commit = connection._commit

    def timed_commit() -> Any:
        before = time.perf_counter()
        try:
            return original_commit()
        finally:
            commit_time[0] += time.perf_counter() - before

    connection._commit = timed_commit
    services._execute_post = timed_execute  # type: ignore[assignment]
    i, count = 100, 0
    try:
        started, cpu = time.perf_counter(), time.process_time()
        give_up = time.monotonic() + params["seconds"]
        while time.monotonic() < give_up:
            op(i)
            i, count = i + 1, count + 1
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        connection._commit = original_commit
        services._execute_post = original_execute  # type: ignore[assignment]

    # Pass 2: cProfile on CPU time (not wall time), so waits for the server do not count.
    profiler = cProfile.Profile(time.process_time)
    profiled = 0
    give_up = time.monotonic() + params["seconds"]
    profiler.enable()
    while time.monotonic() < give_up:
        op(i)
        i, profiled = i + 1, profiled + 1
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.calc_callees()
    root = next(
        func for func in stats.stats if func[2] == "post_transfer" and func[0].endswith("services.py")
    )
    root_cpu = stats.stats[root][3]  # cumulative
    callees = []
    for func, (_, calls, _, cumulative) in stats.all_callees[root].items():  # type: ignore[attr-defined]
        name = f"{Path(func[0]).name}:{func[1]}({func[2]})" if func[0] != "~" else func[2]
        callees.append((name, calls / profiled, cumulative / root_cpu))
    callees.sort(key=lambda item: -item[2])
    text = io.StringIO()
    full = pstats.Stats(profiler, stream=text)
    full.sort_stats("cumulative").print_stats(40)
    full.sort_stats("tottime").print_stats(25)
    return {
        "transfers": count,
        "per_transfer_ms": wall / count * 1000,
        "cpu_ms": cpu / count * 1000,
        "sql_ms": sql_time[0] / count * 1000,
        "commit_ms": commit_time[0] / count * 1000,
        "profiled_transfers": profiled,
        "callees": callees,
        "cprofile": text.getvalue(),
    }


# --- Orchestration (main process: psycopg only) ------------------------------------------------------


def migrate_casekeeper(name: str) -> None:
    migrate(app_env(db_url(name)), timeout=300)


def hordak(*args: str, timeout: float) -> dict[str, Any]:
    done = run_captured(
        [str(BENCH_PYTHON), "-m", "bench.hordak_project.run", *args],
        env={**os.environ, "HORDAK_BENCH_DB_URL": db_url(DB_HORDAK)},
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"hordak {args[0]} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_cell(system: str, scenario: Scenario, profile: Profile, run_id: str) -> dict[str, Any]:
    spec = {"scenario": scenario.name, "mode": scenario.mode, "workers": scenario.workers}
    if system == "hordak":
        payload = {**spec, "duration": profile.duration, "warmup": profile.warmup}
        return hordak("cell", json.dumps(payload), timeout=profile.duration + 240)
    if system == "casekeeper":
        factory, name = "bench.ledger_bench:casekeeper_worker", DB_CASEKEEPER
    else:
        factory, name = "bench.ledger_bench:raw_worker", DB_RAW
    if system == "sqlfn":  # same database as raw SQL: its own accounts and keys
        spec = {**spec, "scenario": f"fn-{scenario.name}", "function": True}
    if system == "rows":  # same database, its own accounts and its own table of balances
        spec = {**spec, "scenario": f"rows-{scenario.name}", "rows_only": True}
    return run_workers(
        factory,
        workers=scenario.workers,
        params={**spec, "db_url": db_url(name), "run_id": run_id},
        duration=profile.duration,
        warmup=profile.warmup,
    )


def verify_casekeeper_schema(name: str, expected: int) -> str:
    """Every bench transfer is there with two entries, entries net to zero, stored balances agree."""
    with psycopg.connect(db_url(name)) as conn:
        transfers, entries, net = conn.execute(
            "SELECT count(DISTINCT t.id), count(e.id), coalesce(sum(e.amount), 0) FROM ledger_transfer t "
            "JOIN ledger_entry e ON e.transfer_id = t.id WHERE t.kind = 'bench'"
        ).fetchone()
        drift = conn.execute(
            "SELECT count(*) FROM ledger_account a LEFT JOIN (SELECT account_id, sum(amount) AS s "
            "FROM ledger_entry GROUP BY account_id) e ON e.account_id = a.id "
            "WHERE a.balance <> coalesce(e.s, 0)"
        ).fetchone()[0]
        total = conn.execute("SELECT coalesce(sum(balance), 0) FROM ledger_account").fetchone()[0]
    problems = []
    if transfers != expected:
        problems.append(f"{transfers} bench transfers, expected {expected}")
    if entries != 2 * transfers or net != 0:
        problems.append(f"{entries} entries netting {net}")
    if drift or total != 0:
        problems.append(f"{drift} accounts whose stored balance differs from their entries; total {total}")
    return "ok" if not problems else "; ".join(problems)


def verify_hordak(expected: int) -> str:
    counts = hordak("count", timeout=120)
    problems = []
    if counts["transactions"] != expected:
        problems.append(f"{counts['transactions']} transactions, expected {expected}")
    if counts["legs"] != 2 * counts["transactions"] or float(counts["net"]) != 0:
        problems.append(f"{counts['legs']} legs netting {counts['net']}")
    return "ok" if not problems else "; ".join(problems)


HISTORY_CODE = "b:history"
HISTORY_SOURCE = "b:history:source"


def fill_history(loaded: int, target: int, start: dt.datetime) -> float:
    """Bulk-load transfers loaded+1..target: each +1 cent to HISTORY_CODE, dated start + g seconds.

    The deferred "transfer is balanced" constraint triggers fire once per row at commit, which
    is what makes a 1M-row INSERT slow; they are disabled in this throwaway database for the load
    only (each loaded transfer is balanced by construction) and re-enabled in ``finally``. The
    append-only triggers stay on: the load only inserts. Returns the seconds it took.
    """
    began = time.monotonic()
    with psycopg.connect(db_url(DB_CASEKEEPER), autocommit=True) as conn:
        history = _raw_open_account(conn, HISTORY_CODE, "liability", "wallet", True)
        source = _raw_open_account(conn, HISTORY_SOURCE, "asset", "suspense", False)
        conn.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_balanced")
        conn.execute("ALTER TABLE ledger_transfer DISABLE TRIGGER ledger_transfer_balanced")
        try:
            with conn.transaction():
                conn.execute(
                    """
                    CREATE TEMP TABLE loaded ON COMMIT DROP AS
                    WITH ins AS (
                        INSERT INTO ledger_transfer
                               (key, kind, memo, created_at, gaming_day, meta, fingerprint)
                        SELECT 'history:' || g, 'bench_history', '', %(start)s + g * interval '1 second',
                               (%(start)s + g * interval '1 second')::date, '{}'::jsonb, ''
                          FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS g
                        RETURNING id, key, created_at
                    )
                    SELECT id, created_at, split_part(key, ':', 2)::bigint AS g FROM ins
                    """,
                    {"start": start, "first": loaded + 1, "last": target},
                )
                conn.execute(
                    """
                    INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, created_at)
                    SELECT id, %(source)s, 0, -1, -g, created_at FROM loaded
                    UNION ALL
                    SELECT id, %(history)s, 0, 1, g, created_at FROM loaded
                    """,
                    {"source": source, "history": history},
                )
                added = target - loaded
                conn.execute(
                    "UPDATE ledger_account SET balance = balance + %(d)s, "
                    "credits_posted = credits_posted + %(d)s "
                    "WHERE id = %(id)s",
                    {"d": added, "id": history},
                )
                conn.execute(
                    "UPDATE ledger_account SET balance = balance - %(d)s, "
                    "debits_posted = debits_posted + %(d)s "
                    "WHERE id = %(id)s",
                    {"d": added, "id": source},
                )
        finally:
            conn.execute("ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_balanced")
            conn.execute("ALTER TABLE ledger_transfer ENABLE TRIGGER ledger_transfer_balanced")
        conn.execute("VACUUM ANALYZE ledger_entry")
        conn.execute("VACUUM ANALYZE ledger_transfer")
    return time.monotonic() - began


# --- Report ------------------------------------------------------------------------------------------


def fmt(value: float, digits: int = 0) -> str:
    return "n/a" if math.isnan(value) else f"{value:,.{digits}f}"


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**MISSED**"


def render(report: dict[str, Any]) -> str:
    profile: Profile = report["profile"]
    cells: dict[tuple[str, str], dict[str, Any]] = report["cells"]
    systems = report["systems"]
    loads = [load for cell in cells.values() for load in cell["loads"]]
    lines = [
        f"# Ledger benchmark ({profile.name})",
        "",
        f"{report['when']} · {report['host']} · {report['postgres']} · "
        f"{profile.duration:g}s per cell after {profile.warmup} warm-up transfers per worker · "
        f"{profile.rounds} round(s), medians shown · "
        f"one-leg transfers of {AMOUNT} cents; workers are processes with their own connections.",
        "",
        f"1-minute load average while measuring: {min(loads):.1f} to {max(loads):.1f} "
        f"on {os.cpu_count()} CPUs"
        + (
            " — **the machine was busy with other work, so absolute numbers are low and noisy; "
            "compare the systems within this run, not across runs**."
            if max(loads) > (os.cpu_count() or 1)
            else "."
        ),
        "",
        "## Throughput (transfers/s)",
        "",
        "| Scenario | "
        + " | ".join(SYSTEM_LABELS[s] for s in systems)
        + " | Casekeeper / hordak | Casekeeper / raw |",
        "|---|" + "---:|" * (len(systems) + 2),
    ]
    for scenario in SCENARIOS:
        row = [scenario.label]
        for system in systems:
            row.append(fmt(cells[(system, scenario.name)]["tps"]))
        ck = cells[("casekeeper", scenario.name)]["tps"]
        hordak_ratio = ck / cells[("hordak", scenario.name)]["tps"] if "hordak" in systems else float("nan")
        raw_ratio = ck / cells[("raw", scenario.name)]["tps"]
        row += [
            "n/a" if math.isnan(hordak_ratio) else f"{fmt(hordak_ratio, 2)}x",
            f"{fmt(raw_ratio * 100)}%",
        ]
        lines.append("| " + " | ".join(row) + " |")

    def per_system(title: str, shown: Callable[[dict[str, Any]], str]) -> list[str]:
        """A table of one figure per scenario (rows) and system (columns), under its title."""
        rows = ["", title, "", "| Scenario | " + " | ".join(SYSTEM_LABELS[s] for s in systems) + " |"]
        rows.append("|---|" + "---:|" * len(systems))
        for scenario in SCENARIOS:
            row = [scenario.label, *(shown(cells[(system, scenario.name)]) for system in systems)]
            rows.append("| " + " | ".join(row) + " |")
        return rows

    lines += per_system(
        "Latency per transfer, p50 / p99 ms (as seen by the worker, lock waits included):",
        lambda cell: f"{fmt(cell['p50_ms'], 2)} / {fmt(cell['p99_ms'], 2)}",
    )
    lines += per_system(
        "CPU per transfer, ms: worker process (client) + its PostgreSQL backend (server). CPU time "
        "is much less disturbed by other load than wall time; with 2 cores, ~2000 / (client + server) "
        "bounds transfers/s before any fsync or lock wait:",
        lambda cell: f"{fmt(cell['client_cpu_ms'], 2)} + {fmt(cell['server_cpu_ms'], 2)}",
    )
    if profile.rounds > 1:
        lines += per_system(
            "Transfers/s of each round (load average in brackets):",
            lambda cell: ", ".join(
                f"{tps:.0f} ({load:.1f})" for tps, load in zip(cell["rounds"], cell["loads"], strict=True)
            ),
        )
    statements = report.get("statements", {})
    if statements:
        lines += [
            "",
            "SQL round trips per transfer (BEGIN and COMMIT included; a lone statement in autocommit "
            "is its own transaction): "
            + ", ".join(f"{SYSTEM_LABELS[s]} {len(statements[s])}" for s in systems if s in statements)
            + ". django-hordak takes no row locks and keeps no stored balance (it sums legs on read), "
            "so it does less work per transfer than Casekeeper and the raw-SQL ceiling, and never waits "
            "on a hot account. On the hot account every other system queues on one row lock that is "
            "held until its COMMIT's WAL flush.",
        ]

    reads = report["reads"]
    lines += [
        "",
        "## Balance reads on one account (ms, p50 / p99)",
        "",
        "| Entries on the account | `get_balance(code=…)` | reference: `SELECT balance … WHERE code` "
        "| `get_balance(code=…, as_of=…)` | reference: same as_of lookup by account id "
        "| reads per column | load time |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for item in reads:
        counts = " / ".join(
            str(item[key]["reads"]) for key in ("current", "current_sql", "as_of", "as_of_by_id")
        )
        lines.append(
            f"| {item['size']:,} | {fmt(item['current']['p50_ms'], 3)} / {fmt(item['current']['p99_ms'], 3)} "
            f"| {fmt(item['current_sql']['p50_ms'], 3)} / {fmt(item['current_sql']['p99_ms'], 3)} "
            f"| {fmt(item['as_of']['p50_ms'], 3)} / {fmt(item['as_of']['p99_ms'], 3)} "
            f"| {fmt(item['as_of_by_id']['p50_ms'], 3)} / {fmt(item['as_of_by_id']['p99_ms'], 3)} "
            f"| {counts} "
            f"| {item['load_seconds']:.1f}s |"
        )

    lines += ["", "## Targets", ""]
    worst_hordak = float("nan")
    if "hordak" in systems:
        worst_hordak = min(
            cells[("casekeeper", s.name)]["tps"] / cells[("hordak", s.name)]["tps"] for s in SCENARIOS
        )
    worst_raw = min(cells[("casekeeper", s.name)]["tps"] / cells[("raw", s.name)]["tps"] for s in SCENARIOS)
    lines.append(
        f"- ≥ {TARGET_VS_HORDAK:g}x django-hordak in every scenario: worst {fmt(worst_hordak, 2)}x → "
        + (verdict(worst_hordak >= TARGET_VS_HORDAK) if not math.isnan(worst_hordak) else "not measured")
    )
    lines.append(
        f"- ≥ {TARGET_VS_RAW:.0%} of the raw-SQL ceiling in every scenario: worst {worst_raw:.0%} → "
        + verdict(worst_raw >= TARGET_VS_RAW)
    )
    if "hordak" in systems:
        for system in ("raw", "sqlfn", "rows"):
            if system in systems:
                ratios = ", ".join(
                    f"{cells[(system, s.name)]['tps'] / cells[('hordak', s.name)]['tps']:.2f}x"
                    for s in SCENARIOS
                )
                lines.append(f"- for scale, {SYSTEM_LABELS[system]} / django-hordak per scenario: {ratios}")
    if reads:
        largest = reads[-1]
        current, as_of = largest["current"], largest["as_of"]
        lines.append(
            f"- balance read under {TARGET_READ_MS:g} ms at {largest['size']:,} entries, judged on p99: "
            f"`get_balance(code)` p50 {fmt(current['p50_ms'], 3)} / p99 {fmt(current['p99_ms'], 3)} ms → "
            f"{verdict(current['p99_ms'] < TARGET_READ_MS)}; "
            f"`get_balance(code, as_of)` p50 {fmt(as_of['p50_ms'], 3)} / p99 {fmt(as_of['p99_ms'], 3)} ms → "
            f"{verdict(as_of['p99_ms'] < TARGET_READ_MS)}"
        )
        if largest["size"] < 1_000_000:
            lines.append("  (this run stopped below 1M entries; the default run goes to 1M)")

    lines += ["", "## Integrity checks after the run", ""]
    lines += [f"- {name}: {outcome}" for name, outcome in report["checks"].items()]

    if "casekeeper" in statements:
        lines += ["", "## What one Casekeeper post_transfer sends", ""]
        lines += [
            f"{n}. `{' '.join(sql.split())[:150]}`" for n, sql in enumerate(statements["casekeeper"], 1)
        ]
    if report.get("profile_result"):
        result = report["profile_result"]
        rest_ms = result["per_transfer_ms"] - result["sql_ms"] - result["commit_ms"]
        lines += [
            "",
            "## Where one Casekeeper worker's time goes",
            "",
            f"One worker, {result['transfers']} transfers without a profiler: "
            f"{result['per_transfer_ms']:.2f} ms wall each = {result['sql_ms']:.2f} ms in the posting "
            f"function's call (the round trip, its own COMMIT in autocommit) + {result['commit_ms']:.2f} ms "
            "in Django COMMITs "
            f"+ {rest_ms:.2f} ms elsewhere in Python. The process used {result['cpu_ms']:.2f} ms of CPU "
            "per transfer.",
            "",
            f"Share of post_transfer's client CPU by callee (cProfile on CPU time, "
            f"{result['profiled_transfers']} transfers; ms scaled to the unprofiled CPU time):",
            "",
            "| callee of post_transfer | calls per transfer | share of CPU | ≈ ms CPU |",
            "|---|---:|---:|---:|",
        ]
        lines += [
            f"| `{name}` | {calls:g} | {share:.0%} | {share * result['cpu_ms']:.2f} |"
            for name, calls, share in result["callees"][:12]
        ]
        lines += ["", "Full listing: build/bench/casekeeper-profile.txt."]

    if reads:
        lines += [
            "",
            f"<details><summary>Plan of get_balance(as_of) at {reads[-1]['size']:,} entries</summary>",
            "",
            "```",
            reads[-1]["as_of_plan"],
            "```",
            "</details>",
        ]
    lines += ["", f"Total run time: {report['elapsed']:.0f}s.", ""]
    return "\n".join(lines)


def _alarm(signum: int, frame: object) -> None:
    raise TimeoutError("the benchmark ran past its time budget")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small counts, about a minute")
    parser.add_argument("--duration", type=float, help="seconds per throughput cell (overrides the profile)")
    parser.add_argument("--sizes", help="comma-separated history sizes for balance reads, e.g. 10000,100000")
    parser.add_argument("--skip-hordak", action="store_true", help="run without the django-hordak column")
    parser.add_argument(
        "--skip-sqlfn", action="store_true", help="run without the minimal SQL function reference"
    )
    parser.add_argument(
        "--skip-rows", action="store_true", help="run without the balance-rows-only reference"
    )
    parser.add_argument(
        "--profile",
        choices=("auto", "always", "never"),
        default="auto",
        help="profile Casekeeper's post_transfer (auto: only when a throughput target is missed)",
    )
    parser.add_argument("--keep-dbs", action="store_true", help="leave the bench databases for inspection")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)

    profile = QUICK if args.quick else FULL
    if args.duration:
        profile = Profile(**{**profile.__dict__, "duration": args.duration})
    if args.sizes:
        profile = Profile(**{**profile.__dict__, "sizes": tuple(int(s) for s in args.sizes.split(","))})
    skipped = {"hordak"} if args.skip_hordak else set()
    skipped |= {"sqlfn"} if args.skip_sqlfn else set()
    skipped |= {"rows"} if args.skip_rows else set()
    systems = tuple(s for s in SYSTEMS if s not in skipped)
    if "hordak" in systems and not BENCH_PYTHON.exists():
        parser.error(f"{BENCH_PYTHON} is missing: run bench/run-ledger (it creates it) or pass --skip-hordak")

    began = time.monotonic()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(profile.budget + profile.duration * 9))
    run_id = f"r{int(time.time())}"
    databases = [DB_CASEKEEPER, DB_RAW] + ([DB_HORDAK] if "hordak" in systems else [])
    report: dict[str, Any] = {"profile": profile, "systems": systems, "cells": {}, "reads": [], "checks": {}}
    try:
        report["postgres"] = f"PostgreSQL {server_version()}"
        report["host"] = f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
        report["when"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        for name in databases:
            create_database(name)
        log("migrating casekeeper_bench and casekeeper_bench_raw")
        migrate_casekeeper(DB_CASEKEEPER)
        migrate_casekeeper(DB_RAW)
        if "sqlfn" in systems:
            admin(SQL_FUNCTION, database=DB_RAW)
        if "rows" in systems:
            admin(ROWS_TABLE, database=DB_RAW)
        if "hordak" in systems:
            log("migrating casekeeper_bench_hordak (django-hordak, .bench-venv)")
            hordak("migrate", timeout=300)

        ops = {system: 0 for system in systems}
        measured: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for round_number in range(1, profile.rounds + 1):
            for scenario in SCENARIOS:
                for system in systems:
                    log(f"round {round_number}/{profile.rounds}, {scenario.label}: {SYSTEM_LABELS[system]}")
                    load = os.getloadavg()[0]
                    cell = run_cell(system, scenario, profile, f"{run_id}r{round_number}")
                    cell["load"] = max(load, os.getloadavg()[0])
                    measured.setdefault((system, scenario.name), []).append(cell)
                    ops[system] += cell["total_ops"]
                    log(
                        f"  {cell['tps']:.0f} transfers/s "
                        f"(p50 {cell['p50_ms']:.2f} ms, p99 {cell['p99_ms']:.2f} ms, load {cell['load']:.1f})"
                    )
        for key, rounds in measured.items():
            report["cells"][key] = {
                "tps": statistics.median(cell["tps"] for cell in rounds),
                "p50_ms": statistics.median(cell["p50_ms"] for cell in rounds),
                "p99_ms": statistics.median(cell["p99_ms"] for cell in rounds),
                "client_cpu_ms": statistics.median(cell["client_cpu_ms"] for cell in rounds),
                "server_cpu_ms": statistics.median(cell["server_cpu_ms"] for cell in rounds),
                "rounds": [cell["tps"] for cell in rounds],
                "loads": [cell["load"] for cell in rounds],
            }

        report["checks"]["Casekeeper"] = verify_casekeeper_schema(DB_CASEKEEPER, ops["casekeeper"])
        report["checks"]["raw SQL (and SQL function)"] = verify_casekeeper_schema(
            DB_RAW, ops["raw"] + ops.get("sqlfn", 0)
        )
        if "hordak" in systems:
            report["checks"]["django-hordak"] = verify_hordak(ops["hordak"])

        report["statements"] = {
            "casekeeper": call_in_child(
                "bench.ledger_bench:casekeeper_statements",
                {
                    "db_url": db_url(DB_CASEKEEPER),
                    "scenario": "statements",
                    "mode": "disjoint",
                    "run_id": run_id,
                },
                timeout=120,
            ),
            "raw": RAW_STATEMENTS,
            "sqlfn": ["SELECT bench_post_transfer(%s, %s, %s, %s, %s)"],
            "rows": ["UPDATE bench_balance_rows SET balance = balance + CASE … END WHERE id IN (%s, %s)"],
        }
        if "hordak" in systems:
            report["statements"]["hordak"] = hordak("statements", timeout=120)["statements"]
        ratios_ok = all(
            report["cells"][("casekeeper", s.name)]["tps"]
            >= TARGET_VS_RAW * report["cells"][("raw", s.name)]["tps"]
            and (
                "hordak" not in systems
                or report["cells"][("casekeeper", s.name)]["tps"]
                >= TARGET_VS_HORDAK * report["cells"][("hordak", s.name)]["tps"]
            )
            for s in SCENARIOS
        )
        if args.profile == "always" or (args.profile == "auto" and not ratios_ok):
            log("profiling one Casekeeper worker")
            result = call_in_child(
                "bench.ledger_bench:casekeeper_profile",
                {
                    "db_url": db_url(DB_CASEKEEPER),
                    "scenario": "profile",
                    "mode": "disjoint",
                    "run_id": run_id,
                    "seconds": profile.profile_seconds,
                },
                timeout=profile.profile_seconds * 2 + 120,
            )
            report["profile_result"] = result
            args.output.parent.mkdir(parents=True, exist_ok=True)
            (args.output.parent / "casekeeper-profile.txt").write_text(result["cprofile"])

        start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
        loaded = 0
        for size in profile.sizes:
            log(f"loading the history account to {size:,} entries")
            seconds = fill_history(loaded, size, start)
            loaded = size
            log(f"  loaded in {seconds:.1f}s; timing balance reads")
            result = call_in_child(
                "bench.ledger_bench:casekeeper_balance_reads",
                {
                    "db_url": db_url(DB_CASEKEEPER),
                    "code": HISTORY_CODE,
                    "size": size,
                    "start": start.isoformat(),
                    "reads": profile.reads,
                    "budget": profile.read_budget,
                },
                timeout=profile.read_budget * 3 + 120,
            )
            result["load_seconds"] = seconds
            report["reads"].append(result)
            log(
                f"  get_balance p99 {result['current']['p99_ms']:.3f} ms; "
                f"as_of p99 {result['as_of']['p99_ms']:.3f} ms"
            )

    finally:
        signal.alarm(0)
        if not args.keep_dbs:
            for name in databases:
                try:
                    drop_database(name)
                except psycopg.Error as error:
                    log(f"could not drop {name}: {error}")

    report["elapsed"] = time.monotonic() - began
    text = render(report)
    write_report(text, args.output)
    log(f"written to {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
