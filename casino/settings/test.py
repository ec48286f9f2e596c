"""Tests: the real PostgreSQL and Redis, fast password hashing, no throttling surprises."""

from casino.settings.base import *  # noqa: F403
from casino.settings.base import CACHES, REST_FRAMEWORK, env

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-for-production-use-0123456789"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES["default"]["KEY_PREFIX"] = env("CACHE_KEY_PREFIX", default="casekeeper-test")
# A full run signs in thousands of times a minute from one address; the throttle test sets
# its own low rate, so everywhere else the limit must never be reached.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"token": "1000000/min"}
