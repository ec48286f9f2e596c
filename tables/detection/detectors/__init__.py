"""The detectors, by name: each reads a window and returns findings (``tables.detection.base``)."""

from __future__ import annotations

from collections.abc import Callable

from tables.detection.base import Finding, Window
from tables.detection.detectors import aml, collusion, faro, hold, limits, trays

Detector = Callable[[Window], list[Finding]]

DETECTORS: dict[str, Detector] = {
    "faro": faro.detect,
    "hold": hold.detect,
    "collusion": collusion.detect,
    "limits": limits.detect,
    "trays": trays.detect,
    "aml": aml.detect,
}

# Which detector raises which alert kinds (the bench scores detectors by these).
KINDS: dict[str, tuple[str, ...]] = {
    "faro": faro.KINDS,
    "hold": hold.KINDS,
    "collusion": collusion.KINDS,
    "limits": limits.KINDS,
    "trays": trays.KINDS,
    "aml": aml.KINDS,
}
DETECTOR_OF_KIND = {kind: name for name, kinds in KINDS.items() for kind in kinds}

# The evidence keys of each kind that hold cents, for screens that show evidence in dollars.
MONEY_EVIDENCE: dict[str, frozenset[str]] = {
    kind: module.MONEY for module in (aml, collusion, faro, hold, limits, trays) for kind in module.KINDS
}
