"""``--host`` with IPv6 and odd addresses: what the server binds, the URL it gives its bots, the
line it prints, and clear errors for hosts it cannot listen on."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.helpers import can_bind, link_local

HAS_IPV6 = socket.has_ipv6 and can_bind(socket.AF_INET6, "::1")
needs_ipv6 = pytest.mark.skipif(not HAS_IPV6, reason="this machine has no IPv6 loopback (::1)")


async def _welcomed(url: str) -> None:
    wire = await WireClient.connect(url, "ann")
    try:
        assert wire.welcome["type"] == "welcome"
    finally:
        await wire.close()


@needs_ipv6
async def test_an_ipv6_host_gets_a_bracketed_url_that_works() -> None:
    """The URL bots are given (``ws://::1:PORT`` is no URL: the bot could not connect)."""
    async with running_server(host="::1", port=0) as server:
        assert server.url == f"ws://[::1]:{server.port}"
        assert server.bound == f"[::1]:{server.port}"
        await _welcomed(server.url)


@needs_ipv6
async def test_every_ipv6_address_gives_bots_a_loopback_url_that_answers() -> None:
    """``--host ::`` listened on IPv6 only while bots were sent to ``127.0.0.1``."""
    async with running_server(host="::", port=0) as server:
        assert server.bound == f"[::]:{server.port}"
        await _welcomed(server.url)


@needs_ipv6
async def test_every_ipv6_address_takes_ipv4_too() -> None:
    """``--host ::`` is every address of the machine, IPv4 ones included (dual stack)."""
    async with running_server(host="::", port=0) as server:
        await _welcomed(f"ws://127.0.0.1:{server.port}")
        await _welcomed(f"ws://[::1]:{server.port}")


async def test_ipv4_hosts_are_unchanged() -> None:
    async with running_server(host="127.0.0.1", port=0) as server:
        assert server.url == f"ws://127.0.0.1:{server.port}"
        assert server.bound == f"127.0.0.1:{server.port}"
        await _welcomed(server.url)
    assert BoardhallServer(host="0.0.0.0").host == "0.0.0.0"


@needs_ipv6
async def test_a_link_local_host_with_its_interface_gets_a_url_that_works() -> None:
    host = link_local()
    if host is None:
        pytest.skip("no link-local IPv6 address to bind on this machine")
    async with running_server(host=host, port=0) as server:
        assert server.url == f"ws://[{host}]:{server.port}"
        await _welcomed(server.url)


def _server(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *argv], capture_output=True, text=True, timeout=60
    )


def _listening_line(tmp_path: Path, host: str) -> str:
    """The line ``boardhall-server --host HOST`` prints once listening (then it is stopped)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--host", host, "--port", "0",
         "--db", str(tmp_path / "hall.db"), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert line, err
    return line


@needs_ipv6
@pytest.mark.parametrize(("host", "url", "bound"), [
    ("::", r"ws://\[::1\]:(\d+)", r"\[::\]:(\d+)"),
    ("::1", r"ws://\[::1\]:(\d+)", r"\[::1\]:(\d+)"),
    ("[::1]", r"ws://\[::1\]:(\d+)", r"\[::1\]:(\d+)"),  # a host typed as in a URL
])
def test_the_listening_line_of_an_ipv6_host(
    tmp_path: Path, host: str, url: str, bound: str
) -> None:
    line = _listening_line(tmp_path, host)
    found = re.match(f"boardhall-server listening on {url} \\(bound to {bound}, ", line)
    assert found, line
    assert found.group(1) == found.group(2)


def test_the_listening_line_of_an_ipv4_host(tmp_path: Path) -> None:
    line = _listening_line(tmp_path, "127.0.0.1")
    assert re.match(r"boardhall-server listening on ws://127\.0\.0\.1:(\d+) \(bound to "
                    r"127\.0\.0\.1:\1, ", line), line  # fmt: skip


@pytest.mark.parametrize("host", [
    "192.0.2.7",  # TEST-NET-1: on no machine
    pytest.param("2001:db8::7", marks=needs_ipv6),  # the documentation prefix
])
def test_an_address_not_on_this_machine_is_named(tmp_path: Path, host: str) -> None:
    done = _server("--host", host, "--port", "0", "--db", str(tmp_path / "h.db"))
    assert done.returncode == 1
    assert (f"boardhall-server: cannot listen on --host {host}: it is not an address of this "
            "machine") in done.stderr  # fmt: skip
    assert "Traceback" not in done.stderr


def test_a_port_in_use_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _server("--host", "127.0.0.1", "--port", str(port), "--db", str(tmp_path / "h.db"))
    assert done.returncode == 1
    assert (f"boardhall-server: cannot listen on --host 127.0.0.1 --port {port}: the port is in "
            "use") in done.stderr  # fmt: skip


@needs_ipv6
def test_a_link_local_host_without_its_interface_is_told_to_name_one(tmp_path: Path) -> None:
    done = _server("--host", "fe80::1", "--port", "0", "--db", str(tmp_path / "h.db"))
    assert done.returncode == 1
    assert "a link-local address needs its interface, as in fe80::1%eth0" in done.stderr
    assert "Traceback" not in done.stderr


@needs_ipv6
async def test_an_empty_host_is_one_port_for_every_address() -> None:
    """``--host ""`` with ``--port 0`` bound IPv4 and IPv6 on two different ports and named only
    the first: it is now the one dual-stack socket of ``::``."""
    async with running_server(host="", port=0) as server:
        assert len(server.listening_sockets()) == 1
        await _welcomed(f"ws://127.0.0.1:{server.port}")
        await _welcomed(f"ws://[::1]:{server.port}")


@needs_ipv6
async def test_a_name_with_two_addresses_and_port_0_gets_one_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A name with an IPv6 and an IPv4 address (``localhost`` on many machines): with port 0
    each address got a port of its own, and ``url`` named one of them. Port 0 now listens on
    the first address only."""
    real = socket.getaddrinfo

    def two_addresses(host: object, *args: Any, **kwargs: Any) -> list[Any]:
        if host == "both.test":
            return [
                *real("::1", *args, **kwargs),
                *real("127.0.0.1", *args, **kwargs),
            ]
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", two_addresses)
    async with running_server(host="both.test", port=0) as server:
        sockets = server.listening_sockets()
        assert [sock.getsockname()[:2] for sock in sockets] == [("::1", server.port)]
        await _welcomed(f"ws://[::1]:{server.port}")
