"""Liveness (the process answers) and readiness (PostgreSQL and Redis answer)."""

from __future__ import annotations

import time

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:
        return str(error)[:200]
    return None


def _check_redis() -> str | None:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
    except Exception as error:
        return str(error)[:200]
    return None


def readyz(request: HttpRequest) -> JsonResponse:
    started = time.monotonic()
    checks = {"postgresql": _check_database(), "redis": _check_redis()}
    ready = all(problem is None for problem in checks.values())
    body = {
        "status": "ready" if ready else "not_ready",
        "checks": {name: problem or "ok" for name, problem in checks.items()},
        "ms": round((time.monotonic() - started) * 1000, 1),
    }
    return JsonResponse(body, status=200 if ready else 503)
