"""Tests: the real PostgreSQL and Redis, fast password hashing, no lockout surprises."""

import os

# A test-only checkpoint key, the same in every process of a run; set in the environment, which
# settings/evidence.py reads, so the setting reaches Django as that module makes it.
os.environ.setdefault("EVIDENCE_SIGNING_KEY", "T0yRriFSZZgqnSg+A4FIS8ldcb2tANX5uhZUJgmDghY=")

from casino.settings.base import *  # noqa: F403
from casino.settings.base import CACHES, env

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-for-production-use-0123456789"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Browser tests wait on polls and fades: shorter ones, same behaviour.
CONSOLE_POLL_SECONDS = 3
RECEIPT_FADE_MS = 3000
# Each pytest-xdist worker has its own test database (pytest-django adds the worker's id to its
# name) and its own cache keys, so two workers never see each other's cached pit floor.
_XDIST_WORKER = env("PYTEST_XDIST_WORKER", default="")
CACHES["default"]["KEY_PREFIX"] = env("CACHE_KEY_PREFIX", default="casekeeper-test") + (
    f"-{_XDIST_WORKER}" if _XDIST_WORKER else ""
)
# A full run signs in thousands of times a minute from one address. Only failed sign-ins count
# towards a lockout (casino/login_guard.py), and they are rows in the test database, which each
# test rolls back or flushes; tests that fail sign-ins on purpose use tests/conftest.py's
# ``reset_login_failures``. The limits stay the production ones, so tests see the real policy.
