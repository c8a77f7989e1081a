"""The start line that tells the operator which address players on other machines type."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from pathlib import Path

import pytest

from server import lan
from server.testing import ServerProcess
from tests.server.helpers import ADAPTERS


def test_the_interfaces_give_the_local_addresses() -> None:
    """Each interface's addresses as ``ifaddr`` lists them (IPv6 without its scope), of which
    those another machine could use are kept."""
    found = lan.interface_addresses(ADAPTERS)
    assert found == ["127.0.0.1", "::1", "192.168.1.20", "fd00::2", "fe80::fc:ff:fe00:1",
                     "10.8.0.6", "10.8.3.3", "100.64.0.9", "192.168.1.21", "fe80::7", "fe80::8",
                     "2001:db8::42"]  # fmt: skip
    assert lan.reachable(found) == ["192.168.1.20", "fd00::2", "10.8.0.6", "10.8.3.3",
                                    "100.64.0.9", "192.168.1.21", "2001:db8::42"]  # fmt: skip


def test_this_machines_own_addresses_are_found() -> None:
    """On this machine: every global address the kernel lists (Linux's tables, read here only
    to check) is among the interfaces' addresses."""
    kernel: list[str] = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            fields = line.split()
            if len(fields) == 6 and fields[3] == "00":
                kernel.append(str(ipaddress.IPv6Address(int(fields[0], 16))))
    found = lan.interface_addresses()
    assert "127.0.0.1" in found
    assert set(kernel) <= set(found)


def test_only_addresses_another_machine_can_use_are_kept() -> None:
    found = ["127.0.0.1", "192.168.1.20", "fe80::1%eth0", "169.254.3.4", "::1", "224.0.0.1",
             "0.0.0.0", "192.168.1.20", "fd00::2", "not an address", "10.0.0.7"]  # fmt: skip
    assert lan.reachable(found) == ["192.168.1.20", "fd00::2", "10.0.0.7"]
    assert lan.reachable(found, ipv6=False) == ["192.168.1.20", "10.0.0.7"]


def test_the_hint_names_each_address_with_the_port_and_scheme() -> None:
    hint = lan.connect_hint("0.0.0.0", 8765, "ws", ["192.168.1.20", "fd00::2"])
    assert hint == "players on other machines connect to ws://192.168.1.20:8765, ws://[fd00::2]:8765"
    assert "wss://10.0.0.7:443" in lan.connect_hint("::", 443, "wss", ["10.0.0.7"])
    assert "none found" in lan.connect_hint("", 8765, "ws", [])


def test_in_a_container_the_hosts_address_is_what_players_type() -> None:
    hint = lan.connect_hint("0.0.0.0", 8765, "ws", ["172.17.0.2"], container=True)
    assert "172.17.0.2" not in hint
    assert "host machine's address" in hint and "8765" in hint
    assert lan.in_container({}) is False
    assert lan.in_container({lan.CONTAINER_VARIABLE: "1"}) is True
    dockerfile = (Path(__file__).parents[2] / "Dockerfile").read_text()
    assert f"{lan.CONTAINER_VARIABLE}=1" in dockerfile


def test_a_loopback_server_says_only_this_machine_can_connect() -> None:
    for host in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"):
        hint = lan.connect_hint(host, 8765, "ws", ["192.168.1.20"])
        assert hint.startswith(f"only this machine can connect (--host {host})"), hint
        assert "--host 0.0.0.0" in hint


def test_a_server_bound_to_one_address_names_it() -> None:
    assert lan.connect_hint("192.168.1.20", 9000, "ws", []) == (
        "players connect to ws://192.168.1.20:9000"
    )
    assert lan.connect_hint("games.example.org", 8765, "wss", []) == (
        "players connect to wss://games.example.org:8765"
    )


def test_this_machines_addresses_are_reachable_ones_ipv4_first() -> None:
    found = lan.lan_addresses()
    assert len(found) <= lan.MAX_SHOWN
    assert lan.reachable(found) == found
    versions = [":" in a for a in found]
    assert versions == sorted(versions)


@pytest.mark.parametrize(
    ("host", "expected"),
    [("127.0.0.1", "only this machine can connect"), ("0.0.0.0", "players on other machines")],
)
async def test_the_server_prints_the_hint_after_the_listening_line(
    tmp_path: Path, host: str, expected: str
) -> None:
    proc = await ServerProcess.start(str(tmp_path / "lan.db"), "--host", host)
    try:
        assert proc.process.stdout is not None
        async with asyncio.timeout(10):
            line = (await proc.process.stdout.readline()).decode().strip()
        assert line.startswith(expected), line
        if host == "0.0.0.0":
            port = proc.url.rsplit(":", 1)[1]
            for address in lan.lan_addresses(ipv6=False):
                assert f"ws://{address}:{port}" in line
    finally:
        await proc.stop()
