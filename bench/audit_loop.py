"""The audit reading while the floor plays: ``compute_audit`` of today's gaming day, back to back.

    .venv/bin/python -m bench.audit_loop SECONDS      # env: the served app's (DATABASE_URL ...)

Run by ``bench/run-floor --audit-on primary|replica`` beside the floor's load, at the audit
pool's niceness, in a process of its own as the audit's worker pool is. With
``REPLICA_DATABASE_URL`` in its environment its reads go to the replica (``casino.replica``), else
to the primary. Prints one JSON line: each run's seconds, and the statements it ran on the
replica (counted on this thread's replica connection: the rounds' replay and its loads).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any


def main(seconds: float) -> dict[str, Any]:
    import django

    django.setup()
    from django.db import connections

    from casino import replica
    from ledger.gaming_day import gaming_day_for
    from tables.audit.compute import compute_audit

    counted = {"replica": 0}

    def count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        counted["replica"] += 1
        return execute(sql, params, many, context)

    runs: list[dict[str, Any]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        counted["replica"] = 0
        started = time.monotonic()
        if replica.configured():
            with connections[replica.REPLICA].execute_wrapper(count):
                compute_audit(day=gaming_day_for())
        else:
            compute_audit(day=gaming_day_for())
        runs.append({"seconds": time.monotonic() - started, "on_replica": counted["replica"]})
    return {"runs": runs}


if __name__ == "__main__":
    print(json.dumps(main(float(sys.argv[1]))))
