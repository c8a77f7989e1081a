"""Helpers of the board drawing tests: the ``save_png`` fixture's type, and the custom boards'
test rectangles and colours read off real pixels."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygame

SavePng = Callable[[pygame.Surface, str], Path]
"""The ``save_png`` fixture: save a surface as a PNG (also to /tmp/boardhall-shots)."""

CUSTOM_RECTS = [
    pygame.Rect(0, 0, 600, 660), pygame.Rect(37, 11, 901, 707), pygame.Rect(5, 9, 181, 97)
]  # fmt: skip
"""Where the custom boards are laid out: a whole window, an odd offset and size, a tiny one."""


def rgb(surface: pygame.Surface, x: float, y: float) -> tuple[int, int, int]:
    """The colour of ``surface`` at the pixel nearest ``(x, y)``."""
    c = surface.get_at((round(x), round(y)))
    return c.r, c.g, c.b


def is_wood(c: tuple[int, int, int]) -> bool:
    """Whether ``c`` is the custom boards' wood."""
    return c[0] > 200 and 150 < c[1] < 215 and c[0] - c[2] > 60
