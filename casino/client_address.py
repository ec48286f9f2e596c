"""Who is on the other end of a request: the one place that reads ``X-Forwarded-For`` and
decides whether ``X-Forwarded-Proto`` is believed.

Anyone can send these headers, so they are believed only when the request came from one of
our own proxies (``settings.TRUSTED_PROXIES``: addresses or networks, empty by default). Each
proxy appends the address it received the request from, so ``X-Forwarded-For`` is read from
the right: proxies of ours are skipped, and the first address that is not one of them is the
client. Whatever a client wrote to the left of that is ignored. Sign-in failures
(``AXES_CLIENT_IP_CALLABLE``), the action log's ``remote_addr`` and ``/metrics`` use this.

``X-Forwarded-Proto`` says whether the client spoke HTTPS to the proxy; Django believes it
from anyone (``SECURE_PROXY_SSL_HEADER``), so ``ForwardedProtoMiddleware`` drops it from any
other peer before ``request.is_secure()``, the HTTPS redirect, HSTS or a cookie asks.
gunicorn believes it from the same list (``forwarded_allow_ips`` in deploy/gunicorn.conf.py).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(proxy.strip(), strict=False) for proxy in proxies if proxy.strip())


def _parse(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.strip())
    except ValueError:
        return None


def _is_trusted(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, networks: tuple[Network, ...]
) -> bool:
    return any(address in network for network in networks)


def networks_of(addresses: list[str] | tuple[str, ...]) -> tuple[Network, ...]:
    """A settings list of addresses or CIDR networks, parsed (a host's bits after the prefix allowed)."""
    return _networks(tuple(addresses))


def _trusted_proxies() -> tuple[Network, ...]:
    return networks_of(getattr(settings, "TRUSTED_PROXIES", ()))


def is_among(address: str, networks: tuple[Network, ...]) -> bool:
    parsed = _parse(address)
    return parsed is not None and _is_trusted(parsed, networks)


def from_trusted_proxy(request: HttpRequest) -> bool:
    """Whether the peer that sent this request is one of our proxies."""
    return is_among(request.META.get("REMOTE_ADDR") or "", _trusted_proxies())


def client_address(request: HttpRequest) -> str:
    """The client's IP address: ``REMOTE_ADDR``, or behind our proxies the address they saw."""
    peer = request.META.get("REMOTE_ADDR") or ""
    networks = _trusted_proxies()
    parsed_peer = _parse(peer)
    if parsed_peer is None or not _is_trusted(parsed_peer, networks):
        return peer
    hops = [hop for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    client = parsed_peer
    for hop in reversed(hops):
        parsed = _parse(hop)
        if parsed is None:
            break  # our proxy wrote an address here; garbage means a client wrote it: stop
        client = parsed
        if not _is_trusted(parsed, networks):
            break
    return str(client)


class ForwardedProtoMiddleware:
    """First in ``MIDDLEWARE``: the proxy-SSL header (``SECURE_PROXY_SSL_HEADER``) is dropped
    unless one of our proxies sent the request, so a client cannot make itself "secure"."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
        if header and not from_trusted_proxy(request):
            request.META.pop(header[0], None)
        return self.get_response(request)
