"""Bench-only settings: the app as ``casino.settings.local`` serves it, plus the calibration
routes of ``bench.rounds_calibration`` (never routed in the product)."""

from casino.settings.local import *  # noqa: F403

ROOT_URLCONF = "bench.rounds_calibration"
