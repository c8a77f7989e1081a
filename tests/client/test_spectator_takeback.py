"""A takeback seen by a spectator: the server sends everyone a snapshot with fewer moves, and
the spectator is told in words which moves went and whose turn it is again (it used to see the
moves vanish from the board and the list without a word)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from client.app import App
from tests.client.conftest import shoot
from tests.client.helpers import pump, room_of, watched_table


def _move(apps: list[App], mover: App, watcher: App, code: str, move: str) -> None:
    """``mover`` plays ``move`` and ``watcher`` has seen it."""
    ply = len(room_of(watcher).model.moves)
    mover.send({"type": "move", "room": code, "ply": ply, "move": move})
    pump(apps, lambda: len(room_of(watcher).model.moves) == ply + 1)


def test_a_spectator_is_told_of_a_takeback(tmp_path: Path, embedded: Any) -> None:
    """Alice plays e4 and Nf3, Bob e5; Alice asks to take Nf3 back and Bob agrees: Carol,
    watching, reads "Takeback: Nf3 taken back · Alice to move" (Alice: "· your move"); when
    Bob takes back his Nc6 after Alice's Nc3, both moves his offer undoes are named."""
    fischer = {"initial": 300, "increment": 3}
    with watched_table(tmp_path, embedded.url, fischer) as (alice, bob, carol, code):
        apps = [alice, bob, carol]
        for mover, move in ((alice, "e2e4"), (bob, "e7e5"), (alice, "g1f3")):
            _move(apps, mover, carol, code, move)
        watched = room_of(carol)
        assert "taken back" not in watched.message

        alice.send({"type": "offer", "room": code, "kind": "undo"})
        pump(apps, lambda: bool(room_of(bob).model.offers))
        bob.send({"type": "answer", "room": code, "kind": "undo", "accept": True})
        pump(apps, lambda: len(watched.model.moves) == 2)
        assert watched.message == "Takeback: Nf3 taken back · Alice to move", watched.message
        pump(apps, lambda: len(room_of(alice).model.moves) == 2)
        said = room_of(alice).message  # to the player whose move it is again: "your move"
        assert said == "Takeback: Nf3 taken back · your move", said
        shoot(carol, tmp_path, "spectator-takeback")

        for mover, move in ((alice, "b1c3"), (bob, "b8c6"), (alice, "d2d4")):
            _move(apps, mover, carol, code, move)
        bob.send({"type": "offer", "room": code, "kind": "undo"})
        pump(apps, lambda: bool(room_of(alice).model.offers))
        alice.send({"type": "answer", "room": code, "kind": "undo", "accept": True})
        pump(apps, lambda: len(watched.model.moves) == 3)
        assert watched.message == "Takeback: Nc6 and d4 taken back · Bob to move", watched.message
