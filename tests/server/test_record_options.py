"""A room started from a record (``create`` with ``record``) replays the record under the options
it was played with: the record's own ``options`` (as ``GET /games/ID`` serves them), else the
create's. The new room then plays with the create's options, and says clearly when the record's
final position is already over under them.

A real server on a loopback port, real WebSocket clients, real HTTP for the record."""

from __future__ import annotations

import json
import random
from typing import Any

from engines import get
from server.testing import BoardhallServer, WireClient
from tests.server.helpers import Factory
from tests.server.http_tools import http_get

BLACK_SIX = ["0,0", "1,0", "2,0", "4,0", "5,0", "3,0"]
"""Black's stones: the last one joins 0,0..2,0 and 4,0..5,0 into a line of six."""
WHITE = ["0,3", "-3,5", "2,-4", "-5,1", "4,3", "-2,-2"]
"""White's replies, far apart: never five in a row."""
SIX_LINE_MOVES = [m for pair in zip(BLACK_SIX, WHITE, strict=True) for m in pair]
"""Twelve plies; black's line of six is made at ply 11 (a win unless ``exact5``)."""


def shuqi_moves(plies: int, seed: int = 1) -> list[str]:
    """A legal number chess game of ``plies`` plies (random moves from a fixed seed), played
    with ``max_plies`` 600 so that it may go past the default 400."""
    engine = get("shuqi")
    state = engine.start(None, None, {"max_plies": 600})
    rng = random.Random(seed)
    moves: list[str] = []
    for _ in range(plies):
        legal = engine.legal_moves(state)
        assert legal, f"the random game ended at ply {state.ply}"
        state = engine.play(state, rng.choice(legal))
        assert state.last_move is not None
        moves.append(state.last_move)
    return moves


def final_position(game: str, moves: list[str], options: dict[str, Any]) -> str:
    """The position after ``moves`` from the start, played under ``options``."""
    engine = get(game)
    state = engine.start(None, None, options)
    for move in moves:
        state = engine.play(state, move)
    return engine.position(state)


SIX_LINE_END = final_position("hexgomoku", SIX_LINE_MOVES, {"exact5": True})


async def create(wire: WireClient, **fields: Any) -> dict[str, Any]:
    """A ``create`` that must open a room."""
    reply = await wire.request(type="create", color="first", **fields)
    assert reply["type"] == "room", reply
    return reply


async def refused(server: BoardhallServer, wire: WireClient, **fields: Any) -> dict[str, Any]:
    """A ``create`` that must be refused, leaving no room behind."""
    before = set(server.hall.rooms)
    reply = await wire.request(type="create", **fields)
    assert reply["type"] == "error", reply
    assert set(server.hall.rooms) == before
    return reply


async def test_an_exact5_record_with_a_six_line_starts_an_exact5_room(
    server: BoardhallServer, client: Factory
) -> None:
    """Black's six in a row is no win under ``exact5``: the record goes on after it, and a room
    from it opens at its end (with the record's options, or the create's when it has none)."""
    ann = await client("ann")
    record = {"game": "hexgomoku", "moves": SIX_LINE_MOVES, "options": {"exact5": True}}
    room = await create(ann, game="hexgomoku", options={"exact5": True}, record=json.dumps(record))
    assert room["start"] == room["position"] == SIX_LINE_END
    assert room["options"] == {"exact5": True} and room["turn"] == "first"
    no_options = json.dumps({"moves": SIX_LINE_MOVES})
    room = await create(ann, game="hexgomoku", options={"exact5": True}, record=no_options)
    assert room["start"] == SIX_LINE_END


async def test_a_record_over_under_the_rooms_options_is_refused_saying_why(
    server: BoardhallServer, client: Factory
) -> None:
    """The record is exact5, the create is not: the replay follows the record, but the room
    would start with a six in a row that already wins, which the error says, naming both."""
    ann = await client("ann")
    record = json.dumps({"moves": SIX_LINE_MOVES, "options": {"exact5": True}})
    reply = await refused(server, ann, game="hexgomoku", record=record)
    assert reply["code"] == "bad_position"
    message = reply["message"]
    assert "five in a row" in message and "exact5=false" in message, message
    assert "played with exact5=true" in message, message
    assert "illegal" not in message, message


async def test_a_hexgomoku_position_record_with_a_six_line_reads_with_the_rooms_options(
    server: BoardhallServer, client: Factory
) -> None:
    """A position string sent as ``record`` is the engine's to read: with the create's
    ``exact5`` a line of six is a position, not a finished game."""
    ann = await client("ann")
    room = await create(ann, game="hexgomoku", options={"exact5": True}, record=SIX_LINE_END)
    assert room["start"] == SIX_LINE_END


async def test_a_number_chess_record_past_ply_400_starts_a_room_with_max_plies_600(
    server: BoardhallServer, client: Factory
) -> None:
    """A game played with ``max_plies`` 600 that went to ply 410 replays to its end, whether the
    record says 600 itself or the create does; a room left at the default 400 would be over."""
    ann = await client("ann")
    moves = shuqi_moves(410)
    end = final_position("shuqi", moves, {"max_plies": 600})
    assert end.split(";")[1] == "410"
    options = {"max_plies": 600, "home_limit": 30}
    with_options = json.dumps({"game": "shuqi", "moves": moves, "options": options})
    room = await create(ann, game="shuqi", options={"max_plies": 600}, record=with_options)
    assert room["start"] == end and room["options"] == options
    plain = json.dumps({"game": "shuqi", "moves": moves})
    room = await create(ann, game="shuqi", options={"max_plies": 600}, record=plain)
    assert room["start"] == end
    reply = await refused(server, ann, game="shuqi", record=with_options)
    assert reply["code"] == "bad_position"
    message = reply["message"]
    assert "already over" in message and "move_limit" in message, message
    assert "max_plies=400" in message and "max_plies=600" in message, message
    reply = await refused(server, ann, game="shuqi", record=plain)
    assert "record move 401" in reply["message"], reply
    assert "this room's options (home_limit=30, max_plies=400)" in reply["message"], reply


async def test_a_downloaded_record_of_an_exact5_game_posts_back_into_create(
    server: BoardhallServer, client: Factory
) -> None:
    """ann and bob play exact5 to a line of six and on; the record ``GET /games/ID`` serves
    (options included) opens a room at the game's end."""
    ann, bob = await client("ann"), await client("bob")
    room = await create(ann, game="hexgomoku", options={"exact5": True})
    code = room["room"]
    await bob.request(type="join", room=code)
    for ply, move in enumerate(SIX_LINE_MOVES):
        wire = ann if ply % 2 == 0 else bob
        reply = await wire.request(type="move", room=code, ply=ply, move=move)
        assert reply["type"] == "moved", reply
    assert (await bob.request(type="resign", room=code))["type"] == "over"
    status, body = await http_get(server.port, f"/games/{room['game_id']}?format=json")
    assert status == 200, body
    assert json.loads(body)["options"] == {"exact5": True}
    again = await create(ann, game="hexgomoku", options={"exact5": True}, record=body)
    assert again["start"] == SIX_LINE_END and again["options"] == {"exact5": True}
    assert again["game_id"] != room["game_id"]


async def test_bad_record_options_are_refused_naming_the_option(
    server: BoardhallServer, client: Factory
) -> None:
    """A record's options are checked as any options: an unknown name, a wrong value or a
    non-object are refused with the option named, and no room opens."""
    ann = await client("ann")
    cases: list[tuple[Any, str, str]] = [
        ({"exact6": True}, "bad_option", "'exact6'"),
        ({"exact5": "yes"}, "bad_option", "'exact5'"),
        ("exact5", "bad_position", "'options'"),
    ]
    for options, code, named in cases:
        record = json.dumps({"moves": ["0,0"], "options": options})
        reply = await refused(server, ann, game="hexgomoku", record=record)
        assert reply["code"] == code, (options, reply)
        assert named in reply["message"] and "record" in reply["message"], reply
    shuqi = json.dumps({"moves": [], "options": {"max_plies": 0}})
    reply = await refused(server, ann, game="shuqi", record=shuqi)
    assert reply["code"] == "bad_option" and "'max_plies'" in reply["message"], reply
    assert (await ann.request(type="list"))["rooms"] == []
