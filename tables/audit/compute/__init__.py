"""Compute a gaming day's audit report from the ledger, the counts and the rounds.

One module per section: ``tables`` (the count against the ledger), ``people`` (handle, win and
theo by table, player and dealer, read from the ratings' rows; time at the tables), ``cage``
(cash, CTR and MTL, cash flow), ``ledger`` (trial balance, zero-sum, stored balances,
settlements and reversals), ``rounds`` (replay, commitments), ``corrections``, ``slips`` (the
pit's books: series, voids, variances, chips in transit), ``win_report`` (the drop boxes, win and
hold as the regulator reads them, holds outside their band); ``assemble``
builds the report dict. Each section fills in one ``AuditState``; a section that raises
becomes a finding and the others still run.

Everything after the ratings is reads: they go to the reports' replica (``casino.replica``) once
it has replayed the close and the ratings, else to the primary; should the replica fail under
them, the whole computation runs again on the primary.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from casino.replica import primary_position, replica_else_primary, replica_failed
from ledger.gaming_day import gaming_day_bounds
from tables.audit import report as shape
from tables.audit.compute.assemble import assemble
from tables.audit.compute.cage import section_cage, section_cash_flow
from tables.audit.compute.cash import section_cash_reporting
from tables.audit.compute.corrections import section_corrections
from tables.audit.compute.credit import section_credit
from tables.audit.compute.ledger import (
    section_account_balances,
    section_settlements_vs_ledger,
    section_trial_balance,
    section_zero_sum,
)
from tables.audit.compute.people import load_people, section_figures, section_time
from tables.audit.compute.rounds import load_rounds, section_rounds
from tables.audit.compute.slips import section_slips
from tables.audit.compute.state import AuditState, ProgressSink
from tables.audit.compute.tables import finish_tables, section_tables
from tables.audit.compute.win_report import section_drop_and_win
from tables.ratings.services import rate_unrated_rounds

logger = logging.getLogger(__name__)

Section = Callable[[AuditState], None]

# The sections that only read SQL; they run in a thread of their own while the rounds replay.
LEDGER_SECTIONS: list[tuple[str, Section]] = [
    ("tables", section_tables),
    ("figures", section_figures),
    ("time", section_time),
    ("cage", section_cage),
    ("cash reporting", section_cash_reporting),
    ("cash flow", section_cash_flow),
    ("trial balance", section_trial_balance),
    ("transfers", section_zero_sum),
    ("accounts", section_account_balances),
    ("settlements vs ledger", section_settlements_vs_ledger),
    ("corrections", section_corrections),
    ("slips", section_slips),
    ("credit", section_credit),
    ("drop and win", section_drop_and_win),
]
SECTIONS = len(LEDGER_SECTIONS) + 1  # progress steps besides one per replayed round: + table results
CHECK_ORDER = (
    "trial_balance",
    "zero_sum",
    "account_balances",
    "settlements_vs_ledger",
    "round_replay",
    "commitments",
    "rounds_finished",
    "slip_series",
)


def compute_audit(
    *, day: dt.date, progress: ProgressSink | None = None, closed_at: dt.datetime | None = None
) -> dict[str, Any]:
    """The whole report for ``day`` as a JSON-ready dict (tables.audit.report.ReportData)."""
    began = time.monotonic()
    start, end = gaming_day_bounds(day)
    # Handle, win and theo are the ratings' rows: a round whose rating lags or was lost is rated now.
    rate_unrated_rounds(ended_from=start, ended_before=end)
    return replica_else_primary(
        lambda: _compute(day, progress=progress, closed_at=closed_at, began=began), after=primary_position()
    )


def _compute(
    day: dt.date, *, progress: ProgressSink | None, closed_at: dt.datetime | None, began: float
) -> dict[str, Any]:
    start, end = gaming_day_bounds(day)
    now = timezone.now()
    audit = AuditState(
        day=day,
        start=start,
        end=end,
        as_of=end if end <= now else None,
        zone=ZoneInfo(settings.CASINO_TIME_ZONE),
        progress=progress,
    )
    load_people(audit)
    load_rounds(audit)
    if progress is not None:
        progress.set_total(len(audit.rounds) + SECTIONS)
    if connection.in_atomic_block:
        # Inside a caller's transaction another connection would not see its rows: one thread.
        _run_sections(audit, LEDGER_SECTIONS)
        _run_sections(audit, [("rounds", section_rounds)])
    else:
        # The replay is Python on this core; the ledger's sums are PostgreSQL's work on another.
        # The SQL sections run meanwhile in a thread with its own connection, in this block's
        # context (where its reads go); a replica failure there is raised here.
        failed: list[BaseException] = []
        worker = threading.Thread(
            target=contextvars.copy_context().run,
            args=(_run_sections, audit, LEDGER_SECTIONS),
            kwargs={"own_connection": True, "failed": failed},
            daemon=True,
        )
        worker.start()
        try:
            _run_sections(audit, [("rounds", section_rounds)])
        finally:
            worker.join()
        if failed:
            raise failed[0]
    _run_sections(audit, [("table results", finish_tables)])
    audit.checks.sort(key=lambda c: CHECK_ORDER.index(c["name"]) if c["name"] in CHECK_ORDER else 99)
    return assemble(audit, began=began, closed_at=closed_at)


def _run_sections(
    audit: AuditState,
    sections: list[tuple[str, Section]],
    *,
    own_connection: bool = False,
    failed: list[BaseException] | None = None,
) -> None:
    """Run sections in order; one that fails becomes a finding and the others still run. The
    replica failing under one is no finding: it is raised (into ``failed``, from a thread), and
    the computation runs again on the primary."""
    try:
        for label, section in sections:
            try:
                section(audit)
            except Exception as error:
                if replica_failed(error):
                    if failed is None:
                        raise
                    failed.append(error)
                    return
                logger.exception("audit section %s failed for %s", label, audit.day)
                audit.add(
                    shape.finding(
                        "audit_section_failed",
                        "critical",
                        f"The {label} section could not be computed: {type(error).__name__}: {error}",
                        evidence={"section": label},
                    )
                )
            if section is not section_rounds:
                audit.step()
    finally:
        if own_connection:
            connections.close_all()  # this thread's connections only
