"""The connection to a server, run on a background asyncio thread.

The pygame thread never touches a socket: it calls :meth:`Connection.send` (thread-safe) and drains
:attr:`Connection.inbox` (a ``queue.Queue`` of :class:`NetEvent`) once per frame. The background
thread sends ``hello`` on every (re)connect with the newest token, so a dropped connection resumes
the same identity and its seats by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import socket
import ssl
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import CURRENT_VERSION, limits

PROTOCOL_VERSION = CURRENT_VERSION
CLIENT_NAME = "boardhall-pygame/0.1"
MAX_FRAME = limits.FRAME_BYTES
RECONNECT_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)
NO_RECONNECT_CODES = {4001}
"""Close codes after which reconnecting would be wrong (4001: the identity connected elsewhere)."""

EventKind = Literal["open", "message", "closed", "failed", "reconnecting"]


@dataclass
class NetEvent:
    """Something that happened on the connection.

    ``open``: connected (``hello`` already sent). ``message``: ``data`` is a decoded server message
    (a dict with a string ``type``). ``closed``: the connection ended (``code``, ``text``).
    ``reconnecting``: trying again after a drop. ``failed``: could not connect, or gave up;
    ``text`` says why in words a player understands.
    """

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    code: int | None = None


def describe_failure(exc: BaseException, url: str) -> str:
    """A readable reason for a failed connection attempt."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"The certificate of {url} is not trusted ({exc.verify_message}). "
                "Use --cafile with the server's certificate authority.")
    if isinstance(exc, ssl.SSLError):
        return f"Secure connection to {url} failed: {getattr(exc, 'reason', None) or exc}"
    if isinstance(exc, ConnectionRefusedError):
        return f"Connection refused: nothing is listening at {url}. Is the server running?"
    if isinstance(exc, socket.gaierror):
        return f"Unknown host in {url}: check the address."
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return f"No answer from {url} (timed out). Check the address and your network."
    if isinstance(exc, InvalidURI):
        return f"Not a valid server address: {url}"
    if isinstance(exc, InvalidHandshake):
        return (f"{url} answered, but not as a Boardhall server (wrong protocol or port): {exc}")
    if isinstance(exc, OSError):
        return f"Cannot reach {url}: {exc.strerror or exc}"
    return f"Cannot connect to {url}: {exc}"


class Connection:
    """One server connection on its own thread, reconnecting after drops.

    Args:
        url: ``ws://`` or ``wss://`` URL.
        name: player name sent in ``hello``.
        token: identity token to resume, if any.
        reconnect: try again after a drop (never after close code 4001 or a refused hello).
        ssl: an ``ssl.SSLContext`` for ``wss://`` with a private certificate authority.
    """

    def __init__(
        self,
        url: str,
        name: str,
        token: str | None = None,
        reconnect: bool = True,
        ssl: Any = None,
    ) -> None:
        self.url = url
        self.name = name
        self.token = token
        self.reconnect = reconnect
        self.ssl = ssl
        self.inbox: queue.Queue[NetEvent] = queue.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._outbox: asyncio.Queue[str] | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._ready = threading.Event()
        self._ws: ClientConnection | None = None
        self.connected = False
        self._closing: asyncio.Future[None] | None = None

    def start(self) -> None:
        """Start the background thread (returns at once)."""
        self._thread = threading.Thread(target=self._run, name="boardhall-net", daemon=True)
        self._thread.start()
        self._ready.wait(5)

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for sending (thread-safe; dropped when not connected)."""
        loop, outbox = self._loop, self._outbox
        if loop is None or outbox is None or loop.is_closed():
            return
        text = json.dumps(message, ensure_ascii=False)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(outbox.put_nowait, text)

    def close(self) -> None:
        """Close the connection and stop the thread."""
        self._stopping = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake_to_stop)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    def drop(self) -> None:
        """Break the current connection abruptly, as a network failure would (for tests)."""
        loop, ws = self._loop, self._ws
        if loop is not None and ws is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(ws.transport.abort)

    # ---- background thread -------------------------------------------------------------------

    def _wake_to_stop(self) -> None:
        if self._outbox is not None:
            self._outbox.put_nowait("")
        if self._ws is not None:
            self._closing = asyncio.ensure_future(self._ws.close())

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        self._outbox = asyncio.Queue()
        self._ready.set()
        attempt = 0
        ever_connected = False
        while not self._stopping:
            try:
                extra: dict[str, Any] = {} if self.ssl is None else {"ssl": self.ssl}
                ws = await connect(self.url, open_timeout=8, max_size=MAX_FRAME * 4,
                                   close_timeout=2, **extra)
            except Exception as exc:  # any failure to connect is reported, never raised
                reason = describe_failure(exc, self.url)
                if not ever_connected or not self.reconnect or attempt >= 20:
                    self.inbox.put(NetEvent("failed", text=reason))
                    return
                delay = RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)]
                attempt += 1
                self.inbox.put(NetEvent("reconnecting", text=f"{reason} Retrying in {delay:g} s."))
                await self._sleep(delay)
                continue
            attempt = 0
            code, reason = await self._session(ws, ever_connected)
            ever_connected = True
            self.connected = False
            self.inbox.put(NetEvent("closed", code=code, text=reason))
            if self._stopping or not self.reconnect or code in NO_RECONNECT_CODES:
                return
            self.inbox.put(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
            await self._sleep(RECONNECT_DELAYS[0])

    async def _sleep(self, seconds: float) -> None:
        assert self._outbox is not None
        # Waiting on the outbox lets close() interrupt the pause (messages sent meanwhile are
        # stale and dropped).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        with contextlib.suppress(asyncio.TimeoutError):
            while not self._stopping and loop.time() < deadline:
                text = await asyncio.wait_for(self._outbox.get(), deadline - loop.time())
                if text == "":
                    return

    async def _session(self, ws: ClientConnection, again: bool) -> tuple[int | None, str]:
        assert self._outbox is not None
        self._ws = ws
        # Messages queued before the first connection are sent after hello; messages queued
        # while a dropped connection was down are stale (the room has moved on): drop them.
        while again and not self._outbox.empty():
            self._outbox.get_nowait()
        hello: dict[str, Any] = {"type": "hello", "name": self.name, "protocol": PROTOCOL_VERSION,
                                 "client": CLIENT_NAME}
        if self.token:
            hello["token"] = self.token
        try:
            await ws.send(json.dumps(hello, ensure_ascii=False))
        except ConnectionClosed:
            return _close_info(ws)
        self.connected = True
        self.inbox.put(NetEvent("open"))
        writer = asyncio.ensure_future(self._write(ws))
        try:
            async for raw in ws:
                self._receive(raw)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a broken transport: report it as a drop
            writer.cancel()
            return None, f"connection error: {exc}"
        finally:
            writer.cancel()
            self._ws = None
        return _close_info(ws)

    async def _write(self, ws: ClientConnection) -> None:
        assert self._outbox is not None
        while True:
            text = await self._outbox.get()
            if text == "":
                await ws.close()
                return
            try:
                await ws.send(text)
            except ConnectionClosed:
                return

    def _receive(self, raw: str | bytes) -> None:
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return
        if data["type"] == "welcome" and isinstance(data.get("token"), str):
            self.token = data["token"]
        self.inbox.put(NetEvent("message", data=data))


def _close_info(ws: ClientConnection) -> tuple[int | None, str]:
    code = ws.close_code
    if code is None or code == 1006:
        return code, "connection dropped"
    return code, ws.close_reason or ""


__all__ = ["Connection", "NetEvent", "describe_failure", "websockets"]
