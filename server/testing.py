"""Helpers to drive a real server from tests, benchmarks and tools.

Example::

    from server.testing import WireClient, running_server

    async with running_server(port=0) as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        bob = await WireClient.connect(server.url, "bob")
        await bob.request(type="join", room=room["room"])
        moved = await ann.request(type="move", room=room["room"], ply=0, move="0,0")
        assert (await bob.expect("moved"))["move"] == "0,0"

``request`` adds an ``id`` and returns the one reply carrying it as ``re`` (an ``error`` reply is
returned too, not raised); ``expect`` returns the next not-yet-consumed message of a type (and
matching field values), waiting for it if needed. Every received frame is validated against the
protocol's server union, so a test also checks the server's output shape.

:class:`HallDriver` drives the sans-I/O core the same way without sockets, with an injected
clock (``advance(seconds)`` fires every timer that falls due).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import ssl
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import decode_server, encode
from server.config import ServerConfig
from server.hall import Hall
from server.net import BoardhallServer, running_server
from server.outputs import LaunchBot, Outputs, SaveOnline

__all__ = ["BoardhallServer", "HallDriver", "ServerProcess", "WireClient", "running_server"]


class WireClient:
    """A protocol-v1 client over a real WebSocket connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.inbox: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._arrived = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())
        self.closed_code: int | None = None
        self.failure: Exception | None = None

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str | None = None,
        token: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        headers: dict[str, str] | None = None,
        **hello: Any,
    ) -> WireClient:
        """Open a connection (its request with the extra ``headers``); with ``name``, say
        hello and keep the reply in :attr:`welcome`."""
        ws = await connect(
            url, ssl=ssl_context, max_size=None, open_timeout=10, additional_headers=headers
        )
        client = cls(ws)
        if name is not None:
            fields = {"name": name, "protocol": 1, **hello}
            if token is not None:
                fields["token"] = token
            client.welcome = await client.request(type="hello", **fields)
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                data = json.loads(frame)
                decode_server(frame)  # the server must only send valid protocol messages
                self.inbox.append(data)
                self._arrived.set()
        except ConnectionClosed:
            pass
        except Exception as exc:  # an invalid server frame: raised by the next expect()
            self.failure = exc
        finally:
            self.closed_code = self.ws.close_code
            self._arrived.set()

    async def send(self, **fields: Any) -> None:
        """Send one message as given."""
        await self.ws.send(json.dumps(fields))

    async def send_raw(self, text: str | bytes) -> None:
        """Send a raw frame (for malformed-input tests)."""
        await self.ws.send(text)

    async def request(self, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """Send ``fields`` with a fresh ``id`` and return the reply carrying it as ``re``."""
        message_id = f"r{next(self._ids)}"
        await self.send(id=message_id, **fields)
        return await self.expect(None, timeout=timeout, re=message_id)

    async def expect(
        self, type_: str | None, timeout: float = 10.0, **match: Any
    ) -> dict[str, Any]:
        """Take the first unconsumed message of ``type_`` whose fields equal ``match``."""

        def find() -> dict[str, Any] | None:
            for i, data in enumerate(self.inbox):
                if type_ is not None and data.get("type") != type_:
                    continue
                if all(data.get(k) == v for k, v in match.items()):
                    return self.inbox.pop(i)
            return None

        async with asyncio.timeout(timeout):
            while True:
                found = find()
                if found is not None:
                    return found
                if self.failure is not None:
                    raise AssertionError(f"the server sent an invalid frame: {self.failure}")
                if self._reader.done():
                    raise ConnectionError(
                        f"connection closed ({self.closed_code}) before {type_} {match}"
                    )
                self._arrived.clear()
                await self._arrived.wait()

    def take_all(self, type_: str) -> list[dict[str, Any]]:
        """Remove and return every received message of ``type_`` so far."""
        found = [d for d in self.inbox if d.get("type") == type_]
        self.inbox = [d for d in self.inbox if d.get("type") != type_]
        return found

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait until the server closes the connection; returns the close code."""
        async with asyncio.timeout(timeout):
            await asyncio.shield(self._reader)
        return self.closed_code

    async def close(self) -> None:
        """Close the connection."""
        await self.ws.close()
        with contextlib.suppress(Exception):
            await self._reader


class HallDriver:
    """Feeds a hall and collects what each connection received, as JSON objects."""

    def __init__(self, config: ServerConfig | None = None, seed: int = 7) -> None:
        self.now = 1000.0
        self.hall = Hall(
            config or ServerConfig(),
            rng=random.Random(seed),
            wall_offset=1.7e9,
            ratings_wall=lambda: self.now + 1.7e9,
        )
        self.inbox: dict[int, list[dict[str, Any]]] = {}
        self.closed: dict[int, int] = {}
        self.writes: list[Any] = []
        self.online: list[SaveOnline] = []
        """The times online the hall stamped (:attr:`Outputs.online`), in order."""
        self.bots: list[LaunchBot] = []
        """Bot processes the hall asked for (with their seats' tokens)."""
        self._next = 0
        self._ids = 0

    def _collect(self, out: Outputs) -> None:
        self.writes.extend(out.writes)
        self.online.extend(out.online)
        self.bots.extend(out.bots)
        for recipients, message in out.sends:
            data = json.loads(encode(message))
            for conn in recipients:
                self.inbox.setdefault(conn, []).append(data)
        for conn, code, _ in out.closes:
            self.closed[conn] = code

    def open(self, address: str = "10.0.0.1") -> int:
        """A new connection (no hello yet)."""
        self._next += 1
        self.inbox[self._next] = []
        self._collect(self.hall.connect(self._next, address, self.now))
        return self._next

    def player(self, name: str, address: str = "10.0.0.1", **hello: Any) -> int:
        """A new connection from ``address`` that said hello as ``name``."""
        conn = self.open(address)
        reply = self.request(conn, type="hello", name=name, protocol=1, **hello)
        assert reply["type"] == "welcome", reply
        return conn

    def send(self, conn: int, lag_ms: int = 0, **fields: Any) -> None:
        """Deliver one message from ``conn``."""
        self._collect(self.hall.receive(conn, json.dumps(fields), self.now, lag_ms))

    def request(self, conn: int, lag_ms: int = 0, **fields: Any) -> dict[str, Any]:
        """Send with a fresh id; return the single reply carrying it (asserting it is single)."""
        self._ids += 1
        message_id = f"q{self._ids}"
        self.send(conn, lag_ms, id=message_id, **fields)
        replies = [d for d in self.inbox[conn] if d.get("re") == message_id]
        assert len(replies) == 1, (fields, replies)
        self.inbox[conn].remove(replies[0])
        return replies[0]

    def drop(self, conn: int) -> None:
        """The connection goes away."""
        self._collect(self.hall.disconnect(conn, self.now))

    def advance(self, seconds: float) -> None:
        """Move the clock on and fire every timer that is due, in time order."""
        target = self.now + seconds
        while True:
            wake = self.hall.next_wake()
            if wake is None or wake > target:
                break
            self.now = max(self.now, wake)
            for out in self.hall.tick(self.now):
                self._collect(out)
        self.now = target

    def take(self, conn: int, type_: str) -> list[dict[str, Any]]:
        """Remove and return what ``conn`` got of ``type_``."""
        found = [d for d in self.inbox[conn] if d.get("type") == type_]
        self.inbox[conn] = [d for d in self.inbox[conn] if d.get("type") != type_]
        return found

    def last(self, conn: int, type_: str) -> dict[str, Any]:
        """The latest message of ``type_`` ``conn`` got (others of the type are dropped)."""
        found = self.take(conn, type_)
        assert found, f"connection {conn} got no {type_}"
        return found[-1]

    def table(
        self, game: str = "hexgomoku", clock: dict[str, int] | None = None, **create: Any
    ) -> tuple[int, int, str]:
        """Two players in a started room: ``(first, second, room code)``."""
        a, b = self.player("ann"), self.player("bob")
        fields: dict[str, Any] = {"type": "create", "game": game, "color": "first", **create}
        if clock is not None:
            fields["clock"] = clock
        room = self.request(a, **fields)
        assert room["type"] == "room", room
        joined = self.request(b, type="join", room=room["room"])
        assert joined["status"] == "playing", joined
        return a, b, room["room"]

    def move(self, conn: int, code: str, move: str, lag_ms: int = 0) -> dict[str, Any]:
        """Play ``move`` at the room's current ply; returns the reply."""
        ply = len(self.hall.rooms[code].moves)
        return self.request(conn, lag_ms, type="move", room=code, ply=ply, move=move)


_CLOCK_AHEAD = """\
import sys, time
wall, wall_ns = time.time, time.time_ns
time.time = lambda: wall() + {seconds!r}
time.time_ns = lambda: wall_ns() + int({seconds!r} * 1e9)
from server.cli import main
sys.exit(main())
"""
"""``python -m server`` with its wall clock set ahead (see :meth:`ServerProcess.start`)."""


class ServerProcess:
    """``boardhall-server`` in a child process (for crash tests): start, read its URL, kill.

    Example::

        proc = await ServerProcess.start(db_path)
        ... WireClient.connect(proc.url, "ann") ...
        await proc.kill()            # SIGKILL: no clean shutdown
    """

    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process = process
        self.url = url

    @classmethod
    async def start(
        cls, db: str, *args: str, timeout: float = 30.0, clock_ahead: float = 0.0
    ) -> ServerProcess:
        """Start a server on a free loopback port with database ``db``.

        With ``clock_ahead``, the child's wall clock (``time.time``) reads that many seconds
        ahead of the real one: a server started that long after the one before it went down,
        without waiting for it. (Its monotonic clock needs no such help: a server's monotonic
        times never outlive it, only wall times are stored.)

        The child imports the same code as this process: the directory this ``server``
        package was imported from comes first on its ``PYTHONPATH``. Without it the child
        found ``server`` by its working directory and the environment, which can name another
        checkout than the one under test (an editable install of another worktree): its
        welcome then carried fields this process's protocol refuses."""
        import os
        import sys

        from server.bot_launcher import code_first

        env = code_first(os.environ)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *(
                ["-c", _CLOCK_AHEAD.format(seconds=float(clock_ahead))]
                if clock_ahead
                else ["-m", "server"]
            ),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            db,
            "--log-level",
            "warning",
            *args,
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        assert process.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = (await process.stdout.readline()).decode()
                if not line:
                    raise RuntimeError("the server exited before listening")
                if "listening on " in line:
                    url = line.split("listening on ", 1)[1].split()[0]
                    return cls(process, url)

    async def kill(self) -> None:
        """SIGKILL the server and reap it."""
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()

    async def stop(self) -> None:
        """SIGTERM (a clean shutdown) and wait."""
        if self.process.returncode is None:
            self.process.terminate()
        await self.process.wait()
