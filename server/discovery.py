"""LAN discovery: a UDP endpoint that answers clients' probes (wire format:
:mod:`protocol.discovery`), so players on the local network find the server without typing
its address.

It answers only a well-formed probe, with an answer never larger than the probe, at most
:data:`PER_ADDRESS` times a window per source address and :data:`OVERALL` times a window in
all (a spoofed-source flood gets little, and nothing larger than it sent); anything else is
ignored and counted (``boardhall_discovery_datagrams_total`` in ``/metrics``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import socket
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from protocol import CURRENT_VERSION
from protocol.discovery import (
    DISCOVERY_PORT,
    NAME_CHARS,
    VERSION_CHARS,
    Answer,
    BadDatagram,
    encode_answer,
    is_probe,
)
from server import lan
from server.flags import bounded

if TYPE_CHECKING:
    from server.net import BoardhallServer

log = logging.getLogger("boardhall.discovery")

WINDOW_S = 1.0
"""The rate limits count answers in windows of this many seconds."""
PER_ADDRESS = 4
"""Answers to one source address in a window (a client probes every two seconds, on each of
its targets)."""
OVERALL = 64
"""Answers in all in a window."""

SHARED_PORT = hasattr(socket, "SO_REUSEPORT")
"""Whether the discovery socket is bound with ``SO_REUSEPORT`` (Linux, the BSDs, macOS), so
that several servers on one machine (each on its own TCP port) all answer on the one UDP port
clients probe: the system hands every socket bound so a copy of each broadcast datagram (a
datagram sent to one address, such as ``127.0.0.1``, reaches only one of them). Linux lets only
sockets of the same user share a port this way, so another user's program cannot take the
probes. ``SO_REUSEADDR`` would do the same for broadcasts but lets any user share the port,
which is why asyncio no longer offers it for UDP."""


@dataclass(frozen=True)
class Settings:
    """Where and as what the server answers probes."""

    name: str
    """The server's name in answers (``--name``)."""
    port: int = DISCOVERY_PORT
    """UDP port (0 picks a free one: tests)."""
    bind: str = "0.0.0.0"
    """Address the UDP socket binds to (every IPv4 address: broadcasts reach no other)."""


@dataclass(frozen=True)
class Status:
    """What an answer says of the server now."""

    port: int
    scheme: str
    players: int
    rooms: int
    host: str | None = None


def wanted(host: str) -> bool:
    """Whether a server listening on ``host`` answers probes: when it listens on every address
    or on one other machines can reach (a loopback-only server is for this machine alone)."""
    return not lan.is_loopback(host)


def check_name(text: str) -> str:
    """``--name`` without surrounding spaces.

    Raises:
        ValueError: empty, longer than :data:`protocol.discovery.NAME_CHARS` characters, or
            holding a control character.
    """
    name = text.strip()
    if not name:
        raise ValueError("the server name is empty")
    if len(name) > NAME_CHARS:
        raise ValueError(f"the server name has {len(name)} characters; at most {NAME_CHARS}")
    if not name.isprintable():
        raise ValueError("the server name holds a control character (a line break, a tab…)")
    return name


def default_name() -> str:
    """This machine's host name (its first label when the whole is too long), or
    ``boardhall``."""
    host = socket.gethostname().strip()
    if len(host) > NAME_CHARS:
        host = host.split(".", 1)[0][:NAME_CHARS]
    try:
        return check_name(host)
    except ValueError:
        return "boardhall"


def name_flag(text: str) -> str:
    """``--name`` checked (:func:`check_name`), refused by argparse with the reason."""
    try:
        return check_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_flags(parser: argparse.ArgumentParser) -> None:
    """``--name``, ``--discovery-port`` and ``--no-discovery``."""
    parser.add_argument(
        "--name",
        type=name_flag,
        default=default_name(),
        help=f"the server's name in LAN discovery answers (at most {NAME_CHARS} characters)",
    )
    parser.add_argument(
        "--discovery-port",
        type=bounded(int, "a UDP port from 0 to 65535", 0, 65535),
        default=DISCOVERY_PORT,
        help="UDP port that answers LAN discovery probes (clients probe this number; 0 picks "
        "a free one)",
    )
    parser.add_argument(
        "--no-discovery",
        action="store_true",
        help="do not answer LAN discovery probes (a server on loopback only never does)",
    )


def settings_from(args: argparse.Namespace) -> Settings | None:
    """The discovery settings of parsed arguments: ``None`` with ``--no-discovery`` or when
    ``--host`` is a loopback address."""
    if args.no_discovery or not wanted(args.host):
        return None
    return Settings(args.name, args.discovery_port)


class RateLimit:
    """Answers allowed per source address and in all, counted in fixed windows of
    :data:`WINDOW_S` seconds of ``clock``. Each exact address counts on its own, not its IPv6
    network as the server's other per-address limits do (:mod:`server.limitkey`): every
    machine of a LAN probes from one fe80::/64, so that network would be one budget for all of
    them; :data:`OVERALL` bounds the answers whatever the addresses."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        per_address: int = PER_ADDRESS,
        overall: int = OVERALL,
    ) -> None:
        self.clock = clock
        self.per_address = per_address
        self.overall = overall
        self._window = float("-inf")
        self._total = 0
        self._by_address: Counter[str] = Counter()
        """Answers in this window by address (no more entries than :attr:`overall`)."""

    def allow(self, address: str) -> bool:
        """Whether ``address`` may get an answer now (counted when it may)."""
        now = self.clock()
        if now - self._window >= WINDOW_S:
            self._window, self._total = now, 0
            self._by_address.clear()
        if self._total >= self.overall or self._by_address[address] >= self.per_address:
            return False
        self._total += 1
        self._by_address[address] += 1
        return True


class Responder:
    """What the server answers to each datagram (see :class:`Status`), on every socket it
    listens on: one rate limit and one ``id`` for all of them.

    Args:
        name: the server's name in answers.
        version: the server's software version.
        status: what the server is now (called for each answer).
        counts: where the outcome of each datagram is counted (one of
            :data:`server.metrics.DISCOVERY_OUTCOMES`).
        clock: monotonic seconds, for the rate limit.
    """

    def __init__(
        self,
        name: str,
        version: str,
        status: Callable[[], Status],
        counts: Counter[str],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.version = version[:VERSION_CHARS]
        self.status = status
        self.counts = counts
        self.limit = RateLimit(clock)
        self.id = secrets.token_hex(8)

    def reply(self, data: bytes, source: str) -> bytes | None:
        """The answer to ``data`` from the address ``source``; ``None``: none (not a probe,
        over a rate limit), counted either way."""
        if not is_probe(data):
            self.counts["not_a_probe"] += 1
            return None
        if not self.limit.allow(source):
            self.counts["rate_limited"] += 1
            return None
        try:
            answer = self.answer()
        except BadDatagram:  # cannot happen with the fields' limits; never send more
            log.exception("discovery answer too large")
            return None
        if len(answer) > len(data):  # the anti-amplification rule, whatever changes above
            return None
        self.counts["answered"] += 1
        return answer

    def answer(self) -> bytes:
        """The answer datagram for the server as it is now."""
        now = self.status()
        return encode_answer(
            Answer(
                protocol=CURRENT_VERSION,
                id=self.id,
                name=self.name,
                version=self.version,
                port=now.port,
                scheme="wss" if now.scheme == "wss" else "ws",
                players=now.players,
                rooms=now.rooms,
                host=now.host,
            )
        )


class _Endpoint(asyncio.DatagramProtocol):
    """One UDP socket's side: each datagram to the responder, its answer back to the source."""

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        answer = self.responder.reply(data, str(addr[0]))
        if answer is not None and self.transport is not None:
            self.transport.sendto(answer, addr)

    def error_received(self, exc: Exception) -> None:
        """An ICMP error for an earlier answer (a client gone): nothing to do."""


ALL_NODES = "ff02::1"
"""IPv6's link-local all-nodes multicast address, where clients send their IPv6 probes (IPv6
has no broadcast): every host on the link is in that group, on every interface."""


class Discovery:
    """The running endpoint: :meth:`open` it once the server listens, :meth:`close` it at the
    stop."""

    def __init__(
        self,
        transport: asyncio.DatagramTransport,
        responder: Responder,
        transport6: asyncio.DatagramTransport | None = None,
    ) -> None:
        self.transport = transport
        """The IPv4 socket's (broadcast probes)."""
        self.responder = responder
        self.transport6 = transport6
        """The IPv6 socket's (probes to :data:`ALL_NODES`), when there is one."""

    @classmethod
    async def open(
        cls,
        settings: Settings,
        version: str,
        status: Callable[[], Status],
        counts: Counter[str],
        clock: Callable[[], float] = time.monotonic,
        ipv6: bool = False,
    ) -> Discovery:
        """Listen on ``settings``' UDP port, shared with the other servers of this machine
        (:data:`SHARED_PORT`); with ``ipv6``, on the same port of every IPv6 address too,
        when it can be bound (else said in the log: IPv4 goes on alone).

        Raises:
            OSError: the IPv4 port cannot be bound (in use by a program that does not share
                it, or by another user's server; no permission).
        """
        loop = asyncio.get_running_loop()
        responder = Responder(settings.name, version, status, counts, clock)
        transport, _ = await loop.create_datagram_endpoint(
            lambda: _Endpoint(responder),
            local_addr=(settings.bind, settings.port),
            family=socket.AF_INET,
            reuse_port=SHARED_PORT,
        )
        found = cls(transport, responder)
        if ipv6:
            try:
                sock = _ipv6_socket(found.port)
                found.transport6, _ = await loop.create_datagram_endpoint(
                    lambda: _Endpoint(responder), sock=sock
                )
            except OSError as exc:
                log.warning(
                    "LAN discovery answers IPv4 probes only: cannot listen on UDP port %d of "
                    "IPv6 (%s)",
                    found.port,
                    exc.strerror or exc,
                )
        return found

    @property
    def port(self) -> int:
        """The UDP port bound."""
        return int(self.transport.get_extra_info("sockname")[1])

    def close(self) -> None:
        """Stop answering (closing again does nothing)."""
        self.transport.close()
        if self.transport6 is not None:
            self.transport6.close()


def _ipv6_socket(port: int) -> socket.socket:
    """A UDP socket on ``port`` of every IPv6 address, shared as the IPv4 one is, that takes
    IPv6 datagrams only (otherwise each IPv4 probe came twice, once as ``::ffff:a.b.c.d``).
    Linux hands it the datagrams sent to :data:`ALL_NODES` without joining the group
    (``IPV6_MULTICAST_ALL``, on by default).

    Raises:
        OSError: no IPv6, or the port cannot be bound.
    """
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    try:
        if SHARED_PORT:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(("::", port))
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def listens_on_every_ipv6_address(server: BoardhallServer) -> bool:
    """Whether ``server`` listens on ``::`` (``--host ::`` or ``""`` on a machine with IPv6):
    only then can the players who find it over IPv6 connect to the address they heard it at."""
    return any(
        sock.family == socket.AF_INET6 and sock.getsockname()[0] == "::"
        for sock in server.listening_sockets()
    )


def status_of(server: BoardhallServer) -> Status:
    """What ``server`` is now, for an answer: its port and scheme, the players online (people,
    not bots; each counted once), the games being played, and the address it listens on when
    it listens on one."""
    players = {
        session.identity.player
        for session in server.hall.sessions.values()
        if session.identity is not None and not session.identity.bot
    }
    rooms = sum(1 for room in server.hall.rooms.values() if room.status == "playing")
    host = None
    if not lan.is_wildcard(server.host):
        host = str(server.listening_sockets()[0].getsockname()[0])
    scheme = "wss" if server.ssl_context is not None else "ws"
    return Status(server.port, scheme, len(players), rooms, host)


async def start(server: BoardhallServer) -> Discovery | None:
    """Open ``server``'s discovery endpoint when its settings ask for one; ``None`` when they do
    not, or when the port cannot be bound (said in the log: the server runs on without it)."""
    settings = server.discovery_settings
    if settings is None:
        return None
    try:
        return await Discovery.open(
            settings,
            server.metrics.version,
            lambda: status_of(server),
            server.metrics.discovery,
            ipv6=listens_on_every_ipv6_address(server),
        )
    except OSError as exc:
        log.warning(
            "LAN discovery is off: cannot listen on UDP port %d (%s; servers of one user on "
            "this machine share it, another program or another user's server cannot)",
            settings.port,
            exc.strerror or exc,
        )
        return None


def start_line(
    settings: Settings | None, running: Discovery | None, host: str, container: bool = False
) -> str:
    """The start line that says whether players on the network can find this server (in a
    container, that only host networking lets the LAN's probes in)."""
    if running is not None:
        families = " (IPv4 and IPv6)" if running.transport6 is not None else ""
        line = (
            f"LAN discovery: answering on UDP port {running.port}{families} as "
            f"{running.responder.name!r}"
        )
        if container:
            line += " (in a container, players find it only with host networking)"
        return line
    if settings is not None:
        return f"LAN discovery is off: UDP port {settings.port} cannot be used (see the log)"
    if not wanted(host):
        return "LAN discovery is off: this server listens on loopback only"
    return "LAN discovery is off (--no-discovery)"
