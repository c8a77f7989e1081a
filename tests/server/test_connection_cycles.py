"""A closed connection is freed by reference counting, however it ended.

The server runs the full garbage collection only every ten minutes (:mod:`server.gcpolicy`), so
a closed connection caught in a reference cycle stays in memory until then, with its buffers.
Under churn that piled up to tens of megabytes between full collections, and the memory stayed
fragmented after they were freed (``bench/README.md``). Each test here ends a connection one
way, with the automatic collector off, and checks that the server's connection object is gone
without a collection.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest

from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.helpers import LoopClock
from tests.server.raw_ws import raw_websocket, read_frame


@pytest.fixture(autouse=True)
def no_automatic_collection() -> Iterator[None]:
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _server(**options: Any) -> AbstractAsyncContextManager[BoardhallServer]:
    return running_server(host="127.0.0.1", port=0, db=":memory:", **options)


async def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait until the server's connection table says ``what`` (polled, bounded: the server
    registers and drops connections in its handlers, with no event a test can await)."""
    for _ in range(1000):  # at most ~10 s
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting until {what}")


async def _server_side(server: BoardhallServer, count: int) -> list[weakref.ref[object]]:
    """Weak references to the server's connections and their protocols (the sans-I/O state
    machines) once there are ``count`` connections."""
    await _until(lambda: len(server.connections) == count, f"{count} connections are open")
    connections = list(server.connections.values())
    refs: list[weakref.ref[object]] = [weakref.ref(ws) for ws in connections]
    return refs + [weakref.ref(w.protocol) for w in connections]


async def _assert_freed(server: BoardhallServer, refs: list[weakref.ref[object]]) -> None:
    await _until(lambda: not server.connections, "the server forgot every connection")
    for _ in range(5):  # the handlers' last steps
        await asyncio.sleep(0)
    alive = [type(ref()).__name__ for ref in refs if ref() is not None]
    assert not alive, f"kept alive by reference cycles after the close: {alive}"


async def _game(server: BoardhallServer) -> tuple[WireClient, WireClient, str]:
    ann = await WireClient.connect(server.url, "ann")
    bob = await WireClient.connect(server.url, "bob")
    code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
    await bob.request(type="join", room=code)
    refused = await ann.request(type="move", room=code, ply=0, move="99,99")  # off the board
    assert refused["type"] == "error" and refused["code"] == "illegal_move"
    await ann.request(type="move", room=code, ply=0, move="0,0")
    return ann, bob, code


Ending = Callable[[WireClient], Awaitable[None]]


async def _clean_close(wire: WireClient) -> None:
    await wire.close()


async def _aborted_socket(wire: WireClient) -> None:
    wire.ws.transport.abort()
    await wire.wait_closed()


async def _invalid_utf8(wire: WireClient) -> None:
    await wire.ws.send([b"\xff", b"\xfe"], text=True)  # fragments dodge the client's check
    assert await wire.wait_closed() == 1007


async def _malformed_frame(wire: WireClient) -> None:
    await wire.send_raw("{not json")
    await wire.expect("error")
    await wire.close()


async def _refused_requests(wire: WireClient) -> None:
    for bad in ({"type": "move", "room": "nowhere", "ply": 0, "move": "0,0"}, {"type": "nonsense"}):
        await wire.send(**bad)
        await wire.expect("error")
    await wire.close()


@pytest.mark.parametrize(
    "ending",
    [_clean_close, _aborted_socket, _invalid_utf8, _malformed_frame, _refused_requests],
    ids=lambda f: f.__name__,
)
async def test_players_and_a_spectator_in_a_game_are_freed(ending: Ending) -> None:
    async with _server(ping_interval=None) as server:
        ann, bob, code = await _game(server)
        eve = await WireClient.connect(server.url, "eve")
        await eve.request(type="join", room=code, role="spectator")
        await bob.request(type="move", room=code, ply=1, move="0,1")
        refs = await _server_side(server, 3)
        for wire in (ann, bob, eve):
            await ending(wire)
        await _assert_freed(server, refs)


async def test_a_connection_dropped_while_a_ping_is_out_is_freed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)  # the interval is not waited for
    async with _server(ping_interval=10, ping_timeout=60) as server:
        reader, writer = await raw_websocket(server.port)
        refs = await _server_side(server, 1)
        clock.advance(10)
        assert (await asyncio.wait_for(read_frame(reader), 10))[0] == 0x9
        assert any(ws.pending_pings for ws in server.connections.values()), "no ping is out"
        writer.transport.abort()
        await _assert_freed(server, refs)


async def test_a_connection_closed_for_not_answering_pings_is_freed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)  # nor the timeout
    async with _server(ping_interval=10, ping_timeout=20) as server:
        reader, writer = await raw_websocket(server.port)
        refs = await _server_side(server, 1)
        clock.advance(10)
        assert (await asyncio.wait_for(read_frame(reader), 10))[0] == 0x9
        clock.advance(21)
        opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
        assert (opcode, payload[:2]) == (0x8, b"\x03\xf3")  # the server's close, 1011
        writer.close()
        await _assert_freed(server, refs)


async def test_a_seat_taken_over_by_a_new_connection_frees_the_old_one() -> None:
    async with _server(ping_interval=None) as server:
        ann, bob, _ = await _game(server)
        refs = await _server_side(server, 2)
        again = await WireClient.connect(server.url, "ann", token=ann.welcome["token"])
        await ann.wait_closed()
        for wire in (again, bob):
            await wire.close()
        await _assert_freed(server, refs)
