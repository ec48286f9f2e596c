"""Every alert kind the floor raises: the detectors' (tables.detection.detectors), those
written with a slip the moment its count is off (tables.slips.alerts), and the audit's
(tables.audit.investigations).

The alerts API filters and describes kinds by ``ALERT_KINDS``; screens write evidence in dollars
by ``MONEY_OF_KIND``. A new source of alerts adds its kinds here.
"""

from __future__ import annotations

from tables.detection.detectors import DETECTOR_OF_KIND, MONEY_EVIDENCE
from tables.detection.models import (
    AUDIT_ALERT_KINDS,
    AUDIT_ALERT_MONEY,
    SLIP_ALERT_KINDS,
    SLIP_ALERT_MONEY,
)

ALERT_KINDS: tuple[str, ...] = tuple(sorted({*DETECTOR_OF_KIND, *SLIP_ALERT_KINDS, *AUDIT_ALERT_KINDS}))

MONEY_OF_KIND: dict[str, frozenset[str]] = {
    **MONEY_EVIDENCE,
    **dict.fromkeys(SLIP_ALERT_KINDS, SLIP_ALERT_MONEY),
    **dict.fromkeys(AUDIT_ALERT_KINDS, AUDIT_ALERT_MONEY),
}
