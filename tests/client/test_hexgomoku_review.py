"""Hexagonal five-in-a-row as a gomoku/renju player plays it, through the real client against a
real server on loopback: what such a player found missing, each pinned by a test.

- In a room where exactly five wins (``exact5``), a stone that made six in a row was played and
  the game went on without a word; now everyone in the room reads why it did not win.
"""

from __future__ import annotations

from pathlib import Path

from client.app import App
from client.screenshot import save
from tests.client.helpers import click, pump, px, room_of, seated_on_a_server

SHOTS = Path("/tmp/boardhall-shots")


def place(apps: list[App], *points: str) -> None:
    """The side to move clicks each of ``points`` in turn; everyone sees each stone."""
    for point in points:
        count = len(room_of(apps[0]).model.moves)
        mover = next(a for a in apps[:2] if room_of(a).model.is_my_turn())
        click(mover, px(mover, point))
        pump(
            apps,
            lambda count=count: all(  # type: ignore[misc]
                len(room_of(a).model.moves) > count for a in apps
            ),
        )


def shot(app: App, name: str) -> None:
    """Save what ``app`` shows at 1280x800 and 800x600 under /tmp/boardhall-shots."""
    for size in ((1280, 800), (800, 600)):
        save(app, SHOTS / f"{name}-{size[0]}x{size[1]}.png", size)


def test_six_in_a_row_under_exactly_five_says_why_it_does_not_win(tmp_path: Path) -> None:
    """Black (Alice; Bob plays White, Carol watches) fills the gap of 0,0 1,0 2,0 _ 4,0 5,0
    with 3,0: six in a row, the game goes on, and Black, White and the spectator each read
    that six does not win here."""
    with seated_on_a_server(tmp_path, "hexgomoku", ("Carol",), options={"exact5": True}) as apps:
        place(apps, "0,0", "0,1", "1,0", "0,2", "2,0", "0,3", "4,0", "0,4", "5,0", "-3,7")
        assert not any("in a row" in room_of(a).message for a in apps)
        place(apps, "3,0")
        for app in apps:
            room = room_of(app)
            assert room.model.status == "playing"
            assert room.message == "3,0 makes six in a row: not a win here, exactly five wins."
        shot(apps[0], "hex-six-under-exact5")


def test_six_in_a_row_wins_where_five_or_more_wins(tmp_path: Path) -> None:
    """Without ``exact5`` the same six wins at once, and no note says otherwise."""
    with seated_on_a_server(tmp_path, "hexgomoku", ("Carol",)) as apps:
        place(apps, "0,0", "0,1", "1,0", "0,2", "2,0", "0,3", "4,0", "0,4", "5,0", "-3,7", "3,0")
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
        assert all(room_of(a).model.reason == "five" for a in apps)
        assert not any("not a win" in room_of(a).message for a in apps)
