"""A real server on loopback with real WebSocket clients: a whole game, a spectator, bad input."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server.net import BoardhallServer
from server.testing import WireClient
from tests.server.helpers import Factory

FIRST = ["0,0", "1,0", "2,0", "3,0", "4,0"]
SECOND = ["0,1", "1,1", "2,1", "3,1"]


async def _table(client: Factory) -> tuple[WireClient, WireClient, WireClient, str]:
    ann, bob, eve = await client("ann"), await client("bob"), await client("eve")
    created = await ann.request(type="create", game="hexgomoku", color="first")
    assert created["type"] == "room" and created["you"] == "first"
    assert created["status"] == "waiting"
    code = created["room"]
    watched = await eve.request(type="join", room=code, role="spectator")
    assert watched["type"] == "room" and watched["you"] is None
    joined = await bob.request(type="join", room=code)
    assert joined["you"] == "second" and joined["status"] == "playing"
    snap = await ann.expect("room", status="playing")
    assert snap["seats"]["second"]["name"] == "bob" and snap["you"] == "first"
    assert (await eve.expect("room", status="playing"))["spectators"] == 1
    return ann, bob, eve, code


async def test_two_players_play_hexgomoku_to_five_while_a_spectator_watches(
    client: Factory,
) -> None:
    """Every move reaches both players and the spectator; the game ends with five for first."""
    ann, bob, eve, code = await _table(client)
    moves = [m for pair in zip(FIRST, [*SECOND, None], strict=True) for m in pair if m]
    for ply, move in enumerate(moves):
        mover = ann if ply % 2 == 0 else bob
        other = bob if mover is ann else ann
        reply = await mover.request(type="move", room=code, ply=ply, move=move)
        assert reply["type"] == "moved" and reply["ply"] == ply and reply["move"] == move
        assert (await other.expect("moved", ply=ply))["move"] == move
        seen = await eve.expect("moved", ply=ply)
        assert seen["by"] == ("first" if ply % 2 == 0 else "second") and "re" not in seen
    for wire in (ann, bob, eve):
        over = await wire.expect("over")
        assert over["result"] == "first" and over["reason"] == "five"
        assert set(over["highlight"]) == set(FIRST)
    final = await eve.expect("room", status="over")
    assert final["moves"] == moves and final["result"] == "first"


async def test_bad_inputs_get_their_errors_while_the_game_goes_on(
    client: Factory, server: BoardhallServer
) -> None:
    """Each bad input gets the right error code (with ``re``), and the game still works."""
    early = await client()
    await early.send(id=1, type="list")
    assert (await early.expect("error", re=1))["code"] == "hello_first"
    ann, bob, eve, code = await _table(client)

    async def error_of(wire: WireClient, **fields: Any) -> dict[str, Any]:
        reply = await wire.request(**fields)
        assert reply["type"] == "error", reply
        return reply

    await ann.send_raw("this is not json")
    assert (await ann.expect("error"))["code"] == "bad_message"
    await ann.send_raw(json.dumps({"type": "dance", "id": 5}))
    unknown = await ann.expect("error", re=5)
    assert unknown["code"] == "bad_message" and "dance" in unknown["message"]
    extra = await error_of(ann, type="resign", room=code, colour="red")
    assert extra["code"] == "bad_message" and "colour" in extra["message"]
    typed = await error_of(ann, type="move", room=code, ply="zero", move="0,0")
    assert typed["code"] == "bad_message" and "ply" in typed["message"]
    assert (await error_of(ann, type="create", game="go"))["code"] == "unknown_game"
    assert (await error_of(ann, type="join", room="nope9"))["code"] == "unknown_room"
    full = await error_of(eve, type="join", room=code)
    assert full["code"] == "room_full"
    assert (await error_of(bob, type="move", room=code, ply=0, move="0,0"))["code"] == (
        "not_your_turn"
    )
    illegal = await error_of(ann, type="move", room=code, ply=0, move="9,9")
    assert illegal["code"] == "illegal_move" and "9,9" in illegal["message"]
    assert (await error_of(ann, type="move", room=code, ply=3, move="0,0"))["code"] == "stale"
    assert (await error_of(eve, type="move", room=code, ply=0, move="0,0"))["code"] == (
        "not_a_player"
    )
    # The game goes on after all of that.
    assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
    assert (await eve.expect("moved", ply=0))["move"] == "0,0"
    again = await error_of(ann, type="move", room=code, ply=0, move="1,0")
    assert again["code"] == "stale"
    assert (await bob.request(type="resign", room=code))["reason"] == "resign"
    assert (await ann.expect("over"))["result"] == "first"
    assert (await error_of(bob, type="resign", room=code))["code"] == "game_over"
    metrics = server.metrics.render(0, {}, 0)
    assert 'boardhall_errors_total{code="stale"} 2' in metrics


async def test_matchmaking_list_chat_ping_and_leave(client: Factory) -> None:
    """Seeks show in the lobby, a second seeker is matched, chat and ping get their replies."""
    ann, bob, eve = await client("ann"), await client("bob"), await client("eve")
    lobby = await eve.request(type="list", watch=True)
    assert lobby["type"] == "rooms" and lobby["rooms"] == []
    queued = await ann.request(type="join", game="hexgomoku")
    assert queued["type"] == "queued" and queued["variant"]
    pushed = await eve.expect("rooms")
    assert [r["seek"] for r in pushed["rooms"]] == [True]
    matched = await bob.request(type="join", game="hexgomoku")
    assert matched["type"] == "room" and matched["status"] == "playing"
    code = matched["room"]
    assert (await ann.expect("room", room=code))["you"] == (
        {"first", "second"} - {matched["you"]}
    ).pop()
    assert (await bob.request(type="chat", room=code, text="good\x07 luck"))["type"] == "ok"
    line = await ann.expect("chat")
    assert line["text"] == "good luck" and line["from"] == "bob" and line["role"] == matched["you"]
    pong = await ann.request(type="ping", t=42)
    assert pong["type"] == "pong" and pong["t"] == 42 and pong["server_time"] > 1_700_000_000_000
    leave = await ann.request(type="leave", room=code)
    assert leave["type"] == "error" and leave["code"] == "not_allowed"
    assert (await ann.request(type="leave"))["code"] == "not_allowed"
    await eve.request(type="join", game="hexgomoku")
    assert (await eve.request(type="leave"))["type"] == "ok"


async def test_http_on_the_same_port(server: BoardhallServer) -> None:
    """GET /healthz answers 200 with JSON; unknown paths are 404."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert json.loads(body)["status"] == "ok"


async def test_replies_come_in_request_order(client: Factory) -> None:
    """A reply that waits for a storage write is not overtaken by a later quick reply."""
    ann = await client("ann")
    for i in range(5):
        await ann.send(id=f"c{i}", type="create", game="chess")
        await ann.send(id=f"p{i}", type="ping")
    order = []
    for _ in range(10):
        message = await ann.expect(None)
        order.append(message["re"])
    assert order == [x for i in range(5) for x in (f"c{i}", f"p{i}")]
