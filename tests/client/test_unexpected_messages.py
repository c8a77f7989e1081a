"""A server that says more than protocol v1 (a newer server: new message types, new fields, a
higher protocol number, new error codes and reasons) or sends frames that are no message at
all: the client ignores what it does not know, keeps the connection and shows no error."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from websockets.sync.server import ServerConnection

from client.demo import demo_room, demo_welcome
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.conftest import UI
from tests.client.helpers import open_app, pump, websocket_server

NEWER_WELCOME: dict[str, Any] = {
    **demo_welcome(),
    "protocol": 2,
    "features": ["tournaments"],
    "motd": {"text": "welcome"},
}


def newer_server(ws: ServerConnection) -> None:
    """Welcome in protocol 2, then frames v1 does not have, then answer a ping."""
    with contextlib.suppress(Exception):
        ws.recv()
        ws.send(json.dumps(NEWER_WELCOME))
        ws.send(json.dumps({"type": "tournament", "id": 7, "rounds": [1, 2]}))
        ws.send(
            json.dumps(
                {
                    "type": "rooms",
                    "rooms": [{"room": "AB12", "game": "go", "seats": None}, "junk", None],
                }
            )
        )
        ws.send(b"\x00\x01binary")
        ws.send("not json")
        ws.send(json.dumps([1, 2, 3]))
        ws.send(json.dumps({"type": 5}))
        for frame in ws:
            message = json.loads(frame)
            if message.get("type") == "ping":
                ws.send(
                    json.dumps(
                        {
                            "type": "pong",
                            "t": message.get("t"),
                            "server_time": 0,
                            "re": message.get("id"),
                        }
                    )
                )


def test_a_newer_server_is_spoken_to_and_its_unknown_frames_are_ignored(tmp_path: Path) -> None:
    """The lobby opens on a protocol-2 welcome with fields v1 lacks; a message type it does not
    know, an odd room list, a binary frame and non-JSON text change nothing and say nothing;
    the connection stays up (a ping gets its pong)."""
    with websocket_server(newer_server) as port:
        app = open_app(tmp_path, "Alice", f"127.0.0.1:{port}")
        try:
            pump([app], lambda: isinstance(app.top, LobbyScene) and app.rtt_ms is not None)
            lobby = app.top
            assert isinstance(lobby, LobbyScene)
            assert app.net_status == "online" and not app.notice
            assert [r.get("room") for r in lobby.rooms] == ["AB12"]
        finally:
            app.disconnect()


def test_unknown_messages_and_values_in_a_room_say_nothing_and_break_nothing(ui: UI) -> None:
    """In a room: an unknown message type, an unknown offer kind, an error code and a result
    reason v1 does not list are read without an exception (one would show "Ignored a message
    the client could not read"); the board keeps its moves until the end is said."""
    room = ui.open_room(demo_room("chess", plies=4))
    assert isinstance(room, RoomScene)
    moves = list(room.model.moves)
    odd: list[dict[str, object]] = [
        {"type": "tournament", "room": room.model.room, "round": 2},
        {"type": "offer", "room": room.model.room, "kind": "pause", "by": "second"},
        {
            "type": "error",
            "code": "too_tired",
            "message": "the server needs a rest",
            "room": room.model.room,
        },
        {"type": "presence", "room": room.model.room, "seat": "third", "connected": "maybe"},
    ]
    for message in odd:
        ui.message(message)
        ui.app.step(0.0)
        assert "could not read" not in ui.app.notice, (message, ui.app.notice)
    assert room.model.moves == moves and room.model.status == "playing"
    assert "the server needs a rest" in room.message
    ui.message(
        {
            "type": "over",
            "room": room.model.room,
            "game_id": room.model.game_id,
            "result": "first",
            "reason": "meteor",
            "position": "?",
        }
    )
    ui.app.step(0.0)
    assert "could not read" not in ui.app.notice, ui.app.notice
    assert room.model.status == "over" and room.model.result == "first"
    ui.shoot("unknown_reason_over")
