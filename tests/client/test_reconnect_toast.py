"""The notice shown while the connection is lost and retried (and once it is given up) covers no
square of any game's board: it sat over the board's foot, on the bottom rank. It now goes over
the side panel's header beside the board, in the room of each of the five games and in the
replay, at 640x480, 800x600 and 1280x800; the retry notice stays clear of the player cards,
and every word of it is shown."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

from client.app import App
from client.demo import demo_room
from client.net import NetEvent, gave_up_text, retry_text
from client.scenes.replay import ReplayScene
from client.scenes.room import BOARD_RECT
from client.screenshot import save
from client.ui import draw
from tests.client.conftest import SHOTS

SIZES = ((640, 480), (800, 600), (1280, 800))
GAMES = (
    ("chess", None),
    ("draughts", None),
    ("shuqi", None),
    ("hexgomoku", None),
    ("custom", "xiangqi"),
)
REASON = "Cannot reach ws://192.168.1.20:8765/: Connection refused"
PLAYER_CARDS_TOP = 74
"""Where the room's first player card starts (under the header)."""


def notice_at(app: App, size: tuple[int, int]) -> tuple[pygame.Rect, list[str]]:
    """The notice's box and lines as a window of ``size`` draws them."""
    previous = app.window
    app.window = pygame.Surface(size)
    try:
        return app.notice_box()
    finally:
        app.window = previous


def assert_whole(app: App, lines: list[str], box: pygame.Rect, size: tuple[int, int]) -> None:
    """Every word of the notice is in its lines, each fitting the box at that window's scale."""
    scale = min(size[0] / 1280, size[1] / 800)
    assert " ".join(lines) == app.notice, lines
    assert all(draw.text_extent(line, 15, scale) <= box.width - 24 for line in lines), lines


@pytest.mark.parametrize(("game", "variant"), GAMES)
def test_the_reconnect_notice_hides_no_square_of_the_board(
    ui: Any, game: str, variant: str | None
) -> None:
    """Retrying: the notice misses the board's rect (and the board drawn in it) at every
    size, above the player cards; given up (a longer text), it still misses the board."""
    room = ui.open_room(demo_room(game, variant, plies=4))
    assert room.view is not None
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent("reconnecting", text=retry_text(REASON, 8, 5)))
    for size in SIZES:
        box, lines = notice_at(ui.app, size)
        assert not box.colliderect(BOARD_RECT) and not box.colliderect(room.view.rect), box
        assert box.bottom <= PLAYER_CARDS_TOP, (size, box)
        assert_whole(ui.app, lines, box, size)
        save(ui.app, SHOTS / f"toast-{game}-{size[0]}x{size[1]}.png", size)
    ui.app.dispatch_net(NetEvent("failed", text=gave_up_text(REASON, 120)))
    for size in SIZES:
        box, lines = notice_at(ui.app, size)
        assert not box.colliderect(BOARD_RECT) and not box.colliderect(room.view.rect), box
        assert_whole(ui.app, lines, box, size)
    save(ui.app, SHOTS / f"toast-gave-up-{game}-640x480.png", (640, 480))


def test_the_replays_notice_hides_no_square_either(ui: Any) -> None:
    """A replay opened from the room (its board beside the analysis bar) while the connection
    is retried: the notice goes over its header too."""
    room = ui.open_room(demo_room("chess", plies=6))
    m = room.model
    replay = ReplayScene(ui.app, m.game, m.variant, m.start, list(m.moves))
    ui.app.push(replay)
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent("reconnecting", text=retry_text(REASON, 8, 5)))
    assert replay.view is not None
    for size in SIZES:
        box, lines = notice_at(ui.app, size)
        assert not box.colliderect(replay.board_rect()) and not box.colliderect(replay.view.rect)
        assert_whole(ui.app, lines, box, size)
    save(ui.app, SHOTS / "toast-replay-800x600.png", (800, 600))
