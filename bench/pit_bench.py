"""Pit benchmark: what one refresh of the pit view costs with 20, 100 and 200 tables.

    bench/run-pit [--sizes 20,100,200] [--samples 30] [--keep-db]
    .venv/bin/python -m bench.pit_bench [...]

Not a test. It builds a floor in a throwaway database (``casekeeper_bench_pit`` on
``BENCH_SERVER_URL``'s server, created, migrated and dropped here) through the real services,
growing it to each size in turn, and at each size measures in this process:

* ``tables.console.selectors.list_floor`` for a pit boss (the rows the pit draws);
* ``GET /pit/live/`` through Django's test client with a signed-in pit boss and the
  ``HX-Request`` header: the partial the pit's htmx poll fetches every 5 s (session, floor,
  ratings figures, fills and credits to approve, alerts, template), twice: as back-to-back polls
  get it (sharing the floor rendered under 2 s before) and with that copy dropped first (rendered).

Each gets ``--samples`` timed calls after two warm-up calls; the report gives the queries of one
call and p50 / p99 in ms, printed as markdown and written to ``build/bench/pit.md``.

Every table is a Faro table with its own dealer, opened with a $20,000 count through
``tables.services``. Four tables in five have had a shift tonight already: a fill and a credit
each signed through (issued and received), then closed with a count, then opened again. Every
table's current (or only) session has a received fill and a refused credit; every tenth table has
a credit waiting for approval. Every
second open table has two players seated and a live Faro round dealt from an electronic shoe.
So every kind of row the pit reads exists: open and closed sessions, approved, pending and
refused fills and credits, seats and live rounds.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from bench import app_db
from bench.harness import summarize_latencies, write_report

OUTPUT = app_db.ROOT / "build" / "bench" / "pit.md"
BENCH_DB = os.environ.get("PIT_BENCH_DB", "casekeeper_bench_pit")  # another name: benches side by side
ENV = app_db.in_process_env(BENCH_DB, label="pit")
OPENING = 2_000_000  # cents counted into a tray at opening
BUY_IN = 100_000
WARM_UP = 2


# --------------------------------------------------------------------------- building the floor


def _fill_and_credit(*, dealer: Any, boss: Any, cashier: Any, table_id: int, credit: str) -> None:
    """A fill issued by the cage and received at the table, then a credit that is released by the
    pit and received at the cage, refused, or left waiting (``credit``)."""
    from tables import services
    from tables.slips.services import sign_slip

    fill = services.request_tray_change(actor=dealer, table_id=table_id, kind="fill", amount=50_000)
    services.approve_tray_request(actor=cashier, table_id=table_id, request_id=fill.pk, kind="fill")
    for signer in (dealer, boss):
        sign_slip(actor=signer, slip_id=fill.pk, password_confirmed=False)
    asked = services.request_tray_change(actor=dealer, table_id=table_id, kind="credit", amount=20_000)
    if credit == "approve":
        services.approve_tray_request(actor=boss, table_id=table_id, request_id=asked.pk, kind="credit")
        sign_slip(actor=cashier, slip_id=asked.pk, password_confirmed=False)
    elif credit == "refuse":
        services.refuse_tray_request(actor=boss, table_id=table_id, request_id=asked.pk, kind="credit")


def add_table(index: int, *, boss: Any, cashier: Any) -> None:
    """One table of the floor described in the module docstring, made through the services."""
    from tables import services
    from tables.rounds import start_round

    table, dealer = app_db.open_faro_table(index, boss=boss, opening=OPENING)
    if index % 5:  # four tables in five: an earlier shift tonight, closed with a count, then reopened
        _fill_and_credit(dealer=dealer, boss=boss, cashier=cashier, table_id=table.pk, credit="approve")
        table.tray.refresh_from_db()
        services.close_table(actor=dealer, table_id=table.pk, closing_inventory=table.tray.balance - 1_000)
        table.tray.refresh_from_db()
        services.open_table(actor=dealer, table_id=table.pk, opening_inventory=table.tray.balance)
    _fill_and_credit(
        dealer=dealer,
        boss=boss,
        cashier=cashier,
        table_id=table.pk,
        credit="wait" if index % 10 == 0 else "refuse",
    )
    if index % 2 == 0:  # every second table: two players and a live deal
        for seat in (1, 2):
            player = app_db.funded_player(
                cashier,
                username=f"bench-{index}-{seat}",
                name=f"Guest {index}",
                amount=BUY_IN,
            )
            services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=seat)
        start_round(actor=dealer, table_id=table.pk, shoe="electronic", seed=f"{index:064x}")


def grow_floor(*, start: int, stop: int) -> float:
    """Tables ``start`` .. ``stop - 1``; returns the seconds it took."""
    from casino.models import Role
    from ledger.services import ensure_system_accounts

    ensure_system_accounts()
    boss, cashier = app_db.staff("bench-pit", Role.PIT_BOSS), app_db.staff("bench-cashier", Role.CASHIER)
    started = time.perf_counter()
    for index in range(start, stop):
        add_table(index, boss=boss, cashier=cashier)
    return time.perf_counter() - started


# --------------------------------------------------------------------------- measuring


def _timed(call: Any, samples: int) -> dict[str, Any]:
    """Warm up, then time ``samples`` calls; the queries of each call are counted too."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    for _ in range(WARM_UP):
        call()
    seconds, counts = [], []
    for _ in range(samples):
        reset_queries()  # the query log is a bounded deque: once full, a capture would count nothing
        with CaptureQueriesContext(connection) as queries:
            before = time.perf_counter()
            call()
            seconds.append(time.perf_counter() - before)
        counts.append(len(queries))
    return {**summarize_latencies(seconds), "queries": sorted(set(counts))}


def measure(*, samples: int) -> dict[str, Any]:
    from django.test import Client

    from casino.models import Role
    from tables.console.pit.floor import forget_shared_floor
    from tables.console.selectors import list_floor
    from tables.models import Table

    boss = app_db.staff("bench-pit", Role.PIT_BOSS)
    client = Client()
    client.force_login(boss)
    tables = Table.objects.count()
    sizes: list[int] = []

    def floor() -> None:
        rows = list_floor(user=boss)
        assert len(rows) == tables

    def partial() -> None:
        page = client.get("/pit/live/", HTTP_HX_REQUEST="true")
        assert page.status_code == 200, page.content[:300]
        sizes.append(len(page.content))

    def rendered() -> None:
        forget_shared_floor()  # no copy under 2 s old: this answer renders the floor
        partial()

    return {
        "tables": tables,
        "list_floor": _timed(floor, samples),
        "pit_live": _timed(partial, samples),
        "pit_live_rendered": _timed(rendered, samples),
        "bytes": max(sizes),
    }


# --------------------------------------------------------------------------- the report


def _queries(row: dict[str, Any]) -> str:
    return ", ".join(str(q) for q in row["queries"])


def render(results: list[dict[str, Any]], *, samples: int, build_seconds: float) -> str:
    lines = [
        "# Pit benchmark",
        "",
        f"One pit refresh, {samples} timed calls per cell after {WARM_UP} warm-ups. Floor built through the"
        f" services in {build_seconds:.0f} s. Machine: {os.cpu_count()} CPUs, load average"
        f" {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| tables | `list_floor` queries | `list_floor` p50 ms | `list_floor` p99 ms"
        " | `GET /pit/live/` queries | `/pit/live/` p50 ms | `/pit/live/` p99 ms"
        " | rendered: queries | rendered p50 ms | rendered p99 ms | `/pit/live/` bytes |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        floor, live, fresh = r["list_floor"], r["pit_live"], r["pit_live_rendered"]
        lines.append(
            f"| {r['tables']} | {_queries(floor)} | {floor['p50_ms']:.1f} | {floor['p99_ms']:.1f}"
            f" | {_queries(live)} | {live['p50_ms']:.1f} | {live['p99_ms']:.1f}"
            f" | {_queries(fresh)} | {fresh['p50_ms']:.1f} | {fresh['p99_ms']:.1f} | {r['bytes']:,} |"
        )
    lines += [
        "",
        "In-process (Django's test client: no HTTP server, no network); PostgreSQL on the same machine."
        " `/pit/live/` counts every query of the request, the session and the signed-in user included."
        " Back-to-back polls share the floor rendered under 2 s before (`tables.console.pit.floor`);"
        " *rendered* drops that copy before each call, so it is what a poll costs when it renders.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="20,100,200", help="floor sizes to measure, ascending")
    parser.add_argument("--samples", type=int, default=30, help="timed calls per measure and size")
    parser.add_argument("--keep-db", action="store_true", help=f"keep {BENCH_DB} afterwards")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    sizes = sorted({int(size) for size in args.sizes.split(",") if size.strip()})
    app_db.log(f"fresh database {BENCH_DB}")
    app_db.fresh_database(BENCH_DB, ENV)
    app_db.setup_django(ENV, in_process=True)
    results, built, build_seconds = [], 0, 0.0
    try:
        for size in sizes:
            app_db.log(f"growing the floor from {built} to {size} tables")
            build_seconds += grow_floor(start=built, stop=size)
            built = size
            app_db.log(f"measuring {size} tables")
            results.append(measure(samples=args.samples))
        from django.db import connections

        connections.close_all()
    finally:
        if not args.keep_db:
            app_db.drop_database(BENCH_DB)
    report = render(results, samples=args.samples, build_seconds=build_seconds)
    write_report(report, args.output)
    app_db.log(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
