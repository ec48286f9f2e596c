"""``python -m ledger.verify`` as an auditor runs it: a process where Django and psycopg cannot
even be imported, exit 0 with a summary, exit 1 naming what changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.ledger.evidence_day import a_day

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    poisoned = tmp_path / "no-django"
    for package in ("django", "psycopg", "rest_framework"):
        (poisoned / package).mkdir(parents=True, exist_ok=True)
        (poisoned / package / "__init__.py").write_text(
            f"raise ImportError('the verifier imported {package}')\n"
        )
    paths = [str(poisoned), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    command = [sys.executable, "-m", "ledger.verify", *map(str, files)]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False
    )


def test_an_untouched_day_exits_0_with_a_summary(tmp_path: Path) -> None:
    day = a_day()
    export, checkpoint = tmp_path / "evidence.jsonl", tmp_path / "checkpoint.json"
    export.write_text("\n".join(day.lines()) + "\n")
    checkpoint.write_text(json.dumps(day.checkpoint()))

    done = _run(tmp_path, export, checkpoint)

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK: gaming day 2026-12-01")
    assert "14 records (5 round_action, 9 transfer)" in done.stdout
    assert "table 1: win $20.06 at the tray" in done.stdout


def test_a_changed_record_exits_1_naming_it(tmp_path: Path) -> None:
    day = a_day()
    lines = day.lines()
    record = json.loads(lines[2])
    record["fields"]["entries"][0]["amount"] += 100
    lines[2] = json.dumps(record)
    export, checkpoint = tmp_path / "evidence.jsonl", tmp_path / "checkpoint.json"
    export.write_text("\n".join(lines) + "\n")
    checkpoint.write_text(json.dumps(day.checkpoint()))

    done = _run(tmp_path, export, checkpoint)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED: gaming day 2026-12-01" in done.stdout
    assert f"line 3: changed: transfer {record['id']} ({record['fields']['key']})" in done.stdout


def test_the_chain_to_the_previous_checkpoint_is_checked(tmp_path: Path) -> None:
    yesterday = a_day().checkpoint()
    day = a_day()
    files = [tmp_path / name for name in ("evidence.jsonl", "checkpoint.json", "previous.json")]
    files[0].write_text("\n".join(day.lines()) + "\n")
    files[1].write_text(json.dumps(day.checkpoint(previous={**yesterday, "root": "cd" * 32})))
    files[2].write_text(json.dumps(yesterday))

    done = _run(tmp_path, *files)

    assert done.returncode == 1
    assert "wrong previous root" in done.stdout
