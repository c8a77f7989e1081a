"""After the end, an opponent who leaves the room is shown to have left (the server tells the
room with ``presence`` connected false), and a rematch is not offered to them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygame

from tests.client.helpers import first_move_at_a_table, pump, room_of, two_players_on_a_server

SHOTS = Path("/tmp/boardhall-shots")


def test_the_opponent_leaving_the_finished_room_is_shown(tmp_path: Path) -> None:
    """Bob resigns; Alice leaves the finished room: Bob's room says "Alice left the room." and
    shows her seat away (its picture: boardhall-shots/opponent-left.png)."""
    with two_players_on_a_server(tmp_path, tmp_path / "games.db") as (_, alice, bob):
        first_move_at_a_table(alice, bob)
        bob.send({"type": "resign", "room": room_of(bob).model.room})
        apps = [alice, bob]
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
        room_of(alice).leave()
        bobs = room_of(bob)
        pump(bob, lambda: (bobs.model.seats.get("first") or {}).get("connected") is False)
        assert bobs.message == "Alice left the room."
        bob.step(0.0)
        bob.render()
        out = tmp_path / "opponent-left.png"
        pygame.image.save(bob.surface, str(out))
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(out, SHOTS / out.name)
