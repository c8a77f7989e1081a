"""Helpers shared by several server test modules (test modules import from here or another
helper module, never from one another)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

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
    """``fe80::...%IFACE`` of this machine (Linux), or None."""
    try:
        lines = Path("/proc/net/if_inet6").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) == 6 and fields[0].startswith("fe80") and fields[5] != "lo":
            groups = ":".join(fields[0][i : i + 4] for i in range(0, 32, 4))
            text = f"{socket.inet_ntop(socket.AF_INET6, bytes.fromhex(groups.replace(':', '')))}"
            candidate = f"{text}%{fields[5]}"
            if can_bind(socket.AF_INET6, candidate):
                return candidate
    return None
