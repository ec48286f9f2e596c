"""``python -m ledger.verify EXPORT.jsonl CHECKPOINT.json [PREVIOUS_CHECKPOINT.json]``

Checks a gaming day's evidence export against its signed checkpoint (and that checkpoint's link
to the previous day's) with the standard library and ``cryptography`` alone: no server, no
database, no Django. Exits 0 and prints a summary when everything holds, or 1 and names each
record that was changed, removed or added (docs/evidence.md). ``--trust KEY_ID`` (repeatable)
also requires the checkpoint to be signed by one of the casino's published keys.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ledger.evidence.verify import verify


def _load(path: str) -> dict[str, Any]:
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(document, dict):
        raise ValueError(f"{path} is not a JSON object")
    return document


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledger.verify", description=__doc__.split("\n\n")[1])
    parser.add_argument("export", help="the day's export, JSON lines")
    parser.add_argument("checkpoint", help="the day's signed checkpoint, JSON")
    parser.add_argument("previous", nargs="?", help="the previous day's checkpoint, JSON")
    parser.add_argument("--trust", action="append", default=[], metavar="KEY_ID", help="a published key id")
    args = parser.parse_args(argv)
    try:
        checkpoint = _load(args.checkpoint)
        previous = _load(args.previous) if args.previous else None
        with open(args.export, encoding="utf-8") as lines:
            report = verify(lines, checkpoint, previous, trusted_keys=args.trust)
    except (OSError, ValueError) as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    day, key = checkpoint.get("gaming_day"), checkpoint.get("key_id")
    if report.ok:
        print(f"OK: gaming day {day}, root {checkpoint.get('root')}, signed by key {key}")
        for line in report.summary():
            print(f"  {line}")
        return 0
    print(f"FAILED: gaming day {day}: {len(report.problems)} findings")
    for problem in report.problems:
        print(f"  {problem}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
