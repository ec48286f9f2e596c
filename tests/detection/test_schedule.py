"""Beat runs detection for the day that ended after its audit, and the day in progress often."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


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
    assert schedule["live-detection"]["schedule"] == settings.DETECTION["LIVE_MINUTES"] * 60.0
    assert "tables.detection.tasks" in settings.CELERY_IMPORTS


def test_every_threshold_is_a_key_of_detection_read_from_its_own_env_variable() -> None:
    """Deployments set ``DETECT_<KEY>``: each key must still be read from exactly that name."""
    keys = sorted(settings.DETECTION)
    assert len(keys) >= 30
    assert not [name for name in dir(settings) if name.startswith("DETECT_")]  # one dict, no loose names
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.DETECTION))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.test"}
    env.update({f"DETECT_{key}": "7" for key in keys})  # 7 parses as an int and as a float
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(result.stdout.strip().splitlines()[-1]) == dict.fromkeys(keys, 7)


def test_every_threshold_a_detector_asks_for_exists() -> None:
    """A misspelt key would only fail when its rule first runs on a real night."""
    from tables.detection import base

    asked = {
        name
        for path in (ROOT / "tables" / "detection").rglob("*.py")
        for name in re.findall(r'threshold\("([A-Z_]+)"\)', path.read_text())
    }
    assert len(asked) >= 30
    assert asked <= set(settings.DETECTION)
    assert base.threshold("FDR") == settings.DETECTION["FDR"]


def test_deploy_readme_lists_every_detection_variable() -> None:
    text = (ROOT / "deploy" / "README.md").read_text()
    assert [key for key in settings.DETECTION if f"`DETECT_{key}`" not in text] == []
