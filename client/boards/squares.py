"""What the two square boards share (chess, draughts): an N x N grid centred in its rectangle,
square rectangles and pixel-to-square mapping, the cached picture of the empty squares, and the
square tints, outlines and dragged piece of the marks.

A subclass says where a point sits (:meth:`SquareBoardView.cell_of`), which point a screen cell
holds (:meth:`SquareBoardView.point_in_cell`), how the empty board looks
(:meth:`SquareBoardView.paint_squares`) and draws the rest in ``paint``.
"""

from __future__ import annotations

import abc
from typing import Any

import pygame

from client.boards import common
from client.boards.base import BoardView, Marks

SELECT_EDGE: common.Color = (18, 52, 22)
"""The selected square's frame: a very dark green, at least 2.5:1 from the light and the dark
squares of either board, whatever the eye makes of its hue."""


class SquareBoardView(BoardView):
    """An ``size`` x ``size`` board of squares."""

    size = 8
    """Squares per row and column (a subclass sets it before :meth:`layout`)."""

    def __init__(self, variant: str | None = None, variant_info: Any = None) -> None:
        super().__init__(variant, variant_info)
        self.square = 1
        self.origin = (0, 0)
        self._board_cache: tuple[tuple[int, bool, bool], pygame.Surface] | None = None
        self.layout(self.rect)

    def layout(self, rect: pygame.Rect, flipped: bool = False) -> None:
        """Whole-pixel squares as large as fit, the grid centred in ``rect``."""
        super().layout(rect, flipped)
        self.square = max(1, min(self.rect.width, self.rect.height) // self.size)
        side = self.square * self.size
        self.origin = (
            self.rect.x + (self.rect.width - side) // 2,
            self.rect.y + (self.rect.height - side) // 2,
        )

    @abc.abstractmethod
    def cell_of(self, point: str) -> tuple[int, int]:
        """Screen column and row (0, 0 = top left) of ``point``; ``ValueError`` if no point."""

    @abc.abstractmethod
    def point_in_cell(self, col: int, row: int) -> str | None:
        """The point in screen cell ``(col, row)`` (inside the grid), or ``None``."""

    @abc.abstractmethod
    def paint_squares(self, image: pygame.Surface, labels: bool) -> None:
        """Paint the empty board (with its labels when asked) on ``image``, grid at (0, 0)."""

    def square_rect(self, point: str) -> pygame.Rect:
        """The screen rectangle of ``point``."""
        col, row = self.cell_of(point)
        return pygame.Rect(self.origin[0] + col * self.square, self.origin[1] + row * self.square,
                           self.square, self.square)

    def pixel_of(self, point: str) -> tuple[int, int]:
        rect = self.square_rect(point)
        return rect.x + self.square // 2, rect.y + self.square // 2

    def point_at(self, pixel: tuple[int, int]) -> str | None:
        col = int((pixel[0] - self.origin[0]) // self.square)
        row = int((pixel[1] - self.origin[1]) // self.square)
        if not (0 <= col < self.size and 0 <= row < self.size):
            return None
        return self.point_in_cell(col, row)

    def board_image(self, labels: bool) -> pygame.Surface:
        """The empty board, cached for the current layout."""
        key = (self.square, self.flipped, labels)
        if self._board_cache is None or self._board_cache[0] != key:
            image = pygame.Surface((self.size * self.square, self.size * self.square))
            self.paint_squares(image, labels)
            self._board_cache = (key, image)
        return self._board_cache[1]

    def tint_squares(self, surface: pygame.Surface, marks: Marks, last_move: common.RGBA,
                     selected: common.RGBA) -> None:
        """Tint the last move's squares, the premove's and the selected square (in the
        premove's tint when it is picked up for a premove). The selected square is framed
        too, darker than either square: its green differs from the brown by hue alone, which a
        deuteranope does not see, and from the yellow last move hardly more."""
        overlay = pygame.Surface((self.square, self.square), pygame.SRCALPHA)
        if marks.premoving:
            selected = common.PREMOVE_TINT
        for name in (*marks.last_move, *marks.premove, marks.selected):
            if name:
                overlay.fill(selected if name == marks.selected else
                             common.PREMOVE_TINT if name in marks.premove else last_move)
                surface.blit(overlay, self.square_rect(name))
        if marks.selected:
            edge = common.PREMOVE_ARROW[:3] if marks.premoving else SELECT_EDGE
            pygame.draw.rect(surface, edge, self.square_rect(marks.selected),
                             max(2, self.square // 14))

    def premove_arrow(self, surface: pygame.Surface, marks: Marks) -> None:
        """The premove's arrow from its origin through its landing squares."""
        common.arrow(surface, common.PREMOVE_ARROW, [self.pixel_of(p) for p in marks.premove],
                     max(3, self.square * 0.13))

    def outline(self, surface: pygame.Surface, point: str, colour: common.Color) -> None:
        """A thin frame around ``point``'s square (the hovered square)."""
        pygame.draw.rect(surface, colour, self.square_rect(point), max(1, self.square // 24))


def dragged(marks: Marks) -> tuple[str, tuple[int, int]] | None:
    """``(square, pointer pixel)`` of the piece being dragged, from ``marks.extra["drag"]``."""
    drag = marks.extra.get("drag")
    if isinstance(drag, (tuple, list)) and len(drag) == 2 and isinstance(drag[0], str):
        return drag[0], drag[1]
    return None
