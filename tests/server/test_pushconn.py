"""PushConnection hands whole messages to its consumer in order, and fails bad ones as recv()
would; the server keeps a connection's order when one message must wait for I/O."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Data

from server.net import running_server
from server.pushconn import MAX_FRAGMENTS, PushConnection
from server.testing import WireClient


class Recorder:
    """A test server whose connections record what their consumer is handed."""

    def __init__(self) -> None:
        self.received: list[Data] = []
        self.attach_now = asyncio.Event()
        self.attach_now.set()
        self.connection: PushConnection | None = None

    def consume(self, message: Data) -> None:
        if message == "boom":
            raise RuntimeError("the consumer failed")
        self.received.append(message)

    async def handler(self, ws: ServerConnection) -> None:
        assert isinstance(ws, PushConnection)
        self.connection = ws
        await self.attach_now.wait()
        ws.attach(self.consume)
        await ws.wait_closed()


@asynccontextmanager
async def recorder_client(recorder: Recorder) -> AsyncIterator[ClientConnection]:
    """A client connected to a bare server built on :class:`PushConnection`."""
    async with serve(recorder.handler, "127.0.0.1", 0, create_connection=PushConnection) as srv:
        port = next(iter(srv.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", max_size=None) as ws:
            yield ws


async def round_trip(ws: ClientConnection) -> None:
    """Wait until the server has processed every frame sent so far (a pong follows them)."""
    await (await ws.ping())


async def test_messages_arrive_whole_and_in_order() -> None:
    """Text, binary, and fragmented messages (a multi-byte character split across fragments)."""
    recorder = Recorder()
    async with recorder_client(recorder) as ws:
        await ws.send("one")
        await ws.send(b"\x00\x01")
        await ws.send(["pa", "rt", "s"])
        encoded = "é".encode()
        await ws.send([encoded[:1], encoded[1:]], text=True)
        await ws.send("last")
        await round_trip(ws)
    assert recorder.received == ["one", b"\x00\x01", "parts", "é", "last"]


async def test_messages_before_attach_are_handed_over_first() -> None:
    """Messages that arrive before the consumer is attached are kept, then come first."""
    recorder = Recorder()
    recorder.attach_now.clear()
    async with recorder_client(recorder) as ws:
        await ws.send("early 1")
        await ws.send("early 2")
        await round_trip(ws)
        assert recorder.received == []
        recorder.attach_now.set()
        await ws.send("late")
        await round_trip(ws)
    assert recorder.received == ["early 1", "early 2", "late"]


async def test_invalid_utf8_closes_1007_and_nothing_after_is_handed_over() -> None:
    recorder = Recorder()
    async with recorder_client(recorder) as ws:
        await ws.send("fine")
        await ws.send([b"\xff", b"\xfe"], text=True)
        await ws.wait_closed()
        assert ws.close_code == 1007
    assert recorder.received == ["fine"]


async def test_too_many_fragments_closes_1009() -> None:
    recorder = Recorder()
    async with recorder_client(recorder) as ws:
        await ws.send(["x"] * (MAX_FRAGMENTS + 1))
        await ws.wait_closed()
        assert ws.close_code == 1009
    assert recorder.received == []


async def test_a_failing_consumer_closes_1011() -> None:
    recorder = Recorder()
    async with recorder_client(recorder) as ws:
        await ws.send("before")
        await ws.send("boom")
        await ws.wait_closed()
        assert ws.close_code == 1011
    assert recorder.received == ["before"]


async def test_messages_behind_a_token_lookup_keep_their_order(tmp_path: Path) -> None:
    """A hello whose token must be loaded from the database waits for it; the pings sent right
    behind it (more than the inbox holds before it pauses reading) are answered after the
    welcome and in order."""
    db = tmp_path / "hall.db"
    async with running_server(host="127.0.0.1", port=0, db=db) as server:
        ann = await WireClient.connect(server.url, "ann")
        await ann.request(type="create", game="hexgomoku")  # stored with its first seat
        token = ann.welcome["token"]
        await ann.close()
    async with running_server(host="127.0.0.1", port=0, db=db) as server:
        assert not server.hall.knows_token(token)
        wire = await WireClient.connect(server.url)
        await wire.send(type="hello", id="h", name="ann", protocol=1, token=token)
        for t in range(30):
            await wire.send(type="ping", t=t)
        await wire.expect("pong", t=29)
        replies = [m for m in wire.inbox if m["type"] in ("welcome", "pong")]
        assert replies[0]["type"] == "welcome" and replies[0]["token"] == token
        assert [m["t"] for m in replies[1:]] == list(range(29))  # 29 itself was taken above
        await wire.close()
