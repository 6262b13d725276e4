"""The one outbound address rule, as a table of forms: what webhooks and relays may reach,
when the URL is given (a numeric host) and when a name is resolved for each try (a
resolver double here: the tests never connect)."""

from __future__ import annotations

import socket

import pytest

from webapp.outbound import ALLOW_PRIVATE, address_problem, delivery, relays
from webapp.store.nostr import relay_url_problem
from webapp.store.webhooks import url_problem

#: Forms that reach a private, loopback, metadata or otherwise non-public host, directly or
#: through a translation (NAT64, 6to4, Teredo, IPv4-compatible or -translated addresses).
REFUSED = [
    "127.0.0.1", "10.0.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1",
    "224.0.0.1", "239.255.255.250", "255.255.255.255",
    "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1", "ff0e::1",
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b::808:808",  # NAT64 of a public address: still a translation, refused
    "64:ff9b:1::a00:1",  # local-use NAT64
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2002:808:808::1",  # 6to4 of a public address
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "::127.0.0.1",  # IPv4-compatible
    "::ffff:0:127.0.0.1",  # IPv4-translated
    "::ffff:127.0.0.1", "::ffff:10.1.2.3",  # IPv4-mapped
    "2001:db8::1",  # documentation
]
ALLOWED = ["93.184.215.14", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111",
           "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8"]


@pytest.mark.parametrize("address", REFUSED)
def test_a_non_public_address_is_refused(address, monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE, raising=False)
    assert "is not a public address" in (address_problem(address) or "")
    # As a webhook's URL (IPv6 in brackets), refused when it is given.
    host = f"[{address}]" if ":" in address else address
    assert "not a public address" in (url_problem(f"http://{host}/hook") or "")


@pytest.mark.parametrize("address", ALLOWED)
def test_a_global_unicast_address_is_reached(address, monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE, raising=False)
    assert address_problem(address) is None


def test_an_instance_may_allow_private_addresses(monkeypatch):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    assert address_problem("127.0.0.1") is None and address_problem("64:ff9b::a00:1") is None


def _resolving_to(monkeypatch, address: str) -> None:
    """A resolver double: every name resolves to `address`; connecting is refused."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    def getaddrinfo(host, port, *args, **kwargs):
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    def never(*args, **kwargs):
        raise AssertionError("the test never connects")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", never)


@pytest.mark.parametrize("address", ["64:ff9b::a9fe:a9fe", "2002:7f00:1::", "::127.0.0.1",
                                     "fec0::1", "224.0.0.1"])
def test_a_name_that_resolves_to_a_non_public_form_is_refused_at_each_try(address, monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE, raising=False)
    _resolving_to(monkeypatch, address)
    assert url_problem("https://hooks.example.com/in") is None  # a name: checked at the try
    with pytest.raises(delivery.Refused, match="not a public address"):
        delivery.pinned_connection("https", "hooks.example.com", 443)
    assert relay_url_problem("wss://relay.example.com") is None
    [answer] = relays.fetch(["wss://relay.example.com"], [{"kinds": [1]}], limit=10)
    assert answer.events == [] and "not a public address" in answer.message
