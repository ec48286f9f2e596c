"""Issue 44 item 6: ``X-Forwarded-Proto`` is believed only from a proxy in ``TRUSTED_PROXIES``.

Django believes ``SECURE_PROXY_SSL_HEADER`` from anyone, so a client talking plain HTTP
straight to gunicorn made ``request.is_secure()`` true by sending ``X-Forwarded-Proto:
https``: no HTTPS redirect, and an HSTS header over plain HTTP. ``casino.client_address``'s
``ForwardedProtoMiddleware`` drops the header from any other peer; gunicorn believes it from
the same list (deploy/gunicorn.conf.py). Checked in Django, in the gunicorn configuration,
and end to end through gunicorn with the production settings.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from casino.client_address import ForwardedProtoMiddleware
from tests.redis_support import free_port

ROOT = Path(__file__).resolve().parents[2]
PROXY_SSL = ("HTTP_X_FORWARDED_PROTO", "https")
PROXY = "10.20.0.5"


@pytest.fixture
def behind_a_proxy(settings: Any) -> Any:
    """Production's TLS settings (casino/settings/production.py), in the test process."""
    settings.SECURE_PROXY_SSL_HEADER = PROXY_SSL
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 3600
    settings.TRUSTED_PROXIES = []
    return settings


def _is_secure(peer: str) -> bool:
    """What ``request.is_secure()`` says after the middleware, for a forged header from ``peer``."""
    seen: list[bool] = []

    def view(request: HttpRequest) -> HttpResponse:
        seen.append(request.is_secure())
        return HttpResponse()

    request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_PROTO="https")
    ForwardedProtoMiddleware(view)(request)
    return seen[0]


@pytest.mark.parametrize("peer", ["203.0.113.9", "127.0.0.1", "::1", PROXY])
def test_with_no_trusted_proxies_a_forged_header_is_not_believed(behind_a_proxy: Any, peer: str) -> None:
    assert _is_secure(peer) is False


def test_from_a_trusted_proxy_the_header_is_believed(behind_a_proxy: Any) -> None:
    behind_a_proxy.TRUSTED_PROXIES = ["10.20.0.0/16"]

    assert _is_secure(PROXY) is True
    assert _is_secure("10.21.0.5") is False  # the proxy's neighbour is no proxy of ours


@pytest.mark.django_db
def test_a_forged_header_gets_the_https_redirect_and_no_hsts(behind_a_proxy: Any) -> None:
    response = Client().get("/healthz", REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_PROTO="https")

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/healthz"
    assert "Strict-Transport-Security" not in response


@pytest.mark.django_db
def test_through_a_trusted_proxy_https_is_served_with_hsts(behind_a_proxy: Any) -> None:
    behind_a_proxy.TRUSTED_PROXIES = [PROXY]

    response = Client().get("/healthz", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_PROTO="https")

    assert response.status_code == 200
    assert response["Strict-Transport-Security"].startswith("max-age=3600")


# --------------------------------------------------------------------------- gunicorn


def _forwarded_allow_ips(trusted: str) -> str:
    """``forwarded_allow_ips`` as deploy/gunicorn.conf.py sets it (in a child: it turns gc off)."""
    program = "import runpy; print(runpy.run_path('deploy/gunicorn.conf.py')['forwarded_allow_ips'])"
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=ROOT,
        env={**os.environ, "TRUSTED_PROXIES": trusted},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


def test_gunicorn_believes_the_same_proxies_as_django() -> None:
    assert _forwarded_allow_ips("") == ""
    assert _forwarded_allow_ips("172.30.0.10") == "172.30.0.10/32"
    # As casino/client_address.py reads it: a host address with a prefix is its network.
    assert _forwarded_allow_ips("10.20.0.5/16, ::1") == "10.20.0.0/16,::1/128"


@contextlib.contextmanager
def _gunicorn(trusted: str, log: Path) -> Iterator[str]:
    """gunicorn with deploy/gunicorn.conf.py and the production settings, on a free port."""
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "TRUSTED_PROXIES": trusted,
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    command = [gunicorn, "casino.wsgi:application", "-c", "deploy/gunicorn.conf.py"]
    with log.open("wb") as output:
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, log.read_text(errors="replace")[-3000:]
            with contextlib.suppress(requests.RequestException):
                requests.get(f"{base}/healthz", timeout=2, allow_redirects=False)
                break
            assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
            time.sleep(0.25)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.slow
def test_through_gunicorn_a_client_cannot_claim_https(tmp_path: Path) -> None:
    """The issue's probe: plain HTTP to gunicorn from this host, claiming HTTPS."""
    forged = {"X-Forwarded-Proto": "https"}
    with _gunicorn("", tmp_path / "untrusted.log") as base:
        refused = requests.get(f"{base}/healthz", headers=forged, timeout=10, allow_redirects=False)
    with _gunicorn("127.0.0.1", tmp_path / "trusted.log") as base:
        believed = requests.get(f"{base}/healthz", headers=forged, timeout=10, allow_redirects=False)

    assert refused.status_code == 301
    assert refused.headers["Location"].startswith("https://")
    assert "Strict-Transport-Security" not in refused.headers
    assert believed.status_code == 200
    assert believed.headers["Strict-Transport-Security"].startswith("max-age=")
