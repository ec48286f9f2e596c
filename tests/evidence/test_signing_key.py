"""A deployment without a signing key is refused by ``check --deploy``, and no day closes unsigned."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from tables.evidence.keys import signing_key

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_refuses_production_without_a_signing_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "EVIDENCE_SIGNING_KEY"}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings.production",
        SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="floor.example.com",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert result.returncode != 0
    assert "tables.E010" in result.stderr
    assert "EVIDENCE_SIGNING_KEY is not set" in result.stderr


@pytest.mark.parametrize("key", ["", "not base64!", "c2hvcnQ="])
def test_no_checkpoint_is_signed_without_a_usable_key(key: str) -> None:
    with (
        override_settings(EVIDENCE_SIGNING_KEY=key),
        pytest.raises(ImproperlyConfigured, match="EVIDENCE_SIGNING_KEY"),
    ):
        signing_key()
