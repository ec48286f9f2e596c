"""Writes for detection: run detectors into Alert rows (idempotently), resolve an alert."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.models import Role, User
from casino.permissions import require_role
from casino.replica import primary_position, replica_else_primary
from tables.detection.base import Finding, Window
from tables.detection.detectors import DETECTORS
from tables.detection.models import Alert, AlertStatus
from tables.ratings.services import rate_unrated_rounds

logger = logging.getLogger(__name__)
NOTE_MAX = 2000


class UnknownDetector(ValidationFailed):
    code = "unknown_detector"


def dedup_key(*, kind: str, day: dt.date, subject: str) -> str:
    return f"{kind}:{day.isoformat()}:{subject}"[:200]


def check_names(names: Sequence[str] | None) -> list[str]:
    if names is None:
        return list(DETECTORS)
    unknown = [n for n in names if n not in DETECTORS]
    if unknown:
        raise UnknownDetector(
            f"No detector named {', '.join(unknown)}; there are {', '.join(DETECTORS)}.",
            fields={"names": unknown},
        )
    return list(names)


def run_detectors(
    *, day: dt.date, names: Sequence[str] | None = None, live: bool = False
) -> dict[str, dict[str, Any]]:
    """Run detectors over a gaming day and upsert their findings; safe to run again and again.

    The window's settled rounds are rated first (``rate_unrated_rounds``), so each detector
    only reads: the figures are the ratings' rows. Each detector's findings are written in one
    transaction of its own, so a detector that fails leaves the others' alerts in place (its
    error is in the summary and the log, and the exception is raised again once the others
    have run). A detector's reads go to the reports' replica once it has replayed those
    ratings, else to the primary (``casino.replica``).
    """
    window = Window.for_day(day, live=live)
    # Detectors read the ratings' rows; a round whose rating task lags or was lost is rated now.
    rate_unrated_rounds(ended_from=window.start, ended_before=window.end)
    rated = primary_position()
    summary: dict[str, dict[str, Any]] = {}
    failed: Exception | None = None
    for name in check_names(names):
        started = time.monotonic()
        try:
            findings = replica_else_primary(partial(DETECTORS[name], window), after=rated)
            created, updated = save_findings(detector=name, day=day, findings=findings)
        except Exception as error:  # one detector's bug must not silence the others
            logger.exception("detector %s failed for %s", name, day)
            summary[name] = {"error": f"{type(error).__name__}: {error}"}
            failed = failed or error
            continue
        summary[name] = {
            "findings": len(findings),
            "created": created,
            "updated": updated,
            "seconds": round(time.monotonic() - started, 3),
        }
    if failed is not None:
        raise failed
    return summary


@transaction.atomic
def save_findings(*, detector: str, day: dt.date, findings: Sequence[Finding]) -> tuple[int, int]:
    """Insert new findings, update the evidence of findings seen before (status is kept)."""
    created = updated = 0
    for finding in findings:
        key = dedup_key(kind=finding.kind, day=day, subject=finding.subject)
        fields = {
            "severity": finding.severity,
            "summary": finding.summary[:300],
            "evidence": finding.evidence,
            "table_id": finding.table_id,
            "dealer_id": finding.dealer_id,
            "player_id": finding.player_id,
        }
        existing = Alert.objects.select_for_update().filter(dedup_key=key).first()
        if existing is None:
            try:
                with transaction.atomic():
                    Alert.objects.create(
                        dedup_key=key, kind=finding.kind, detector=detector, gaming_day=day, **fields
                    )
                created += 1
                continue
            except IntegrityError:  # another run inserted it first: update theirs
                existing = Alert.objects.select_for_update().get(dedup_key=key)
        Alert.objects.filter(pk=existing.pk).update(
            **fields, detections=F("detections") + 1, updated_at=timezone.now()
        )
        updated += 1
    return created, updated


@transaction.atomic
def resolve_alert(*, actor: User, alert_id: int, note: Any) -> Alert:
    """A pit boss closes an alert with a note saying what was found; once only."""
    require_role(actor, Role.PIT_BOSS)
    if not isinstance(note, str) or not note.strip():
        raise ValidationFailed("Say what you found in a note.", fields={"note": "required"})
    if len(note) > NOTE_MAX:
        raise ValidationFailed(
            f"A note is at most {NOTE_MAX} characters.", fields={"note": f"at most {NOTE_MAX}"}
        )
    alert = Alert.objects.select_for_update().filter(pk=alert_id).first()
    if alert is None:
        raise NotFound("No such alert.")
    if alert.status == AlertStatus.RESOLVED:
        raise Conflict("This alert is already resolved.", code="already_resolved")
    alert.status = AlertStatus.RESOLVED
    alert.resolved_by = actor
    alert.resolved_at = timezone.now()
    alert.note = note.strip()
    alert.save(update_fields=["status", "resolved_by", "resolved_at", "note", "updated_at"])
    record_action(
        actor=actor, action="alert.resolved", obj=alert, data={"kind": alert.kind, "note": alert.note}
    )
    return alert
