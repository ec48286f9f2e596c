"""Celery entry points for detection; each calls ``run_detectors`` (idempotent, so acks_late is safe)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from celery import shared_task

from ledger.gaming_day import gaming_day_for
from tables.detection.services import run_detectors


@shared_task(acks_late=True)
def run_detector_task(name: str, day: str) -> dict[str, Any]:
    """One detector over one gaming day (``YYYY-MM-DD``)."""
    return run_detectors(day=dt.date.fromisoformat(day), names=[name])


@shared_task(acks_late=True)
def run_detectors_task(day: str, names: list[str] | None = None, live: bool = False) -> dict[str, Any]:
    """Several detectors (all by default) over one gaming day."""
    return run_detectors(day=dt.date.fromisoformat(day), names=names, live=live)


@shared_task(acks_late=True)
def detect_previous_gaming_day_task() -> dict[str, Any]:
    """Beat, after the audit: every detector over the gaming day that just ended."""
    day = gaming_day_for() - dt.timedelta(days=1)
    return run_detectors(day=day)


@shared_task(acks_late=True)
def detect_live_task() -> dict[str, Any]:
    """Beat, every few minutes: the day in progress (end-of-day rules wait for the day's end)."""
    return run_detectors(day=gaming_day_for(), live=True)
