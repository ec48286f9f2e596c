"""Hold investigations: the audit opens an alert for each table or game whose month-to-date hold
left its 95 % band (``tables.audit.compute.win.hold_band``; docs/ledger.md "Win as the regulator
reads it"). A pit boss closes it only with a written note (``tables.detection.services.resolve_alert``).

One alert per table or game and gaming day (``dedup_key``): rerunning a day's audit updates the
open alert's evidence, and leaves a resolved one as it was resolved.
"""

from __future__ import annotations

import datetime as dt

from tables.audit import report as shape
from tables.audit.compute.win_report import investigation_summary
from tables.detection.models import AUDIT_ALERT_KINDS, Alert, AlertStatus

KIND = "hold_investigation"
DETECTOR = "audit"


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 2)


def raise_hold_investigations(*, day: dt.date, checks: list[shape.HoldCheckData]) -> list[Alert]:
    """The day's hold investigations, opened or brought up to date. Call in a transaction."""
    alerts = []
    for check in checks:
        if not check["outside"]:
            continue
        evidence = {
            "scope": check["scope"],
            "key": check["key"],
            "label": check["label"],
            "month": day.strftime("%Y-%m"),
            "drop": check["drop"],
            "win": check["win"],
            "hold_pct": _pct(check["hold"]),
            "expected_hold_pct": _pct(check["expected_hold"]),
            "low_pct": _pct(check["low"]),
            "high_pct": _pct(check["high"]),
            "basis": check["basis"],
        }
        key = f"{KIND}:{check['scope']}:{check['key']}:{day.isoformat()}"
        alert = Alert.objects.select_for_update().filter(dedup_key=key).first()
        if alert is None:
            alert = Alert.objects.create(
                kind=KIND,
                detector=DETECTOR,
                severity=AUDIT_ALERT_KINDS[KIND],
                table_id=check["table"],
                gaming_day=day,
                summary=investigation_summary(check)[:300],
                evidence=evidence,
                dedup_key=key,
            )
        elif alert.status == AlertStatus.OPEN:
            alert.evidence = evidence
            alert.summary = investigation_summary(check)[:300]
            alert.detections += 1
            alert.save(update_fields=["evidence", "summary", "detections", "updated_at"])
        alerts.append(alert)
    return alerts
