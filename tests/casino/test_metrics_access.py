"""Issue 44 item 7: ``/metrics`` answers only the monitoring system.

It answered anyone (260 KB of routes, error codes and queue depths). Now only the bearer of
``METRICS_TOKEN`` or a client at ``METRICS_ALLOWED_ADDRESSES`` (default: loopback) reads it;
the client is ``casino.client_address``'s, so an outsider forwarded by our own proxy on this
host is not "loopback", and a made-up ``X-Forwarded-For`` is not believed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.test import Client

METRIC = "casekeeper_http_request_duration_seconds"
OUTSIDER = "203.0.113.9"
TOKEN = "a-long-random-metrics-token-0123456789"


def _scrape(address: str, **headers: str) -> Any:
    return Client().get("/metrics", REMOTE_ADDR=address, **headers)


def _served(response: Any) -> bool:
    if response.status_code == 200:
        assert METRIC in response.content.decode()
        return True
    assert response.status_code == 403
    assert METRIC not in response.content.decode()
    assert "only to the monitoring system" in response.content.decode()
    return False


def test_by_default_only_loopback_reads_the_metrics() -> None:
    assert django_settings.METRICS_ALLOWED_ADDRESSES == ["127.0.0.1", "::1"]
    assert django_settings.METRICS_TOKEN == ""

    assert _served(_scrape("127.0.0.1"))
    assert _served(_scrape("::1"))
    assert not _served(_scrape(OUTSIDER))
    assert not _served(_scrape("10.0.0.7"))
    assert not _served(_scrape(OUTSIDER, HTTP_AUTHORIZATION="Bearer "))  # no token is set: none works


def test_the_bearer_of_the_token_reads_them_from_anywhere(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN

    assert _served(_scrape(OUTSIDER, HTTP_AUTHORIZATION=f"Bearer {TOKEN}"))
    assert not _served(_scrape(OUTSIDER, HTTP_AUTHORIZATION=f"Bearer {TOKEN}x"))
    assert not _served(_scrape(OUTSIDER, HTTP_AUTHORIZATION=f"Token {TOKEN}"))
    assert not _served(_scrape(OUTSIDER))


def test_allowed_addresses_may_be_networks(settings: Any) -> None:
    settings.METRICS_ALLOWED_ADDRESSES = ["10.30.0.0/24"]

    assert _served(_scrape("10.30.0.44"))
    assert not _served(_scrape("10.30.1.44"))
    assert not _served(_scrape("127.0.0.1"))


def test_an_outsider_is_not_loopback_through_our_proxy_or_a_made_up_header(settings: Any) -> None:
    settings.TRUSTED_PROXIES = ["127.0.0.1"]  # a TLS proxy on this host, in front of gunicorn

    assert not _served(_scrape("127.0.0.1", HTTP_X_FORWARDED_FOR=OUTSIDER))  # forwarded by our proxy
    assert not _served(_scrape(OUTSIDER, HTTP_X_FORWARDED_FOR="127.0.0.1"))  # made up by the client
    assert _served(_scrape("127.0.0.1"))  # a scraper on this host, straight to gunicorn
