"""Helpers shared by several server test modules (test modules import from here or another
helper module, never from one another)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

import ifaddr
import pytest

from server.testing import WireClient

Factory = Callable[..., Awaitable[WireClient]]
"""The ``client`` fixture (tests/server/conftest.py): ``await client("ann")``."""


class LoopClock:
    """The running loop's clock, moved on by :meth:`advance` (timers due by then fire)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = 0.0
        real: Callable[[], float] = loop.time
        monkeypatch.setattr(loop, "time", lambda: real() + self.offset)

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds``."""
        self.offset += seconds


def can_bind(family: socket.AddressFamily, host: str) -> bool:
    """Whether a socket of ``family`` can be bound to ``host`` on this machine."""
    try:
        address = socket.getaddrinfo(host, 0, family, socket.SOCK_STREAM)[0][4]
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind(address)
    except OSError:
        return False
    return True


def link_local() -> str | None:
    """``fe80::...%IFACE`` of this machine that a socket can be bound to, or None."""
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) or not ipaddress.IPv6Address(ip.ip[0]).is_link_local:
                continue
            candidate = f"{ip.ip[0]}%{adapter.name}"
            if can_bind(socket.AF_INET6, candidate):
                return candidate
    return None


ADAPTERS = [
    ifaddr.Adapter("lo", "lo", [
        ifaddr.IP("127.0.0.1", 8, "lo"),
        ifaddr.IP(("::1", 0, 0), 128, "lo"),
    ], 1),
    ifaddr.Adapter("eth0", "eth0", [
        ifaddr.IP("192.168.1.20", 24, "eth0"),
        ifaddr.IP(("fd00::2", 0, 0), 64, "eth0"),
        ifaddr.IP(("fe80::fc:ff:fe00:1", 0, 4), 64, "eth0"),
    ], 4),
    ifaddr.Adapter("tun0", "tun0", [
        ifaddr.IP("10.8.0.6", 16, "tun0"),
        ifaddr.IP("10.8.3.3", 16, "tun0"),
    ], 5),
    ifaddr.Adapter("ppp0", "ppp0", [
        ifaddr.IP("100.64.0.9", 32, "ppp0"),
        ifaddr.IP("192.168.1.21", 24, "ppp0"),
    ], 6),
    ifaddr.Adapter("{4D36E972-E325-11CE}", "Wi-Fi", [
        ifaddr.IP(("fe80::7", 0, 7), 64, "Wi-Fi"),
        ifaddr.IP(("fe80::8", 0, 7), 64, "Wi-Fi"),
        ifaddr.IP(("2001:db8::42", 0, 0), 64, "Wi-Fi"),
    ]),
]  # fmt: skip
"""Network interfaces as ``ifaddr`` lists them: loopback, a LAN with IPv4 and IPv6, a /16
tunnel with two addresses, a point-to-point /32 beside a second address on the LAN, and a
Windows adapter (its name a GUID, no index but its link-local addresses' scope)."""
