"""Detection benchmark: precision and recall of every detector on nights with injected cheats.

    bench/run-detection [--on test|tuning] [--tables 16] [--rounds 6] [--inject ...] [--jobs 2]
                        [--days 7 [--clean-days 0]]
    .venv/bin/python -m bench.detection_bench [...]

Seeds are split in two: the *tuning* seeds (``--tuning-seeds``, 1-3) are the nights every
threshold in ``DETECTION`` was chosen on; the *test* seeds (``--test-seeds``, 126-130) are
nights no threshold or rule was chosen on, and the only ones whose figures are reported as the
detectors' quality (the default, ``--on test``). Tune with ``--on tuning``; never the other way.
Seeds 101-105 were the test seeds until 2026-11-25; a rule was changed after their results were
seen (hold: a dealer who dealt exactly one table's deals is that table's test), so they are spent
and the test seeds moved on to nights nobody had run. Seeds 106-110 followed until 2026-11-28 and
are spent the same way: ``chip_flow`` was rewritten after their half-rate week missed the colluders
and the dumper. Seeds 111-115 followed, spent later that day: ``chip_flow`` raised one alert per
payer (not only per dumper) after their one night showed a soft player's table-mates flagged.
Seeds 116-120 followed, spent the same evening: ``faro_split_rate`` added the count of extreme deals
after their half-rate week missed a stacker whose fair deals ran low. Seeds 121-125 followed, spent
on 2026-11-28: ``structuring`` asked for one day's cash in pieces after their half-rate week flagged
two honest winners (one cash-out a night just under the line, two nights running).
Precision and recall come with 95 % Wilson intervals: a few nights are a small sample.

Not a test. For each seed it simulates two gaming days through the real services
(``tables.simulation.night``): a clean night, and the same night with the cheat scenarios
of ``--inject`` (``bench.cheats.inject``), each in a throwaway database copied from a
migrated template. Then it runs every detector over the day (``run_detectors``), matches
the alerts against the night's ground truth (by kind and subject: dealer, player, table or
pair) and prints precision and recall per detector and per alert kind, and false alerts per
50 tables on the clean nights. The markdown goes to ``build/bench/detection.md``.

``--days N`` runs, per seed and variant, a *series* of N consecutive gaming days (up to
yesterday's) in one database: the same floor and the same cheaters every night, each night's
cards from a seed of its own, the detectors run after each night over its day (so the window
sees the nights before). A series is scored as one result: precision over its distinct
(kind, subject) findings, recall over any night, and the nights it took to detect each spec.

Ratings run in-process (Celery eager mode, here only: no task reaches Redis) because the
detectors read them; ``synchronous_commit`` is off for the nights (test data only).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.app_db import (
    ROOT,
    SETTINGS,
    app_env,
    create_database,
    database_exists,
    db_url,
    drop_database,
    fresh_database,
    log,
)
from tables.detection.stats import wilson_interval  # pure Python: no Django set-up needed

OUTPUT = ROOT / "build" / "bench" / "detection.md"
WORK = ROOT / "build" / "bench" / "detection"
DB_PREFIX = os.environ.get("DETECT_BENCH_DB_PREFIX", "casekeeper_bench_detect")
TUNING_SEEDS = "1,2,3"
TEST_SEEDS = "126,127,128,129,130"
# former test seeds, seen before a rule change (101-105: hold; 106-115: chip_flow; 116-120: faro;
# 121-125: structuring): not a test any more
SPENT_SEEDS = ",".join(str(seed) for seed in range(101, 126))
DEFAULT_INJECT = (
    "split_stacker:0.5,colluders:1,dumper:1,structurer:1,fill_abuser:1,short_count:0.5,"
    "limit_prober:0.3,chip_walker:1,dealer_partner:1,cold_deck:0.5"
)
GOAL_PRECISION = 0.9
GOAL_RECALL = 0.9
GOAL_FALSE_PER_50 = 1.0
NIGHT_TIMEOUT = 3600


def child_env(database: str) -> dict[str, str]:
    # A cache prefix per database: nights run at once reuse round ids, and consecutive nights
    # are dealt at the same moments of the same past days, so the hold null's cached samples
    # (keyed by round id and start time) must not be shared between them.
    return {
        **os.environ,
        **app_env(db_url(database), LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT), CACHE_KEY_PREFIX=database),
    }


def template_db(args: argparse.Namespace) -> str:
    return f"{args.db_prefix}_template"


def prepare_template(args: argparse.Namespace) -> None:
    fresh_database(template_db(args), child_env(template_db(args)), synchronous_commit=True, timeout=600)


# --------------------------------------------------------------------------- one night (child)


def run_child(args: argparse.Namespace) -> None:
    """In a child process on its own database: simulate a night, or detect on a simulated one."""
    import django

    django.setup()
    from django.db import connection
    from django.db.backends.signals import connection_created

    from casino.celery import app

    app.conf.task_always_eager = True  # ratings in-process: nothing is sent to the broker
    # Tasks sent by name (the rating task after a round settles) ignore eager mode: give them a
    # broker of this process's own, so no message reaches the shared Redis and another
    # database's worker. The detectors rate the rounds themselves (rate_unrated_rounds).
    app.conf.broker_url = "memory://"
    app.conf.broker_write_url = "memory://"

    def async_commit(sender: Any, connection: Any, **kwargs: Any) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO off")

    connection_created.connect(async_commit)
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")
    if args.child == "simulate":
        simulate_child(args)
    else:
        detect_child(args)


def simulate_child(args: argparse.Namespace) -> None:
    """Deal the night now, or (``--day``) in that past gaming day on the floor earlier nights left."""
    import datetime as dt

    from bench.cheats.inject import Injector, parse_inject
    from ledger.gaming_day import gaming_day_for
    from tables.simulation.night import NightConfig, simulate_night

    day = dt.date.fromisoformat(args.day) if args.day else None
    first_day = day or gaming_day_for()
    config = NightConfig(
        tables=args.tables,
        players=args.players,
        rounds=args.rounds,
        seed=args.seed,
        stakes_rounds=args.stakes_rounds,
    )
    rates = parse_inject(args.inject)
    injector = Injector(rates, cast_seed=args.cast_seed) if rates else None
    started = time.monotonic()
    summary = simulate_night(config, day=day, hooks=injector)
    night = {
        "seed": args.seed,
        "injected": injector is not None,
        "tables": summary.tables,
        "rounds": summary.rounds,
        "actions": summary.actions,
        "refused": summary.refused,
        "night_seconds": round(time.monotonic() - started, 1),
        "days": sorted({first_day.isoformat(), (day or gaming_day_for()).isoformat()}),
        "truth": injector.truth() if injector else None,
    }
    Path(args.result).write_text(json.dumps(night, indent=2, default=str))


def detect_child(args: argparse.Namespace) -> None:
    import datetime as dt

    from tables.detection.detectors import DETECTOR_OF_KIND
    from tables.detection.models import Alert
    from tables.detection.services import run_detectors

    night = json.loads(Path(args.result).read_text())
    # Thresholds may have changed since the last run; earlier nights' alerts in the database stay.
    Alert.objects.filter(gaming_day__in=night["days"]).delete()
    started = time.monotonic()
    runs = {}
    for day in night["days"]:
        runs[day] = run_detectors(day=dt.date.fromisoformat(day))
        again = run_detectors(day=dt.date.fromisoformat(day))  # idempotent: the second run only updates
        assert all(v.get("created", 0) == 0 for v in again.values()), again
    detect_seconds = time.monotonic() - started
    alerts = [
        {
            "id": a.pk,
            "kind": a.kind,
            "detector": DETECTOR_OF_KIND.get(a.kind, a.detector),
            "severity": a.severity,
            "table": a.table_id,
            "dealer": a.dealer_id,
            "player": a.player_id,
            "pair": a.evidence.get("pair"),
            "day": a.gaming_day.isoformat(),
            "summary": a.summary,
            "detections": a.detections,
        }
        for a in Alert.objects.filter(gaming_day__in=night["days"]).order_by("pk")
    ]
    night.update(detect_seconds=round(detect_seconds, 2), runs=runs, alerts=alerts)
    Path(args.result).write_text(json.dumps(night, indent=2, default=str))


# --------------------------------------------------------------------------- scoring


def matches(alert: dict[str, Any], spec: dict[str, Any]) -> bool:
    if alert["kind"] != spec["kind"]:
        return False
    for key, value in spec.items():
        if key == "kind":
            continue
        if key == "pair":
            if alert.get("pair") != value:
                return False
        elif alert.get(key) != value:
            return False
    return True


def finding_of(alert: dict[str, Any]) -> tuple[Any, ...]:
    """An alert's kind and subject: the same finding on every night it is raised again."""
    pair = alert.get("pair")
    return (alert["kind"], alert.get("table"), alert.get("dealer"), alert.get("player"), pair and tuple(pair))


def score(nights: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision, recall and time to detect per detector and kind, over one-night results or runs
    of consecutive nights (``merge_nights``: every night's alerts, tagged with ``night`` 1..N).

    Alerts are counted raw; *findings* are the distinct (kind, subject) of a run, so a subject
    alerted on five nights is one finding. A spec's days to detect is the first night it matched.
    """
    from tables.detection.detectors import DETECTOR_OF_KIND, KINDS

    def blank() -> dict[str, Any]:
        return {
            "alerts": 0,
            "true": 0,
            "findings": 0,
            "true_findings": 0,
            "expected": 0,
            "found": 0,
            "clean_alerts": 0,
            "clean_findings": 0,
            "days_to_detect": [],
        }

    by_detector: dict[str, dict[str, Any]] = {name: blank() for name in KINDS}
    by_kind: dict[str, dict[str, Any]] = {k: blank() for kinds in KINDS.values() for k in kinds}
    misses: list[dict[str, Any]] = []
    false_alerts: list[dict[str, Any]] = []
    false_findings: list[dict[str, Any]] = []
    clean_tables = clean_alerts = clean_findings = 0
    for night in nights:
        truth = night.get("truth") or {"scenarios": []}
        specs = [
            (item["scenario"], spec, True) for item in truth["scenarios"] for spec in item["expected"]
        ] + [(item["scenario"], spec, False) for item in truth["scenarios"] for spec in item["tolerated"]]
        findings: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        if not night["injected"]:
            clean_tables += night["tables"] * night.get("nights", 1)  # table-nights
            clean_alerts += len(night["alerts"])
        for alert in night["alerts"]:
            findings.setdefault(finding_of(alert), []).append(alert)
            detector = DETECTOR_OF_KIND.get(alert["kind"], alert["detector"])
            rows = [by_detector.setdefault(detector, blank()), by_kind.setdefault(alert["kind"], blank())]
            true = any(matches(alert, spec) for _, spec, _ in specs)
            for row in rows:
                row["alerts"] += 1
                row["true"] += int(true)
                row["clean_alerts"] += int(not night["injected"])
            if not true:
                false_alerts.append({"seed": night["seed"], "injected": night["injected"], **alert})
        for group in findings.values():
            first = group[0]  # one kind and subject: every alert of the group matches the same specs
            true = any(matches(first, spec) for _, spec, _ in specs)
            detector = DETECTOR_OF_KIND.get(first["kind"], first["detector"])
            for row in (by_detector[detector], by_kind[first["kind"]]):
                row["findings"] += 1
                row["true_findings"] += int(true)
                row["clean_findings"] += int(not night["injected"])
            clean_findings += int(not night["injected"])
            if not true:
                nights_on = [a.get("night", 1) for a in group]
                false_findings.append(
                    {"seed": night["seed"], "injected": night["injected"], "nights": nights_on, **first}
                )
        for scenario, spec, expected in specs:
            if not expected:
                continue
            detector = DETECTOR_OF_KIND[spec["kind"]]
            hits = [alert.get("night", 1) for alert in night["alerts"] if matches(alert, spec)]
            for row in (by_detector[detector], by_kind[spec["kind"]]):
                row["expected"] += 1
                row["found"] += int(bool(hits))
                row["days_to_detect"] += [min(hits)] if hits else []
            if not hits:
                misses.append({"seed": night["seed"], "scenario": scenario, **spec})
    total = blank()
    for row in by_detector.values():
        for key in total:
            total[key] += row[key]
    return {
        "by_detector": by_detector,
        "by_kind": by_kind,
        "total": total,
        "misses": misses,
        "false_alerts": false_alerts,
        "false_findings": false_findings,
        "clean_tables": clean_tables,
        "clean_alerts": clean_alerts,
        "clean_findings": clean_findings,
        "false_per_50": 50 * clean_alerts / clean_tables if clean_tables else 0.0,
        "false_findings_per_50": 50 * clean_findings / clean_tables if clean_tables else 0.0,
    }


def spec_of(miss: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in miss.items() if k not in {"seed", "scenario"}}


def ratio(num: int, den: int) -> str:
    """``0.95 [0.80, 0.99]``: the proportion and its 95 % Wilson interval."""
    if not den:
        return "n/a"
    low, high = wilson_interval(num, den)
    return f"{num / den:.2f} [{low:.2f}, {high:.2f}]"


def checkpoints(days: int) -> list[int]:
    """The nights "found by night k" is printed for: 1, 3 and 7 up to ``days``, and ``days``."""
    return sorted({k for k in (1, 3, 7) if k <= days} | {days})


def precision_counts(row: dict[str, Any], days: int | None) -> tuple[int, int]:
    """(true, all): alerts on one night a seed, distinct findings over consecutive nights."""
    return (row["true"], row["alerts"]) if days is None else (row["true_findings"], row["findings"])


def table_rows(
    rows: dict[str, dict[str, Any]], total: dict[str, Any] | None = None, days: int | None = None
) -> list[str]:
    """The per-detector or per-kind table; ``days``: runs of that many consecutive nights, with
    precision over distinct findings and the nights to detect."""
    named = list(rows.items()) + ([("**overall**", total)] if total is not None else [])
    if days is None:
        lines = [
            "| | alerts | true | precision [95 % CI] | expected | found | recall [95 % CI] "
            "| clean-night alerts |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, row in named:
            lines.append(
                f"| {name} | {row['alerts']} | {row['true']} | {ratio(row['true'], row['alerts'])} | "
                f"{row['expected']} | {row['found']} | {ratio(row['found'], row['expected'])} | "
                f"{row['clean_alerts']} |"
            )
        return lines
    marks = checkpoints(days)
    lines = [
        "| | alerts | findings | true | precision [95 % CI] | expected | found | recall [95 % CI] "
        f"| nights to detect: median, max | found by night {' / '.join(map(str, marks))} "
        "| clean-night findings (alerts) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in named:
        taken = row["days_to_detect"]
        speed = f"{statistics.median(taken):g}, {max(taken)}" if taken else "n/a"
        by = " / ".join(str(sum(d <= k for d in taken)) for k in marks)
        lines.append(
            f"| {name} | {row['alerts']} | {row['findings']} | {row['true_findings']} | "
            f"{ratio(*precision_counts(row, days))} | {row['expected']} | {row['found']} | "
            f"{ratio(row['found'], row['expected'])} | {speed} | {by} | "
            f"{row['clean_findings']} ({row['clean_alerts']}) |"
        )
    return lines


def report(
    args: argparse.Namespace, nights: list[dict[str, Any]], scored: dict[str, Any], seconds: float
) -> str:
    """The markdown report; ``args.consecutive``: ``nights`` are runs of consecutive nights."""
    days = args.days if args.consecutive else None
    total = scored["total"]
    goals = []
    for name, row in scored["by_detector"].items():
        true, alerts = precision_counts(row, days)
        precision = true / alerts if alerts else 1.0
        recall = row["found"] / row["expected"] if row["expected"] else None
        ok = precision >= GOAL_PRECISION and (recall is None or recall >= GOAL_RECALL)
        goals.append(f"{name}: {'met' if ok else 'NOT met'}")
    seeds = (
        f"**{args.seed_set.capitalize()} seeds** {', '.join(str(s) for s in args.seeds)} (tuning seeds: "
        f"{args.tuning_seeds}; thresholds are chosen on those only). "
    )
    if days is None:
        intro = [
            seeds + "Each seed: a clean night and an injected night of "
            f"{args.tables} tables (plus one card-room table per stakes scenario on the injected night), "
            f"{args.players} players, {args.rounds} passes (card-room tables deal {args.stakes_rounds} "
            "rounds a pass). "
            f"Injected: `{args.inject}`. Wall time {seconds / 60:.1f} min.",
            "",
            "Precision counts every alert of the detector, on clean and injected nights; an alert is true "
            "when it matches an expected or tolerated spec of the night's ground truth (kind and subject). "
            "Recall counts the expected specs found.",
        ]
        clean = (
            f"False alerts on clean nights: {scored['clean_alerts']} over {scored['clean_tables']} tables = "
            f"**{scored['false_per_50']:.2f} per 50 tables** (goal ≤ {GOAL_FALSE_PER_50:g})."
        )
    else:
        clean_run = f"{args.clean_days} clean nights" if args.clean_days else "no clean nights"
        intro = [
            seeds + f"Each seed: {args.days} consecutive injected nights and {clean_run}, each series "
            "in one database: the same tables, dealers, players and cheaters (same subjects, scenarios "
            "and rates) every night, the cards and the bots' play drawn from a seed of each night's "
            f"own. A night: {args.tables} tables (plus one card-room table per stakes scenario on the "
            f"injected nights), {args.players} players, {args.rounds} passes (card-room tables deal "
            f"{args.stakes_rounds} rounds a pass). The detectors run after each night over its gaming "
            "day, so night k's statistical rules read nights k-6..k. "
            f"Injected: `{args.inject}`. Wall time {seconds / 60:.1f} min.",
            "",
            "A finding is a distinct (kind, subject) of a series: a subject alerted on five nights is one "
            "finding, and five alerts. Precision = true findings / findings, clean and injected series "
            "together (a finding is true when it matches an expected or tolerated spec of any night's "
            "ground truth). Recall counts the expected specs found on any night; nights to detect is the "
            "first night (1..N) a spec's alert appeared.",
        ]
        clean = (
            f"False findings on clean nights: {scored['clean_findings']} ({scored['clean_alerts']} alerts) "
            f"over {scored['clean_tables']} table-nights = **{scored['false_findings_per_50']:.2f} per 50 "
            f"table-nights** ({scored['false_per_50']:.2f} alerts; goal ≤ {GOAL_FALSE_PER_50:g})."
            if scored["clean_tables"]
            else "No clean nights were run (`--clean-days 0`)."
        )
    lines = [
        "# Detection benchmark",
        "",
        *intro,
        "",
        "## Per detector",
        "",
        *table_rows(scored["by_detector"], total, days),
        "",
        clean,
        "",
        f"Goals (precision ≥ {GOAL_PRECISION}, recall ≥ {GOAL_RECALL} per detector): "
        + "; ".join(goals)
        + ".",
        "",
        "## Per alert kind",
        "",
        *table_rows(scored["by_kind"], days=days),
        "",
        "## Nights",
        "",
    ]
    if days is None:
        lines += [
            "| seed | night | tables | rounds | actions | refused | alerts | simulate (s) | detect (s) |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for night in nights:
            lines.append(
                f"| {night['seed']} | {'injected' if night['injected'] else 'clean'} | {night['tables']} | "
                f"{night['rounds']} | {night['actions']} | {night['refused']} | {len(night['alerts'])} | "
                f"{night['night_seconds']} | {night['detect_seconds']} |"
            )
    else:
        lines += [
            "| seed | series | night | gaming day | tables | rounds | actions | refused | alerts "
            "| simulate (s) | detect (s) |",
            "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for run in nights:
            for k, night in enumerate(run["per_night"], 1):
                lines.append(
                    f"| {run['seed']} | {'injected' if run['injected'] else 'clean'} | {k} | "
                    f"{', '.join(night['days'])} | {night['tables']} | {night['rounds']} | "
                    f"{night['actions']} | {night['refused']} | {len(night['alerts'])} | "
                    f"{night['night_seconds']} | {night['detect_seconds']} |"
                )
    lines += ["", "## Missed (expected, not found)", ""]
    lines += [
        f"- seed {m['seed']} {m['scenario']}: `{json.dumps(spec_of(m))}`" for m in scored["misses"]
    ] or ["none"]
    if days is None:
        lines += ["", "## False alerts", ""]
        lines += [
            f"- seed {a['seed']} ({'injected' if a['injected'] else 'clean'}) {a['kind']} "
            f"(table {a['table']}, dealer {a['dealer']}, player {a['player']}): {a['summary']}"
            for a in scored["false_alerts"]
        ] or ["none"]
    else:
        lines += ["", "## False findings (the first night's summary)", ""]
        lines += [
            f"- seed {a['seed']} ({'injected' if a['injected'] else 'clean'}) {a['kind']} "
            f"(table {a['table']}, dealer {a['dealer']}, player {a['player']}) on nights "
            f"{', '.join(map(str, a['nights']))}: {a['summary']}"
            for a in scored["false_findings"]
        ] or ["none"]
    lines += ["", "## Injected scenarios (last seed)", ""]
    last = next((n for n in reversed(nights) if n["injected"]), None)
    if last and last["truth"]:
        for item in last["truth"]["scenarios"]:
            lines.append(
                f"- {item['scenario']} at {item['rate']}: subjects `{json.dumps(item['subjects'])}`, "
                f"expects {', '.join(s['kind'] for s in item['expected']) or 'nothing'}; "
                f"stats `{json.dumps(item['stats'])}`"
            )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the run


def night_name(args: argparse.Namespace, seed: int, injected: bool) -> str:
    """The night's database (and result file): an injected night is named after its scenarios,
    so ``--detect-only`` reuses the clean nights when only the injected scenarios change."""
    shape = f"{args.tables}t{args.players}p{args.rounds}r{args.stakes_rounds}s"
    if not injected:
        return f"{args.db_prefix}_{seed}_clean_{shape}"
    digest = hashlib.sha256(args.inject.encode()).hexdigest()[:8]
    return f"{args.db_prefix}_{seed}_inj_{shape}_{digest}"


def run_night(args: argparse.Namespace, seed: int, injected: bool) -> dict[str, Any]:
    """Simulate the night (unless ``--detect-only`` finds it kept), then run the detectors on it."""
    name = night_name(args, seed, injected)
    result = WORK / f"{name}.json"
    label = f"seed {seed}: {'injected' if injected else 'clean'} night"
    try:
        if not (args.detect_only and database_exists(name) and result.exists()):
            new_database(args, name)
            log(f"{label} in {name}")
            simulate(args, name, result, seed, injected)
        log(f"{label}: detecting")
        detect(name, result)
        night: dict[str, Any] = json.loads(result.read_text())
    finally:
        if not args.keep_dbs:
            drop_database(name)
    log(f"{label}: {night['rounds']} rounds in {night['night_seconds']} s, {len(night['alerts'])} alerts")
    return night


def night_seed(seed: int, night: int) -> int:
    """The seed of night ``night`` (1..N) of a series: the first is the seed itself, which also
    picks the series' cheaters (``cast_seed``); the others are drawn from it."""
    if night == 1:
        return seed
    return int(hashlib.sha256(f"{seed}:night:{night}".encode()).hexdigest()[:12], 16)


def series_files(args: argparse.Namespace, seed: int, injected: bool) -> tuple[str, list[Path]]:
    """A series' database and its nights' result files (night 1..N)."""
    count = args.days if injected else args.clean_days
    name = f"{night_name(args, seed, injected)}_{count}d"
    return name, [WORK / f"{name}_night{k}.json" for k in range(1, count + 1)]


def run_series(args: argparse.Namespace, seed: int, injected: bool) -> dict[str, Any]:
    """Consecutive nights on one floor in one database, ending on the gaming day before today;
    after each night the detectors run over its day (so its window holds the nights before)."""
    name, results = series_files(args, seed, injected)
    days = args.gaming_days[-len(results) :]
    kept = args.detect_only and database_exists(name) and all(r.exists() for r in results)
    variant = "injected" if injected else "clean"
    nights = []
    try:
        if not kept:
            new_database(args, name)
            log(f"seed {seed}: {len(results)} {variant} nights in {name}")
        for k, (day, result) in enumerate(zip(days, results, strict=True), 1):
            label = f"seed {seed}: {variant} night {k}/{len(results)} ({day})"
            if not kept:
                extra = ["--day", day, "--cast-seed", str(seed)]
                simulate(args, name, result, night_seed(seed, k), injected, extra)
            detect(name, result)
            night = json.loads(result.read_text())
            log(
                f"{label}: {night['rounds']} rounds in {night['night_seconds']} s, "
                f"{len(night['alerts'])} alerts in {night['detect_seconds']} s"
            )
            nights.append(night)
    finally:
        if not args.keep_dbs:
            drop_database(name)
    return merge_nights(nights)


def unique(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list({json.dumps(spec, sort_keys=True): spec for spec in specs}.values())


def merge_truths(truths: list[dict[str, Any]]) -> dict[str, Any]:
    """A series' ground truth: each scenario's subjects (the same every night, else the cast
    changed: an error), its specs over the nights (expected on any night: expected; tolerated on
    some and expected on none: tolerated) and each night's stats."""
    scenarios = []
    for items in zip(*(truth["scenarios"] for truth in truths), strict=True):
        first = items[0]
        if any(i["scenario"] != first["scenario"] or i["subjects"] != first["subjects"] for i in items):
            raise ValueError(f"{first['scenario']}: the cheaters changed from one night to the next")
        expected = unique([spec for item in items for spec in item["expected"]])
        tolerated = [
            spec for spec in unique([s for item in items for s in item["tolerated"]]) if spec not in expected
        ]
        stats = [item["stats"] for item in items]
        scenarios.append({**first, "expected": expected, "tolerated": tolerated, "stats": stats})
    return {**truths[0], "gaming_days": [truth["gaming_day"] for truth in truths], "scenarios": scenarios}


def merge_nights(nights: list[dict[str, Any]]) -> dict[str, Any]:
    """A series as one result for ``score``: every night's alerts tagged with ``night`` (1..N)."""
    first = nights[0]
    return {
        "seed": first["seed"],
        "injected": first["injected"],
        "tables": first["tables"],
        "nights": len(nights),
        "alerts": [{**alert, "night": k} for k, night in enumerate(nights, 1) for alert in night["alerts"]],
        "truth": merge_truths([night["truth"] for night in nights]) if first["truth"] else None,
        "per_night": nights,
    }


def new_database(args: argparse.Namespace, name: str) -> None:
    if not database_exists(template_db(args)):
        raise RuntimeError("the template database is missing")
    create_database(name, template=template_db(args))


def simulate(
    args: argparse.Namespace,
    name: str,
    result: Path,
    seed: int,
    injected: bool,
    extra: list[str] | None = None,
) -> None:
    """A night in database ``name`` by a child process; ``extra``: its ``--day`` and ``--cast-seed``."""
    command = [
        sys.executable,
        "-m",
        "bench.detection_bench",
        "--child",
        "simulate",
        "--seed",
        str(seed),
        "--tables",
        str(args.tables),
        "--players",
        str(args.players),
        "--rounds",
        str(args.rounds),
        "--stakes-rounds",
        str(args.stakes_rounds),
        "--inject",
        args.inject if injected else "",
        "--result",
        str(result),
        *(extra or []),
    ]
    subprocess.run(command, cwd=ROOT, env=child_env(name), check=True, timeout=NIGHT_TIMEOUT)


def detect(name: str, result: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "bench.detection_bench", "--child", "detect", "--result", str(result)],
        cwd=ROOT,
        env=child_env(name),
        check=True,
        timeout=NIGHT_TIMEOUT,
    )


def scaled_inject(text: str, scale: float) -> str:
    """``--inject`` with every rate times ``scale`` (kept in (0, 1]); the same text at scale 1."""
    if scale == 1.0:
        return text
    parts = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, rate = part.partition(":")
        parts.append(f"{name}:{min(1.0, max(0.01, float(rate or 1) * scale)):g}")
    return ",".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--on",
        choices=["test", "tuning"],
        default="test",
        help="which seeds to run: test (report these) or tuning (choose thresholds on these)",
    )
    parser.add_argument("--tuning-seeds", default=TUNING_SEEDS)
    parser.add_argument(
        "--test-seeds",
        default=TEST_SEEDS,
        help=f"the seeds reported as quality ({TEST_SEEDS}; {SPENT_SEEDS}: spent, seen before a rule change)",
    )
    parser.add_argument("--seeds", default="", help="comma list of night seeds (overrides --on)")
    parser.add_argument(
        "--db-prefix",
        default=DB_PREFIX,
        help="prefix of the throwaway databases (env DETECT_BENCH_DB_PREFIX), so runs do not collide",
    )
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=8, help="passes over the tables")
    parser.add_argument("--stakes-rounds", type=int, default=6, help="card-room rounds per pass")
    parser.add_argument("--inject", default=DEFAULT_INJECT)
    parser.add_argument(
        "--rate-scale", type=float, default=1.0, help="multiply every injected rate (0.5: half rates)"
    )
    parser.add_argument(
        "--days",
        type=int,
        default=1,
        help="consecutive injected nights a seed, the same cheaters every night, in one database "
        "(1: one night, as before)",
    )
    parser.add_argument(
        "--clean-days",
        type=int,
        default=None,
        help="consecutive clean nights a seed (default: --days; 0: no clean nights)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="nights (or series of nights) run at once")
    parser.add_argument(
        "--keep-dbs", action="store_true", help="keep the nights' databases (for --detect-only)"
    )
    parser.add_argument(
        "--detect-only",
        action="store_true",
        help="reuse nights kept by --keep-dbs (same seed, size and scenarios): only run the detectors again",
    )
    parser.add_argument("--output", default=str(OUTPUT))
    parser.add_argument("--rescore", action="store_true", help="score the last run's night files again")
    parser.add_argument("--child", choices=["simulate", "detect"], help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--result", default="", help=argparse.SUPPRESS)
    parser.add_argument("--day", default="", help=argparse.SUPPRESS)
    parser.add_argument("--cast-seed", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_child(args)
        return 0
    args.inject = scaled_inject(args.inject, args.rate_scale)
    chosen = args.seeds or (args.test_seeds if args.on == "test" else args.tuning_seeds)
    args.seeds = [int(s) for s in str(chosen).split(",") if s.strip()]
    tuning = {int(s) for s in str(args.tuning_seeds).split(",") if s.strip()}
    seen = tuning | {int(s) for s in SPENT_SEEDS.split(",")}
    args.seed_set = (
        "tuning" if set(args.seeds) <= tuning else "test" if not set(args.seeds) & seen else "seen"
    )
    if args.days < 1 or (args.clean_days is not None and args.clean_days < 0):
        parser.error("--days must be at least 1 and --clean-days at least 0")
    args.clean_days = args.days if args.clean_days is None else args.clean_days
    args.consecutive = max(args.days, args.clean_days) > 1
    WORK.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS)
    import django

    django.setup()
    from ledger.gaming_day import gaming_day_for

    # A series' nights are the gaming days up to yesterday's: each is over when it is detected.
    last = gaming_day_for() - dt.timedelta(days=1)
    longest = max(args.days, args.clean_days)
    args.gaming_days = [(last - dt.timedelta(days=longest - k)).isoformat() for k in range(1, longest + 1)]
    started = time.monotonic()
    variants = (False, True) if args.clean_days else (True,)
    jobs = [(seed, injected) for seed in args.seeds for injected in variants]
    run = run_series if args.consecutive else run_night
    if args.rescore and args.consecutive:
        nights = [
            merge_nights([json.loads(path.read_text()) for path in series_files(args, s, i)[1]])
            for s, i in jobs
        ]
    elif args.rescore:
        nights = [json.loads((WORK / f"{night_name(args, s, i)}.json").read_text()) for s, i in jobs]
    else:
        signal.alarm(NIGHT_TIMEOUT * len(jobs) * longest)
        if not args.detect_only or not database_exists(template_db(args)):
            prepare_template(args)
        try:
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                nights = list(pool.map(lambda job: run(args, *job), jobs))
        finally:
            signal.alarm(0)
            if not args.keep_dbs:
                drop_database(template_db(args))
    scored = score(nights)
    text = report(args, nights, scored, time.monotonic() - started)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
