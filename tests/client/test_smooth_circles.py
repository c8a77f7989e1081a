"""The small circles of the UI (seat discs and presence dots in the room's player cards, the
lobby's connection dot, the profile's online dot, the replay's seat discs) are antialiased: their
edges blend into the panel behind, so scaled to a window other than 1280x800 they stay round
instead of showing stair steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame

from client.demo import demo_room
from client.ui import draw, theme
from tests.client.conftest import shoot

BLENDS = 2
"""A smooth edge has at least this many colours between the disc's and the panel's."""


def colours_in(image: pygame.Surface, box: pygame.Rect) -> set[tuple[int, int, int]]:
    """The distinct colours of ``image`` inside ``box``."""
    return {
        tuple(image.get_at((x, y)))[:3]  # type: ignore[misc]
        for x in range(box.left, box.right)
        for y in range(box.top, box.bottom)
    }


def around(center: tuple[int, int], radius: int) -> pygame.Rect:
    """The square just holding a circle of ``radius`` at ``center`` (one pixel more)."""
    return pygame.Rect(
        center[0] - radius - 1, center[1] - radius - 1, 2 * radius + 3, 2 * radius + 3
    )


def test_a_disc_blends_its_edge() -> None:
    """:func:`draw.disc` (and its rim) leave pixels part-way between the disc and the ground."""
    surface = pygame.Surface((40, 40))
    surface.fill(theme.PANEL)
    draw.disc(surface, theme.GOOD, (20, 20), 6)
    draw.disc(surface, (240, 240, 240), (20, 20), 3, rim=theme.FAINT)
    assert len(colours_in(surface, around((20, 20), 6))) >= 2 + BLENDS


def test_the_player_cards_circles_are_smooth(ui: Any, tmp_path: Path) -> None:
    """The seat disc and the presence dot of each card have blended edges at 1280x800 (so they
    scale smoothly to any other window size)."""
    ui.open_room(demo_room("chess", plies=2))
    image = shoot(ui.app, tmp_path, "smooth-player-cards")
    for top in (74, 154):  # the two player cards (see room_panel.draw_panel)
        dot = colours_in(image, around((800 + 50, top + 50), 4))
        seat = colours_in(image, around((800 + 24, top + 36), 11))
        assert len(dot) >= 2 + BLENDS, dot
        assert len(seat) >= 3 + BLENDS, seat


def test_the_lobby_connection_dot_is_smooth(ui: Any, tmp_path: Path) -> None:
    """The dot before "Alice @ address · online" in the lobby's header."""
    ui.open_lobby()
    ui.app.net_status = "online"
    image = shoot(ui.app, tmp_path, "smooth-lobby-dot")
    assert len(colours_in(image, around((790, 31), 6))) >= 2 + BLENDS
