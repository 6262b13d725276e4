"""The one outbound address rule: the server reaches plainly global unicast addresses only.

Python's `is_global` is not enough: it calls global some IPv6 forms that carry an IPv4
address inside (NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), which a network with a NAT64
gateway or a 6to4 relay turns into that IPv4 address, private or loopback as it may be; and
some multicast. So an IPv6 address must be in the global unicast range `2000::/3`, outside
the ranges that embed or translate IPv4 (`EMBEDDING`), and an IPv4 address (also one that
an IPv4-mapped address carries) must be global and unicast. An instance whose webhooks or
relays live on its own network sets `ALLOW_PRIVATE`.
"""

from __future__ import annotations

import ipaddress
import os
import socket

#: The environment variable that lets an instance reach private and loopback addresses.
ALLOW_PRIVATE = "SKILL_EDITOR_WEBHOOK_ALLOW_PRIVATE"
#: IPv6's global unicast range: anything outside it is not reached.
GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
#: IPv6 ranges that carry or translate an IPv4 address (which one is the network's to say).
EMBEDDING = (
    ipaddress.IPv6Network("64:ff9b::/96"),  # NAT64, RFC 6052
    ipaddress.IPv6Network("64:ff9b:1::/48"),  # local-use NAT64, RFC 8215
    ipaddress.IPv6Network("2002::/16"),  # 6to4, RFC 3056
    ipaddress.IPv6Network("2001::/32"),  # Teredo, RFC 4380
    ipaddress.IPv6Network("::/96"),  # IPv4-compatible (deprecated), RFC 4291
    ipaddress.IPv6Network("::ffff:0:0:0/96"),  # IPv4-translated, RFC 2765
)


def private_allowed() -> bool:
    """Whether this instance lets webhooks and relays reach non-public addresses."""
    return os.environ.get(ALLOW_PRIVATE) == "1"


def address_problem(address: str) -> str | None:
    """Why the server may not reach the IP `address` (None: it may)."""
    why = _why_not(ipaddress.ip_address(address))
    if why is None or private_allowed():
        return None
    return (f"{address} is not a public address ({why}); an instance that must reach one "
            f"sets {ALLOW_PRIVATE}=1")


def _why_not(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return _why_not(ip.ipv4_mapped)
        if any(ip in network for network in EMBEDDING):
            return "an IPv6 form that carries an IPv4 address"
        if ip not in GLOBAL_UNICAST:
            return "not global unicast: loopback, link- or site-local, multicast or reserved"
    if ip.is_multicast:
        return "multicast"
    if not ip.is_global:
        return "private, loopback, link-local or reserved"
    return None


def numeric_host(host: str) -> str:
    """`host` as an IP address when it is one, legacy IPv4 forms included (`127.1`,
    `0x7f.0.0.1`, `2130706433`, which resolvers accept); raises `ValueError` for a name."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        if not host or not all(c in "0123456789abcdefx." for c in host):
            raise
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            raise ValueError(host) from None
