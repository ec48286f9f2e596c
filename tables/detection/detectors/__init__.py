"""The detectors, by name: each reads a window and returns findings (``tables.detection.base``)."""

from __future__ import annotations

from collections.abc import Callable

from tables.detection.base import Finding, Window
from tables.detection.detectors import aml, collusion, faro, hold, limits, trays

Detector = Callable[[Window], list[Finding]]

# Each detector module has its ``detect``, the alert ``KINDS`` it raises and the evidence keys of
# those kinds that hold cents (``MONEY``); the tables below are read from them, in this order.
MODULES = {"faro": faro, "hold": hold, "collusion": collusion, "limits": limits, "trays": trays, "aml": aml}

DETECTORS: dict[str, Detector] = {name: module.detect for name, module in MODULES.items()}

# Which detector raises which alert kinds (the bench scores detectors by these).
KINDS: dict[str, tuple[str, ...]] = {name: module.KINDS for name, module in MODULES.items()}
DETECTOR_OF_KIND = {kind: name for name, kinds in KINDS.items() for kind in kinds}

# The evidence keys of each kind that hold cents, for screens that show evidence in dollars.
MONEY_EVIDENCE: dict[str, frozenset[str]] = {
    kind: module.MONEY for module in MODULES.values() for kind in module.KINDS
}
