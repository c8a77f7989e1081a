"""A protocol-v1 client as a third party writes it from DESIGN.md and docs/protocol-additions.md
alone: ``websockets`` and ``json``, nothing of Boardhall's (no models, no validation of ours), so
a test with it sees the wire exactly as another program does."""

from __future__ import annotations

import asyncio
import itertools
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

Message = dict[str, Any]

WAIT_S = 10.0
"""How long a test waits for a message before it fails (a stuck test, not a timing)."""


class RawClient:
    """One WebSocket connection that keeps every JSON message the server sends, in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.received: list[Message] = []
        """Every message, in the order it came (:meth:`take` does not remove from it)."""
        self.unread: list[Message] = []
        self.welcome: Message = {}
        self._ids = itertools.count(1)
        self._arrived = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def hello(cls, url: str, name: str, token: str | None = None) -> RawClient:
        """Connect to ``url`` and say hello as ``name`` (resuming ``token`` when given)."""
        client = cls(await connect(url))
        fields: Message = {"name": name, "protocol": 1}
        if token is not None:
            fields["token"] = token
        client.welcome = await client.request("hello", **fields)
        assert client.welcome["type"] == "welcome", client.welcome
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                assert isinstance(frame, str), "the server sends text frames"
                message = json.loads(frame)
                self.received.append(message)
                self.unread.append(message)
                self._arrived.set()
        except ConnectionClosed:
            pass
        finally:
            self._arrived.set()

    async def request(self, message_type: str, /, **fields: Any) -> Message:
        """Send a ``message_type`` message with a fresh ``id``; the one reply that carries it
        as ``re``."""
        message_id = next(self._ids)
        await self.ws.send(json.dumps({"type": message_type, "id": message_id, **fields}))
        return await self.take(lambda m: m.get("re") == message_id)

    async def take(self, wanted: Callable[[Message], bool]) -> Message:
        """The first unread message ``wanted`` accepts (waiting for it), now read."""

        async def first() -> Message:
            while True:
                for index, message in enumerate(self.unread):
                    if wanted(message):
                        return self.unread.pop(index)
                assert self.ws.close_code is None, f"closed {self.ws.close_code}"
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(first(), WAIT_S)

    async def expect(self, message_type: str, /, **fields: Any) -> Message:
        """The first unread ``message_type`` message with these field values."""
        return await self.take(
            lambda m: m["type"] == message_type and all(m.get(k) == v for k, v in fields.items())
        )

    def after(self, message: Message) -> list[Message]:
        """The messages received after ``message`` (the very object), in order."""
        index = next(i for i, seen in enumerate(self.received) if seen is message)
        return self.received[index + 1 :]

    async def close(self) -> None:
        """Close the connection and stop reading."""
        await self.ws.close()
        await self._reader


async def table(url: str, game: str, **create: Any) -> tuple[RawClient, RawClient, str]:
    """Ann (first) and Bob (second) seated in a new room of ``game``; its code."""
    ann = await RawClient.hello(url, "Ann")
    bob = await RawClient.hello(url, "Bob")
    room = await ann.request("create", game=game, color="first", **create)
    assert room["type"] == "room" and room["you"] == "first", room
    joined = await bob.request("join", room=room["room"])
    assert joined["type"] == "room" and joined["you"] == "second", joined
    await ann.expect("room", status="playing")
    return ann, bob, room["room"]


async def play(first: RawClient, second: RawClient, room: str, moves: list[str]) -> Message:
    """Play ``moves`` in turn from ply 0; each mover's reply is ``moved`` and the other player
    gets the same message without ``re``. The last reply."""
    reply: Message = {}
    for ply, move in enumerate(moves):
        mover, other = (first, second) if ply % 2 == 0 else (second, first)
        reply = await mover.request("move", room=room, ply=ply, move=move)
        assert reply["type"] == "moved", reply
        copy = await other.expect("moved", room=room, ply=ply)
        assert "re" not in copy and copy["move"] == reply["move"] and copy["by"] == reply["by"]
    return reply


def http_get(url: str, path: str) -> tuple[int, str, bytes]:
    """GET ``path`` on the server of WebSocket ``url``: status, content type, body."""
    address = url.replace("ws://", "http://", 1).rstrip("/") + path
    try:
        with urllib.request.urlopen(address, timeout=WAIT_S) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers["Content-Type"], refused.read()
