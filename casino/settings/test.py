"""Tests: the real PostgreSQL and Redis, fast password hashing, no lockout surprises."""

from casino.settings.base import *  # noqa: F403
from casino.settings.base import CACHES, env

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-for-production-use-0123456789"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES["default"]["KEY_PREFIX"] = env("CACHE_KEY_PREFIX", default="casekeeper-test")
# A full run signs in thousands of times a minute from one address. Only failed sign-ins count
# towards a lockout (casino/login_guard.py), and they are rows in the test database, which each
# test rolls back or flushes; tests that fail sign-ins on purpose use tests/conftest.py's
# ``reset_login_failures``. The limits stay the production ones, so tests see the real policy.
