"""Seat hijacking: only a seat may act for its side, and only its token gives the seat back.

Each attempt is refused with the code DESIGN.md names, nobody else sees a thing, and the game
goes on exactly as before (the real players can still move).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.net import BoardhallServer
from server.testing import WireClient, running_server

SIDE_ACTIONS: list[dict[str, Any]] = [
    {"type": "move", "ply": 0, "move": "e2e4"},
    {"type": "resign"},
    {"type": "abort"},
    {"type": "stop"},
    {"type": "report", "reason": "cheat"},
    {"type": "timeout"},
    {"type": "offer", "kind": "draw"},
    {"type": "offer", "kind": "undo"},
    {"type": "answer", "kind": "draw", "accept": True},
]


@pytest.fixture
async def server() -> AsyncIterator[BoardhallServer]:
    """A real server on a free loopback port."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as running:
        yield running


class Table:
    """A chess room with ann (first), bob (second) and eve watching."""

    def __init__(self, ann: WireClient, bob: WireClient, eve: WireClient, room: str) -> None:
        self.ann, self.bob, self.eve, self.room = ann, bob, eve, room

    @classmethod
    async def open(cls, url: str) -> Table:
        """Seat two players and a spectator."""
        ann = await WireClient.connect(url, "ann")
        bob = await WireClient.connect(url, "bob")
        eve = await WireClient.connect(url, "eve")
        room = (await ann.request(type="create", game="chess", color="first"))["room"]
        assert (await bob.request(type="join", room=room))["status"] == "playing"
        assert (await eve.request(type="join", room=room, role="spectator"))["you"] is None
        return cls(ann, bob, eve, room)

    async def moves(self) -> list[str]:
        """The room's moves as a fresh snapshot tells ann."""
        snap = await self.ann.request(type="join", room=self.room)
        assert snap["type"] == "room"
        return list(snap["moves"])

    async def quiet(self) -> None:
        """Nobody got a ``moved``, ``over`` or ``offer`` from the refused attempts."""
        for wire in (self.ann, self.bob, self.eve):
            await wire.request(type="ping")
            for kind in ("moved", "over", "offer"):
                assert wire.take_all(kind) == [], kind

    async def close(self) -> None:
        """Close every connection."""
        for wire in (self.ann, self.bob, self.eve):
            await wire.close()


async def test_a_spectator_cannot_act_for_either_side(server: BoardhallServer) -> None:
    """Every seat action from a spectator is not_a_player; the game is untouched."""
    table = await Table.open(server.url)
    for action in SIDE_ACTIONS:
        reply = await table.eve.request(room=table.room, **action)
        assert reply["type"] == "error" and reply["code"] == "not_a_player", (action, reply)
    await table.quiet()
    assert await table.moves() == []
    assert (await table.ann.request(type="move", room=table.room, ply=0, move="e2e4"))[
        "type"
    ] == "moved"
    await table.close()


async def test_a_player_cannot_move_for_the_other_side(server: BoardhallServer) -> None:
    """Moving out of turn is not_your_turn, at every ply, with the other side's legal moves."""
    table = await Table.open(server.url)
    refused = await table.bob.request(type="move", room=table.room, ply=0, move="e7e5")
    assert refused["code"] == "not_your_turn"
    assert (await table.ann.request(type="move", room=table.room, ply=0, move="e2e4"))[
        "type"
    ] == "moved"
    await table.bob.expect("moved", ply=0)
    await table.eve.expect("moved", ply=0)
    again = await table.ann.request(type="move", room=table.room, ply=1, move="e7e5")
    assert again["code"] == "not_your_turn"
    white_piece = await table.ann.request(type="move", room=table.room, ply=1, move="d2d4")
    assert white_piece["code"] == "not_your_turn"
    await table.quiet()
    assert await table.moves() == ["e2e4"]
    await table.close()


async def test_forged_and_guessed_tokens_are_refused(server: BoardhallServer) -> None:
    """A random token, the player id, and the real token with one character changed: bad_token."""
    table = await Table.open(server.url)
    real = table.ann.welcome["token"]
    flipped = real[:-1] + ("A" if real[-1] != "A" else "B")
    for forged in (
        secrets.token_urlsafe(24),
        table.ann.welcome["player"],
        flipped,
        real[:-1],
        real + "x",
        real.upper() if real.upper() != real else real.lower(),
        "",
    ):
        intruder = await WireClient.connect(server.url)
        reply = await intruder.request(type="hello", name="ann", protocol=1, token=forged)
        assert reply["type"] == "error" and reply["code"] == "bad_token", (forged, reply)
        move = await intruder.request(type="move", room=table.room, ply=0, move="e2e4")
        assert move["code"] == "hello_first"
        await intruder.close()
    assert table.ann.closed_code is None
    await table.quiet()
    assert await table.moves() == []
    await table.close()


async def test_a_second_connection_without_the_token_cannot_take_the_seat(
    server: BoardhallServer,
) -> None:
    """Same name, no token: a new identity that gets room_full and not_a_player for everything."""
    table = await Table.open(server.url)
    copycat = await WireClient.connect(server.url, "ann")
    assert copycat.welcome["player"] != table.ann.welcome["player"]
    assert table.room not in copycat.welcome["resumed"]
    joined = await copycat.request(type="join", room=table.room)
    assert joined["type"] == "error" and joined["code"] == "room_full"
    for action in SIDE_ACTIONS:
        reply = await copycat.request(room=table.room, **action)
        assert reply["code"] == "not_a_player", (action, reply)
    assert table.ann.closed_code is None
    await table.quiet()
    moved = await table.ann.request(type="move", room=table.room, ply=0, move="e2e4")
    assert moved["type"] == "moved"
    await copycat.close()
    await table.close()


async def test_the_real_token_takes_the_seat_back_and_closes_the_old_connection(
    server: BoardhallServer,
) -> None:
    """The control case: hello with the token resumes the seat; the old connection gets 4001."""
    table = await Table.open(server.url)
    back = await WireClient.connect(server.url, "ann", token=table.ann.welcome["token"])
    assert back.welcome["player"] == table.ann.welcome["player"]
    assert back.welcome["resumed"] == [table.room]
    assert await table.ann.wait_closed() == 4001
    snapshot = await back.expect("room", room=table.room)
    assert snapshot["you"] == "first"
    assert (await back.request(type="move", room=table.room, ply=0, move="e2e4"))["type"] == "moved"
    assert (await table.bob.expect("moved", ply=0))["move"] == "e2e4"
    await back.close()
    for wire in (table.bob, table.eve):
        await wire.close()


async def test_a_spectator_never_sees_a_token(server: BoardhallServer) -> None:
    """Nothing sent to a spectator or the opponent carries a player's token."""
    table = await Table.open(server.url)
    await table.ann.request(type="move", room=table.room, ply=0, move="e2e4")
    await table.eve.expect("moved", ply=0)
    await table.bob.expect("moved", ply=0)
    tokens = {table.ann.welcome["token"], table.bob.welcome["token"]}
    seen = [repr(d) for d in (*table.eve.inbox, *table.bob.inbox)]
    snap = await table.eve.request(type="join", room=table.room, role="spectator")
    seen.append(repr(snap))
    assert seen and not any(token in text for token in tokens for text in seen)
    await table.close()
