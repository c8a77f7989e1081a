"""A laptop that sleeps mid-game: its window is not pumped for a long while, and on wake its
wall clock has jumped while its monotonic clock has not (suspended time is not counted on it),
so the room's own count of the clocks missed the sleep. The app's clocks are injected: the room
must ask the server for the room and show the server's clocks."""

from __future__ import annotations

import time
from pathlib import Path

from client.local import EmbeddedServer
from client.room_model import format_clock
from tests.client.helpers import click, kinds, pump, px, record_events, room_of, table


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_after_a_long_sleep_the_room_shows_the_servers_clocks_not_its_own_count(
    tmp_path: Path, embedded: EmbeddedServer
) -> None:
    """Bob's laptop sleeps ten minutes while Alice is to move. On wake his room asks the
    server for its snapshot (the server's clocks ran on while his did not) and then shows the
    server's clocks with Alice's running; until it comes his clocks stand still."""
    clock = Clock()
    with table(tmp_path, embedded.url, embedded.url, bob_clock=clock) as (alice, bob):
        wall = Clock(time.time())
        bob.wall_clock = wall
        apps = [alice, bob]
        scene = room_of(bob)
        click(bob, px(scene, "0,1"))
        pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1"])
        assert scene.model.clocks["running"] == "first"
        before = format_clock(scene.model.remaining_ms("first", clock.now))
        events = record_events(bob)
        wall.now += 600.0  # asleep ten minutes: not one frame, and no monotonic time
        clock.now += 0.5

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
