"""A laptop that sleeps mid-game: its window is not pumped for a long while (an injected clock
jumps), the server's game goes on. On wake the room must not trust its own count across the
gap: it asks the server for the room and shows the server's clocks."""

from __future__ import annotations

from pathlib import Path

from client.local import EmbeddedServer
from client.room_model import format_clock
from tests.client.helpers import click, kinds, pump, px, record_events, room_of, table


class Clock:
    """A monotonic clock the test moves by hand (a sleeping laptop's jumps with its sleep)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_after_a_long_sleep_the_room_shows_the_servers_clocks_not_its_own_count(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """Bob's laptop sleeps ten minutes while Alice is to move. On wake his clocks stop where
    they stood (no 0:00 for Alice, no claim of her time offered on a guess), his room asks the
    server for its snapshot, and then shows the server's clocks with Alice's running."""
    clock = Clock()
    with table(tmp_path, embedded.url, embedded.url, bob_clock=clock) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        click(bob, px(scene, "0,1"))
        pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1"])
        assert scene.model.clocks["running"] == "first"
        before = format_clock(scene.model.remaining_ms("first", clock.now))
        events = record_events(bob)
        clock.now += 600.0  # asleep: not one frame for ten minutes

        bob.step(0.0)
        assert format_clock(scene.model.remaining_ms("first", clock.now)) == before
        assert not scene.opponent_out_of_time(), "no claim offered on a guess"
        pump(apps, lambda: "room" in kinds(events), timeout=10)
        truth = room_of(alice).model
        assert scene.model.clocks["running"] == "first"
        mine = scene.model.remaining_ms("first", clock.now)
        theirs = truth.remaining_ms("first", alice.clock())
        assert mine is not None and theirs is not None
        assert abs(mine - theirs) < 2000, (mine, theirs)
        assert mine > 280_000, "the server charged Alice little: its truth, not the sleep"
        click(alice, px(room_of(alice), "1,1"))
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1", "1,1"])
        assert scene.model.clocks["running"] == "second"
