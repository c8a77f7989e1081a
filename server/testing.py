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
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import ssl
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol import decode_server
from server.net import BoardhallServer, running_server

__all__ = ["BoardhallServer", "WireClient", "running_server"]


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

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str | None = None,
        token: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
        **hello: Any,
    ) -> WireClient:
        """Open a connection; with ``name``, say hello and keep the reply in :attr:`welcome`."""
        ws = await connect(url, ssl=ssl_context, max_size=None, open_timeout=10)
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
        except Exception:
            pass
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
