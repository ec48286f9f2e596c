"""The end-of-night audit (tables.audit) and the cash reporting lines (CTR, MTL).

Amounts in cents; every threshold is strict ("above"). Beat's schedule for the audit is in
``casino.settings.celery``.
"""

from casino.settings.environment import env

AUDIT_VARIANCE_THRESHOLD = env.int("AUDIT_VARIANCE_THRESHOLD", default=2500)  # count vs ledger, $25
CTR_THRESHOLD = env.int("CTR_THRESHOLD", default=1_000_000)  # cash in or out per player per day, $10,000
# A cash transaction of this much, or one taking a day's total past it, is a line of the
# multiple-transaction log (casino.cash), $3,000.
MTL_THRESHOLD = env.int("MTL_THRESHOLD", default=300_000)
# The audit's queue (its run, its files, its sweep), which a worker pool of its own consumes
# (casino.settings.celery routes the tasks; deploy/ starts the pool).
AUDIT_QUEUE = env("AUDIT_QUEUE", default="audit") or "audit"
# An audit whose lock is held (a twin delivery, or a dead worker's session not yet reaped)
# is retried after this many seconds instead of being acknowledged unrun.
AUDIT_BUSY_RETRY_SECONDS = env.int("AUDIT_BUSY_RETRY_SECONDS", default=20)
# Beat closes and audits the gaming day that just ended this many minutes after the rollover.
AUDIT_MINUTES_AFTER_ROLLOVER = env.int("AUDIT_MINUTES_AFTER_ROLLOVER", default=15)
# A run past this many seconds fails (soft limit, recorded on the report); the worker kills it
# GRACE seconds later. The broker's visibility_timeout must exceed both (check tables.E001).
AUDIT_TIME_LIMIT_SECONDS = env.int("AUDIT_TIME_LIMIT_SECONDS", default=1800)
AUDIT_TIME_LIMIT_GRACE_SECONDS = env.int("AUDIT_TIME_LIMIT_GRACE_SECONDS", default=60)
# A running audit writes heartbeat_at this often; one silent for AUDIT_STALE_SECONDS (several
# beats, check tables.E002) has lost its worker, and the sweep restarts it, at most
# AUDIT_MAX_RESTARTS times per close before marking it failed.
AUDIT_HEARTBEAT_SECONDS = env.float("AUDIT_HEARTBEAT_SECONDS", default=10.0)
AUDIT_STALE_SECONDS = env.float("AUDIT_STALE_SECONDS", default=60.0)
AUDIT_MAX_RESTARTS = env.int("AUDIT_MAX_RESTARTS", default=3)
# Beat: send what the broker never took (a close during an outage) and restart dead runs.
AUDIT_SWEEP_SECONDS = env.float("AUDIT_SWEEP_SECONDS", default=30.0)
