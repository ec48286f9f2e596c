"""What keeps one audit run honest while it lasts: its advisory lock, its heartbeat, its progress.

``tables.audit.services`` uses these around the computation: the lock makes one run per report
at a time (and tells the sweep whether a silent run's session is still there), the heartbeat
shows a worker alive through long steps, and progress goes to the Celery task and to the row.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import DatabaseError, connection, connections
from django.utils import timezone

from tables import sql
from tables.audit.models import AuditReport, AuditStatus

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]

LOCK_CLASS = 0x41554454  # "AUDT": advisory-lock namespace for one audit run per report


class AuditBusy(Exception):
    """Another session holds the report's audit lock: a twin delivery runs, or a dead worker's
    session has not been reaped yet. The task retries later rather than dropping the audit."""


@contextlib.contextmanager
def audit_lock(report_id: int) -> Iterator[bool]:
    """A PostgreSQL session lock: one run per report at a time, released if the worker dies."""
    with connection.cursor() as cursor:
        cursor.execute(sql.AUDIT_TRY_LOCK, [LOCK_CLASS, report_id])
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute(sql.AUDIT_UNLOCK, [LOCK_CLASS, report_id])


class Progress:
    """Reports (done, total) to the task and to the report row, a few times a second at most.

    Steps may come from the audit's SQL thread too; only the thread that created the tracker
    reports (a Celery task's ``update_state`` knows its task only in the task's own thread).
    """

    def __init__(self, report_id: int, callback: ProgressCallback | None, every: float = 0.5) -> None:
        self.report_id = report_id
        self.callback = callback
        self.every = every
        self.done = 0
        self.total = 0
        self._last = 0.0
        self._lock = threading.Lock()
        self._owner = threading.get_ident()

    def set_total(self, total: int) -> None:
        self.total = total
        self._emit(force=True)

    def step(self, n: int = 1) -> None:
        with self._lock:
            self.done = min(self.done + n, self.total) if self.total else self.done + n
        if threading.get_ident() == self._owner:
            self._emit()

    def finish(self) -> None:
        self.done = self.total
        self._emit(force=True)

    def _emit(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.every and self.done < self.total:
            return
        self._last = now
        AuditReport.objects.filter(pk=self.report_id).update(
            progress_done=self.done, progress_total=self.total, heartbeat_at=timezone.now()
        )
        if self.callback is not None:
            self.callback(self.done, self.total)


class Heartbeat:
    """Writes the report's ``heartbeat_at`` every ``AUDIT_HEARTBEAT_SECONDS`` while the run lasts.

    From a thread of its own, so a long step (a slow SQL section, a wait for a lock) does not
    look like a dead worker; a killed worker stops beating, and ``sweep_audits`` restarts its
    run once the beat is ``AUDIT_STALE_SECONDS`` old. Inside a transaction (tests calling
    ``run_audit`` directly) another connection would not see the row: progress beats alone.
    """

    def __init__(self, report_id: int) -> None:
        self.report_id = report_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"audit-heartbeat-{report_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        if not connection.in_atomic_block:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.AUDIT_HEARTBEAT_SECONDS):
                try:
                    AuditReport.objects.filter(pk=self.report_id, status=AuditStatus.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:
                    logger.warning("audit report %s: heartbeat not written", self.report_id, exc_info=True)
        finally:
            connections.close_all()  # this thread's connections only
