"""The I/O layer: the ``websockets`` asyncio server around the sans-I/O :class:`Hall`.

It numbers connections, decodes frames, feeds the hall with the loop's monotonic time, commits
storage operations (at the end of each loop turn) *before* sending what depends on them (in
order, per room), fires the hall's timers, answers plain HTTP on the same port and launches bot
players.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import ipaddress
import itertools
import json
import logging
import socket
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator, Hashable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import websockets
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.typing import Data

import engines
from protocol import (
    KNOWN_VERSIONS,
    ErrorCode,
    Hello,
    ProtocolError,
    decode_client,
    encode,
    limits,
)
from server import discovery as lan_discovery
from server import leaderboard, profiles
from server.config import ServerConfig, server_version
from server.delivery import DeliveryOrder, Pending, first_sends_first
from server.glicko2 import Rating
from server.hall import Hall, hash_token
from server.keepalive import Keepalive
from server.listing import listed_game
from server.liveness import Alive
from server.logs import Summary
from server.metrics import REFUSED, Metrics
from server.outputs import ConnId, LaunchBot, Outputs, SaveOnline, SaveStopped, StorageOp
from server.proxies import TrustedProxies
from server.pushconn import PushConnection, counting_handshakes
from server.records import export, formats
from server.storage import AsyncStorage, StorageClosed, StorageFailing, database_files

log = logging.getLogger("boardhall.server")


_NO_STORE = "no-store"
"""``Cache-Control`` of what changes from one request to the next (health, metrics, errors)."""

_FINISHED_MAX_AGE = 86_400
"""Seconds a cache may keep the record of a finished game (it no longer changes)."""

_ALLOW = "GET, HEAD, OPTIONS"
"""The methods every HTTP path answers."""

_GAME_QUERY = frozenset({"format", "token"})
_GAMES_QUERY = frozenset({"player", "token"})


class _HttpError(Exception):
    """A client's bad HTTP request: answered with ``status`` and ``{"error": message}``."""

    def __init__(
        self, status: HTTPStatus, message: str, headers: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []


def _response(
    status: HTTPStatus,
    body: str,
    content_type: str,
    cache: str = _NO_STORE,
    extra: list[tuple[str, str]] | None = None,
) -> Response:
    data = body.encode("utf-8")
    if "charset=" not in content_type:  # every body is UTF-8 (names may be any script)
        content_type += "; charset=utf-8"
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(data))),
            ("Cache-Control", cache),
            *(extra or []),
            ("Connection", "close"),
        ]
    )
    return Response(status.value, status.phrase, headers, data)


def _json(
    status: HTTPStatus,
    data: Any,
    cache: str = _NO_STORE,
    extra: list[tuple[str, str]] | None = None,
) -> Response:
    return _response(status, json.dumps(data, ensure_ascii=False), "application/json", cache, extra)


def _error(error: _HttpError) -> Response:
    return _json(error.status, {"error": error.message}, extra=error.headers)


def _no_content(status: HTTPStatus, headers: list[tuple[str, str]]) -> Response:
    return Response(
        status.value,
        status.phrase,
        Headers([*headers, ("Cache-Control", _NO_STORE), ("Connection", "close")]),
        b"",
    )


def _head(response: Response) -> Response:
    """``response`` without its body (its headers, ``Content-Length`` too, unchanged)."""
    return Response(response.status_code, response.reason_phrase, response.headers, b"")


def _query(raw: str, allowed: frozenset[str]) -> dict[str, str]:
    """The query parameters of ``raw``: only those named in ``allowed``, each at most once.

    Raises:
        _HttpError: a parameter repeated or not known here.
    """
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise _HttpError(HTTPStatus.BAD_REQUEST, "the query string is not valid UTF-8") from None
    query: dict[str, str] = {}
    for key, value in pairs:
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise _HttpError(
                HTTPStatus.BAD_REQUEST, f"unknown query parameter {key!r} (known here: {known})"
            )
        if key in query:
            message = f"query parameter {key!r} given more than once"
            raise _HttpError(HTTPStatus.BAD_REQUEST, message)
        query[key] = value
    return query


def _loggable(target: str) -> str:
    """``target`` (a request's path and query) with the value of every ``token`` parameter
    hidden: tokens are secrets, and logs are read by others and kept."""
    path, mark, query = target.partition("?")
    if not mark:
        return path
    hidden = [
        f"{key}=***" if unquote(key).strip().lower() == "token" else f"{key}{eq}{value}"
        for key, eq, value in (part.partition("=") for part in query.split("&"))
    ]
    return f"{path}?{'&'.join(hidden)}"


def _segments(raw_path: str) -> list[str]:
    """The percent-decoded segments of ``raw_path`` (``/games/ID`` is ``["games", "ID"]``).

    Raises:
        _HttpError: a segment that is not UTF-8 once decoded.
    """
    try:
        return [unquote(part, errors="strict") for part in raw_path.split("/")[1:]]
    except UnicodeDecodeError:
        raise _HttpError(HTTPStatus.BAD_REQUEST, "the path is not valid UTF-8") from None


def _route(parts: list[str]) -> tuple[str, str] | None:
    """``(route, id)`` of a path's segments: ``("games/", ID)`` for ``/games/ID``, ``("", "")``
    for ``/``; ``None`` for a path served nowhere."""
    if len(parts) == 1 and parts[0] in ("", "healthz", "metrics", "games", "ratings"):
        return parts[0], ""
    if len(parts) == 2 and parts[0] in ("games", "variants", "players") and parts[1]:
        return parts[0] + "/", parts[1]
    return None


_REFUSED_WHY = {
    "handshake_limit": "refused a connection: too many unfinished handshakes from one address "
    "(--connections-per-address)",
    "tls_on_plain_port": "refused a TLS handshake on this plain ws:// port (a wss:// client? "
    "serve wss:// with --tls-cert and --tls-key, or connect with ws://)",
    "bad_request": "refused a connection that sent no complete HTTP request (garbage, or too slow)",
    "closed_1007": "closed a connection that sent text that is not UTF-8 (1007)",
    "closed_1008": "closed a connection for a flood or too many connections (1008)",
    "closed_1009": "closed a connection that sent a message too big (1009)",
}
"""What the log says of each reason for refusing or closing a connection."""

_LOBBY = "#lobby"
"""The delivery key of the lobby list (room codes and connection numbers never look like it)."""

_Payload = tuple[list[tuple[tuple[ConnId, ...], str]], list[tuple[ConnId, int, str]], float | None]
"""An output ready to go out: encoded sends, closes, and when its move arrived (for metrics)."""


class _Inbox:
    """A connection's messages held, in order, behind one that waits for I/O. Reading from the
    socket pauses while :data:`HIGH` are held and resumes at :data:`LOW`."""

    HIGH = 16
    LOW = 4

    def __init__(self, ws: PushConnection) -> None:
        self.ws = ws
        self.held: deque[Data] = deque()
        self.task: asyncio.Future[None] | None = None  # handling held messages in order
        self._paused = False

    def hold(self, frame: Data) -> None:
        """Keep ``frame`` until the messages before it are handled."""
        self.held.append(frame)
        if len(self.held) >= self.HIGH and not self._paused:
            self._paused = True
            self.ws.transport.pause_reading()

    def next(self) -> Data | None:
        """The next held frame, or None (and reading resumed) once there is none."""
        frame = self.held.popleft() if self.held else None
        if self._paused and len(self.held) <= self.LOW:
            self._paused = False
            if not self.ws.transport.is_closing():
                self.ws.transport.resume_reading()
        return frame


HTTP_ROUTES = (
    "/healthz",
    "/metrics",
    "/games/ID",
    "/games?player=ID",
    "/variants/ID",
    "/ratings?game=G",
    "/players/ID",
)
"""The plain HTTP requests the port answers besides the WebSocket upgrade (listed by ``GET /``
and by ``boardhall-server --help``)."""


class BoardhallServer:
    """A running Boardhall server (use :func:`running_server` or :meth:`start`/:meth:`stop`).

    Args:
        host: address to listen on.
        port: TCP port (0 picks a free one; see :attr:`port`).
        db: SQLite file path (``":memory:"`` for a throwaway server).
        config: limits and delays.
        ssl_context: serve ``wss://`` with this context.
        ping_interval: seconds between server pings (round trips feed lag compensation); a
            connection that leaves one unanswered for ``ping_timeout`` seconds (by default
            ``max(20, 2 * ping_interval)``) is closed with 1011. ``None`` or 0 sends no pings.
        variants: a directory of custom variant files to load at start.
        durable: every commit synced to the disk before its outputs go out (survives power
            loss; the sync runs on a thread, see :mod:`server.logsync`) rather than
            ``synchronous=NORMAL`` (survives a killed process; nothing waits for the disk).
        sync_on_thread: with ``durable``, sync on a thread of this process rather than in a
            helper process (where tests can hold the sync, tests/server/test_logsync.py).
        alive_every: seconds between stamps that the server is alive (:mod:`server.liveness`:
            what a restart after a crash charges the running turns up to); ``None`` stamps only
            at the start (tests stamp with :meth:`stamp_alive`).
        discovery: answer LAN discovery probes so (:mod:`server.discovery`); ``None``: not.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        db: str | Path = ":memory:",
        config: ServerConfig | None = None,
        ssl_context: ssl.SSLContext | None = None,
        ping_interval: float | None = 10.0,
        variants: str | Path | None = None,
        durable: bool = True,
        ping_timeout: float | None = None,
        sync_on_thread: bool = False,
        alive_every: float | None = 1.0,
        discovery: lan_discovery.Settings | None = None,
    ) -> None:
        bots = importlib.util.find_spec("server.bot_launcher") is not None
        base = config or ServerConfig()
        if not bots and base.bots_available:
            base = ServerConfig(**{**base.__dict__, "bots_available": False})
        self.config = base
        self.host = host
        self.requested_port = port
        self.ssl_context = ssl_context
        self.ping_interval = ping_interval
        self.keepalive: Keepalive[ConnId] | None = (
            Keepalive(ping_interval, ping_timeout or max(20.0, ping_interval * 2))
            if ping_interval
            else None
        )
        self._keepalive_timer: asyncio.TimerHandle | None = None
        self.alive_every = alive_every
        self._alive_timer: asyncio.TimerHandle | None = None
        self._alive_writing = False
        self.hall = Hall(self.config)
        self.storage = AsyncStorage(
            db,
            durable,
            after_commit=self._release_written,
            on_health=self._storage_health,
            sync_on_thread=sync_on_thread,
        )
        self.started = time.time()
        self.metrics = Metrics(server_version(), self.started)
        self.storage.observe_commit = self.metrics.commit.observe
        self.db = db
        self.durable = durable
        self.restored = 0
        """Unfinished games brought back at the start."""
        self.reopened = 0
        """Finished rooms brought back open at the start (for their rematch and chat)."""
        self.refusals = Summary(logging.getLogger("boardhall.net"))
        """Refused and misbehaving connections, told without flooding the log."""
        self.connections: dict[ConnId, ServerConnection] = {}
        self._ids = itertools.count(1)
        self._order: DeliveryOrder[_Payload] = DeliveryOrder(self._deliver)
        self._written_now: list[Pending[_Payload]] = []  # this commit's outputs, released together
        self._releasing: list[_Payload] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._server: Server | None = None
        self._bots: list[asyncio.subprocess.Process] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._parser = ThreadPoolExecutor(1, thread_name_prefix="boardhall-records")
        self._stopping = False
        self._online: dict[str, SaveOnline] = {}
        """Times online not written yet, the latest of each player (:meth:`_note_online`)."""
        self._online_soon = False
        self._storage_open = False
        self.handshakes: dict[str, int] = {}
        """Unfinished opening handshakes by client address (by its limit key: an IPv6 client's
        whole network, see :mod:`server.limitkey`), each at most the per-address limit; a
        trusted proxy's from when their request names the client."""
        self.proxies = TrustedProxies(self.config.trusted_proxies)
        self._unforwarded_told = False
        self.variants = variants
        self.discovery_settings = discovery
        self.discovery: lan_discovery.Discovery | None = None
        """The LAN discovery endpoint while it answers."""

    # ---- lifecycle ---------------------------------------------------------------------------

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the server runs on (kept: ``asyncio.get_running_loop()`` makes a
        system call, ``getpid``, every time)."""
        assert self._loop is not None, "server not started"
        return self._loop

    @property
    def port(self) -> int:
        """The port actually bound."""
        assert self._server is not None, "server not started"
        sock = next(iter(self._server.sockets))
        return int(sock.getsockname()[1])

    @property
    def url(self) -> str:
        """``ws://HOST:PORT`` (or ``wss://``) to reach this server on loopback."""
        scheme = "wss" if self.ssl_context else "ws"
        host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        if ":" in host:  # IPv6 (a link-local one keeps its %interface: websockets resolves it)
            host = f"[{host}]"
        return f"{scheme}://{host}:{self.port}"

    @property
    def bound(self) -> str:
        """``HOST:PORT`` the server listens on, as given (``0.0.0.0``: every interface; an IPv6
        host in brackets), for operators: :attr:`url` is the loopback address bots use."""
        host = self.host if self.host else "*"
        if ":" in host:
            host = f"[{host}]"
        return f"{host}:{self.port}"

    def listening_sockets(self) -> list[socket.socket]:
        """The sockets the server listens on (one, unless a host name has several addresses)."""
        assert self._server is not None, "server not started"
        return list(self._server.sockets)

    def _listen_on(self) -> dict[str, Any]:
        """Where :func:`serve` listens: ``host`` and ``port``; for ``::`` (and ``""``, every
        address) a socket of its own that takes IPv4 connections too (asyncio makes every IPv6
        socket it opens IPv6-only, and binds ``""`` once per family, on two ports for port 0).
        A host name with several addresses and port 0 listens on the first address only, so
        that there is one port to name."""
        if self.host == "" and not socket.has_ipv6:
            return {"host": "0.0.0.0", "port": self.requested_port}
        if self.host not in ("::", ""):
            if self.requested_port == 0:
                return {"host": _first_address(self.host), "port": 0}
            return {"host": self.host, "port": self.requested_port}
        try:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        except OSError:
            if self.host == "":  # a machine without IPv6: every IPv4 address
                return {"host": "0.0.0.0", "port": self.requested_port}
            raise
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            with contextlib.suppress(OSError, AttributeError):  # else IPv6 only, as before
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(("::", self.requested_port))
        except OSError:
            sock.close()
            raise
        return {"sock": sock}

    async def start(self) -> None:
        """Open storage, bring back unfinished games and finished rooms still open, and listen
        (:class:`CannotListen` when the host and port cannot be bound). A start that fails
        closes what it opened and leaves no database where there was none."""
        files = database_files(self.db) if str(self.db) != ":memory:" else []
        created = not any(path.exists() for path in files)
        try:
            await self._open_and_listen()
        except BaseException:
            await self._abandon_start()
            if created:
                for path in files:
                    path.unlink(missing_ok=True)
            raise

    async def _abandon_start(self) -> None:
        """Close what a failed :meth:`start` opened (its own error is the one to report)."""
        if self.discovery is not None:
            self.discovery.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self._storage_open = False
        with contextlib.suppress(Exception):
            await self.storage.close()

    async def _open_and_listen(self) -> None:
        if self.variants is not None:
            from engines.custom.catalog import unread_files, unused_settings

            custom = engines.get("custom")
            loaded = custom.load_directory(self.variants)  # type: ignore[attr-defined]
            log.info("variants loaded", extra={"fields": {"variants": loaded}})
            for vid in loaded:
                for note in unused_settings(custom.definition(vid)):  # type: ignore[attr-defined]
                    fields = {"variant": vid, "why": note}
                    log.warning("variant setting unused", extra={"fields": fields})
            for name, why in unread_files(self.variants).items():
                log.warning("variant file not read", extra={"fields": {"file": name, "why": why}})
        self.hall.games()  # import every engine now, not on the first hello
        await self.storage.open()
        self._storage_open = True
        loop = self._loop = asyncio.get_running_loop()
        now = loop.time()
        stamp = await self.storage.run(self.storage.storage.alive)
        alive = Alive(*stamp) if stamp is not None else None
        stopped_run = await self.storage.run(self.storage.storage.stopped)
        if alive is not None and alive.run != stopped_run:
            last = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(alive.wall))
            log.warning(
                "the last run did not stop cleanly",
                extra={
                    "fields": {
                        "last_alive": last,
                        "why": "killed, crashed or a power cut (or stopped by a version before "
                        "this check): its games go on with the time used up to last_alive",
                    }
                },
            )
        rows = await self.storage.run(self.storage.storage.unfinished)
        # finished rooms still open (their rematch and chat): only games ended within the
        # keep time, found in an index (Storage.finished_since)
        since = self.hall.finished_since(now)
        finished = await self.storage.run(partial(self.storage.storage.finished_since, since))
        chat = await self.storage.run(
            partial(self.storage.storage.unfinished_chat, [meta["id"] for meta, _ in finished])
        )
        if rows or finished:  # replaying every move takes a while: say so first
            log.info(
                "restoring games",
                extra={"fields": {"games": len(rows), "finished_rooms": len(finished)}},
            )
        began = time.monotonic()
        failed = 0
        for meta, moves in finished + rows:
            try:
                room = self.hall.restore(meta, moves, now, chat.get(meta["id"]), alive)
            except Exception:
                log.exception("could not restore game %s", meta.get("id"))
                failed += 1
                continue
            if room.status != "over":
                self.restored += 1
            elif not room.closed:
                self.reopened += 1
        seated = self.hall.seated_players()
        if seated:  # their games may end before they say hello again
            stored = await self.storage.run(partial(self.storage.storage.ratings_of, seated))
            for player, ratings in stored.items():
                self.hall.load_ratings(player, ratings)
        if rows or finished:
            log.info(
                "restored games",
                extra={
                    "fields": {
                        "games": self.restored,
                        "finished_rooms": self.reopened,
                        "failed": failed,
                        "seconds": round(time.monotonic() - began, 2),
                    }
                },
            )
        try:
            self._server = await serve(
                self._handler,
                process_request=self._http,
                max_size=limits.FRAME_BYTES,
                ssl=self.ssl_context,
                ping_interval=None,  # one sweep pings everyone: see server/keepalive.py
                ping_timeout=None,
                compression=None,
                create_connection=counting_handshakes(
                    self.handshakes,
                    self.config.connections_per_address,
                    self._refused,
                    self.proxies,
                    self._unforwarded,
                    self.config.ipv6_prefix,
                ),
                **self._listen_on(),
            )
        except socket.gaierror:
            raise
        except OSError as exc:
            raise CannotListen(exc.errno, exc.strerror) from exc
        self.discovery = await lan_discovery.start(self)
        now = loop.time()
        # every game on anchored in this run, then its first stamp (after them: see
        # server.liveness), in the commit before any move of this run
        kept: list[StorageOp] = [*self.hall.restart_clocks(now), self.hall.alive(now)]
        self.storage.write(kept, lambda _result, _error: None)
        if self.alive_every:
            self._alive_timer = loop.call_later(self.alive_every, self._stamp_alive_again)
        self._arm()
        if self.keepalive is not None:
            self._keepalive_timer = loop.call_later(self.keepalive.tick, self._sweep_keepalive)
        for bot in self.hall.bot_launches():
            self._spawn(self._launch_bot(bot))
        log.info("listening", extra={"fields": self.describe()})

    def describe(self) -> dict[str, Any]:
        """What an operator needs to know of this running server (the "listening" line)."""
        db = self.db if str(self.db) == ":memory:" else str(Path(self.db).resolve())
        return {
            "version": server_version(),
            "url": self.url,
            "bound": self.bound,
            "tls": self.ssl_context is not None,
            "trusted_proxies": [str(network) for network in self.proxies.networks],
            "db": db,
            "sync": "full" if self.durable else "normal",
            "loop": "uvloop" if type(self.loop).__module__.startswith("uvloop") else "asyncio",
            "games_restored": self.restored,
            "finished_rooms_restored": self.reopened,
            "rooms": len(self.hall.rooms),
            "bot_games_limit": self.config.bot_games if self.config.bots_available else 0,
        }

    async def stop(self, grace: float = 10.0) -> None:
        """Stop handling messages and timers, let what was accepted before reach its players,
        keep every game's running turn and absences (DESIGN.md: time while the server is down
        is charged to nobody, and nothing used before is given back), close every connection
        (1001) and stop bots. While the database fails, pending writes get ``grace`` seconds to
        go through; what has not is lost, and was never sent. Stopping again does nothing."""
        if self._stopping:
            return
        stopped = self._loop.time() if self._loop is not None else 0.0
        began = time.monotonic()
        self._stopping = True
        if self.discovery is not None:
            self.discovery.close()
        connections = len(self.connections)
        unfinished = sum(1 for room in self.hall.rooms.values() if room.status == "playing")
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._timer_at = None
        if self._keepalive_timer is not None:
            self._keepalive_timer.cancel()
        if self._alive_timer is not None:
            self._alive_timer.cancel()
        await self._until_sent(grace)
        if self._loop is not None:  # committed now: closing may take long (a silent client)
            pauses = self.hall.pauses(stopped)
            if pauses:
                self.storage.write(list(pauses), lambda _result, _error: None)
        if self._server is not None:
            for ws in list(self.connections.values()):
                self._spawn(ws.close(CloseCode.GOING_AWAY, "the server is stopping"))
            self._server.close()
            await self._server.wait_closed()
        # all at once (each leaves the list once it has exited)
        await asyncio.gather(*(_end_bot(process) for process in list(self._bots)))
        self._write_online()  # the players connected until now were online until now
        if self._loop is not None:  # started: the last write, after every other
            self.storage.write([SaveStopped(self.hall.run.id)], lambda _result, _error: None)
        self._storage_open = False
        unsent = self.storage.held
        await self.storage.close()
        self._parser.shutdown(wait=False, cancel_futures=True)
        self.refusals.flush()
        log.info(
            "stopped",
            extra={
                "fields": {
                    "seconds": round(time.monotonic() - began, 2),
                    "connections_closed": connections,
                    "games_kept": unfinished,
                    "writes_lost": unsent if self.storage.failure is not None else 0,
                }
            },
        )

    async def _until_sent(self, grace: float) -> None:
        """Wait (at most ``grace`` seconds) until no output waits for its write any more."""
        if not self._order.waiting:
            return
        idle: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def went_idle() -> None:
            if not idle.done():
                idle.set_result(None)

        self._order.on_idle = went_idle
        try:
            await asyncio.wait_for(idle, grace)
        except TimeoutError:
            log.error(
                "stopping with %d outputs never sent: their writes did not become durable "
                "in %.0f s",
                self._order.waiting,
                grace,
            )
        finally:
            self._order.on_idle = None

    async def serve_forever(self) -> None:
        """Run until cancelled."""
        assert self._server is not None
        await self._server.serve_forever()

    # ---- WebSocket connections ---------------------------------------------------------------

    async def _handler(self, ws: ServerConnection) -> None:
        assert isinstance(ws, PushConnection)
        conn = next(self._ids)
        loop = asyncio.get_running_loop()
        self.connections[conn] = ws
        self.metrics.connections_total += 1
        address = ws.client_address
        fields: dict[str, Any] = {"conn": conn, "address": address}
        if ws.proxy is not None:
            fields["proxy"] = ws.proxy
        log.debug("connected", extra={"fields": fields})
        self._emit(self.hall.connect(conn, address, loop.time()))
        if self.keepalive is not None:
            self.keepalive.add(conn, loop.time())
        inbox = _Inbox(ws)
        try:
            ws.attach(partial(self._received, conn, inbox))
            await ws.wait_closed()
            while inbox.task is not None:  # messages received before the close come first
                await asyncio.shield(inbox.task)
        finally:
            log.debug("disconnected", extra={"fields": {"conn": conn, "code": ws.close_code}})
            sent = ws.protocol.close_sent
            if sent is not None and not ws.protocol.close_rcvd_then_sent:
                reason = f"closed_{int(sent.code)}"
                if reason in REFUSED:  # the server closed it for what the client did
                    self._refused(reason, address, sent.reason)
            self.connections.pop(conn, None)
            if self.keepalive is not None:
                self.keepalive.remove(conn)
            self._emit(self.hall.disconnect(conn, loop.time()))

    def _received(self, conn: ConnId, inbox: _Inbox, frame: Data) -> None:
        """One message from ``conn``, handled now unless it must wait for I/O or for one that
        does (then ``inbox`` keeps the order); none once the server is stopping."""
        if self._stopping:
            return
        if inbox.task is not None:
            inbox.hold(frame)
            return
        message = self._decode(frame)
        if self._needs_io(conn, message):
            inbox.task = asyncio.ensure_future(self._handle_in_order(conn, inbox, message))
            return
        self._handle(conn, inbox.ws, message, None, time.perf_counter())

    async def _handle_in_order(self, conn: ConnId, inbox: _Inbox, message: Any) -> None:
        """Handle ``message`` and then every message held behind it, awaiting their I/O."""
        try:
            while True:
                started = time.perf_counter()
                prepared = None
                if isinstance(message, Hello) and message.token is not None:
                    try:
                        await self._load_identity(message.token)
                    except Exception:
                        log.exception("loading an identity failed")
                if self.hall.wants_preparing(conn, message):
                    # replaying a long record takes a while: not on the event loop
                    loop = asyncio.get_running_loop()
                    prepared = await loop.run_in_executor(self._parser, self.hall.prepare, message)
                self._handle(conn, inbox.ws, message, prepared, started)
                if isinstance(message, Hello) and message.token is not None:
                    self.hall.release_token(message.token)  # loaded for a refused hello
                frame = inbox.next()
                if frame is None:
                    return
                message = self._decode(frame)
        except Exception:
            log.exception("handling a message failed")
            inbox.ws.fail(CloseCode.INTERNAL_ERROR, "internal error")
        finally:
            inbox.task = None
            inbox.held.clear()

    def _decode(self, frame: Data) -> Any:
        self.metrics.messages_total += 1
        try:
            return decode_client(frame)
        except ProtocolError as exc:
            # Handled as a message, so it outlives this frame: its traceback (and the one of the
            # error it came from) would hold the connection's frames, which hold it: a cycle.
            exc.__context__ = exc.__cause__ = None
            return exc.with_traceback(None)
        except Exception:  # never let one frame kill the connection
            log.exception("decoding a frame failed")
            return ProtocolError(ErrorCode.BAD_MESSAGE, "not a valid message")

    def _needs_io(self, conn: ConnId, message: Any) -> bool:
        """Whether handling ``message`` must first load an identity or parse a record."""
        if (
            isinstance(message, Hello)
            and message.token is not None
            and not self.hall.knows_token(message.token)
        ):
            return True
        return self.hall.wants_preparing(conn, message)

    def _handle(
        self, conn: ConnId, ws: ServerConnection, message: Any, prepared: Any, started: float
    ) -> None:
        lag_ms = int((ws.latency or 0.0) * 500)
        out = self.hall.handle(conn, message, self.loop.time(), lag_ms, prepared)
        self._emit(out, started if out.moves else None)

    async def _load_identity(self, token: str) -> None:
        if self.hall.knows_token(token):
            return
        token_hash = hash_token(token)
        storage = self.storage.storage

        def read() -> tuple[tuple[str, str, str] | None, dict[str, Rating]]:
            row = storage.identity(token_hash)
            return row, storage.ratings(row[0]) if row is not None else {}

        row, ratings = await self.storage.run(read, held_ok=True)
        if row is not None:
            self.hall.add_identity(*row, ratings=ratings)

    # ---- outputs -----------------------------------------------------------------------------

    def _emit(self, out: Outputs, started: float | None = None) -> None:
        self.metrics.errors.update(out.errors)
        self.metrics.moves_total += out.moves
        if out.online:
            self._note_online(out.online)
        for bot in out.bots:
            self._spawn(self._launch_bot(bot))
        # encoded now, so an output that waits for its write keeps only text alive
        texts: dict[int, str] = {}  # a message sent to several groups is encoded once
        sends = []
        for recipients, message in out.sends:
            text = texts.get(id(message))
            if text is None:
                text = texts[id(message)] = encode(message)
            sends.append((recipients, text))
        conns: set[Hashable] = {c for recipients, _ in sends for c in recipients}
        conns.update(c for c, _, _ in out.closes)
        if out.key:  # after the room's earlier outputs, whoever this goes to (DESIGN.md)
            conns.add(out.key)
        if out.keys:
            conns.update(out.keys)
        if out.lobby:  # changes or shows the lobby list: after the earlier such outputs
            conns.add(_LOBBY)
        payload = (sends, out.closes, started)
        pending = self._order.add(conns, payload, blocked=bool(out.writes))
        if pending is not None and out.writes:
            self.storage.write(out.writes, partial(self._written, pending))
        self._arm()

    def _written(self, pending: Pending[_Payload], _: Any, error: BaseException | None) -> None:
        # a write the database fails is held and tried again, so the errors here are two
        if isinstance(error, StorageClosed):
            return  # never written, so never sent
        if error is not None:  # a broken write (a bug): its room goes on as its players saw it
            log.error("an output is sent without its write", exc_info=error)
        self._written_now.append(pending)

    def _release_written(self) -> None:
        """Deliver every output whose write the last commit made durable, opponents first."""
        written, self._written_now = self._written_now, []
        released: list[_Payload] = []
        self._releasing = released
        try:
            for pending in written:
                self._order.unblock(pending)
        finally:
            self._releasing = None
        try:
            self._send(first_sends_first([sends for sends, _, _ in released]))
            for payload in released:  # closes are tasks: they run after every send above
                self._after_sent(payload)
        except Exception:  # the next commit's outputs must still go out
            log.exception("delivering a commit's outputs failed")

    def _deliver(self, payload: _Payload) -> None:
        if self._releasing is not None:  # sent together by _release_written
            self._releasing.append(payload)
            return
        self._send(payload[0])
        self._after_sent(payload)

    def _send(self, sends: list[tuple[tuple[ConnId, ...], str]]) -> None:
        connections = self.connections
        for recipients, text in sends:
            targets = [connections[c] for c in recipients if c in connections]
            if targets:
                broadcast(targets, text)

    def _after_sent(self, payload: _Payload) -> None:
        _, closes, started = payload
        if started is not None:
            self.metrics.observe_move(time.perf_counter() - started)
        for conn, code, reason in closes:
            ws = self.connections.get(conn)
            if ws is not None:
                self._spawn(ws.close(code, reason))

    def _spawn(self, coro: Any) -> None:
        task = self.loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _launch_bot(self, bot: LaunchBot) -> None:
        try:
            from server.bot_launcher import launch_bot  # type: ignore[import-not-found,unused-ignore]

            process = await launch_bot(
                self.url, bot.room, bot.game, bot.variant, bot.level, bot.token or None
            )
        except Exception:
            log.exception("could not start a bot for room %s", bot.room)
            self._emit(self.hall.bot_missing(bot.room, self.loop.time()))
            return
        self._bots.append(process)  # until it has exited: a long-running server keeps no more
        try:
            if self._stopping:  # started while the server stopped: stop has passed it by
                await _end_bot(process)
                return
            await process.wait()  # a bot that never connected is no longer shown as here
        finally:
            with contextlib.suppress(ValueError):
                self._bots.remove(process)
        if self._server is not None and self._server.is_serving():
            self._emit(self.hall.bot_missing(bot.room, self.loop.time()))

    # ---- timers ------------------------------------------------------------------------------

    def _arm(self) -> None:
        if self._stopping:  # the clocks stop with the server (their state is kept: stop)
            return
        if self.storage.failure is not None:  # no game ends on time while moves are held
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._timer_at = None
            return
        when = self.hall.next_wake()
        if when == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = when
        if when is not None:
            self._timer = self.loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._timer_at = None
        if self.storage.failure is not None or self._stopping:  # re-armed when the storage is back
            return
        loop = asyncio.get_running_loop()
        try:
            for out in self.hall.tick(loop.time()):
                self._emit(out)
        finally:
            self._arm()

    def _storage_health(self, healthy: bool) -> None:
        """While commits fail, moves are held unseen, so no clock may run out; once they go
        through, the turn after each held move begins again (its player could not see the
        position before; stored for a crash, once the held writes are done), and the timeouts
        due in the meantime fire."""
        if healthy:
            restarted = self.hall.restart_turns_of(self.storage.held_games(), self.loop.time())
            if restarted:  # not inside the commit that is calling back
                self.loop.call_soon(self._write_quietly, list[StorageOp](restarted))
            if self._online:
                self._write_online_soon()
        self._arm()

    def _write_quietly(self, ops: list[StorageOp]) -> None:
        if not self._stopping:
            self.storage.write(ops, lambda _result, _error: None)

    # ---- times online ------------------------------------------------------------------------

    def _note_online(self, stamps: tuple[SaveOnline, ...]) -> None:
        """Write when players were online at the end of this turn of the loop, apart from every
        output (none waits for them: connecting never waits for the disk), the latest of each
        player only. While the storage fails they wait here, one per player, not among its
        held writes (:meth:`_write_online` once it takes writes again)."""
        for stamp in stamps:
            self._online[stamp.player] = stamp
        self._write_online_soon()

    def _write_online_soon(self) -> None:
        """:meth:`_write_online` at the end of this turn of the loop, once however often asked."""
        if not self._online_soon:
            self._online_soon = True
            self.loop.call_soon(self._write_online)

    def _write_online(self) -> None:
        """Queue the times online noted so far (each its own write: a commit of them alone is
        a commit of stamps, which asks for no log sync of its own)."""
        self._online_soon = False
        if not self._online or not self._storage_open or self.storage.failure is not None:
            return
        stamps, self._online = list(self._online.values()), {}
        for stamp in stamps:
            self.storage.write([stamp], lambda _result, _error: None)

    # ---- liveness ----------------------------------------------------------------------------

    def stamp_alive(self, now: float | None = None) -> None:
        """Stamp the database that the server is alive at ``now`` (its loop's time; default:
        now), with the writes of this turn of the loop (never a write of its own before a
        move, and no sync of its own). Skipped while the last stamp is not committed yet or
        the storage fails (it would only be held with the rest)."""
        if self._stopping or self._alive_writing or self.storage.failure is not None:
            return
        self._alive_writing = True
        when = self.loop.time() if now is None else now
        self.storage.write([self.hall.alive(when)], self._alive_written)

    def _alive_written(self, _result: object, _error: BaseException | None) -> None:
        self._alive_writing = False

    def _stamp_alive_again(self) -> None:
        assert self.alive_every
        self._alive_timer = self.loop.call_later(self.alive_every, self._stamp_alive_again)
        if self.hall.any_game_on():  # else nothing to charge: an idle server writes nothing
            self.stamp_alive()

    # ---- keepalive ---------------------------------------------------------------------------

    def _sweep_keepalive(self) -> None:
        assert self.keepalive is not None
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.refusals.tick()
        for conn in self.keepalive.silent(now):
            ws = self.connections.get(conn)
            if ws is not None:
                log.info("keepalive ping timeout", extra={"fields": {"conn": conn}})
                self._spawn(ws.close(CloseCode.INTERNAL_ERROR, "keepalive ping timeout"))
        for conn in self.keepalive.due(now):
            ws = self.connections.get(conn)
            if ws is not None:
                self._spawn(self._ping(conn, ws))
        self._keepalive_timer = loop.call_later(self.keepalive.tick, self._sweep_keepalive)

    async def _ping(self, conn: ConnId, ws: ServerConnection) -> None:
        """One ping; its pong updates ``ws.latency`` (lag compensation) and the keepalive."""
        try:
            await (await ws.ping())  # no local holds the pong: its error would hold this frame
        except websockets.ConnectionClosed:
            return
        if self.keepalive is not None:
            self.keepalive.answered(conn, self.loop.time())

    # ---- plain HTTP --------------------------------------------------------------------------

    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        upgrades = request.headers.get_all("Upgrade")
        if any("websocket" in value.lower() for value in upgrades):
            return None  # the WebSocket handshake checks the rest
        try:
            response = await self._http_answer(request)
        except _HttpError as error:
            response = _error(error)
        except StorageFailing as error:  # what was read may hold moves that are not durable
            body = {"status": "storage_failing", "error": str(error)}
            response = _json(HTTPStatus.SERVICE_UNAVAILABLE, body, extra=[("Retry-After", "5")])
        except Exception:
            log.exception("HTTP %s %s failed", request.method, _loggable(request.path))
            response = _json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal server error"})
        return _head(response) if request.method == "HEAD" else response

    async def _http_answer(self, request: Request) -> Response:
        """The answer to one plain HTTP request.

        Raises:
            _HttpError: a bad request (unknown path, method or parameter, bad token).
        """
        target = request.path
        if target == "*" and request.method == "OPTIONS":
            return _no_content(HTTPStatus.NO_CONTENT, [("Allow", _ALLOW)])
        if not target.startswith("/"):  # the absolute form: http://host/path
            url = urlsplit(target)
            if url.scheme.lower() not in ("http", "https") or not url.netloc:
                raise _HttpError(HTTPStatus.BAD_REQUEST, f"bad request target {target!r}")
            target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        raw_path, _, raw_query = target.partition("#")[0].partition("?")
        parts = _segments(raw_path)
        shown = "/" + "/".join(parts)
        found = _route(parts)
        if found is None:
            hint = ""
            if len(parts) > 1 and parts[-1] == "" and _route(parts[:-1]) is not None:
                hint = f" (without the trailing slash: {shown[:-1]!r})"
            raise _HttpError(HTTPStatus.NOT_FOUND, f"nothing at {shown!r}{hint}")
        route, arg = found
        if request.method == "OPTIONS":
            return _no_content(HTTPStatus.NO_CONTENT, [("Allow", _ALLOW)])
        if request.method not in ("GET", "HEAD"):
            raise _HttpError(
                HTTPStatus.METHOD_NOT_ALLOWED,
                f"method {request.method} is not allowed on {shown!r}: use GET or HEAD",
                [("Allow", _ALLOW)],
            )
        if route == "":
            return _json(
                HTTPStatus.OK,
                {
                    "server": self.config.server_name,
                    "protocol": list(KNOWN_VERSIONS),
                    "websocket": "connect here with a WebSocket client (protocol v1)",
                    "http": list(HTTP_ROUTES),
                },
            )
        if route == "healthz":
            health = self.health()
            healthy = health["status"] == "ok"
            return _json(HTTPStatus.OK if healthy else HTTPStatus.SERVICE_UNAVAILABLE, health)
        if route == "metrics":
            by_state: dict[str, int] = {}
            bot_games = 0
            for room in self.hall.rooms.values():
                by_state[room.status] = by_state.get(room.status, 0) + 1
                if room.bot_level and room.status != "over":
                    bot_games += 1
            config = self.config
            body = self.metrics.render(
                len(self.connections),
                self.rooms_by_game(),
                len(self.hall.seeks),
                self.storage.held,
                self.storage.failures_total,
                games=engines.available(),
                rooms_by_state=by_state,
                bot_games=bot_games,
                bot_games_limit=config.bot_games if config.bots_available else 0,
                storage_failing=self.storage.failure is not None,
                stopping=self._stopping,
            )
            return _response(HTTPStatus.OK, body, "text/plain; version=0.0.4; charset=utf-8")
        if route == "games/":
            return await self._http_game(arg, _query(raw_query, _GAME_QUERY), request)
        if route == "games":
            return await self._http_games(_query(raw_query, _GAMES_QUERY), request)
        if route == "ratings":
            return await self._http_ratings(_query(raw_query, leaderboard.QUERY))
        _query(raw_query, frozenset())
        if route == "players/":
            return await self._http_player(arg)
        return self._http_variant(arg)

    def health(self) -> dict[str, Any]:
        """The ``/healthz`` body: ``status`` is ``ok``; ``storage_failing`` while commits fail
        (moves are then held, not sent, until the database takes them); ``stopping`` once a
        stop has begun (no message is handled any more: a load balancer should send nobody)."""
        body: dict[str, Any] = {"status": "ok"}
        storage = self.storage
        if storage.failure is not None:
            body = {
                "status": "storage_failing",
                "storage_error": str(storage.failure) or type(storage.failure).__name__,
                "held_writes": storage.held,
                "failing_s": round(time.monotonic() - (storage.failing_since or 0.0), 1),
            }
        if self._stopping:
            body = {**body, "status": "stopping"}
        return body | {
            "server": self.config.server_name,
            "connections": len(self.connections),
            "rooms": len(self.hall.rooms),
            "uptime_s": int(time.time() - self.started),
            "games": engines.available(),
        }

    def _refused(self, reason: str, address: str, detail: str = "") -> None:
        """A connection refused or closed for ``reason`` (one of :data:`REFUSED`): counted, and
        told in the log at a bounded rate (a port scan only counted: the Internet is full of
        them)."""
        self.metrics.refused[reason] += 1
        if reason != "no_request":
            message = _REFUSED_WHY.get(reason, reason)
            self.refusals.event(reason, address, message, **({"reason": detail} if detail else {}))

    def _unforwarded(self, proxy: str) -> None:
        """A trusted proxy's request named no client: said once (the server's own bots, and
        tools run on the proxy's machine, send no such header; a proxy that never sends one
        makes every player one address)."""
        if self._unforwarded_told:
            return
        self._unforwarded_told = True
        log.warning(
            "a request from a trusted proxy had no readable X-Forwarded-For or Forwarded header: "
            "it counts as the proxy's own address (expected of the server's own bots and of "
            "local tools; a proxy should set X-Forwarded-For, see README); said once",
            extra={"fields": {"proxy": proxy}},
        )

    def rooms_by_game(self) -> dict[str, int]:
        """Open rooms per game."""
        counts: dict[str, int] = {}
        for room in self.hall.rooms.values():
            counts[room.game] = counts.get(room.game, 0) + 1
        return counts

    async def _viewer(self, query: dict[str, str], request: Request) -> str | None:
        """The player id of the token in ``?token=`` or ``Authorization: Bearer``, or ``None``
        when there is none.

        Raises:
            _HttpError: a malformed, repeated, conflicting or unknown token.
        """
        challenge = [("WWW-Authenticate", 'Bearer realm="boardhall"')]
        token = query.get("token")
        if token is not None and not token.strip():
            raise _HttpError(HTTPStatus.BAD_REQUEST, "empty ?token=")
        auths = request.headers.get_all("Authorization")
        if len(auths) > 1:
            raise _HttpError(HTTPStatus.BAD_REQUEST, "more than one Authorization header")
        if auths:
            scheme, _, value = auths[0].strip().partition(" ")
            if scheme.lower() != "bearer":
                raise _HttpError(
                    HTTPStatus.UNAUTHORIZED,
                    f"Authorization scheme {scheme!r} is not accepted: send 'Bearer TOKEN'",
                    challenge,
                )
            if not value.strip():
                raise _HttpError(
                    HTTPStatus.UNAUTHORIZED, "empty token in Authorization: Bearer", challenge
                )
            if token is not None and token != value.strip():
                raise _HttpError(
                    HTTPStatus.BAD_REQUEST,
                    "two different tokens: one in ?token=, one in Authorization",
                )
            token = value.strip()
        if token is None:
            return None
        known = self.hall.identity_of_token(token)  # connected, maybe not stored yet
        if known is not None:
            return known.player
        token_hash = hash_token(token)
        storage = self.storage.storage
        row = await self.storage.run(lambda: storage.identity(token_hash), held_ok=True)
        if row is None:
            raise _HttpError(
                HTTPStatus.UNAUTHORIZED,
                "unknown token",
                [("WWW-Authenticate", 'Bearer realm="boardhall", error="invalid_token"')],
            )
        return str(row[0])

    @staticmethod
    def _may_see(meta: dict[str, Any], viewer: str | None) -> bool:
        if not meta.get("private"):
            return True
        seats = meta.get("seats") or {}
        return viewer is not None and any(
            (seat or {}).get("player") == viewer for seat in seats.values()
        )

    async def _http_game(self, game_id: str, query: dict[str, str], request: Request) -> Response:
        refused: _HttpError | None = None
        try:
            viewer = await self._viewer(query, request)
        except _HttpError as unauthorized:
            if unauthorized.status != HTTPStatus.UNAUTHORIZED:
                raise
            # a stale token (say the client's, from before the database was replaced) still
            # reads a public game: refused only where the token was needed
            viewer, refused = None, unauthorized
        storage = self.storage.storage
        found = await self.storage.run(lambda: storage.game(game_id))
        vary = [("Vary", "Authorization")]
        if found is None or not self._may_see(found[0], viewer):
            if refused is not None:
                raise refused
            raise _HttpError(HTTPStatus.NOT_FOUND, f"no game {game_id!r}", vary)
        fmt = query.get("format")
        served = formats(found[0]["game"])
        if fmt is not None and fmt not in served:
            game = found[0]["game"]
            error = f"unknown format {fmt!r}; {game} records: {', '.join(served)}"
            raise _HttpError(HTTPStatus.BAD_REQUEST, error, vary)
        content_type, body = export(found[0], found[1], fmt)
        meta = found[0]
        cache = "no-cache"  # a live game changes with every move
        if meta.get("status") == "over":
            scope = "private" if meta.get("private") else "public"
            cache = f"{scope}, max-age={_FINISHED_MAX_AGE}"
        return _response(HTTPStatus.OK, body, content_type, cache, vary)

    async def _http_games(self, query: dict[str, str], request: Request) -> Response:
        player = query.get("player")
        if not player:
            raise _HttpError(HTTPStatus.BAD_REQUEST, "give ?player=ID")
        viewer = await self._viewer(query, request)
        storage = self.storage.storage
        metas = await self.storage.run(lambda: storage.games_of(player, viewer=viewer))
        games = [listed_game(meta, player) for meta in metas if self._may_see(meta, viewer)]
        return _json(
            HTTPStatus.OK, {"player": player, "games": games}, extra=[("Vary", "Authorization")]
        )

    async def _http_ratings(self, query: dict[str, str]) -> Response:
        """``/ratings``: the top players of a pool (:mod:`server.leaderboard`)."""
        try:
            pool = leaderboard.pool_of(query)
        except leaderboard.BadLeaderboardQuery as bad:
            raise _HttpError(bad.status, str(bad)) from None
        storage, current = self.storage.storage, self.hall.ratings.current
        top = await self.storage.run(
            lambda: leaderboard.top_players(storage, pool.key, pool.limit, current)
        )
        return _json(HTTPStatus.OK, leaderboard.answer(pool, top))

    async def _http_player(self, player: str) -> Response:
        """``/players/ID``: a player's profile (:mod:`server.profiles`)."""
        storage, current = self.storage.storage, self.hall.ratings.current
        found = await self.storage.run(lambda: profiles.profile_of(storage, player, current))
        if found is None:
            raise _HttpError(HTTPStatus.NOT_FOUND, f"no player {player!r}")
        return _json(HTTPStatus.OK, profiles.answer(found, self.hall.online(player)))

    def _http_variant(self, variant: str) -> Response:
        try:
            info = engines.get("custom").variant_info(variant)
        except Exception:
            info = None
        if info is None:
            raise _HttpError(HTTPStatus.NOT_FOUND, f"no custom variant {variant!r}")
        return _json(HTTPStatus.OK, info)


async def _end_bot(process: asyncio.subprocess.Process, grace: float = 5.0) -> None:
    """End a bot process: SIGTERM, then SIGKILL if it has not exited within ``grace`` s."""
    for end in (process.terminate, process.kill):
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            end()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), grace)


def _first_address(host: str) -> str:
    """The first address ``host`` resolves to for listening (``host`` itself when it does not
    resolve: binding then says why); an address is kept as written (with its %interface)."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return host
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return host
    return str(infos[0][4][0]) if infos else host


class CannotListen(OSError):
    """The server cannot listen on its host and port; ``errno`` says why (``EADDRINUSE``,
    ``EADDRNOTAVAIL``: no such address on this machine, ...)."""


@contextlib.asynccontextmanager
async def running_server(**kwargs: Any) -> AsyncIterator[BoardhallServer]:
    """``async with running_server(port=0) as server:`` a started server, stopped on exit."""
    server = BoardhallServer(**kwargs)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
