"""A ``websockets`` server connection that hands each message to a consumer as it is parsed.

``websockets`` queues incoming messages for ``recv()``: each one settles a future, wakes the
handler's task on a later turn of the event loop, and recreates the handler's chain of waiting
coroutines (``recv`` -> ``Assembler.get`` -> ``SimpleQueue.get``), fresh objects for every young
garbage collection to walk while thousands of connections wait. The server handles a frame
without waiting for anything in almost every case, so :class:`PushConnection` calls its consumer
straight from ``data_received`` instead: the same message, the same order, one step fewer.

Messages are reassembled and checked as ``recv()`` does: fragments are joined (at most
:data:`MAX_FRAGMENTS`, as in recent ``websockets``; the protocol already bounds their total size
by ``max_size``), text must be UTF-8 (otherwise close 1007), and a consumer that raises closes the
connection with 1011 rather than breaking the transport. ``recv()`` gets nothing on such a
connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import traceback
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, ClassVar

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CONT, DATA_OPCODES, TEXT, CloseCode, Frame
from websockets.http11 import SERVER, Request
from websockets.protocol import CONNECTING, OPEN, Event
from websockets.typing import Data

from server.limitkey import DEFAULT_IPV6_PREFIX, limit_key
from server.proxies import TrustedProxies

log = logging.getLogger("boardhall.net")

Consumer = Callable[[Data], None]

Refused = Callable[[str, str], None]
"""Told ``(reason, address)`` of a refused socket."""

Unforwarded = Callable[[str], None]
"""Told the address of a trusted proxy whose request names no client that can be read."""

MAX_FRAGMENTS = 4096
"""The most frames one message may come in; more closes the connection with 1009."""

MAX_REQUEST_HEAD = 64 * 1024
"""The most bytes of a request's head (its line and headers) held back until it is whole; a
longer one goes to ``websockets`` as it is, which refuses it."""

_BODY_HEADERS = (b"content-length:", b"transfer-encoding:")

OVER_LIMIT = HTTPStatus.TOO_MANY_REQUESTS
"""The answer to a trusted proxy's request whose client is over the limit of unfinished
handshakes: a 4xx, like the 1008 of a client over ``--connections-per-address``, the client's
doing rather than the server's failing (a 503 would say the server is out of order)."""

OVER_LIMIT_TEXT = (
    "Too many connections from your address at once (the server's --connections-per-address)."
    " Close some and try again.\n"
)
"""The body of that answer: short plain text, as ``websockets`` answers a handshake it refuses
(a client library shows it; the proxy logs the status)."""

MAX_UNSENT = 64 * 64 * 1024
"""The most bytes written to a connection and not yet taken by its peer (64 frames of the
largest size): a peer that does not read (its pongs, the lobby list, a room's moves) is cut off
there rather than kept in the server's memory until its pings time out, or for ever."""


class PushConnection(ServerConnection):
    """A server connection whose messages go to :meth:`attach`'s consumer, not to ``recv()``."""

    handshakes: ClassVar[dict[str, int] | None] = None
    """Unfinished handshakes by the :func:`limit_key` of their client address, shared by a
    server's connections (see :func:`counting_handshakes`); None counts nothing."""
    handshakes_per_address: ClassVar[int] = 0
    """The most unfinished handshakes one address may have (0: no limit)."""
    ipv6_prefix: ClassVar[int] = DEFAULT_IPV6_PREFIX
    """The IPv6 network counted as one address (see :func:`limit_key`)."""
    on_refused: ClassVar[tuple[Refused, ...]] = ()
    """Each told ``(reason, address)`` of a socket refused over the limit (``handshake_limit``) or
    that ended without a request (``tls_on_plain_port``, ``bad_request``, ``no_request``)."""
    proxies: ClassVar[TrustedProxies] = TrustedProxies(())
    """The peers whose requests name their client (``X-Forwarded-For``, ``Forwarded``). Their
    sockets are not counted when they connect (the proxy's address is every client's): each is
    counted against its client's address once its request's head is read."""
    on_unforwarded: ClassVar[tuple[Unforwarded, ...]] = ()
    """Each told the peer address of a trusted proxy's request that names no readable client
    (it then counts as the proxy's own address)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_address = "?"
        """The client's IP address: the TCP peer's, or the one a trusted proxy forwarded (known
        once the request is read)."""
        self.proxy: str | None = None
        """The TCP peer's address when it is a trusted proxy."""
        self._handshaking: str | None = None
        """This connection's key in :attr:`handshakes` while it counts there."""
        self._refused = False
        """Refused over the handshake limit (already told): closed at once, or a trusted
        proxy's request answered :data:`OVER_LIMIT`."""
        self._consumer: Consumer | None = None
        self._early: list[Data] = []  # messages that came before a consumer was attached
        self._fragments: list[Frame] = []
        self._failed = False
        self._failing: set[asyncio.Task[None]] = set()
        self._request_head: bytes | None = b""
        """The request's head so far, until it is whole (then None)."""
        self._after_head = b""
        """Bytes that came after the request's head before the handshake ended: frames of a
        client that did not wait for the 101, or a plain request's body or next request."""
        self._first_bytes = b""
        """The first bytes received (what a socket that sent no request sent instead)."""

    def data_received(self, data: bytes) -> None:
        """Hand ``websockets`` the request's head alone, and only once it is whole, without the
        headers that announce a body (it refuses any request with a body, answering nothing);
        hold what follows until the handshake is over. Otherwise the bytes after a plain HTTP
        request were parsed as WebSocket frames: the request went unanswered and
        ``websockets`` logged an error for it."""
        if self._request_head is not None:
            if not self._first_bytes:
                self._first_bytes = data[:3]
            head = self._request_head + data
            end = head.find(b"\r\n\r\n")
            if end < 0 and len(head) <= MAX_REQUEST_HEAD and _may_be_a_request(head):
                self._request_head = head
                return
            self._request_head = None
            if end >= 0:
                self._after_head = head[end + 4 : end + 4 + MAX_REQUEST_HEAD]
                head = _without_body_headers(head[: end + 4])
            super().data_received(head)
        elif self.protocol.state is CONNECTING:
            room = MAX_REQUEST_HEAD - len(self._after_head)
            if room > 0:
                self._after_head += data[:room]
        else:
            super().data_received(data)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Count this unfinished handshake against its address; over the limit, close it at
        once (one address could otherwise hold any number of sockets that never finish their
        request, each for as long as the handshake may take). A trusted proxy's socket is
        counted once its request names the client (:meth:`process_event`)."""
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        self.client_address = address
        if self.proxies.trusts(address):
            self.proxy = address
            return
        self._count(address)

    def _count(self, address: str) -> None:
        """Count an unfinished handshake of ``address`` (under its :func:`limit_key`), or refuse
        it over the limit: a socket that has sent nothing is closed at once (there is no request
        to answer); a trusted proxy's request is answered :data:`OVER_LIMIT` by
        :meth:`handshake`."""
        counts = self.handshakes
        if counts is None:
            return
        key = limit_key(address, self.ipv6_prefix)
        count = counts.get(key, 0)
        if self.handshakes_per_address and count >= self.handshakes_per_address:
            self._refused = True
            # told by on_refused at a bounded rate: one line per socket filled the log
            for tell in self.on_refused:
                tell("handshake_limit", address)
            if self.proxy is not None:
                return
            transport = self.transport
            if isinstance(transport, asyncio.Transport):
                transport.abort()
            else:
                transport.close()
            return
        counts[key] = count + 1
        self._handshaking = key

    def _forwarded(self, request: Request) -> None:
        """Take the client a trusted proxy's ``request`` names (else keep the proxy's address)
        and count its handshake."""
        headers = request.headers
        forwarded_for, forwarded = headers.get_all("X-Forwarded-For"), headers.get_all("Forwarded")
        client = self.proxies.client(forwarded_for, forwarded)
        if client is not None:
            self.client_address = client
        else:
            for tell in self.on_unforwarded:
                tell(self.client_address)
        self._count(self.client_address)

    def _handshake_over(self) -> None:
        key, self._handshaking = self._handshaking, None
        counts = self.handshakes
        if key is not None and counts is not None:
            left = counts.get(key, 1) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)

    async def handshake(
        self,
        process_request: Any = None,
        process_response: Any = None,
        server_header: str | None = SERVER,
    ) -> None:
        """The opening handshake; then the bytes held after the request's head, if it opened
        a WebSocket connection (a plain HTTP answer closes the connection: they are dropped).
        A trusted proxy's request over the limit gets :data:`OVER_LIMIT` instead (neither
        ``process_request`` nor the WebSocket handshake sees it)."""
        if self.proxy is not None:
            process_request = self._over_limit_or(process_request)
        try:
            await super().handshake(process_request, process_response, server_header)
        finally:
            self._handshake_over()
            if self.request is None and not self._refused:
                for tell in self.on_refused:
                    tell(_no_request_reason(self._first_bytes), self.client_address)
        held, self._after_head = self._after_head, b""
        if held and self.protocol.state is OPEN:
            super().data_received(held)

    def _over_limit_or(self, process_request: Any) -> Any:
        """``process_request``, or the :data:`OVER_LIMIT` answer once the request was refused
        (by then it is read: :meth:`process_event` counts it before the handshake goes on)."""

        def answer(connection: ServerConnection, request: Request) -> Any:
            if self._refused:
                response = self.protocol.reject(OVER_LIMIT, OVER_LIMIT_TEXT)
                response.headers["Cache-Control"] = "no-store"
                return response
            return process_request(connection, request) if process_request is not None else None

        return answer

    def attach(self, consumer: Consumer) -> None:
        """Hand every message to ``consumer`` from now on, those already received first."""
        self._consumer = consumer
        early, self._early = self._early, []
        for message in early:
            self._hand_over(message)

    def connection_lost(self, exc: Exception | None) -> None:
        """Close as ``websockets`` does, then break the reference cycles a closed connection
        keeps, so that reference counting frees it at once rather than the next full garbage
        collection (see :mod:`server.gcpolicy`): the consumer usually refers back to this
        connection, the protocol's parser is a generator suspended for good with the protocol
        in its frame, and the parser's exception holds that frame in its traceback."""
        super().connection_lost(exc)
        self._handshake_over()
        self._consumer = None
        self._early = []
        protocol = self.protocol
        protocol.parser.close()
        if protocol.parser_exc is not None:
            traceback.clear_frames(protocol.parser_exc.__traceback__)

    def send_data(self) -> None:
        """Write what the protocol has to send; cut the connection off (abort, nothing more is
        sent) once more than :data:`MAX_UNSENT` bytes wait for a peer that does not read."""
        super().send_data()
        transport = self.transport
        if transport.get_write_buffer_size() > MAX_UNSENT and not transport.is_closing():
            log.info(
                "closing a connection that does not read",
                extra={"fields": {"unsent": transport.get_write_buffer_size()}},
            )
            transport.abort()

    def process_event(self, event: Event) -> None:
        """Take data frames for the consumer; leave the handshake and control frames to
        ``websockets`` (a trusted proxy's request once it has named its client and counted:
        over the limit, :meth:`handshake` answers it :data:`OVER_LIMIT`)."""
        if isinstance(event, Request) and self.proxy is not None and self.request is None:
            self._forwarded(event)
        if not isinstance(event, Frame) or event.opcode not in DATA_OPCODES:
            super().process_event(event)
            return
        if self._failed:
            return
        if event.opcode is CONT or not event.fin:  # the protocol checks the fragments' order
            if len(self._fragments) >= MAX_FRAGMENTS:
                self.fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
                return
            self._fragments.append(event)
            if not event.fin:
                return
            frames, self._fragments = self._fragments, []
            data = b"".join(frame.data for frame in frames)
            text = frames[0].opcode is TEXT
        else:
            data = bytes(event.data)
            text = event.opcode is TEXT
        if not text:
            self._hand_over(data)
            return
        try:
            message = data.decode()
        except UnicodeDecodeError as exc:
            self.fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
            return
        self._hand_over(message)

    def _hand_over(self, message: Data) -> None:
        consumer = self._consumer
        if consumer is None:
            self._early.append(message)
            return
        try:
            consumer(message)
        except Exception:
            log.exception("handling a message failed")
            self.fail(CloseCode.INTERNAL_ERROR, "internal error")

    def fail(self, code: CloseCode, reason: str) -> None:
        """Close the connection with ``code`` as ``recv()`` does on a bad message, and take no
        more messages from it."""
        if self._failed:
            return
        self._failed = True
        self._fragments = []
        task = self.loop.create_task(self._fail(code, reason))
        self._failing.add(task)
        task.add_done_callback(self._failing.discard)

    async def _fail(self, code: CloseCode, reason: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            async with self.send_context():
                self.protocol.fail(code, reason)


_REQUEST_LINE = re.compile(rb"[A-Z]+ [\x21-\x7e]+ HTTP/[0-9.]+")


def _may_be_a_request(head: bytes) -> bool:
    """Whether ``head`` (no blank line yet) can still be the start of a request: it begins with
    a method's capital letter, and its first line, once whole, reads as a request line. Anything
    else (a TLS greeting, a garbage line) goes to ``websockets`` at once, which refuses it at
    once, rather than being held until the handshake times out."""
    if not head[:1].isupper():
        return not head
    first, whole, _ = head.partition(b"\r\n")
    return not whole or _REQUEST_LINE.fullmatch(first) is not None


def _no_request_reason(first: bytes) -> str:
    """Why a socket sent no request, by its first bytes: a TLS record (a handshake, 0x16, of
    version 3.x) is a ``wss://`` client on the plain port; nothing at all, a port scan."""
    if not first:
        return "no_request"
    if first[:1] == b"\x16" and first[1:2] in (b"", b"\x03"):
        return "tls_on_plain_port"
    return "bad_request"


def _without_body_headers(head: bytes) -> bytes:
    """A request's head without its ``Content-Length`` and ``Transfer-Encoding`` lines (the
    body they announce is not read: no path takes one)."""
    lines = head.split(b"\r\n")
    kept = [line for line in lines if not line.lower().startswith(_BODY_HEADERS)]
    return b"\r\n".join(kept)


def counting_handshakes(
    counts: dict[str, int],
    per_address: int,
    refused: Refused | None = None,
    trusted: TrustedProxies | None = None,
    unforwarded: Unforwarded | None = None,
    ipv6_prefix: int = DEFAULT_IPV6_PREFIX,
) -> type[PushConnection]:
    """A :class:`PushConnection` class for one server: its connections count their unfinished
    handshakes in ``counts``, at most ``per_address`` for one client address (an IPv6 one with
    its network of ``ipv6_prefix`` bits, see :func:`limit_key`); ``refused`` hears of the
    sockets refused or that sent no request (see :attr:`PushConnection.on_refused`); ``trusted``
    proxies name their clients, ``unforwarded`` hears of those that do not."""
    prefix = ipv6_prefix  # a class body does not see a parameter it assigns the same name

    class CountingConnection(PushConnection):
        handshakes = counts
        handshakes_per_address = per_address
        on_refused = (refused,) if refused is not None else ()
        proxies = trusted if trusted is not None else TrustedProxies(())
        on_unforwarded = (unforwarded,) if unforwarded is not None else ()
        ipv6_prefix = prefix

    return CountingConnection
