"""The client's address: X-Forwarded-For is read only behind proxies of ours, from the right."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from casino.client_address import client_address

PROXIES = ["10.20.0.0/16", "fd00::1"]


@pytest.mark.parametrize(
    ("proxies", "peer", "forwarded", "client"),
    [
        ([], "203.0.113.5", None, "203.0.113.5"),
        ([], "203.0.113.5", "198.51.100.1", "203.0.113.5"),  # nobody is trusted by default
        (PROXIES, "203.0.113.5", "198.51.100.1", "203.0.113.5"),  # the peer is not our proxy
        (PROXIES, "10.20.0.5", "198.51.100.1", "198.51.100.1"),
        (PROXIES, "10.20.0.5", "1.2.3.4, 198.51.100.1", "198.51.100.1"),  # the client wrote 1.2.3.4
        (PROXIES, "10.20.0.5", "198.51.100.1, 10.20.0.9", "198.51.100.1"),  # two proxies of ours
        (PROXIES, "10.20.0.5", "10.20.0.7, 10.20.0.9", "10.20.0.7"),  # all ours: the left-most
        (PROXIES, "10.20.0.5", None, "10.20.0.5"),
        (PROXIES, "10.20.0.5", "not-an-address", "10.20.0.5"),
        (PROXIES, "10.20.0.5", "198.51.100.1, bogus", "10.20.0.5"),
        (PROXIES, "fd00::1", " 2001:db8::7 ", "2001:db8::7"),
        (PROXIES, "", "198.51.100.1", ""),
    ],
)
def test_client_address(
    settings: Any, proxies: list[str], peer: str, forwarded: str | None, client: str
) -> None:
    settings.TRUSTED_PROXIES = proxies
    meta = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded

    assert client_address(RequestFactory().get("/", **meta)) == client  # type: ignore[arg-type]
