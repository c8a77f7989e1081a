"""Small drawing primitives: panels, text with anchors, pills."""

from __future__ import annotations

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
    """Draw wrapped text inside ``rect`` (lines that do not fit are dropped); returns the height."""
    y = rect.top
    for line in fonts.wrap(value, size, rect.width):
        if y + size > rect.bottom:
            break
        text(surface, line, (rect.left, y), size, color)
        y += size + line_gap
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
    fill = theme.seat_color(game, seat)
    pygame.draw.circle(surface, fill, center, radius)
    pygame.draw.circle(surface, theme.FAINT, center, radius, 1)
