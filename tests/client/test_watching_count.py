"""The room's "N watching" is what the server counts: while the connection is down nobody here
knows it, so no figure shows (it used to keep the last one, stale); once the server is back its
snapshot brings the real figure (a real server on loopback, restarted on the same port)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.room import RoomScene
from client.ui import draw
from tests.client.conftest import shoot
from tests.client.helpers import (
    first_move_at_a_table,
    open_app,
    pump,
    room_of,
    two_players_on_a_server,
)


def watching_line(app: App, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the room draws at the right of its status line (the count and the ping)."""
    seen: list[str] = []
    real = draw.text

    def recording(
        surface: pygame.Surface, value: str, pos: tuple[int, int], *args: Any, **kwargs: Any
    ) -> pygame.Rect:
        if pos == (1264, 244):
            seen.append(value)
        return real(surface, value, pos, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(draw, "text", recording)
        app.step(0.0)
        app.render()
    return seen


def test_no_stale_watching_count_while_the_connection_is_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol watches Alice and Bob: Alice's room says "1 watching". The server stops and Carol
    goes: while Alice's connection is down her room shows no count (not the stale 1), nor once
    it is back before the server's snapshot; the snapshot after the reconnect says 0."""
    db = tmp_path / "games.sqlite"
    with two_players_on_a_server(tmp_path, db) as (first, alice, bob):
        first_move_at_a_table(alice, bob)
        carol = open_app(tmp_path, "Carol", first.url)
        try:
            pump(carol, lambda: carol.net_status == "online")
            carol.send({"type": "join", "room": room_of(alice).model.room, "role": "spectator"})
            pump([alice, carol], lambda: room_of(alice).model.spectators == 1)
            assert watching_line(alice, monkeypatch)[0].startswith("1 watching")
            shoot(alice, tmp_path, "watching-count-online")
            port = first.server.port
            first.stop()
        finally:
            carol.disconnect()  # she does not come back
        apps = [alice, bob]
        pump(apps, lambda: all(a.net_status != "online" for a in apps))
        room = room_of(alice)
        assert room.model.spectators is None
        assert not any("watching" in t for t in watching_line(alice, monkeypatch))
        shoot(alice, tmp_path, "watching-count-offline")

        second = EmbeddedServer(db=db, port=port).start()
        try:
            snapshots: list[int | None] = []
            handle = room.on_message

            def noting(message: dict[str, Any]) -> None:
                if message.get("type") == "welcome":  # back, the room's snapshot still to come
                    snapshots.append(room.model.spectators)
                handle(message)

            room.on_message = noting  # type: ignore[method-assign]
            pump(apps, lambda: all(a.net_status == "online" for a in apps), timeout=30)
            pump(
                apps,
                lambda: all(
                    (room_of(a).model.seats.get("second") or {}).get("connected") for a in apps
                ),
            )
            assert snapshots == [None], "no count between the welcome and the snapshot"
            assert room.model.spectators == 0 and isinstance(alice.top, RoomScene)
            assert watching_line(alice, monkeypatch)[0].startswith("0 watching")
            shoot(alice, tmp_path, "watching-count-back")
        finally:
            for app in apps:
                app.disconnect()
            second.stop()
