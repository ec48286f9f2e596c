"""Ratings benchmark: rating refresh for a 200-table Faro night, and the three ratings endpoints.

    bench/run-ratings [--tables 200] [--rounds 3] [--workers 2] [--quick] [--keep-db]
    .venv/bin/python -m bench.ratings_bench [...]

Not a test. It builds one gaming night in a throwaway database (``casekeeper_bench_ratings`` on
``BENCH_SERVER_URL``'s server, created, migrated and dropped here) through the real services:
players created and bought in at the cage, tables created, assigned and opened, five punters
seated at each, and every Faro round dealt from an electronic shoe by ``tables.rounds``
(``start_round`` / ``apply_round_action``) with real bets, splits, calls and settlements in the
ledger. Between rounds one punter at each table gets up and another sits down, and the tables
close at the end, so sittings start and end. Then it times:

(a) ``manage.py rebuild_ratings`` over every settled round;
(b) ``tables.ratings.services.rate_round`` round by round (what the Celery task runs once per
    settled round), p50 / p99 / max and its queries;
(c) the three endpoints through Django's test client with a token (``GET
    /api/v1/players/{id}/ratings``, ``/tables/{id}/hourly``, ``/dealers/{id}/performance``),
    and the pit view's polled partial (``/pit/live/``), which draws every table's chart.

Rounds are not rated while the night is built: the on-commit task goes to an in-memory broker
(``CELERY_BROKER_URL=memory://``) that nothing consumes, so (a) starts from no ratings at all.
The bench's players use Django's MD5 password hasher (set in this process only), so creating
a thousand of them does not spend minutes in PBKDF2. The report is printed and written to
``build/bench/ratings.md``.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing as mp
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from bench.app_db import (
    ROOT,
    drop_database,
    fresh_database,
    funded_player,
    in_process_env,
    log,
    open_faro_table,
    setup_django,
    staff,
)
from bench.harness import percentile, write_report

OUTPUT = ROOT / "build" / "bench" / "ratings.md"
BENCH_DB = "casekeeper_bench_ratings"
ENV = in_process_env(BENCH_DB, label="ratings")
PLAYERS_PER_TABLE = 5
OPENING = 2_000_000
BUY_IN = 300_000
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
PLACEMENTS: tuple[tuple[str, ...], ...] = (
    *((r,) for r in RANKS),
    ("K", "A"),
    ("Q", "10"),
    ("10", "3"),
    ("10", "4", "9"),
    ("9", "8", "5", "6"),
)


# --------------------------------------------------------------------------- building the night


def _bet(rng: random.Random, state: dict[str, Any], player: int) -> dict[str, Any] | None:
    """A legal bet now: a live placement (or even/odd/high), a chip multiple within the limits."""
    left = {rank: int(row["left"]) for rank, row in state["casekeeper"].items()}
    amount = rng.choice((500, 500, 1_000, 1_000, 2_000, 2_500, 5_000))
    if rng.random() < 0.15:
        return {
            "type": "bet",
            "player": player,
            "target": rng.choice(("even", "odd", "high")),
            "amount": amount,
        }
    live = [p for p in PLACEMENTS if all(left[r] for r in p)]
    if not live:
        return None
    return {"type": "bet", "player": player, "ranks": list(rng.choice(live)), "amount": amount}


def _call(rng: random.Random, state: dict[str, Any], player: int) -> dict[str, Any] | None:
    cards = [rank for rank, row in state["casekeeper"].items() for _ in range(int(row["left"]))]
    if len(cards) != 3 or len(set(cards)) == 1:
        return None
    rng.shuffle(cards)
    return {"type": "call_turn", "player": player, "order": cards, "amount": rng.choice((500, 1_000))}


def build_tables(job: tuple[int, list[int], int, int]) -> dict[str, int]:
    """One worker's share of the night: its tables, their punters and every round, via the services."""
    seed, indexes, rounds, players_per_table = job
    setup_django(ENV, in_process=True)
    from django.db import connection

    from casino.models import Role
    from ledger.errors import LedgerError
    from tables import services
    from tables.games.errors import IllegalAction
    from tables.models import Seat
    from tables.rounds import apply_round_action, start_round

    boss, cashier = staff("bench-pit", Role.PIT_BOSS), staff("bench-cashier", Role.CASHIER)
    made = {"rounds": 0, "actions": 0, "refused": 0, "players": 0, "sittings": 0}
    for index in indexes:
        rng = random.Random(seed * 100_003 + index)
        table, dealer = open_faro_table(index, boss=boss, opening=OPENING)
        punters = [
            funded_player(
                cashier,
                username=f"bench-{index}-{n}",
                name=f"Guest {index}-{n}",
                amount=BUY_IN,
            )
            for n in range(players_per_table + rounds)
        ]
        made["players"] += len(punters)
        waiting = punters[players_per_table:]
        for seat, player in enumerate(punters[:players_per_table], start=1):
            services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=seat)
            made["sittings"] += 1
        for number in range(rounds):
            seated = list(
                Seat.objects.filter(table=table, left_at__isnull=True).values_list("player_id", flat=True)
            )
            round_ = start_round(
                actor=dealer, table_id=table.pk, shoe="electronic", seed=f"{seed:08x}{index:08x}{number:048x}"
            )
            made["rounds"] += 1
            # Each punter bets before two or three of the turns, the same bets a simulation would.
            plan = {pid: set(rng.sample(range(25), rng.choice((2, 2, 3)))) for pid in seated}
            state = round_.state
            while round_.status in ("betting", "in_play"):
                turn = int(state["turn"])
                kind = state["next_action"]
                for pid in seated:
                    action = _bet(rng, state, pid) if turn in plan[pid] else None
                    if kind == "last_turn" and state.get("can_call_turn") and rng.random() < 0.2:
                        action = _call(rng, state, pid)
                    if action is None:
                        continue
                    try:
                        round_ = apply_round_action(actor=dealer, round_id=round_.pk, action=action)
                        state = round_.state
                        made["actions"] += 1
                    except (IllegalAction, LedgerError) as refused:
                        made["refused"] += 1
                        log(f"refused at table {index}: {refused}")
                round_ = apply_round_action(actor=dealer, round_id=round_.pk, action={"type": kind})
                state = round_.state
                made["actions"] += 1
            if number < rounds - 1:  # one punter gets up (no chips left on the layout), another sits
                leaving = rng.choice(seated)
                seat_number = Seat.objects.get(table=table, player_id=leaving, left_at__isnull=True).number
                services.unseat_player(actor=dealer, table_id=table.pk, player_id=leaving)
                services.seat_player(
                    actor=dealer, table_id=table.pk, player_id=waiting.pop(0).pk, seat=seat_number
                )
                made["sittings"] += 1
        table.tray.refresh_from_db()
        services.close_table(actor=dealer, table_id=table.pk, closing_inventory=table.tray.balance)
    connection.close()
    return made


def build_night(*, tables: int, rounds: int, workers: int, seed: int) -> dict[str, Any]:
    setup_django(ENV, in_process=True)
    from casino.models import Role
    from ledger.services import ensure_system_accounts

    ensure_system_accounts()
    staff("bench-pit", Role.PIT_BOSS)  # here, before the workers look them up
    staff("bench-cashier", Role.CASHIER)
    chunks = [list(range(1 + w, tables + 1, workers)) for w in range(workers)]
    jobs = [(seed, chunk, rounds, PLAYERS_PER_TABLE) for chunk in chunks if chunk]
    started = time.perf_counter()
    if workers == 1:
        results = [build_tables(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(len(jobs)) as pool:
            results = pool.map(build_tables, jobs)
    totals: dict[str, Any] = {key: sum(r[key] for r in results) for key in results[0]}
    totals["seconds"] = time.perf_counter() - started
    totals["tables"] = tables
    return totals


# --------------------------------------------------------------------------- measuring


def latency(seconds: list[float]) -> dict[str, float]:
    return {
        "n": len(seconds),
        "p50": percentile(seconds, 0.5) * 1000,
        "p99": percentile(seconds, 0.99) * 1000,
        "max": max(seconds) * 1000,
        "mean": statistics.fmean(seconds) * 1000,
    }


def measure(*, endpoint_samples: int, pit_samples: int) -> dict[str, Any]:
    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from casino.models import Player, Role, User
    from casino.services import issue_token
    from ledger.gaming_day import gaming_day_for
    from tables.models import Round, RoundStatus, Seat, Table
    from tables.ratings.models import RoundPlayerStat, RoundStat
    from tables.ratings.services import rate_round

    out: dict[str, Any] = {}
    settled = list(
        Round.objects.filter(status=RoundStatus.SETTLED).order_by("pk").values_list("pk", flat=True)
    )
    out["rounds"] = len(settled)

    log(f"(a) rebuild_ratings over {len(settled)} rounds")
    started = time.perf_counter()
    call_command("rebuild_ratings", stdout=io.StringIO())
    out["rebuild_seconds"] = time.perf_counter() - started
    out["round_stats"] = RoundStat.objects.count()
    out["player_stats"] = RoundPlayerStat.objects.count()
    assert out["round_stats"] == len(settled)

    log("(b) rate_round, round by round")
    times = []
    with CaptureQueriesContext(connection) as queries:
        for round_id in settled:
            before = time.perf_counter()
            rate_round(round_id=round_id)
            times.append(time.perf_counter() - before)
    out["rate_round"] = latency(times)
    out["rate_round_queries"] = len(queries) / len(settled)
    reset_queries()

    log("(c) the endpoints")
    boss = User.objects.filter(role=Role.PIT_BOSS).first() or staff("bench-pit", Role.PIT_BOSS)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user=boss)}")
    day = gaming_day_for().isoformat()
    rng = random.Random(7)
    players = list(Player.objects.filter(seatings__isnull=False).distinct().values_list("pk", flat=True))
    tables = list(Table.objects.values_list("pk", flat=True))
    dealers = list(User.objects.filter(role=Role.DEALER).values_list("pk", flat=True))
    cases = {
        "GET /api/v1/players/{id}/ratings": [f"/api/v1/players/{p}/ratings" for p in players],
        "GET /api/v1/tables/{id}/hourly": [f"/api/v1/tables/{t}/hourly?date={day}" for t in tables],
        "GET /api/v1/dealers/{id}/performance": [
            f"/api/v1/dealers/{d}/performance?date={day}" for d in dealers
        ],
    }
    endpoints = {}
    for name, paths in cases.items():
        chosen = [rng.choice(paths) for _ in range(endpoint_samples)]
        for path in chosen[:5]:  # warm-up
            assert client.get(path).status_code == 200
        seconds, counts = [], []
        for path in chosen:
            with CaptureQueriesContext(connection) as queries:
                before = time.perf_counter()
                response = client.get(path)
                seconds.append(time.perf_counter() - before)
            assert response.status_code == 200, (path, response.content[:200])
            counts.append(len(queries))
        endpoints[name] = {**latency(seconds), "queries": sorted(set(counts))}
    from django.test import Client

    pit = Client()
    pit.force_login(boss)
    assert pit.get("/pit/live/").status_code == 200
    seconds, counts = [], []
    for _ in range(pit_samples):
        with CaptureQueriesContext(connection) as queries:
            before = time.perf_counter()
            page = pit.get("/pit/live/", HTTP_HX_REQUEST="true")
            seconds.append(time.perf_counter() - before)
        assert page.status_code == 200
        counts.append(len(queries))
    endpoints[f"GET /pit/live/ ({len(tables)} tables, every chart)"] = {
        **latency(seconds),
        "queries": sorted(set(counts)),
    }
    out["endpoints"] = endpoints
    out["sittings"] = Seat.objects.count()
    out["players"] = len(players)
    out["day"] = day
    return out


# --------------------------------------------------------------------------- the report


def render(night: dict[str, Any], numbers: dict[str, Any], *, workers: int) -> str:
    rr = numbers["rate_round"]
    rounds = numbers["rounds"]
    per_table = rounds // max(night["tables"], 1)
    rebuild = numbers["rebuild_seconds"]
    lines = [
        "# Ratings benchmark",
        "",
        f"One night of {night['tables']} Faro tables x {per_table} rounds ({rounds} rounds,"
        f" {night['actions']:,} accepted actions, {numbers['sittings']:,} sittings of"
        f" {numbers['players']:,} players), built through the services in {night['seconds']:.0f} s"
        f" by {workers} worker process(es). Machine: {os.cpu_count()} CPUs, load average"
        f" {os.getloadavg()[0]:.1f} at the end. Gaming day {numbers['day']}.",
        "",
        "| measure | result |",
        "|---|---|",
        f"| (a) `manage.py rebuild_ratings`, all {rounds} rounds | {rebuild:.1f} s"
        f" ({rounds / rebuild:.0f} rounds/s); {numbers['round_stats']} round rows,"
        f" {numbers['player_stats']} player rows |",
        f"| (b) `rate_round` per settled round (the Celery task's work) | p50 {rr['p50']:.1f} ms,"
        f" p99 {rr['p99']:.1f} ms, max {rr['max']:.1f} ms; {numbers['rate_round_queries']:.1f} queries |",
    ]
    for name, row in numbers["endpoints"].items():
        queries = ", ".join(str(q) for q in row["queries"])
        lines.append(
            f"| (c) {name} | p50 {row['p50']:.1f} ms, p99 {row['p99']:.1f} ms ({row['n']} requests);"
            f" {queries} queries |"
        )
    lines += [
        "",
        "Latencies are in-process (Django's test client: no HTTP server, no network); PostgreSQL runs on"
        " the same machine. An endpoint's query count is the same whatever the night's size.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="Faro rounds per table")
    parser.add_argument("--workers", type=int, default=2, help="processes building the night")
    parser.add_argument("--samples", type=int, default=200, help="requests per endpoint")
    parser.add_argument("--pit-samples", type=int, default=10, help="requests of the pit partial")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="20 tables x 2 rounds, 50 requests each")
    parser.add_argument("--keep-db", action="store_true", help=f"keep {BENCH_DB} afterwards")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.rounds, args.samples, args.pit_samples = 20, 2, 50, 5
    log(f"fresh database {BENCH_DB}")
    fresh_database(BENCH_DB, ENV)
    try:
        log(f"building {args.tables} tables x {args.rounds} rounds with {args.workers} worker(s)")
        night = build_night(tables=args.tables, rounds=args.rounds, workers=args.workers, seed=args.seed)
        log(f"built in {night['seconds']:.0f} s: {night}")
        numbers = measure(endpoint_samples=args.samples, pit_samples=args.pit_samples)
        from django.db import connections

        connections.close_all()
    finally:
        if not args.keep_db:
            drop_database(BENCH_DB)
    report = render(night, numbers, workers=args.workers)
    write_report(report, args.output)
    log(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
