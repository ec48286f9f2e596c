"""Who is on the other end of a request: the one place that reads ``X-Forwarded-For``.

Anyone can send an ``X-Forwarded-For`` header, so it is believed only when the request came
from one of our own proxies (``settings.TRUSTED_PROXIES``: addresses or networks, empty by
default). Each proxy appends the address it received the request from, so the header is read
from the right: proxies of ours are skipped, and the first address that is not one of them is
the client. Whatever a client wrote to the left of that is ignored. Login lockouts
(``AXES_CLIENT_IP_CALLABLE``) and the action log's ``remote_addr`` both use this.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest

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


def client_address(request: HttpRequest) -> str:
    """The client's IP address: ``REMOTE_ADDR``, or behind our proxies the address they saw."""
    peer = request.META.get("REMOTE_ADDR") or ""
    networks = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ())))
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
