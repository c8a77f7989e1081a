"""Drawing a custom variant's board as lines with pieces on their crossings (``look =
"intersections"``, Xiangqi's board): the lines through the squares' centres, the river with its
labels, the palaces' diagonals, the corner marks at start points, and the corner brackets that
frame a point (last move, selection) instead of tinting a square.

Everything takes ``centre(row, col)``, the pixel of a square's centre (flip included; the
renderer's ``pixel_of``), so the drawing always matches its pixel <-> square mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pygame

from client.boards import common
from client.ui import fonts
from engines.custom.look import BoardLook, parse_look

Centre = Callable[[int, int], tuple[float, float]]
"""Pixel of the centre of square (row, column), both 1-based."""

MARK_GAP = 0.08
"""Distance of a corner mark from its point, in cells."""
MARK_ARM = 0.18
"""Length of each arm of a corner mark, in cells."""


def look_of(info: Mapping[str, Any]) -> BoardLook:
    """The board's look from ``variant_info`` (the cells look when it has none, or one this
    client cannot read: a board is still drawn)."""
    board = info.get("board")
    if not isinstance(board, Mapping):
        return BoardLook()
    rows, cols = board.get("rows"), board.get("cols")
    if not (isinstance(rows, int) and isinstance(cols, int) and rows > 0 and cols > 0):
        return BoardLook()
    problems: list[str] = []
    look = parse_look(board, rows, cols, problems)
    return BoardLook() if problems else look


def line_width(cell: float) -> int:
    """Width of the board's lines for a cell of ``cell`` pixels."""
    return max(1, round(cell / 32))


def paint_lines(
    surface: pygame.Surface,
    look: BoardLook,
    rows: int,
    cols: int,
    cell: float,
    centre: Centre,
    colour: common.Color,
) -> None:
    """The lines, frame, river, palaces and marks of ``look`` on ``surface``."""
    width = line_width(cell)
    corners = [centre(1, 1), centre(1, cols), centre(rows, 1), centre(rows, cols)]
    left = min(x for x, _ in corners)
    right = max(x for x, _ in corners)
    top = min(y for _, y in corners)
    bottom = max(y for _, y in corners)
    pad = cell * 0.1
    frame = pygame.Rect(round(left - pad), round(top - pad), 0, 0)
    frame.width, frame.height = round(right + pad) - frame.x + 1, round(bottom + pad) - frame.y + 1
    if rows > 1 and cols > 1:
        pygame.draw.rect(surface, colour, frame, width * 2)
    for row in range(1, rows + 1):
        _line(surface, colour, centre(row, 1), centre(row, cols), width)
    river = look.river.after_row if look.river else None
    for col in range(1, cols + 1):
        if river is None or col in (1, cols):
            _line(surface, colour, centre(1, col), centre(rows, col), width)
        else:
            _line(surface, colour, centre(1, col), centre(river, col), width)
            _line(surface, colour, centre(river + 1, col), centre(rows, col), width)
    for palace in look.palaces:
        (r1, r2), (c1, c2) = palace.rows, palace.cols
        common.thick_line(surface, colour, centre(r1, c1), centre(r2, c2), width)
        common.thick_line(surface, colour, centre(r1, c2), centre(r2, c1), width)
    inside = pygame.Rect(round(left), round(top), round(right - left) + 1, round(bottom - top) + 1)
    for row, col in look.marks:
        corner_marks(surface, centre(row, col), cell, colour, width, inside)
    if look.river and look.river.labels:
        y = (centre(river or 1, 1)[1] + centre((river or 1) + 1, 1)[1]) / 2
        river_labels(surface, look.river.labels, (left, right), y, cell, colour)


def _line(
    surface: pygame.Surface,
    colour: common.Color,
    a: tuple[float, float],
    b: tuple[float, float],
    width: int,
) -> None:
    """A horizontal or vertical line of ``width`` px whose middle runs through the pixels of
    ``a`` and ``b`` (pixel-exact: a point's pixel is always on its lines)."""
    ax, ay, bx, by = round(a[0]), round(a[1]), round(b[0]), round(b[1])
    half = width // 2
    surface.fill(
        colour,
        pygame.Rect(min(ax, bx) - half, min(ay, by) - half, abs(bx - ax) + width,
                    abs(by - ay) + width),
    )


def corner_marks(
    surface: pygame.Surface,
    point: tuple[float, float],
    cell: float,
    colour: common.Color,
    width: int,
    inside: pygame.Rect,
) -> None:
    """Four small L marks around ``point``, each in one quadrant; a quadrant outside ``inside``
    (the lines' rectangle: an edge point) gets none."""
    x, y = point
    gap, arm = cell * MARK_GAP, cell * MARK_ARM
    for sx in (-1, 1):
        for sy in (-1, 1):
            corner = (x + sx * gap, y + sy * gap)
            if not inside.collidepoint(round(corner[0]), round(corner[1])):
                continue
            _line(surface, colour, (corner[0], corner[1] + sy * arm), corner, width)
            _line(surface, colour, corner, (corner[0] + sx * arm, corner[1]), width)


def brackets(
    surface: pygame.Surface,
    point: tuple[float, float],
    half: float,
    arm: float,
    colour: Sequence[int],
    width: float,
) -> None:
    """Corner brackets of a square of ``half`` px half-side around ``point`` (arms ``arm`` px)."""
    x, y = point
    for sx in (-1, 1):
        for sy in (-1, 1):
            corner = (x + sx * half, y + sy * half)
            common.thick_line(surface, colour, (corner[0], corner[1] - sy * arm), corner, width)
            common.thick_line(surface, colour, corner, (corner[0] - sx * arm, corner[1]), width)


def river_labels(
    surface: pygame.Surface,
    labels: Sequence[str],
    span: tuple[float, float],
    y: float,
    cell: float,
    colour: common.Color,
) -> None:
    """The river's labels between the lines ``span`` (left and right x): one in the middle, or
    two centred on the left and right halves. CJK labels are spaced out as on real boards; text
    the installed fonts cannot draw is left out."""
    left, right = span
    shown = [t for t in labels if t and (fonts.has_cjk() or not fonts.needs_cjk(t))]
    if not shown:
        return
    if len(labels) == 1:
        places = [(left + right) / 2]
    else:
        places = [left + (right - left) / 4, left + (right - left) * 3 / 4]
    room = (right - left) / len(labels) * 0.8
    for text, x in zip(labels, places, strict=False):
        if text not in shown:
            continue
        spaced = "\u3000".join(text) if fonts.needs_cjk(text) and len(text) <= 3 else text
        image = fonts.render_px(spaced, max(6, round(cell * 0.8)), colour)
        if image.get_width() > room:
            scale = room / image.get_width()
            image = pygame.transform.smoothscale(
                image, (max(1, round(image.get_width() * scale)),
                        max(1, round(image.get_height() * scale)))
            )
        common.blit_centered(surface, image, (x, y))
