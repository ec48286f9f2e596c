"""Beat runs detection for the day that ended after its audit, and the day in progress often."""

from __future__ import annotations

import datetime as dt

from django.conf import settings


def test_beat_runs_detection_after_the_audit_and_live_during_the_day() -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    audit, detect = schedule["gaming-day-audit"]["schedule"], schedule["gaming-day-detection"]["schedule"]
    audit_at = dt.time(next(iter(audit.hour)), next(iter(audit.minute)))
    detect_at = dt.time(next(iter(detect.hour)), next(iter(detect.minute)))
    assert detect_at > audit_at
    assert (
        schedule["gaming-day-detection"]["task"] == "tables.detection.tasks.detect_previous_gaming_day_task"
    )
    assert schedule["live-detection"]["task"] == "tables.detection.tasks.detect_live_task"
    assert schedule["live-detection"]["schedule"] == settings.DETECT_LIVE_MINUTES * 60.0
    assert "tables.detection.tasks" in settings.CELERY_IMPORTS


def test_every_threshold_is_a_setting() -> None:
    from tables.detection import base

    names = [name for name in dir(settings) if name.startswith("DETECT_")]
    assert len(names) >= 30
    assert base.threshold("SPLIT_Z") == settings.DETECT_SPLIT_Z
