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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Literal

import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidMessage,
    InvalidStatus,
    InvalidURI,
)
from websockets.http11 import Response

from client.backoff import spread
from protocol import CURRENT_VERSION, limits

PROTOCOL_VERSION = CURRENT_VERSION
CLIENT_NAME = "boardhall-pygame/0.1"
MAX_FRAME = limits.FRAME_BYTES
RECONNECT_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)
"""The waits between reconnection attempts (the last one repeats)."""
@dataclass(frozen=True)
class Patience:
    """How long a connection waits for each thing before it says so (seconds)."""

    reconnect_for: float = 120.0
    """After a drop, how long reconnecting goes on before it gives up and says why."""
    open_timeout: float = 8.0
    """How long one attempt may take to open the connection (TCP, TLS, WebSocket handshake)."""
    welcome_timeout: float = 10.0
    """How long the server may take to answer ``hello``: a WebSocket server that never does is
    not a Boardhall server (or a hung one), and waiting longer would only show "Connecting…"
    for ever."""
    stable_after: float = 30.0
    """A session welcomed this long before it dropped held: the waits between attempts start
    again from the shortest. A shorter one (a server that hangs up after each welcome) does not
    reset them, or the client would reconnect twice a second for ever."""
    ping_interval: float = 5.0
    ping_timeout: float = 10.0
    """WebSocket pings every ``ping_interval``; a pong missing for ``ping_timeout`` means the
    link died silently (no reset, no close: a Wi-Fi gone), noticed within about 15 s, not the
    minutes a TCP connection takes to time out on its own."""


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


def _other_scheme(url: str) -> str:
    """``url`` with ``ws://`` and ``wss://`` swapped."""
    if url.startswith("wss://"):
        return "ws://" + url[len("wss://"):]
    return "wss://" + url[len("ws://"):] if url.startswith("ws://") else url


def describe_failure(exc: BaseException, url: str) -> str:
    """A readable reason for a failed connection attempt (one line, no traceback)."""
    secure = url.startswith("wss://")
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = getattr(exc, "verify_message", None) or getattr(exc, "reason", None) or exc
        return (f"The certificate of {url} is not trusted ({why}). "
                "Use --cafile with the server's certificate authority.")
    if isinstance(exc, ssl.SSLError):
        return (f"Secure connection to {url} failed ({getattr(exc, 'reason', None) or exc}). "
                f"If the server does not use TLS, type {_other_scheme(url)} instead.")
    if secure and isinstance(exc, (ConnectionResetError, ConnectionAbortedError, EOFError)):
        # a plain server reads the TLS greeting as a bad HTTP request and hangs up
        return (f"Secure connection to {url} failed: the server hung up during the TLS "
                f"handshake. If it does not use TLS, type {_other_scheme(url)} instead.")
    if isinstance(exc, ConnectionRefusedError):
        return f"Connection refused: nothing is listening at {url}. Is the server running?"
    if isinstance(exc, socket.gaierror):
        return f"Unknown host in {url}: check the address."
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return f"No answer from {url} (timed out). Check the address and your network."
    if isinstance(exc, InvalidURI):
        return f"Not a valid server address: {url}"
    if isinstance(exc, InvalidStatus) and exc.response.status_code in _REFUSALS:
        refusal = HTTPStatus(exc.response.status_code)
        said = _said(exc.response)
        return f"{url} refused the connection (HTTP {refusal.value} {refusal.phrase}){said}"
    web = _web_server_status(exc)
    if web:
        return (f"{url} is a web server (it answered {web}), not a Boardhall server: check "
                "the port.")
    if isinstance(exc, InvalidHandshake):
        hint = ""
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if not secure and (isinstance(exc, InvalidMessage) or status == 400):
            # no HTTP answer at all, or "bad request": what a TLS server makes of plain text
            hint = f" If the server uses TLS, type {_other_scheme(url)} instead."
        return (f"{url} answered, but not as a Boardhall server (wrong protocol or port): "
                f"{exc}.{hint}")
    if isinstance(exc, OSError):
        detail = exc.strerror or str(exc) or type(exc).__name__
        return f"Cannot reach {url}: {detail}"
    return f"Cannot connect to {url}: {exc or type(exc).__name__}"


def _web_server_status(exc: BaseException) -> str:
    """The status line of an answer in an HTTP version the WebSocket handshake cannot take
    (``HTTP/1.0 200 OK``: a simple web server), or "" for any other failure."""
    cause = exc.__cause__
    if not isinstance(exc, InvalidMessage) or not isinstance(cause, ValueError):
        return ""
    _, _, line = str(cause).partition("expected HTTP/1.1: ")
    line = "".join(ch for ch in line if ch.isprintable())[:80]
    return line if line.startswith("HTTP/") else ""


_REFUSALS = (HTTPStatus.TOO_MANY_REQUESTS, HTTPStatus.SERVICE_UNAVAILABLE)
"""Answers to the upgrade that refuse it rather than say the address is wrong: the server over
the player's handshake limit behind a proxy (429), a server stopping (503)."""


def _said(response: Response) -> str:
    """``": "`` and the first line of a plain-text answer's body (what the server says of its
    refusal), or nothing for any other body (a proxy's HTML page)."""
    if not response.headers.get("Content-Type", "").lower().startswith("text/plain"):
        return ""
    line = response.body.decode("utf-8", "replace").strip().split("\n", 1)[0].strip()
    line = "".join(ch for ch in line if ch.isprintable())[:200]
    return f": {line}" if line else ""


def retry_text(reason: str, delay: float, attempt: int) -> str:
    """The notice while reconnecting: what happens next first (a small window cuts the end)."""
    return f"Reconnecting in {delay:g} s (attempt {attempt})… {reason}"


def gave_up_text(reason: str, seconds: float) -> str:
    """The notice once reconnecting has stopped."""
    tried = f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
    return f"Could not reconnect (tried for {tried}): {reason}"


def no_welcome_text(url: str, seconds: float) -> str:
    """Why a server that accepted the connection but never answered ``hello`` is given up."""
    return (f"{url} accepted the connection but did not answer as a Boardhall server "
            f"(no welcome within {seconds:g} s). Check the address and port.")


class Connection:
    """One server connection on its own thread, reconnecting after drops.

    Args:
        url: ``ws://`` or ``wss://`` URL.
        name: player name sent in ``hello``.
        token: identity token to resume, if any.
        reconnect: try again after a drop (never after close code 4001 or a refused hello).
        ssl: an ``ssl.SSLContext`` for ``wss://`` with a private certificate authority.
        patience: how long to wait for each step (:class:`Patience`).
        clock: monotonic seconds for the reconnection schedule (default: the event loop's).
        pause: waits between reconnection attempts (default: a wait that :meth:`close` cuts
            short); tests inject a clock and a pause that only moves it on.
    """

    def __init__(
        self,
        url: str,
        name: str,
        token: str | None = None,
        reconnect: bool = True,
        ssl: Any = None,
        patience: Patience = Patience(),
        clock: Callable[[], float] | None = None,
        pause: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.url = url
        self.name = name
        self.token = token
        self.reconnect = reconnect
        self.ssl = ssl
        self.patience = patience
        self._clock = clock
        self._pause = pause or self._sleep
        self._answered = False
        """The server answered this session's ``hello`` (``welcome`` or an ``error``)."""
        self._greeted = False
        """This session got ``welcome``: there is an identity (and seats) to resume."""
        self._welcomed_at = 0.0
        """When this session got ``welcome`` (on the schedule's clock)."""
        self._no_welcome = False
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
        down_since: float | None = None
        """When the last session that got ``welcome`` ended (None before the first one)."""
        while not self._stopping:
            try:
                extra: dict[str, Any] = {} if self.ssl is None else {"ssl": self.ssl}
                wait = self.patience
                ws = await connect(self.url, open_timeout=wait.open_timeout,
                                   max_size=MAX_FRAME * 4, close_timeout=2,
                                   ping_interval=wait.ping_interval,
                                   ping_timeout=wait.ping_timeout, **extra)
            except Exception as exc:  # any failure to connect is reported, never raised
                reason = describe_failure(exc, self.url)
            else:
                code, text = await self._session(ws, down_since is not None)
                self.connected = False
                if self._stopping:
                    self.inbox.put(NetEvent("closed", code=code, text=text))
                    return
                if self._greeted:  # a session to resume: start counting the time down
                    down_since = self._now()
                    if down_since - self._welcomed_at >= self.patience.stable_after:
                        attempt = 0
                if not self._no_welcome:
                    self.inbox.put(NetEvent("closed", code=code, text=text))
                    if down_since is None or not self.reconnect or code in NO_RECONNECT_CODES:
                        return  # nothing to resume, or another window has taken over
                    if self._greeted and attempt == 0:
                        self.inbox.put(NetEvent("reconnecting",
                                                text="Connection lost; reconnecting…"))
                        attempt = 1
                        await self._pause(RECONNECT_DELAYS[0])
                        continue
                if self._no_welcome:
                    reason = no_welcome_text(self.url, self.patience.welcome_timeout)
                else:
                    reason = f"The server closed the connection ({text})."
            # this attempt failed: give up, or wait and try again
            if down_since is None or not self.reconnect:
                self.inbox.put(NetEvent("failed", text=reason))
                return
            if self._now() - down_since >= self.patience.reconnect_for:
                self.inbox.put(NetEvent("failed",
                                        text=gave_up_text(reason, self._now() - down_since)))
                return
            delay = RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)]
            attempt += 1
            self.inbox.put(NetEvent("reconnecting", text=retry_text(reason, delay, attempt)))
            await self._pause(delay)

    def _now(self) -> float:
        """The reconnection schedule's time (on the background thread)."""
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    async def _sleep(self, seconds: float) -> None:
        assert self._outbox is not None
        # Waiting on the outbox lets close() interrupt the pause (messages sent meanwhile are
        # stale and dropped).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + spread(seconds)
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
        self._answered = self._greeted = self._no_welcome = False
        try:
            await ws.send(json.dumps(hello, ensure_ascii=False))
        except ConnectionClosed:
            self._ws = None
            return _close_info(ws)
        self.connected = True
        self.inbox.put(NetEvent("open"))
        writer = asyncio.ensure_future(self._write(ws))
        watchdog = asyncio.get_running_loop().call_later(self.patience.welcome_timeout,
                                                          self._welcome_overdue, ws)
        try:
            async for raw in ws:
                self._receive(raw)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a broken transport: report it as a drop
            return None, f"connection error: {exc}"
        finally:
            watchdog.cancel()
            writer.cancel()
            self._ws = None
        return _close_info(ws)

    def _welcome_overdue(self, ws: ClientConnection) -> None:
        """No answer to ``hello`` in time: end this session (not a Boardhall server, or a hung
        one); :meth:`_main` says so, or tries again after a drop."""
        if not self._answered and not self._stopping:
            self._no_welcome = True
            ws.transport.abort()

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
        if data["type"] == "welcome":
            self._answered = self._greeted = True
            self._welcomed_at = self._now()
            if isinstance(data.get("token"), str):
                self.token = data["token"]
        elif data["type"] == "error" and not self._answered:
            self._answered = True  # a refused hello: the app says why and decides
        self.inbox.put(NetEvent("message", data=data))


def _close_info(ws: ClientConnection) -> tuple[int | None, str]:
    code = ws.close_code
    if code is None or code == 1006:
        return code, "connection dropped"
    return code, ws.close_reason or ""


__all__ = ["Connection", "NetEvent", "describe_failure", "gave_up_text", "retry_text",
           "websockets"]
