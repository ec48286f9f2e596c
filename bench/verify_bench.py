"""Verify benchmark: ``python -m ledger.verify`` on the export of a 200-table night.

    bench/run-verify [--tables 20,200] [--rounds 12]
    .venv/bin/python -m bench.verify_bench [...]

Not a test. For each size it builds the audit bench's night (``bench.audit_bench.build_night``:
Faro tables, five players each, every round through the engine, rows written with COPY) in a
throwaway database (``casekeeper_bench_verify``). COPY writes with the triggers off, so the night
is then hashed here in Python exactly as the posting function and the evidence triggers hash as
they write (each account's and each table's chain in id order); a check that the verifier finds
nothing on it is part of the run. Then it times the day's checkpoint (``make_checkpoint``), the
export to a file, and the verifier in a process of its own (no Django, no database), and prints a
markdown table (also written to ``build/bench/verify.md``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import subprocess
import sys
import time
from collections import defaultdict
from typing import Any

from bench.app_db import (
    ROOT,
    app_env,
    create_database,
    db_url,
    drop_database,
    fresh_database,
    log,
    setup_django,
)
from bench.harness import call_in_child, write_report

OUTPUT = ROOT / "build" / "bench" / "verify.md"
FILES = ROOT / "build" / "bench" / "verify"
# BENCH_VERIFY_DB lets two runs share one PostgreSQL server without dropping each other's database.
BENCH_DB = os.environ.get("BENCH_VERIFY_DB", "casekeeper_bench_verify")
TEMPLATE_DB = f"{BENCH_DB}_template"
GOAL_SECONDS = 60.0

# The hashes written back with the triggers off (bench only: COPY skipped the triggers).
_ENTRIES = """
    UPDATE ledger_entry AS e SET evidence_seq = v.seq, evidence_previous = v.previous, evidence_hash = v.hash
      FROM unnest(%s::bigint[], %s::bigint[], %s::bytea[], %s::bytea[]) AS v(id, seq, previous, hash)
     WHERE e.id = v.id
"""
_ACCOUNTS = """
    UPDATE ledger_account AS a SET evidence_links = v.links, evidence_head = v.head
      FROM unnest(%s::text[], %s::bigint[], %s::bytea[]) AS v(code, links, head)
     WHERE a.code = v.code
"""
_CHAINED = """
    UPDATE {table} AS x SET evidence_stream = v.stream, evidence_seq = v.seq, evidence_previous = v.previous,
                            evidence_hash = v.hash
      FROM unnest(%s::bigint[], %s::text[], %s::bigint[], %s::bytea[], %s::bytea[])
           AS v(id, stream, seq, previous, hash)
     WHERE x.id = v.id
"""
_HEADS = """
    INSERT INTO tables_evidencechain (stream, links, head)
    SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bytea[])
    ON CONFLICT (stream) DO UPDATE SET links = excluded.links, head = excluded.head
"""
_HEAD_OF = "SELECT links, encode(head, 'hex') FROM tables_evidencechain WHERE stream = %s"
_ROUND_TABLES = "SELECT id, table_id FROM tables_round"


def _bytes(hex_text: str | None) -> bytes | None:
    return bytes.fromhex(hex_text) if hex_text else None


def hash_night(day: dt.date) -> int:
    """Hash every unhashed record of the day as the database would have as it wrote them."""
    from django.db import connection, transaction

    from ledger.evidence.records import TRANSFER, record_hash
    from tables.evidence.export import parsed, record_lines

    with connection.cursor() as cursor:
        cursor.execute(_ROUND_TABLES)
        table_of_round = dict(cursor.fetchall())
    heads: dict[str, tuple[int, str | None]] = defaultdict(lambda: (0, None))  # account code → head
    streams: dict[str, tuple[int, str | None]] = {}  # the floor's streams → head
    entries: list[tuple[int, int, bytes | None, bytes]] = []
    chained: dict[str, list[tuple[int, str, int, bytes | None, bytes]]] = defaultdict(list)
    count = 0
    for line in record_lines(day, {}, window_end=None):
        record = parsed(line)
        if record["type"] == TRANSFER:
            places: dict[str, tuple[int, str | None]] = {}
            for entry in record["fields"]["entries"]:
                account = entry["account"]
                if account not in places:
                    seq, previous = heads[account]
                    places[account] = (seq + 1, previous)
                entry["seq"], entry["previous"] = places[account]
            digest = record_hash(record)
            for entry in record["fields"]["entries"]:
                entries.append((entry["id"], entry["seq"], _bytes(entry["previous"]), bytes.fromhex(digest)))
            for account, (seq, _) in places.items():
                heads[account] = (seq, digest)
        else:
            fields = record["fields"]
            if record["type"] == "action_log":
                stream = f"staff:{fields['actor']}" if fields["actor"] else "system"
            else:
                stream = f"table:{table_of_round[fields['round']]}"
            if stream not in streams:
                with connection.cursor() as cursor:
                    cursor.execute(_HEAD_OF, [stream])
                    row = cursor.fetchone()
                streams[stream] = (int(row[0]), row[1]) if row else (0, None)
            seq, previous = streams[stream]
            record.update(stream=stream, seq=seq + 1, previous=previous)
            digest = record_hash(record)
            streams[stream] = (seq + 1, digest)
            chained[record["type"]].append(
                (record["id"], stream, seq + 1, _bytes(previous), bytes.fromhex(digest))
            )
        count += 1
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            _ENTRIES, [list(column) for column in zip(*entries, strict=True)] if entries else [[]] * 4
        )
        cursor.execute(_ACCOUNTS, [list(heads), [v[0] for v in heads.values()],
                                   [_bytes(v[1]) for v in heads.values()]])  # fmt: skip
        tables = {"round_action": "tables_roundaction", "action_log": "casino_auditlog"}
        for kind, rows in chained.items():
            cursor.execute(
                _CHAINED.format(table=tables[kind]), [list(column) for column in zip(*rows, strict=True)]
            )
        cursor.execute(_HEADS, [list(streams), [v[0] for v in streams.values()],
                                [_bytes(v[1]) for v in streams.values()]])  # fmt: skip
    return count


def build_and_export(params: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process on the bench database: build, hash, checkpoint and export the night."""
    import json
    import logging

    setup_django(app_env(params["db_url"]))
    logging.disable(logging.WARNING)
    from bench.audit_bench import build_night
    from tables.evidence import export
    from tables.evidence.checkpoint import make_checkpoint

    built = build_night(params)
    day = dt.date.fromisoformat(built["day"])
    began = time.monotonic()
    built["hashed"] = hash_night(day)
    built["hash_s"] = time.monotonic() - began
    began = time.monotonic()
    checkpoint = make_checkpoint(day=day)
    built["checkpoint_s"] = time.monotonic() - began
    FILES.mkdir(parents=True, exist_ok=True)
    exported, signed = FILES / f"evidence-{day}.jsonl", FILES / f"checkpoint-{day}.json"
    began = time.monotonic()
    with exported.open("w", encoding="utf-8") as out:
        for line in export.lines(day, checkpoint.document):
            out.write(line + "\n")
    built["export_s"] = time.monotonic() - began
    signed.write_text(json.dumps(checkpoint.document))
    built.update(records=checkpoint.records, export=str(exported), checkpoint=str(signed))
    built["export_mb"] = exported.stat().st_size / 1e6
    return built


def run_verifier(exported: str, signed: str) -> dict[str, Any]:
    """``python -m ledger.verify`` as an auditor runs it, in a process of its own: wall and CPU time."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ledger.verify", exported, signed],
        capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"verify_s": wall, "verify_cpu_s": cpu, "exit": done.returncode, "output": done.stdout[:2000]}


def render(results: list[dict[str, Any]], *, rounds: int) -> str:
    lines = [
        f"## Verify benchmark ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f})",
        "",
        f"Faro tables, 5 players each, {rounds} deals per table (bench.audit_bench's night); goal: "
        f"verifying a 200-table night in under {GOAL_SECONDS:.0f} s.",
        "",
        "| tables | records | export | checkpoint | export to a file | `python -m ledger.verify` (CPU) "
        "| exit | goal |",
        "|---:|---:|---:|---:|---:|---:|:-:|:--|",
    ]
    for r in results:
        goal = ("met" if r["verify_s"] < GOAL_SECONDS else "MISSED") if r["tables"] == 200 else ""
        lines.append(
            f"| {r['tables']} | {r['records']:,} | {r['export_mb']:.0f} MB | {r['checkpoint_s']:.1f} s "
            f"| {r['export_s']:.1f} s | {r['verify_s']:.1f} s ({r['verify_cpu_s']:.1f} s) "
            f"| {r['exit']} | {goal} |"
        )
    lines += [
        "",
        "The verifier's summary of the largest night:",
        "",
        "```",
        results[-1]["output"].strip(),
        "```",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", default="200", help="comma-separated table counts")
    parser.add_argument("--rounds", type=int, default=12, help="Faro deals per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the last bench database and files")
    args = parser.parse_args(argv)
    log("migrating the template database")
    fresh_database(TEMPLATE_DB, app_env(db_url(TEMPLATE_DB)), synchronous_commit=True)
    results = []
    try:
        for size in [int(s) for s in args.tables.split(",") if s]:
            create_database(BENCH_DB, template=TEMPLATE_DB)
            log(f"{size} tables: building, hashing, checkpointing and exporting the night")
            params = {"db_url": db_url(BENCH_DB), "tables": size, "rounds": args.rounds, "seed": args.seed}
            built = call_in_child("bench.verify_bench:build_and_export", params, timeout=3600)
            log(f"{size} tables: {built['records']:,} records; verifying")
            result = {**built, **run_verifier(built["export"], built["checkpoint"])}
            log(f"{size} tables: verified in {result['verify_s']:.1f} s, exit {result['exit']}")
            results.append(result)
            if result["exit"] != 0:
                print(result["output"], file=sys.stderr)
    finally:
        if not args.keep:
            drop_database(BENCH_DB)
        drop_database(TEMPLATE_DB)
    write_report(render(results, rounds=args.rounds), OUTPUT)
    return 0 if all(r["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
