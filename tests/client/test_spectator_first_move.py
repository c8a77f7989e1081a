"""A spectator reads the first move's abort deadline as the player does: in a room with a main
time (whose face stands still until the side's first move) the status line counts it down, so
an abort does not come out of nowhere on the watchers' screen."""

from __future__ import annotations

from pathlib import Path

from client.local import EmbeddedServer
from tests.client.conftest import FakeClock
from tests.client.helpers import pump, room_of, watched_table
from tests.client.window_tools import render_at


def test_a_spectator_sees_the_first_move_countdown(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """Alice and Bob sit at a 3+2 chess table; Carol watches. 5 s on (Carol's injected clock)
    her status line says Alice has 25 s left for her first move, whole at 1280x800 and shorter
    but with the seconds at 800x600; once both have moved it is the plain line again."""
    clock = FakeClock()
    fischer = {"initial": 180, "increment": 2}
    with watched_table(tmp_path, embedded.url, fischer, clock) as (alice, bob, carol, code):
        watched = room_of(carol)
        clock.now += 5
        assert watched.status_forms()[0] == (
            "Alice to move · 25 s left for a first move · you are watching"
        )
        wide = [value for _, value, _ in render_at(carol, (1280, 800), "spectator-first-move")]
        assert "Alice to move · 25 s left for a first move · you are watching" in wide, wide
        small = [value for _, value, _ in render_at(carol, (800, 600), "spectator-first-move")]
        assert any(value.startswith("Alice to move · 25 s") for value in small), small

        for ply, move in enumerate(["e2e4", "e7e5"]):
            mover = alice if ply == 0 else bob
            mover.send({"type": "move", "room": code, "ply": ply, "move": move})
            pump([alice, bob, carol], lambda n=ply + 1: len(watched.model.moves) == n)  # type: ignore[misc]
        assert watched.status_forms() == ["Alice to move · you are watching"]
