"""Facts about an HTTP request that a proxy could forge, read only as far as the deployment trusts its proxies."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, networks: Iterable[Network]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_ip(request: HttpRequest) -> str:
    """The client's address: the peer's own unless the peer is a configured proxy (`DESIREPATH_TRUSTED_PROXIES`);
    then the right-most X-Forwarded-For entry that is not a trusted proxy. Everything to the left of that entry
    was written by the client and is never believed."""
    remote = str(request.META.get("REMOTE_ADDR", ""))
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    if not networks or not _trusted(_address(remote), networks):
        return remote
    forwarded = [hop for hop in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",") if hop.strip()]
    for hop in reversed(forwarded):
        address = _address(hop)
        if address is None:  # a proxy we trust wrote nonsense: the proxy is all we know
            return remote
        if not _trusted(address, networks):
            return str(address)
    return str(_address(forwarded[0])) if forwarded else remote


def client_in(request: HttpRequest, networks: Iterable[str]) -> bool:
    """Whether the client's address (`client_ip`) lies in one of `networks` (addresses or CIDR networks)."""
    return _trusted(_address(client_ip(request)), _networks(tuple(networks)))
