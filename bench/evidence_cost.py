"""What hashing every record as it is written costs a Faro action: the same deals with the
evidence on and off, in alternating blocks in one process, so the machine's drift falls on both.

    .venv/bin/python -m bench.evidence_cost [--blocks 8] [--actions 300]

Not a test. A throwaway database (``casekeeper_bench_evidence``, or ``BENCH_EVIDENCE_DB``), one
Faro table with three punters, electronic-shoe deals through ``tables.rounds`` (each punter bets,
then the dealer turns until the deal ends), as the API's view calls it. "On" is the database as
migrated; "off" is the posting function as ledger/0010 wrote it and the floor's evidence triggers
disabled: the database before issue 49. Each block counts its actions' CPU in this process
(``time.process_time``: Django, the engine) and in its PostgreSQL backend (``/proc/<pid>/schedstat``,
where all of the evidence's work is done), and prints a markdown table (also written to
``build/bench/evidence_cost.md``) with the median of each on block's CPU over the mean of the off
blocks beside it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import time
from typing import Any

from bench.app_db import ROOT, create_database, drop_database, in_process_env, log, migrate, setup_django
from bench.harness import write_report

OUTPUT = ROOT / "build" / "bench" / "evidence_cost.md"
DB_NAME = os.environ.get("BENCH_EVIDENCE_DB", "casekeeper_bench_evidence")
WARM_UP = 20  # actions dealt after each switch before the block is timed (plans made again)
TRIGGERS = (
    ("tables_roundaction", "tables_roundaction_evidence"),
    ("casino_auditlog", "casino_auditlog_evidence"),
)


def _backend_cpu(pid: int) -> float:
    """Seconds the backend has spent on a core, to the nanosecond (``/proc/<pid>/stat`` counts
    in ticks of 10 ms: too coarse for a block of a few dozen actions)."""
    with open(f"/proc/{pid}/schedstat") as stat:
        return int(stat.read().split()[0]) / 1e9


def _switch(on: bool) -> None:
    from django.db import connection

    posting = importlib.import_module("ledger.migrations.0012_evidence_hashes")
    with connection.cursor() as cursor:
        cursor.execute(posting.POST_TRANSFER if on else posting.POST_TRANSFER_0010)
        for table, trigger in TRIGGERS:
            cursor.execute(f"ALTER TABLE {table} {'ENABLE' if on else 'DISABLE'} TRIGGER {trigger}")


class Deals:
    """Faro deals at one table, an action at a time."""

    def __init__(self, seed: int) -> None:
        from bench.app_db import funded_player, open_faro_table, staff
        from casino.models import Role

        boss = staff("bench-evidence-boss", Role.PIT_BOSS)
        cashier = staff("bench-evidence-cashier", Role.CASHIER)
        self.table, self.dealer = open_faro_table(1, boss=boss, opening=50_000_000)
        self.players = []
        from tables.services import seat_player

        for n in range(3):
            player = funded_player(
                cashier, username=f"bench-evidence-{n}", name=f"Punter {n}", amount=10_000_000
            )
            seat_player(actor=self.dealer, table_id=self.table.pk, player_id=player.pk, seat=n + 1)
            self.players.append(player)
        self.rng = random.Random(seed)
        self.round: Any = None
        self.queue: list[dict[str, Any]] = []

    def step(self) -> None:
        from tables.rounds import apply_round_action, start_round

        if self.round is None or self.round.status not in ("betting", "in_play"):
            self.round = start_round(actor=self.dealer, table_id=self.table.pk, shoe="electronic")
            ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            self.queue = [
                {"type": "bet", "player": p.pk, "ranks": [self.rng.choice(ranks)], "amount": 500}
                for p in self.players
            ]
            return
        dealing = "last_turn" if self.round.state.get("next_action") == "last_turn" else "turn"
        action = self.queue.pop(0) if self.queue else {"type": dealing}
        self.round = apply_round_action(actor=self.dealer, round_id=self.round.pk, action=action)


def measure(blocks: int, actions: int) -> list[dict[str, Any]]:
    from django.db import connection

    deals = Deals(seed=1)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    results = []
    for block in range(blocks):
        on = block % 4 in (0, 3)  # on, off, off, on, on, off, ...: each mode first and second in turn
        _switch(on)
        for _ in range(WARM_UP):
            deals.step()
        python, backend = time.process_time(), _backend_cpu(pid)
        for _ in range(actions):
            deals.step()
        results.append(
            {
                "on": on,
                "python_ms": (time.process_time() - python) * 1000 / actions,
                "backend_ms": (_backend_cpu(pid) - backend) * 1000 / actions,
            }
        )
        log(f"block {block + 1}: evidence {'on' if on else 'off'}: {results[-1]}")
    _switch(True)
    return results


def _paired(results: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(server CPU, backend CPU) of each on block over the mean of its off neighbours'."""
    ratios = []
    for index, block in enumerate(results):
        if not block["on"]:
            continue
        around = [
            results[i] for i in (index - 1, index + 1) if 0 <= i < len(results) and not results[i]["on"]
        ]
        if not around:
            continue
        server = statistics.mean(r["python_ms"] + r["backend_ms"] for r in around)
        backend = statistics.mean(r["backend_ms"] for r in around)
        ratios.append(((block["python_ms"] + block["backend_ms"]) / server, block["backend_ms"] / backend))
    return ratios


def render(results: list[dict[str, Any]], actions: int) -> str:
    def median(on: bool, key: str) -> float:
        return statistics.median(r[key] for r in results if r["on"] == on)

    rows = []
    for on in (False, True):
        python, backend = median(on, "python_ms"), median(on, "backend_ms")
        spread = [r["python_ms"] + r["backend_ms"] for r in results if r["on"] == on]
        rows.append(
            f"| {'on' if on else 'off (before issue 49)'} | {python:.2f} ms | {backend:.2f} ms "
            f"| {python + backend:.2f} ms | {min(spread):.2f}-{max(spread):.2f} ms |"
        )
    total_off = median(False, "python_ms") + median(False, "backend_ms")
    total_on = median(True, "python_ms") + median(True, "backend_ms")
    paired = _paired(results)
    return (
        "\n".join(
            [
                f"## Evidence cost ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, "
                f"load {os.getloadavg()[0]:.1f})",
                "",
                f"{len(results)} blocks of {actions} Faro actions (bets and turns, a round start each deal), "
                "evidence on and off alternately; medians per action.",
                "",
                "| evidence | this process | PostgreSQL backend | server CPU | blocks' spread |",
                "|---|---:|---:|---:|---:|",
                *rows,
                "",
                f"On ÷ off, medians: {total_on / total_off:.3f} (the PostgreSQL backend alone: "
                f"{median(True, 'backend_ms') / median(False, 'backend_ms'):.3f}). Each on block against "
                f"the off blocks beside it, median of {len(paired)}: "
                f"{statistics.median(p[0] for p in paired):.3f} "
                f"(the backend: {statistics.median(p[1] for p in paired):.3f}).",
            ]
        )
        + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--actions", type=int, default=300, help="actions timed per block")
    parser.add_argument("--keep-db", action="store_true")
    args = parser.parse_args(argv)
    env = in_process_env(DB_NAME, label="evidence")
    create_database(DB_NAME, synchronous_commit=True)
    try:
        migrate(env)
        setup_django(env, in_process=True)
        report = render(measure(args.blocks, args.actions), args.actions)
        from django.db import connections

        connections.close_all()
    finally:
        if not args.keep_db:
            drop_database(DB_NAME)
    write_report(report, OUTPUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
