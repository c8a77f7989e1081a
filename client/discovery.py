"""Finding Boardhall servers on the local network (LAN discovery), on a background thread.

A :class:`Finder` sends the probe of :mod:`protocol.discovery` every couple of seconds to the
IPv4 broadcast addresses, to this machine, and to IPv6's all-nodes group on each interface with
IPv6, and keeps the servers that answer; the drawing thread reads :meth:`Finder.servers` and
never waits on a socket. A server not heard for :data:`FORGET_AFTER_S` seconds is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ifaddr

from protocol.discovery import DISCOVERY_PORT, BadDatagram, decode_answer, probe

PROBE_EVERY_S = 2.0
"""Seconds between two rounds of probes."""
FORGET_AFTER_S = 10.0
"""A server that has not answered for this long is no longer listed."""
NONE_FOUND_AFTER_S = 3.0
"""How long "searching" shows before "none found" (a server answers within milliseconds)."""
UNWATCHED_STOP_S = 5.0
"""A search nobody has asked for its servers this long stops by itself (a screen gone without
stopping it), in real seconds."""

Target = tuple[str, int]
"""Where a probe goes: an IPv4 address, or an IPv6 one with its ``%interface``, and a port."""


@dataclass(frozen=True)
class Found:
    """A server that answered a probe."""

    id: str
    name: str
    host: str
    """The address to connect to (the answer's source, or the one the server names)."""
    port: int
    scheme: str
    players: int
    rooms: int
    heard: float
    """When it last answered (the finder's clock)."""

    @property
    def where(self) -> str:
        """``host:port`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def address(self) -> str:
        """What goes in the connect screen's address field (``wss://`` for a TLS server)."""
        return f"wss://{self.where}" if self.scheme == "wss" else self.where


def broadcast_addresses(adapters: Iterable[ifaddr.Adapter]) -> list[str]:
    """The broadcast address of each IPv4 network ``adapters`` have an address on, without
    loopback's and without those of /31 and /32 networks (which have none), each once."""
    found: list[str] = []
    for adapter in adapters:
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue
            try:
                network = ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
            except ValueError:
                continue
            broadcast = str(network.broadcast_address)
            if network.prefixlen < 31 and not network.is_loopback and broadcast not in found:
                found.append(broadcast)
    return found


def link_local_interfaces(adapters: Iterable[ifaddr.Adapter]) -> list[int]:
    """The index of each interface among ``adapters`` with a link-local IPv6 address: those
    with IPv6 up, where a probe to the all-nodes group can go; each once. An index, not a
    name: every system takes one in a socket address (Windows' adapter names are not
    interface names)."""
    found: list[int] = []
    for adapter in adapters:
        for ip in adapter.ips:
            if isinstance(ip.ip, str) or not ipaddress.IPv6Address(ip.ip[0]).is_link_local:
                continue
            index = adapter.index or ip.ip[2]
            if index and index not in found:
                found.append(index)
    return found


ALL_NODES = "ff02::1"
"""IPv6's link-local all-nodes multicast group: IPv6 has no broadcast, every host on a link is
in this group (servers on ``::`` answer there: :data:`server.discovery.ALL_NODES`)."""

LOOPBACK_BROADCAST = "127.255.255.255"
"""The broadcast address of loopback's ``127.0.0.0/8``: every server on this machine hears a
probe sent there (they share the discovery port, see :data:`server.discovery.SHARED_PORT`),
with no network at all, whereas a probe to ``127.0.0.1`` reaches only one of them."""


def default_targets(
    port: int = DISCOVERY_PORT, adapters: Iterable[ifaddr.Adapter] | None = None
) -> list[Target]:
    """Where probes go: the limited broadcast address, each network's broadcast address, this
    machine (its loopback broadcast address, then ``127.0.0.1``, for a system whose loopback
    has no broadcast address), and :data:`ALL_NODES` on each interface with IPv6, as
    ``ff02::1%INDEX``. ``adapters``: this machine's network interfaces when not given."""
    listed = list(machine_adapters() if adapters is None else adapters)
    links = [f"{ALL_NODES}%{index}" for index in link_local_interfaces(listed)]
    everywhere = [
        "255.255.255.255",
        *broadcast_addresses(listed),
        LOOPBACK_BROADCAST,
        "127.0.0.1",
        *links,
    ]
    return [(address, port) for address in everywhere]


def machine_adapters() -> list[ifaddr.Adapter]:
    """This machine's network interfaces and their addresses (``ifaddr``: Linux, the BSDs,
    macOS and Windows); none when the system will not list them."""
    try:
        return list(ifaddr.get_adapters())
    except OSError:
        return []


class _Listener(asyncio.DatagramProtocol):
    def __init__(self, finder: Finder) -> None:
        self.finder = finder

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        self.finder.heard(data, _source(addr))

    def error_received(self, exc: Exception) -> None:
        """A target that cannot be reached (no network, no broadcast): the next round tries
        again."""


class Finder:
    """Probes the local network from its own thread while started.

    Args:
        targets: where to send probes (:func:`default_targets`, asked again for each round).
        clock: monotonic seconds.
        every: seconds between rounds.
        forget_after: seconds after which a server that stopped answering is dropped.
    """

    def __init__(
        self,
        targets: Callable[[], list[Target]] = default_targets,
        clock: Callable[[], float] = time.monotonic,
        every: float = PROBE_EVERY_S,
        forget_after: float = FORGET_AFTER_S,
    ) -> None:
        self.targets = targets
        self.clock = clock
        self.every = every
        self.forget_after = forget_after
        self.started_at: float | None = None
        """When the current search began (``None`` while stopped)."""
        self._found: dict[str, Found] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._watched = time.monotonic()
        self.news = threading.Event()
        """Set whenever an answer comes (tests wait on it)."""

    @property
    def running(self) -> bool:
        """Whether the search runs."""
        with self._lock:
            return self._thread is not None

    def start(self) -> None:
        """Start searching (returns at once; nothing happens when it runs already)."""
        ready = threading.Event()
        with self._lock:
            if self._thread is not None:
                return
            self.started_at = self.clock()
            self._watched = time.monotonic()
            self._thread = thread = threading.Thread(
                target=self._run, args=(ready,), name="boardhall-discovery", daemon=True
            )
        thread.start()
        ready.wait(5)

    def stop(self) -> None:
        """Stop searching; what was found stays until it is too old."""
        with self._lock:
            thread, loop, stop = self._thread, self._loop, self._stop
            self._thread = None
            self.started_at = None
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if thread is not None and thread is not threading.current_thread():
            thread.join(2)

    def servers(self) -> list[Found]:
        """The servers heard within the last :attr:`forget_after` seconds, by name."""
        now = self.clock()
        self._watched = time.monotonic()
        with self._lock:
            for key in [k for k, f in self._found.items() if now - f.heard > self.forget_after]:
                del self._found[key]
            found = list(self._found.values())
        return sorted(found, key=lambda f: (f.name.casefold(), f.where))

    def searching(self) -> bool:
        """Still early in a search that has found nothing yet ("searching…", not "none
        found")."""
        return self.started_at is not None and self.clock() - self.started_at < NONE_FOUND_AFTER_S

    def heard(self, data: bytes, source: str) -> None:
        """Take a datagram from ``source``: a server's answer is kept (one server heard on
        several addresses once, at the most useful: one another machine could use too, then a
        link-local IPv6 one, with its interface, then loopback), anything else ignored."""
        try:
            answer = decode_answer(data)
        except BadDatagram:
            return
        host = answer.host if answer.host and _address(answer.host) else source
        found = Found(answer.id, answer.name, host, answer.port, answer.scheme, answer.players,
                      answer.rooms, self.clock())
        with self._lock:
            known = self._found.get(answer.id)
            if known is not None and _rank(known.host) < _rank(found.host):
                found = Found(**{**found.__dict__, "host": known.host})
            self._found[answer.id] = found
        self.news.set()

    # ---- background thread -------------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main(ready))
        finally:
            ready.set()
            loop.close()
            with self._lock:
                if self._thread is threading.current_thread():  # ended by itself
                    self._thread = None
                    self.started_at = None

    async def _main(self, ready: threading.Event) -> None:
        stop = self._stop = asyncio.Event()
        ready.set()
        loop = asyncio.get_running_loop()
        senders: dict[int, asyncio.DatagramTransport] = {}
        for family, anywhere in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
            with contextlib.suppress(OSError):  # no IPv4, or no IPv6: nothing to find there
                senders[family], _ = await loop.create_datagram_endpoint(
                    lambda: _Listener(self), local_addr=(anywhere, 0), family=family,
                    allow_broadcast=family == socket.AF_INET,
                )
        if not senders:
            return  # no network at all: nothing to find
        datagram = probe()
        try:
            while not stop.is_set() and time.monotonic() - self._watched < UNWATCHED_STOP_S:
                for target in self.targets():
                    address = _sockaddr(target)
                    if address is None:
                        continue
                    sender = senders.get(socket.AF_INET6 if len(address) == 4 else socket.AF_INET)
                    if sender is not None:
                        sender.sendto(datagram, address)  # a failure goes to error_received
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.every)
        finally:
            for sender in senders.values():
                sender.close()


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an IP address (an IPv6 one perhaps with its ``%interface``), or ``None``."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None


def _rank(host: str) -> int:
    """How good ``host`` is to list a server at, best first: an address other machines could
    use too (0), a link-local one (1: it needs its interface), loopback (2)."""
    address = _address(host)
    if address is not None and address.is_loopback:
        return 2
    return 1 if address is not None and address.is_link_local else 0


def _sockaddr(target: Target) -> tuple[str, int] | tuple[str, int, int, int] | None:
    """``target`` as ``sendto`` takes it: an IPv6 one as ``(address, port, 0, interface
    index)``, from its ``%INDEX`` or ``%NAME`` (Python would read ``%interface`` in the
    address, then set the index to the tuple's, 0: the probe would leave by the default route
    only); ``None`` for a named interface that is gone since it was listed."""
    host, port = target
    if ":" not in host:
        return host, port
    address, _, interface = host.partition("%")
    if not interface:
        return address, port, 0, 0
    if interface.isdigit():
        return address, port, 0, int(interface)
    try:
        return address, port, 0, socket.if_nametoindex(interface)
    except OSError:
        return None


def _source(addr: tuple[str | int, ...]) -> str:
    """The address a datagram came from; a link-local IPv6 one with its ``%interface`` (the
    only way to reach it again)."""
    host = str(addr[0])
    scope = addr[3] if len(addr) == 4 else 0
    if isinstance(scope, int) and scope and "%" not in host:
        with contextlib.suppress(OSError):
            return f"{host}%{socket.if_indextoname(scope)}"
    return host
