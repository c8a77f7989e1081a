"""The key a client address is limited by: an IPv6 client counts with its whole network of
``--ipv6-prefix`` bits (an ISP gives a subscriber a /64, and any address in it is theirs), IPv4,
IPv4-mapped and loopback addresses on their own, anything else as it is."""

from __future__ import annotations

import doctest

import pytest

import server.limitkey
from server.limitkey import limit_key


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", "127.0.0.1"),
        ("::ffff:203.0.113.7", "203.0.113.7"),  # a dual-stack socket's IPv4 peer
        ("::FFFF:203.0.113.7", "203.0.113.7"),
        ("2001:db8::1", "2001:db8::/64"),
        ("2001:db8::2", "2001:db8::/64"),
        ("2001:db8::ffff:ffff:ffff:ffff", "2001:db8::/64"),
        ("2001:db8:0:1::1", "2001:db8:0:1::/64"),
        ("2001:DB8:AA:BB:1:2:3:4", "2001:db8:aa:bb::/64"),
        ("fe80::1%eth0", "fe80::1"),  # a LAN machine: on its own, the zone id dropped
        ("fe80::2%2", "fe80::2"),
        ("fd12:3456:789a::1", "fd12:3456:789a::1"),  # unique-local: on its own too
        ("fd12:3456:789a::2", "fd12:3456:789a::2"),
        ("::1", "::1"),  # loopback is one address
        ("", ""),
        ("?", "?"),
        ("/run/boardhall.sock", "/run/boardhall.sock"),
        ("2001:db8::1:80", "2001:db8::/64"),  # not a port: a valid IPv6 address
        ("203.0.113.7:80", "203.0.113.7:80"),  # not an address: as it is
        ("localhost", "localhost"),
    ],
)
def test_each_kind_of_address_has_its_key(address: str, key: str) -> None:
    assert limit_key(address) == key


@pytest.mark.parametrize(
    ("prefix", "key"),
    [
        (32, "2001:db8::/32"),
        (48, "2001:db8:aa::/48"),
        (56, "2001:db8:aa:bb00::/56"),
        (64, "2001:db8:aa:bbcc::/64"),
        (127, "2001:db8:aa:bbcc:1:2:3:4/127"),
        (128, "2001:db8:aa:bbcc:1:2:3:5"),  # each address on its own, written as an address
    ],
)
def test_the_prefix_length_sets_the_network(prefix: int, key: str) -> None:
    assert limit_key("2001:db8:aa:bbcc:1:2:3:5", prefix) == key


def test_the_prefix_changes_nothing_for_ipv4_and_loopback() -> None:
    for prefix in (32, 64, 128):
        assert limit_key("198.51.100.1", prefix) == "198.51.100.1"
        assert limit_key("::ffff:198.51.100.1", prefix) == "198.51.100.1"
        assert limit_key("::1", prefix) == "::1"
        assert limit_key("fe80::1%eth0", prefix) == "fe80::1"


def test_the_module_s_doctest_runs() -> None:
    result = doctest.testmod(server.limitkey)
    assert result.attempted >= 8 and result.failed == 0
