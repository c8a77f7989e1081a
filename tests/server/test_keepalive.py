"""Server pings: the sans-I/O schedule with an injected clock, then the real thing on a socket."""

from __future__ import annotations

import asyncio
import struct

import pytest
from websockets.asyncio.client import connect

from server.keepalive import Keepalive
from server.net import running_server
from tests.server.helpers import LoopClock
from tests.server.raw_ws import client_frame, raw_websocket, read_frame
from tests.server.storage_tools import until


def test_each_connection_is_due_one_interval_after_it_came() -> None:
    keep: Keepalive[str] = Keepalive(interval=10.0, timeout=20.0)
    keep.add("a", now=0.0)
    keep.add("b", now=4.0)
    assert keep.due(9.9) == []
    assert keep.due(10.0) == ["a"]
    assert keep.due(13.0) == []  # a's ping is still out; b is not due yet
    assert keep.due(14.0) == ["b"]


def test_an_answered_ping_schedules_the_next_from_when_it_went_out() -> None:
    keep: Keepalive[str] = Keepalive(interval=10.0, timeout=20.0)
    keep.add("a", now=0.0)
    assert keep.due(10.0) == ["a"]
    keep.answered("a", now=10.2)
    assert keep.due(19.9) == []
    assert keep.due(20.0) == ["a"]
    keep.answered("a", now=35.0)  # a pong later than an interval: the next ping goes at once
    assert keep.due(35.0) == ["a"]


def test_a_ping_unanswered_past_the_timeout_makes_the_connection_silent_once() -> None:
    keep: Keepalive[str] = Keepalive(interval=10.0, timeout=20.0)
    keep.add("a", now=0.0)
    keep.add("b", now=0.0)
    assert sorted(map(str, keep.due(10.0))) == ["a", "b"]
    keep.answered("b", now=10.1)
    assert keep.silent(30.0) == []
    assert keep.silent(30.1) == ["a"]
    assert keep.silent(100.0) == []  # forgotten after it was reported
    assert len(keep) == 1
    assert keep.due(100.0) == ["b"]


def test_pings_out_are_reported_silent_oldest_first() -> None:
    keep: Keepalive[int] = Keepalive(interval=1.0, timeout=5.0)
    for conn in range(5):
        keep.add(conn, now=conn * 0.5)
    sent = [keep.due(t) for t in (1.0, 2.0, 3.0)]
    assert sent == [[0], [1, 2], [3, 4]]
    keep.answered(1, now=2.1)
    assert keep.silent(7.5) == [0, 2]
    assert keep.silent(8.5) == [3, 4]


def test_removed_and_unknown_connections_are_ignored() -> None:
    keep: Keepalive[str] = Keepalive(interval=1.0, timeout=2.0)
    keep.add("a", now=0.0)
    keep.remove("a")
    keep.remove("never")
    keep.answered("never", now=1.0)
    assert keep.due(5.0) == [] and keep.silent(50.0) == [] and len(keep) == 0


def test_the_sweep_is_frequent_enough_for_both_limits() -> None:
    assert Keepalive(10.0, 20.0).tick == 0.1
    assert Keepalive(0.2, 0.4).tick == pytest.approx(0.05)
    with pytest.raises(ValueError, match="must be positive"):
        Keepalive(0.0, 1.0)


async def test_a_peer_that_never_answers_pings_is_closed_with_1011(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One interval on the server's clock (the loop's, moved on) brings a ping; the timeout on
    top of it, with the ping unanswered, the close (no real interval or timeout is waited for)."""
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    async with running_server(port=0, ping_interval=10, ping_timeout=20) as server:
        reader, writer = await raw_websocket(server.port)
        await until(lambda: server.keepalive is not None and len(server.keepalive) == 1)
        clock.advance(10)
        opcode, _ = await asyncio.wait_for(read_frame(reader), 10)
        assert opcode == 0x9  # a ping came first, and is left unanswered
        clock.advance(21)
        opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
        assert opcode == 0x8
        assert struct.unpack("!H", payload[:2])[0] == 1011
        assert b"keepalive ping timeout" in payload
        writer.close()


async def test_a_peer_that_answers_stays_and_its_round_trip_is_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A peer that answers each ping is pinged again after the interval and the timeout have
    both passed since the last one (not closed: its pong counted), its round trip is measured,
    it is served, and it is forgotten once it goes."""
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    async with running_server(port=0, ping_interval=10, ping_timeout=20) as server:
        reader, writer = await raw_websocket(server.port)
        keepalive = server.keepalive
        assert keepalive is not None
        await until(lambda: len(keepalive) == 1)
        ((conn, conn_ws),) = server.connections.items()
        for _ in range(2):
            clock.advance(30)
            opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
            assert opcode == 0x9, (opcode, payload)  # pinged, not closed
            writer.write(client_frame(0xA, payload))
            await until(lambda: not keepalive.unanswered(conn))
            assert conn_ws.latency > 0
        writer.write(client_frame(0x1, b'{"type": "hello", "name": "ann", "protocol": 1}'))
        opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
        assert opcode == 0x1 and b'"welcome"' in payload
        writer.close()
        await until(lambda: not server.connections)  # the peer went: the server forgets it
        assert len(keepalive) == 0


async def test_no_pings_when_the_interval_is_none() -> None:
    async with running_server(port=0, ping_interval=None) as server:
        assert server.keepalive is None
        async with connect(f"ws://127.0.0.1:{server.port}") as ws:
            await ws.send('{"type": "hello", "name": "ann", "protocol": 1}')
            assert '"welcome"' in await asyncio.wait_for(ws.recv(), 5)
