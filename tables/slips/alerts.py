"""Alerts written with a slip: a count off the ledger's tray by more than the pit lets pass.

A detector finds patterns after the fact (tables.detection); a count's variance is known the
moment the slip is written, so its alert is written in the same transaction, one per slip
(``dedup_key`` names the slip). Over ``COUNT_VARIANCE_NOTE`` it is a ``count_variance``; at
``REPORTABLE_VARIANCE`` or more a ``reportable_variance`` (severity high), which the audit
report lists with its slip. Either stays open until a pit boss resolves it with a note.
"""

from __future__ import annotations

from django.conf import settings

from casino.money import format_dollars
from tables.detection.models import SLIP_ALERT_KINDS, Alert
from tables.slips.models import Slip

COUNT_VARIANCE = "count_variance"
REPORTABLE_VARIANCE = "reportable_variance"
DETECTOR = "slips"  # what raised it, in ``Alert.detector``

KIND_IN_WORDS = {"opener": "opening count", "closer": "closing count", "count": "count"}


def variance_kind(variance: int | None) -> str | None:
    """The alert a count's variance raises, or None when it is within what the pit lets pass."""
    if variance is None or abs(variance) <= settings.COUNT_VARIANCE_NOTE:
        return None
    return REPORTABLE_VARIANCE if abs(variance) >= settings.REPORTABLE_VARIANCE else COUNT_VARIANCE


def variance_summary(slip: Slip, table_name: str) -> str:
    """ "Closing count X-2026-000004 at Faro 1 is $150.00 short: counted $850.00, the ledger's
    tray $1,000.00." """
    variance = slip.variance or 0
    what = KIND_IN_WORDS.get(slip.kind, slip.kind)
    return (
        f"{what[0].upper()}{what[1:]} {slip.number} at {table_name} is {format_dollars(abs(variance))} "
        f"{'over' if variance > 0 else 'short'}: counted {format_dollars(slip.amount)}, "
        f"the ledger's tray {format_dollars(slip.expected)}."
    )


def raise_variance_alert(slip: Slip) -> Alert | None:
    """The slip's variance alert, if its variance calls for one. Call in the slip's transaction."""
    kind = variance_kind(slip.variance)
    if kind is None or slip.table is None:
        return None
    return Alert.objects.create(
        kind=kind,
        detector=DETECTOR,
        severity=SLIP_ALERT_KINDS[kind],
        table=slip.table,
        dealer_id=slip.table.dealer_id,
        gaming_day=slip.gaming_day,
        summary=variance_summary(slip, slip.table.name)[:300],
        evidence={
            "slip": slip.number,
            "slip_id": slip.pk,
            "slip_kind": slip.kind,
            "session": slip.session_id,
            "counted": slip.amount,
            "expected": slip.expected,
            "variance": slip.variance,
        },
        dedup_key=f"{kind}:{slip.number}",
    )
