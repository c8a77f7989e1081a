"""Helpers of the slide tests: stepping a scene's slide on its app's clock, and where the board
draws the moving piece."""

from __future__ import annotations

from typing import Any

import pygame

from client.boards.base import along
from tests.client.conftest import FakeClock


def step_slide(app: Any, clock: FakeClock, slides: Any, part: float) -> None:
    """Move ``clock`` to where ``slides``' running slide has gone ``part`` (0..1) of its path
    (the eased part: a half is halfway between origin and destination), and draw a frame."""
    slide = slides.current
    assert slide is not None, "no slide runs"
    clock.now = slide.started + slide.duration * (1 - (1 - part) ** (1 / 3))
    app.step(0.0)


def finish_slide(app: Any, clock: FakeClock, slides: Any) -> None:
    """Move ``clock`` past ``slides``' running slide (if any) and draw a frame."""
    if slides.current is not None:
        clock.now = slides.current.started + slides.current.duration + 1e-6
    app.step(0.0)
    assert slides.current is None


def moving_at(view: Any, motion: Any) -> tuple[float, float]:
    """Where ``view`` draws ``motion``'s piece."""
    return along([view.pixel_of(p) for p in motion.path], motion.progress)


def riding_at(view: Any, motion: Any, index: int) -> tuple[float, float]:
    """Where ``view`` draws ``motion``'s companion ``index`` (a castling rook)."""
    return along([view.pixel_of(p) for p in motion.companions[index]], motion.progress)


def square(room: Any, point: str) -> pygame.Rect:
    """The screen rectangle of a chess square in ``room``'s board, a little inside it."""
    assert room.view is not None
    rect: pygame.Rect = room.view.square_rect(point).inflate(-6, -6)
    return rect


def white_pixels(surface: pygame.Surface, rect: pygame.Rect) -> int:
    """Pixels of ``rect`` near a white chess piece's ivory (the squares and their tints are
    yellower; the black pieces darker)."""
    count = 0
    for x in range(rect.left, rect.right):
        for y in range(rect.top, rect.bottom):
            c = surface.get_at((x, y))
            if c.r > 200 and c.g > 195 and c.b > 180 and c.r - c.b < 40:
                count += 1
    return count


def pixels_differing(a: pygame.Surface, b: pygame.Surface, rect: pygame.Rect) -> int:
    """How many pixels of ``rect`` differ between two shots of the same window."""
    return sum(
        a.get_at((x, y)) != b.get_at((x, y))
        for x in range(rect.left, rect.right)
        for y in range(rect.top, rect.bottom)
    )


def box(centre: tuple[float, float], side: int) -> pygame.Rect:
    """A ``side``-pixel square centred (rounded) on ``centre``."""
    rect = pygame.Rect(0, 0, side, side)
    rect.center = (round(centre[0]), round(centre[1]))
    return rect
