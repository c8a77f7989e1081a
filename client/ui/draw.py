"""Small drawing primitives: panels, text with anchors, pills."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import pygame

from client.ui import fonts, theme

Anchor = Literal[
    "topleft", "midleft", "center", "midtop", "topright", "midright", "bottomleft", "bottomright"
]


def panel(
    surface: pygame.Surface,
    rect: pygame.Rect,
    color: theme.Color = theme.PANEL,
    border: theme.Color | None = theme.BORDER,
    radius: int = theme.RADIUS,
) -> None:
    """A filled rounded rectangle with an optional 1-pixel border."""
    pygame.draw.rect(surface, color, rect, border_radius=radius)
    if border is not None:
        pygame.draw.rect(surface, border, rect, 1, border_radius=radius)


@dataclass(frozen=True)
class TextItem:
    """A line of text to draw later at the window's own scale (see :func:`collect_text`)."""

    value: str
    size: int
    color: theme.Color
    anchor: Anchor
    pos: tuple[int, int]
    max_width: int | None
    bold: bool


_sink: list[TextItem] | None = None


@contextmanager
def collect_text(scale: float = 1.0) -> Iterator[list[TextItem]]:
    """While active, :func:`text` records lines instead of drawing them.

    The app draws the shapes on the logical surface, scales it to the window, then draws the
    recorded lines at the window's scale, so text stays sharp in a small window. Text is
    measured meanwhile as it will show at ``scale`` (see :func:`fonts.displayed_at`), so lines
    are cut and wrapped to fit their widgets there.
    """
    global _sink
    previous, _sink = _sink, []
    try:
        with fonts.displayed_at(scale):
            yield _sink
    finally:
        _sink = previous


MIN_WINDOW_PX = fonts.MIN_WINDOW_PX
"""Text drawn at the window's scale is never smaller than this many pixels."""


def window_px(size: int, scale: float, min_px: int = MIN_WINDOW_PX) -> int:
    """The pixel size text of logical ``size`` is drawn at in a window of ``scale``."""
    return fonts.display_px(size, scale, min_px)


def text_extent(value: str, size: int, scale: float = 1.0, bold: bool = False) -> int:
    """How wide ``value`` of logical ``size`` shows, in logical pixels, in a window of ``scale``
    (small windows keep text readable, so it takes relatively more room there)."""
    if scale == 1.0:
        return fonts.measure(value, max(size, fonts.MIN_SIZE), bold)[0]
    return round(fonts.measure(value, window_px(size, scale), bold)[0] / scale)


def window_rect(rect: pygame.Rect, scale: float, offset: tuple[int, int]) -> pygame.Rect:
    """Where logical ``rect`` shows in a window of ``scale`` whose logical surface starts at
    ``offset``, in window pixels."""
    return pygame.Rect(offset[0] + round(rect.x * scale), offset[1] + round(rect.y * scale),
                       round(rect.width * scale), round(rect.height * scale))


def placed(item: TextItem, scale: float, offset: tuple[int, int],
           min_px: int = MIN_WINDOW_PX) -> tuple[str, int, pygame.Rect]:
    """Where a recorded line shows in the window: its text (cut to its width), pixel size and
    rectangle in window pixels."""
    ox, oy = offset
    px = window_px(item.size, scale, min_px)
    value = item.value
    if item.max_width is not None:
        width = int(item.max_width * scale)
        if fonts.measure(value, px, item.bold)[0] > width:
            while value and fonts.measure(value + "…", px, item.bold)[0] > width:
                value = value[:-1]
            value += "…"
    rect = pygame.Rect((0, 0), fonts.measure(value, px, item.bold))
    x, y = item.pos
    setattr(rect, item.anchor, (ox + round(x * scale), oy + round(y * scale)))
    return value, px, rect


def draw_collected(surface: pygame.Surface, items: list[TextItem], scale: float,
                   offset: tuple[int, int], min_px: int = MIN_WINDOW_PX) -> None:
    """Draw recorded lines on ``surface`` at ``scale`` (logical positions mapped to pixels)."""
    for item in items:
        value, px, rect = placed(item, scale, offset, min_px)
        image = fonts.render_px(value, px, item.color, item.bold)
        surface.blit(image, image.get_rect(**{item.anchor: getattr(rect, item.anchor)}))


def text(
    surface: pygame.Surface,
    value: str,
    pos: tuple[int, int],
    size: int = 18,
    color: theme.Color = theme.TEXT,
    anchor: Anchor = "topleft",
    max_width: int | None = None,
    bold: bool = False,
) -> pygame.Rect:
    """Draw one line of text anchored at ``pos``; returns the rectangle it covers."""
    if max_width is not None:
        value = fonts.fit(value, size, max_width, bold)
    if _sink is not None:
        rect = pygame.Rect((0, 0), fonts.displayed_size(value, size, bold))
        setattr(rect, anchor, pos)
        _sink.append(TextItem(value, size, color, anchor, pos, max_width, bold))
        return rect
    image = fonts.render(value, size, color, bold)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


def paragraph(
    surface: pygame.Surface,
    value: str,
    rect: pygame.Rect,
    size: int = 16,
    color: theme.Color = theme.MUTED,
    line_gap: int = 4,
) -> int:
    """Draw wrapped text inside ``rect``; returns the height. Lines that do not fit are dropped,
    and the last one shown then ends with an ellipsis, so a cut message reads as cut."""
    y = rect.top
    step = fonts.line_step(size, line_gap)
    height = fonts.displayed_size("Ag", size)[1]
    lines = fonts.wrap(value, size, rect.width)
    room = max(1, (rect.height - height) // step + 1)
    if len(lines) > room:
        lines = lines[:room]
        lines[-1] = fonts.fit(lines[-1] + " …", size, rect.width)
    for line in lines:
        text(surface, line, (rect.left, y), size, color)
        y += step
    return y - rect.top


def pill(
    surface: pygame.Surface,
    value: str,
    pos: tuple[int, int],
    color: theme.Color,
    size: int = 14,
    fg: theme.Color = theme.BG,
) -> pygame.Rect:
    """A small rounded tag with ``value`` whose left-centre is at ``pos``."""
    w = fonts.text_width(value, size) + 14
    rect = pygame.Rect(0, 0, w, size + 8)
    rect.midleft = pos
    pygame.draw.rect(surface, color, rect, border_radius=rect.height // 2)
    text(surface, value, rect.center, size, fg, "center")
    return rect


def stone(
    surface: pygame.Surface, center: tuple[int, int], radius: int, seat: str, game: str = ""
) -> None:
    """A small disc in a seat's colour in ``game`` (used next to player names)."""
    disc(surface, theme.seat_color(game, seat), center, radius, rim=theme.FAINT)


def disc(
    surface: pygame.Surface,
    color: theme.Color,
    center: tuple[int, int],
    radius: int,
    rim: theme.Color | None = None,
) -> None:
    """A filled disc with antialiased edges (and a 1-pixel ``rim`` when given), so that it stays
    round once the logical surface is scaled to the window."""
    pygame.draw.aacircle(surface, color, center, radius)
    if rim is not None:
        pygame.draw.aacircle(surface, rim, center, radius, 1)
