"""LAN discovery: a real server answers a real UDP probe, and nothing else, never with more
bytes than it got, and not too often."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest

from protocol.discovery import (
    NAME_CHARS,
    PROBE_BYTES,
    PROBE_MAGIC,
    Answer,
    BadDatagram,
    decode_answer,
    encode_answer,
    probe,
)
from server import discovery
from server.cli import build_parser, main
from server.config import server_version
from server.discovery import PER_ADDRESS, RateLimit, Settings
from server.net import BoardhallServer, running_server
from server.testing import ServerProcess, WireClient
from tests.server.helpers import link_local


class Clock:
    """Monotonic seconds the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@asynccontextmanager
async def lan_server(**kwargs: object) -> AsyncIterator[BoardhallServer]:
    """A server on loopback (TCP port 0) answering probes on a free loopback UDP port."""
    settings = Settings("Test hall", port=0, bind="127.0.0.1")
    async with running_server(host="127.0.0.1", port=0, discovery=settings, **kwargs) as server:
        yield server


@contextmanager
def udp(
    bind: str = "127.0.0.1", broadcast: bool = False, family: socket.AddressFamily = socket.AF_INET
) -> Iterator[socket.socket]:
    """A non-blocking UDP socket on ``bind`` (loopback), that may send to broadcast addresses
    when ``broadcast``."""
    sock = socket.socket(family, socket.SOCK_DGRAM)
    if broadcast:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    sock.bind((bind, 0))
    sock.setblocking(False)
    try:
        yield sock
    finally:
        sock.close()


async def receive(sock: socket.socket) -> bytes:
    """The next datagram ``sock`` gets (within 10 s)."""
    loop = asyncio.get_running_loop()
    data, _ = await asyncio.wait_for(loop.sock_recvfrom(sock, 4096), 10)
    return data


def discovery_port(server: BoardhallServer) -> int:
    assert server.discovery is not None, "no discovery endpoint"
    return server.discovery.port


async def test_a_probe_gets_the_servers_name_version_port_scheme_and_counts() -> None:
    """The answer names the server and says where and how to connect, and how busy it is."""
    async with lan_server() as server:
        where = ("127.0.0.1", discovery_port(server))
        with udp() as sock:
            sock.sendto(probe(), where)
            first = decode_answer(await receive(sock))
            assert (first.product, first.discovery, first.protocol) == ("boardhall", 1, 1)
            assert first.name == "Test hall"
            assert first.version == server_version()
            assert (first.port, first.scheme) == (server.port, "ws")
            assert (first.players, first.rooms) == (0, 0)
            assert first.host == "127.0.0.1"  # it listens on one address: that one
            ann = await WireClient.connect(server.url, "ann")
            bob = await WireClient.connect(server.url, "bob")
            try:
                room = await ann.request(type="create", game="hexgomoku", color="first")
                await bob.request(type="join", room=room["room"])
                sock.sendto(probe(), where)
                busy = decode_answer(await receive(sock))
            finally:
                await ann.close()
                await bob.close()
            assert (busy.players, busy.rooms) == (2, 1)
            assert busy.id == first.id


async def test_an_answer_is_never_larger_than_its_probe() -> None:
    """The answer of a real server, and the largest answer the fields allow, fit in a probe."""
    async with lan_server() as server:
        with udp() as sock:
            sock.sendto(probe(), ("127.0.0.1", discovery_port(server)))
            assert len(probe()) == PROBE_BYTES
            assert len(await receive(sock)) <= PROBE_BYTES
    widest = Answer(
        protocol=1, id="f" * 16, name="\U0001f600" * NAME_CHARS, version="9" * 32,
        port=65535, scheme="wss", players=10**12, rooms=10**12,
        host="fe80:1234:5678:9abc:def0:1234:5678:9abc%enp0s31f6-long",
    )  # fmt: skip
    assert len(encode_answer(widest)) <= PROBE_BYTES
    with pytest.raises(BadDatagram, match="larger than a probe"):
        encode_answer(Answer.model_construct(**{**widest.model_dump(), "version": "9" * 400}))


async def test_garbage_short_probes_and_other_versions_get_no_answer() -> None:
    """Only the well-formed probe is answered; every other datagram is counted and ignored."""
    good = probe()
    bad = [
        b"hello",
        b"",
        good[:-1],  # short
        good + b"\0",  # long
        PROBE_MAGIC + bytes([2]) + bytes(PROBE_BYTES - len(PROBE_MAGIC) - 1),  # version 2
        good[:-1] + b"x",  # padding not zero
        b"x" + good[1:],  # another magic
        json.dumps({"product": "boardhall"}).encode().ljust(PROBE_BYTES, b" "),
    ]
    async with lan_server() as server:
        where = ("127.0.0.1", discovery_port(server))
        with udp() as sock:
            for datagram in bad:
                sock.sendto(datagram, where)
            sock.sendto(good, where)
            # datagrams from one socket arrive in order: had any bad one been answered, that
            # answer would come first; the answer to the good probe is the only datagram
            decode_answer(await receive(sock))
            with pytest.raises(BlockingIOError):
                sock.recvfrom(4096)
        assert server.metrics.discovery["not_a_probe"] == len(bad)
        assert server.metrics.discovery["answered"] == 1
        body = server.metrics.render(0, {}, 0)
        assert f'boardhall_discovery_datagrams_total{{outcome="not_a_probe"}} {len(bad)}' in body


async def test_answers_to_one_address_are_rate_limited() -> None:
    """A burst of probes from one address gets PER_ADDRESS answers a second, and the next
    second some more."""
    clock = Clock()
    async with lan_server() as server:
        assert server.discovery is not None
        server.discovery.responder.limit.clock = clock
        where = ("127.0.0.1", discovery_port(server))
        with udp() as sock:
            for _ in range(PER_ADDRESS + 3):
                sock.sendto(probe(), where)
            for _ in range(PER_ADDRESS):
                decode_answer(await receive(sock))
            clock.now += 1.0
            sock.sendto(probe(), where)
            answer = decode_answer(await receive(sock))  # the next window's: no other between
            assert answer.name == "Test hall"
            with pytest.raises(BlockingIOError):
                sock.recvfrom(4096)
        assert server.metrics.discovery["rate_limited"] == 3
        assert server.metrics.discovery["answered"] == PER_ADDRESS + 1


def test_the_overall_limit_holds_across_addresses() -> None:
    """Many addresses (a spoofed flood) together get no more than the overall limit."""
    clock = Clock()
    limit = RateLimit(clock, per_address=2, overall=5)
    allowed = [limit.allow(f"10.0.0.{i}") for i in range(10)]
    assert allowed == [True] * 5 + [False] * 5
    assert limit.allow("10.0.0.1") is False
    clock.now += 0.99
    assert limit.allow("10.0.0.99") is False
    clock.now += 0.01
    assert [limit.allow("10.0.0.1") for _ in range(3)] == [True, True, False]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--host", "0.0.0.0"], Settings("hall", 8765)),
        (["--host", "::", "--discovery-port", "9000"], Settings("hall", 9000)),
        (["--host", "192.168.1.20"], Settings("hall", 8765)),
        (["--host", "0.0.0.0", "--no-discovery"], None),
        (["--host", "127.0.0.1"], None),
        (["--host", "::1"], None),
        (["--host", "[::1]"], None),
        (["--host", "localhost"], None),
    ],
)
def test_discovery_is_on_for_a_lan_server_only(
    argv: list[str], expected: Settings | None
) -> None:
    """--host on every address or a LAN one answers on --discovery-port (8765 by default);
    loopback hosts and --no-discovery do not."""
    args = build_parser().parse_args([*argv, "--name", "hall"])
    assert discovery.settings_from(args) == expected


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--name", "  "], "--name: the server name is empty"),
        (["--name", "x" * (NAME_CHARS + 1)], f"at most {NAME_CHARS}"),
        (["--name", "a\tb"], "control character"),
        (["--discovery-port", "70000"], "--discovery-port: must be a UDP port from 0 to 65535"),
    ],
)
def test_bad_discovery_flags_are_refused_by_name(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert words in capsys.readouterr().err


def udp_sockets_of(pid: int) -> int:
    """How many UDP sockets process ``pid`` has open (Linux: its fds against /proc/net/udp)."""
    inodes = set()
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            inodes.add(line.split()[9])
    mine = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            mine += 1
    return mine


async def lines_until(proc: ServerProcess, word: str) -> str:
    """The server's next output line holding ``word``."""
    assert proc.process.stdout is not None
    async with asyncio.timeout(30):
        while True:
            line = (await proc.process.stdout.readline()).decode()
            assert line, "the server exited"
            if word in line:
                return line


@pytest.mark.skipif(not Path("/proc/net/udp").exists(), reason="needs Linux /proc")
async def test_no_discovery_and_loopback_servers_open_no_udp_socket(tmp_path: Path) -> None:
    """A real server process: on every address it answers probes (one UDP socket); with
    --no-discovery, or on loopback only, it has no UDP socket, and its start line says why."""
    on = await ServerProcess.start(str(tmp_path / "a.db"), "--host", "0.0.0.0",
                                   "--discovery-port", "0", "--name", "Open hall")  # fmt: skip
    try:
        line = await lines_until(on, "LAN discovery")
        assert "answering on UDP port" in line and "Open hall" in line
        assert "container" not in line
        port = int(line.split("UDP port ")[1].split()[0])
        assert udp_sockets_of(on.process.pid) == 1
        with udp() as sock:
            sock.sendto(probe(), ("127.0.0.1", port))
            assert decode_answer(await receive(sock)).name == "Open hall"
    finally:
        await on.stop()
    for extra, why in ((["--host", "0.0.0.0", "--no-discovery"], "--no-discovery"),
                       ([], "loopback only")):  # fmt: skip
        off = await ServerProcess.start(str(tmp_path / "b.db"), *extra)
        try:
            assert why in await lines_until(off, "LAN discovery")
            assert udp_sockets_of(off.process.pid) == 0
        finally:
            await off.stop()


async def test_a_busy_discovery_port_leaves_the_server_running_without_it() -> None:
    """Another program on the UDP port: the server starts anyway, says discovery is off."""
    with udp() as taken:
        port = taken.getsockname()[1]
        settings = Settings("Test hall", port=port, bind="127.0.0.1")
        async with running_server(host="127.0.0.1", port=0, discovery=settings) as server:
            assert server.discovery is None
            line = discovery.start_line(settings, server.discovery, "0.0.0.0")
            assert f"UDP port {port} cannot be used" in line
            wire = await WireClient.connect(server.url, "ann")
            await wire.close()


async def test_in_a_container_the_start_line_says_host_networking_is_needed() -> None:
    """The project's image: the compose file's bridge network does not carry the LAN's
    broadcasts, so the operator is told."""
    async with lan_server() as server:
        line = discovery.start_line(server.discovery_settings, server.discovery, "0.0.0.0", True)
    assert "only with host networking" in line


async def test_a_stopped_server_answers_no_more() -> None:
    """The UDP socket closes with the server."""
    async with lan_server() as server:
        endpoint = server.discovery
        assert endpoint is not None
    assert endpoint.transport.is_closing()


async def test_two_servers_on_one_machine_both_answer_one_broadcast_probe() -> None:
    """A second server on this machine (another TCP port) shares the discovery port, and one
    probe to the loopback broadcast address (where the client sends one) gets an answer from
    each; a datagram that is not a probe still gets nothing from either. Before, the second
    server could not bind the UDP port and ran without discovery."""
    first_settings = Settings("First hall", port=0)  # every address: broadcasts reach no other
    async with running_server(host="127.0.0.1", port=0, discovery=first_settings) as first:
        port = discovery_port(first)
        second_settings = Settings("Second hall", port=port)
        async with running_server(host="127.0.0.1", port=0, discovery=second_settings) as second:
            assert second.discovery is not None, "the second server has no discovery"
            assert discovery_port(second) == port
            with udp("0.0.0.0", broadcast=True) as sock:
                sock.sendto(b"not a probe", ("127.255.255.255", port))
                sock.sendto(probe(), ("127.255.255.255", port))
                answers = [decode_answer(await receive(sock)) for _ in range(2)]
                assert sorted((a.name, a.port) for a in answers) == [
                    ("First hall", first.port),
                    ("Second hall", second.port),
                ]
                with pytest.raises(BlockingIOError):  # nothing for the datagram before
                    sock.recvfrom(4096)
            for server in (first, second):
                assert server.metrics.discovery["not_a_probe"] == 1
                assert server.metrics.discovery["answered"] == 1


def multicast_interface() -> str | None:
    """An interface of this machine with an IPv6 link-local address (so it carries IPv6
    multicast, which the system loops back to this machine's own sockets), or None. Loopback
    has none: Linux sends no multicast there (its ``lo`` has no MULTICAST flag)."""
    host = link_local()
    return host.split("%", 1)[1] if host is not None else None


@pytest.mark.skipif(multicast_interface() is None, reason="no interface with IPv6 multicast")
async def test_a_server_on_every_ipv6_address_answers_an_all_nodes_probe() -> None:
    """``--host ::``: a probe to ff02::1 (all nodes on the link) on an interface gets an
    answer on the same discovery port, to the probe's link-local source, no larger than the
    probe, within the same rate limits; the IPv6 socket takes no IPv4 datagrams (so an IPv4
    probe is answered once, by the IPv4 socket). Probed through a real interface, which the
    system loops back to this machine: loopback carries no IPv6 multicast."""
    interface = multicast_interface()
    assert interface is not None
    clock = Clock()
    settings = Settings("Six hall", port=0)
    async with running_server(host="::", port=0, discovery=settings) as server:
        assert server.discovery is not None and server.discovery.transport6 is not None
        server.discovery.responder.limit.clock = clock
        ipv6 = server.discovery.transport6.get_extra_info("socket")
        assert ipv6.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY) == 1
        port = discovery_port(server)
        assert ipv6.getsockname()[1] == port
        all_nodes = ("ff02::1", port, 0, socket.if_nametoindex(interface))
        with udp("::", family=socket.AF_INET6) as sock:
            sock.sendto(b"not a probe", all_nodes)
            sock.sendto(probe(), all_nodes)
            loop = asyncio.get_running_loop()
            data, source = await asyncio.wait_for(loop.sock_recvfrom(sock, 4096), 10)
            answer = decode_answer(data)
            assert (answer.name, answer.port, answer.host) == ("Six hall", server.port, None)
            assert len(data) <= PROBE_BYTES
            assert ipaddress.ip_address(source[0]).is_link_local  # the answer's own source
            for _ in range(PER_ADDRESS):  # the rest of this window's answers to this address
                sock.sendto(probe(), all_nodes)
            for _ in range(PER_ADDRESS - 1):
                decode_answer(await receive(sock))
            clock.now += 1.0
            sock.sendto(probe(), all_nodes)  # the next window's: no other answer before it
            decode_answer(await receive(sock))
            with pytest.raises(BlockingIOError):
                sock.recvfrom(4096)
        assert server.metrics.discovery["not_a_probe"] == 1
        assert server.metrics.discovery["rate_limited"] == 1
        with udp() as sock:
            sock.sendto(probe(), ("127.0.0.1", port))
            assert decode_answer(await receive(sock)).name == "Six hall"


@pytest.mark.skipif(not Path("/proc/net/udp6").exists(), reason="needs Linux /proc and IPv6")
async def test_a_server_on_every_ipv6_address_says_it_answers_ipv6_probes(tmp_path: Path) -> None:
    """A real server process on ``--host ::`` opens two UDP sockets on one port (IPv4 and
    IPv6) and its start line says so; on ``0.0.0.0`` it has one (see the test above)."""
    both = await ServerProcess.start(str(tmp_path / "a.db"), "--host", "::",
                                     "--discovery-port", "0", "--name", "Six hall")  # fmt: skip
    try:
        line = await lines_until(both, "LAN discovery")
        assert "answering on UDP port" in line and "(IPv4 and IPv6) as 'Six hall'" in line
        assert udp_sockets_of(both.process.pid) == 2
    finally:
        await both.stop()
