"""Signing in needs no cache: with Redis stopped, every sign-in path still answers as usual.

Failed sign-ins are counted in PostgreSQL (django-axes' database handler) and sessions live
in the database, so nothing on the way touches Redis. (The token endpoint's old rate limit
kept its counts in the cache, and answered 500 while Redis was down.) The Redis here is a
private ``redis-server`` on a free port, started and stopped by the test; the shared one is
never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from casino.models import Role
from tests import redis_support
from tests.factories import PASSWORD, staff
from tests.redis_support import PrivateRedis

pytestmark = pytest.mark.outage

TOKEN_URL = "/api/v1/auth/token"


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    with redis_support.private_redis(tmp_path) as server:
        server.start()
        yield server


@pytest.mark.django_db
def test_every_sign_in_path_works_while_redis_is_down(
    private_redis: PrivateRedis, settings: Any, reset_login_failures: None
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": private_redis.url,
            "KEY_PREFIX": "login-without-redis",
        }
    }
    cache.set("probe", 1)
    assert cache.get("probe") == 1  # the cache really is the private Redis
    person = staff(Role.PIT_BOSS, is_staff=True)

    private_redis.stop()
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.get("probe")

    token = APIClient().post(TOKEN_URL, {"username": person.username, "password": PASSWORD}, format="json")
    wrong = APIClient().post(TOKEN_URL, {"username": person.username, "password": "guess"}, format="json")
    console = Client().post("/console/login/", {"username": person.username, "password": PASSWORD})
    admin = Client().post("/admin/login/?next=/admin/", {"username": person.username, "password": PASSWORD})

    assert token.status_code == 200, token.content
    assert wrong.status_code == 400
    assert wrong.json()["error"]["code"] == "invalid_credentials"
    assert console.status_code == 302
    assert console["Location"] == "/console/"
    assert admin.status_code == 302
    assert admin["Location"] == "/admin/"
    signed_out = APIClient()
    signed_out.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert signed_out.delete(TOKEN_URL).status_code == 204
