"""Boardhall as a third-party client sees it: raw ``websockets`` and ``json`` against a real
server, each flow checked against what DESIGN.md and docs/protocol-additions.md say."""

from __future__ import annotations

from server.net import BoardhallServer
from tests.server.third_party import RawClient


async def test_clock_parts_that_are_off_are_left_out(server: BoardhallServer) -> None:
    """DESIGN.md: "absent or 0 parts are off". The server leaves them out (it sent them as
    ``null``, which a client that reads a present part as a number trips on)."""
    ann = await RawClient.hello(server.url, "Ann")
    bob = await RawClient.hello(server.url, "Bob")
    room = await ann.request("create", game="chess", clock={"per_move": 20})
    assert room["clock"] == {"per_move": 20}
    queued = await bob.request("join", game="hexgomoku", clock={"initial": 300, "increment": 3})
    assert queued["type"] == "queued" and queued["clock"] == {"initial": 300, "increment": 3}
    listed = await ann.request("list")
    clocks = {summary["game"]: summary["clock"] for summary in listed["rooms"]}
    assert clocks == {"chess": {"per_move": 20}, "hexgomoku": {"initial": 300, "increment": 3}}
    untimed = await bob.request("create", game="shuqi")
    assert untimed["clock"] is None
