"""Celery: the broker and results on Redis, how sends time out, and the whole beat schedule."""

from celery.schedules import crontab
from kombu import Exchange, Queue

from casino.settings.audit import AUDIT_MINUTES_AFTER_ROLLOVER, AUDIT_QUEUE, AUDIT_SWEEP_SECONDS
from casino.settings.detection import DETECTION
from casino.settings.environment import CASINO_TIME_ZONE, GAMING_DAY_ROLLOVER_HOUR, REDIS_URL, env

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis has no real acks: a task a worker took (acks_late) and never acknowledged, because the
# whole worker died, goes back to its queue once it has been out this many seconds (the next
# worker to start, or any worker's periodic sweep, restores it). Keep it above the longest task
# (the audit: above its hard time limit, AUDIT_TIME_LIMIT_SECONDS + AUDIT_TIME_LIMIT_GRACE_SECONDS;
# the system check tables.E001 refuses less); a redelivery of a task still running is harmless
# but wasted. Tests set it low.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = True
CELERY_RESULT_EXTENDED = True
# casino.task_sending: a send from a request or a commit hook gets one try whose sockets time
# out after this many seconds (connect, then publish), so a broker outage never holds it up.
TASK_SEND_TIMEOUT_SECONDS = env.float("TASK_SEND_TIMEOUT_SECONDS", default=0.2)
# The Redis result backend subscribes to a task's result as the task is sent (unless the send
# ignores the result) and, Redis down, retried 20 times a second apart: a 19 s wait. One quick
# retry and a short connect instead; casino.task_sending logs the failure.
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = TASK_SEND_TIMEOUT_SECONDS
CELERY_TIMEZONE = CASINO_TIME_ZONE
# One queue per kind of work, and one worker pool per queue in deploy/ (compose, systemd, Procfile):
# a night's audit or detection never holds up the pit's floor refresh or the ratings. ``floor``
# has the pit's shared floor and the quick housekeeping beat sends, the audit's sweep and its
# nightly request among them (the default: a task routed nowhere else is a quick one); ``ratings``
# a settled round's rating and the ratings' sweep; ``audit`` (AUDIT_QUEUE) an audit's run and its
# files; ``detection`` every run of the detectors. A worker started without -Q (the demo, a
# developer's) consumes all four.
FLOOR_QUEUE, RATINGS_QUEUE, DETECTION_QUEUE = "floor", "ratings", "detection"
CELERY_TASK_DEFAULT_QUEUE = FLOOR_QUEUE
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name), routing_key=name)
    for name in (FLOOR_QUEUE, RATINGS_QUEUE, AUDIT_QUEUE, DETECTION_QUEUE)
]
CELERY_TASK_ROUTES = {
    "tables.tasks.rate_round_task": {"queue": RATINGS_QUEUE},
    "tables.tasks.rate_unrated_rounds_task": {"queue": RATINGS_QUEUE},
    "tables.audit.tasks.run_audit_task": {"queue": AUDIT_QUEUE},
    "tables.audit.tasks.render_report_files_task": {"queue": AUDIT_QUEUE},
    "tables.detection.tasks.*": {"queue": DETECTION_QUEUE},
    "*": {"queue": FLOOR_QUEUE},
}
# Task modules that are not an app's tasks.py, so autodiscovery would miss them.
CELERY_IMPORTS = ["tables.audit.tasks", "tables.detection.tasks", "tables.console.pit.tasks"]

# Ratings sweep (tables.ratings.services.rate_unrated_rounds): settled rounds with no stats yet,
# whose task a broker outage lost. Rounds settled in the last GRACE seconds are left to their
# own task; only the last LOOKBACK hours are walked, at most BATCH rounds a run.
RATINGS_SWEEP_SECONDS = env.float("RATINGS_SWEEP_SECONDS", default=30.0)
RATINGS_SWEEP_GRACE_SECONDS = env.float("RATINGS_SWEEP_GRACE_SECONDS", default=15.0)
RATINGS_SWEEP_LOOKBACK_HOURS = env.float("RATINGS_SWEEP_LOOKBACK_HOURS", default=24.0)
RATINGS_SWEEP_BATCH = env.int("RATINGS_SWEEP_BATCH", default=500)
# How often beat looks for fills and credits in transit too long (tables.slips.transit_alerts).
SLIPS_IN_TRANSIT_SWEEP_SECONDS = env.float("SLIPS_IN_TRANSIT_SWEEP_SECONDS", default=60.0)


def _after_rollover(minutes: int) -> crontab:
    """Daily, ``minutes`` after the gaming day's rollover hour."""
    return crontab(hour=(GAMING_DAY_ROLLOVER_HOUR + minutes // 60) % 24, minute=minutes % 60)


CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "time-rake": {"task": "tables.tasks.charge_time_rake_task", "schedule": 60.0},
    "expire-holds": {"task": "tables.tasks.expire_holds_task", "schedule": 300.0},
    "purge-expired-tokens": {"task": "casino.tasks.purge_expired_tokens_task", "schedule": 3600.0},
    "purge-idempotency-records": {
        "task": "casino.tasks.purge_idempotency_records_task",
        "schedule": 3600.0,
    },
    "ratings-sweep": {
        "task": "tables.tasks.rate_unrated_rounds_task",
        "schedule": RATINGS_SWEEP_SECONDS,
        "options": {"expires": RATINGS_SWEEP_SECONDS},  # a run queued behind a stopped worker is dropped
    },
    # A fill or credit in transit past SLIP_TRANSIT_MINUTES (casino/settings/books.py) raises an
    # alert; each slip once, so a run queued behind a stopped worker is dropped, not stacked.
    "slips-in-transit": {
        "task": "tables.tasks.alert_slips_in_transit_task",
        "schedule": SLIPS_IN_TRANSIT_SWEEP_SECONDS,
        "options": {"expires": SLIPS_IN_TRANSIT_SWEEP_SECONDS},
    },
    # A drop box at its table past DROP_BOX_OVERDUE_DAYS gaming days (casino/settings/books.py)
    # raises an alert; each box once.
    "drop-boxes-overdue": {
        "task": "tables.tasks.alert_drop_boxes_overdue_task",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "audit-sweep": {"task": "tables.audit.tasks.sweep_audits_task", "schedule": AUDIT_SWEEP_SECONDS},
    "gaming-day-audit": {
        "task": "tables.audit.tasks.audit_previous_gaming_day_task",
        "schedule": _after_rollover(AUDIT_MINUTES_AFTER_ROLLOVER),
    },
    "gaming-day-detection": {
        "task": "tables.detection.tasks.detect_previous_gaming_day_task",
        "schedule": _after_rollover(int(DETECTION["MINUTES_AFTER_ROLLOVER"])),
    },
}
if DETECTION["LIVE_MINUTES"]:
    CELERY_BEAT_SCHEDULE["live-detection"] = {
        "task": "tables.detection.tasks.detect_live_task",
        "schedule": DETECTION["LIVE_MINUTES"] * 60.0,
    }
