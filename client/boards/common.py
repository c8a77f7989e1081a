"""Drawing helpers shared by the board renderers: palette, fonts, smooth discs and lines.

Everything that must look smooth (stones, pieces, board backgrounds) is drawn at a larger scale
and reduced with ``smoothscale``; the resulting surfaces are cached by size, so a frame costs a few
blits. Nothing here keeps game state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import pygame

Color = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
Point = tuple[float, float]

SUPERSAMPLE = 3
"""Scale at which smooth sprites and backgrounds are drawn before reduction."""

# ---- palette: calm wood, with a few accents ---------------------------------------------------

TABLE = (46, 42, 38)
"""Behind the board (the scene may paint over it)."""
WOOD_LIGHT = (226, 196, 146)
WOOD_MID = (206, 170, 118)
WOOD_DARK = (168, 126, 82)
WOOD_EDGE = (120, 84, 52)
LINE = (72, 50, 30)
LABEL = (92, 64, 40)
LAST_MOVE = (214, 92, 52)
HIGHLIGHT = (236, 196, 48)
SELECT = (64, 140, 210)
TARGET = (40, 110, 70)
CHECK = (220, 40, 30)
PREMOVE = (150, 84, 196)
"""A premove's squares and arrow: violet, unlike every other mark."""
PREMOVE_TINT = (150, 84, 196, 130)
PREMOVE_ARROW = (126, 58, 178, 190)
PREMOVE_TARGET = (126, 58, 178, 150)
"""Where a piece picked up for a premove may go (the move's own targets are green)."""

BLACK_STONE = ((18, 18, 20), (96, 96, 104))
"""Rim and highlight colours of a black stone."""
WHITE_STONE = ((196, 190, 178), (255, 255, 252))
"""Rim and highlight colours of a white stone."""


def lerp(a: Sequence[int], b: Sequence[int], t: float) -> Color:
    """Mix two colours: ``t=0`` gives ``a``, ``t=1`` gives ``b``."""
    t = min(1.0, max(0.0, t))
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def rgba(color: Sequence[int], alpha: int) -> RGBA:
    """``color`` with ``alpha``."""
    return (color[0], color[1], color[2], alpha)


# ---- fonts ---------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> pygame.font.Font:
    """pygame's bundled font (it ships with pygame, so every client has it) at ``size`` px."""
    if not pygame.font.get_init():
        pygame.font.init()
    f = pygame.font.Font(None, max(6, int(size)))
    f.set_bold(bold)
    return f


def draw_text(
    surface: pygame.Surface,
    text: str,
    center: Point,
    size: int,
    color: Sequence[int],
    bold: bool = False,
    anchor: str = "center",
) -> pygame.Rect:
    """Draw ``text`` antialiased with its ``anchor`` (a pygame.Rect attribute) at ``center``."""
    image = font(size, bold).render(text, True, tuple(color[:3]))
    rect = image.get_rect(**{anchor: (round(center[0]), round(center[1]))})
    surface.blit(image, rect)
    return rect


# ---- smooth primitives ---------------------------------------------------------------------------


def disc(surface: pygame.Surface, color: Sequence[int], center: Point, radius: float) -> None:
    """A filled antialiased disc (alpha in ``color`` is honoured on per-pixel-alpha targets)."""
    c = (round(center[0]), round(center[1]))
    r = max(1, round(radius))
    if len(color) == 4 and color[3] < 255:
        overlay = pygame.Surface((2 * r + 4, 2 * r + 4), pygame.SRCALPHA)
        pygame.draw.aacircle(overlay, color, (r + 2, r + 2), r)
        surface.blit(overlay, (c[0] - r - 2, c[1] - r - 2))
        return
    pygame.draw.aacircle(surface, color, c, r)


def ring(
    surface: pygame.Surface,
    color: Sequence[int],
    center: Point,
    radius: float,
    width: float,
) -> None:
    """An antialiased ring of ``width`` px whose outer edge has ``radius`` (alpha honoured)."""
    r = max(2, round(radius))
    w = max(1, round(width))
    overlay = pygame.Surface((2 * r + 4, 2 * r + 4), pygame.SRCALPHA)
    pygame.draw.aacircle(overlay, color, (r + 2, r + 2), r, w)
    surface.blit(overlay, (round(center[0]) - r - 2, round(center[1]) - r - 2))


def glow(
    surface: pygame.Surface, color: Sequence[int], center: Point, radius: float, strength: int = 200
) -> None:
    """A soft radial glow fading out at ``radius`` (used for check and winning lines)."""
    sprite = _glow_sprite(tuple(color[:3]), max(2, round(radius)), strength)
    surface.blit(sprite, sprite.get_rect(center=(round(center[0]), round(center[1]))))


@lru_cache(maxsize=64)
def _glow_sprite(color: Color, radius: int, strength: int) -> pygame.Surface:
    sprite = pygame.Surface((2 * radius + 2, 2 * radius + 2), pygame.SRCALPHA)
    steps = min(radius, 40)
    for i in range(steps):
        t = i / steps
        r = round(radius * (1 - t))
        alpha = round(strength * t**1.4)  # circles overwrite: the innermost one sets the alpha
        pygame.draw.circle(sprite, rgba(color, min(255, alpha)), (radius + 1, radius + 1), r)
    return sprite


def thick_line(
    surface: pygame.Surface, color: Sequence[int], a: Point, b: Point, width: float
) -> None:
    """An antialiased line with round ends, for widths of several pixels."""
    ax, ay = a
    bx, by = b
    length = math.hypot(bx - ax, by - ay)
    if length == 0:
        return
    nx, ny = -(by - ay) / length * width / 2, (bx - ax) / length * width / 2
    quad = [(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)]
    pygame.draw.polygon(surface, color, quad)
    pygame.draw.aalines(surface, color, True, quad)
    disc(surface, color, a, width / 2)
    disc(surface, color, b, width / 2)


def arrow(surface: pygame.Surface, color: Sequence[int], points: Sequence[Point],
          width: float) -> None:
    """A translucent arrow along ``points`` (a path through landing squares), its head on the
    last point. ``color`` may carry alpha: the arrow is drawn on its own layer, so the pieces
    under it stay visible."""
    if len(points) < 2:
        return
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    pad = width * 2 + 4
    left, top = min(xs) - pad, min(ys) - pad
    layer = pygame.Surface((round(max(xs) - left + pad), round(max(ys) - top + pad)),
                           pygame.SRCALPHA)
    local = [(x - left, y - top) for x, y in points]
    solid = rgba(color, 255)
    (ax, ay), (bx, by) = local[-2], local[-1]
    length = math.hypot(bx - ax, by - ay) or 1.0
    ux, uy = (bx - ax) / length, (by - ay) / length
    head = min(width * 2.4, length * 0.6)
    neck = (bx - ux * head, by - uy * head)
    for a, b in zip([*local[:-2], local[-2]], [*local[1:-1], neck], strict=True):
        thick_line(layer, solid, a, b, width)
    half = width * 1.3
    pygame.draw.polygon(layer, solid, [(bx, by), (neck[0] - uy * half, neck[1] + ux * half),
                                       (neck[0] + uy * half, neck[1] - ux * half)])
    alpha = color[3] if len(color) == 4 else 255
    layer.fill((255, 255, 255, alpha), special_flags=pygame.BLEND_RGBA_MULT)
    surface.blit(layer, (round(left), round(top)))


def fat_polygon(
    surface: pygame.Surface, color: Sequence[int], points: Sequence[Point], radius: float
) -> None:
    """A convex polygon grown by ``radius`` on every side, with round corners (not antialiased:
    meant for supersampled drawing)."""
    pygame.draw.polygon(surface, color, points)
    if radius <= 0:
        return
    n = len(points)
    for i in range(n):
        ax, ay = points[i]
        bx, by = points[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay) or 1.0
        nx, ny = -(by - ay) / length * radius, (bx - ax) / length * radius
        pygame.draw.polygon(
            surface,
            color,
            [(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)],
        )
        pygame.draw.circle(surface, color, (ax, ay), radius)


def supersampled(
    size: tuple[int, int],
    paint: Callable[[pygame.Surface, float], None],
    scale: int = SUPERSAMPLE,
) -> pygame.Surface:
    """Run ``paint(big_surface, scale)`` on a transparent surface ``scale`` times larger, reduce.

    ``paint`` draws in big-surface pixels (multiply logical sizes by the scale it is given).
    """
    w, h = max(1, size[0]), max(1, size[1])
    big = pygame.Surface((w * scale, h * scale), pygame.SRCALPHA)
    paint(big, float(scale))
    return pygame.transform.smoothscale(big, (w, h))


# ---- stones and discs ----------------------------------------------------------------------------


def _shaded_disc(
    surface: pygame.Surface,
    center: Point,
    radius: float,
    rim: Sequence[int],
    light: Sequence[int],
    steps: int = 28,
) -> None:
    """A disc lit from the upper left: concentric circles drifting towards the highlight."""
    cx, cy = center
    pygame.draw.circle(surface, tuple(rim[:3]), (round(cx), round(cy)), round(radius))
    for i in range(1, steps):
        t = i / steps
        r = radius * (1 - 0.82 * t)
        ox = cx - radius * 0.32 * t
        oy = cy - radius * 0.36 * t
        pygame.draw.circle(
            surface, lerp(rim, light, t**1.3), (round(ox), round(oy)), max(1, round(r))
        )


@lru_cache(maxsize=64)
def stone_sprite(radius: int, black: bool) -> pygame.Surface:
    """A shaded go-style stone with a soft shadow; the stone's centre is the sprite's centre."""
    pad = max(2, radius // 5)
    side = 2 * (radius + pad)
    rim, light = BLACK_STONE if black else WHITE_STONE

    def paint(big: pygame.Surface, k: float) -> None:
        c = side * k / 2
        shadow = pygame.Surface(big.get_size(), pygame.SRCALPHA)
        off = radius * k * 0.09
        pygame.draw.circle(shadow, (0, 0, 0, 70), (c + off, c + off * 1.4), radius * k * 1.02)
        big.blit(shadow, (0, 0))
        _shaded_disc(big, (c, c), radius * k, rim, light)
        if not black:
            pygame.draw.circle(big, (150, 144, 132), (c, c), radius * k, max(1, round(k * 0.8)))

    return supersampled((side, side), paint)


@lru_cache(maxsize=128)
def token_sprite(
    radius: int,
    rim: Color,
    light: Color,
    edge: Color,
    label: str = "",
    label_color: Color = (255, 255, 255),
    groove: bool = False,
) -> pygame.Surface:
    """A shaded disc (a draughts man, a number-chess piece) with an optional centred label."""
    pad = max(2, radius // 5)
    side = 2 * (radius + pad)

    def paint(big: pygame.Surface, k: float) -> None:
        c = side * k / 2
        off = radius * k * 0.08
        shadow = pygame.Surface(big.get_size(), pygame.SRCALPHA)
        pygame.draw.circle(shadow, (0, 0, 0, 80), (c + off, c + off * 1.5), radius * k * 1.02)
        big.blit(shadow, (0, 0))
        pygame.draw.circle(big, edge, (c, c), radius * k)
        _shaded_disc(big, (c, c), radius * k * 0.93, rim, light)
        if groove:
            for frac in (0.72, 0.5):
                pygame.draw.circle(
                    big, lerp(rim, edge, 0.55), (c, c), radius * k * frac, max(1, round(k * 1.2))
                )

    sprite = supersampled((side, side), paint)
    if label:
        size = round(radius * (1.25 if len(label) == 1 else 1.0))
        draw_text(sprite, label, (side / 2, side / 2 + radius * 0.06), size, label_color, True)
    return sprite


def blit_centered(surface: pygame.Surface, sprite: pygame.Surface, center: Point) -> None:
    """Blit ``sprite`` with its centre at ``center``."""
    surface.blit(sprite, sprite.get_rect(center=(round(center[0]), round(center[1]))))


@contextmanager
def clipped(surface: pygame.Surface, rect: pygame.Rect) -> Iterator[None]:
    """Restrict drawing on ``surface`` to ``rect`` (within any clip already set) for a block."""
    previous = surface.get_clip()
    surface.set_clip(previous.clip(rect))
    try:
        yield
    finally:
        surface.set_clip(previous)


# ---- geometry ------------------------------------------------------------------------------------


def nearest(
    pixel: tuple[float, float], centres: Iterable[tuple[str, Point]], tolerance: float
) -> str | None:
    """The name of the centre nearest to ``pixel`` if within ``tolerance``, else ``None``."""
    best: str | None = None
    best_d = tolerance * tolerance
    px, py = pixel
    for name, (x, y) in centres:
        d = (x - px) ** 2 + (y - py) ** 2
        if d <= best_d:
            best, best_d = name, d
    return best


def position_string(game: str, state: Any) -> str | None:
    """The position string (RULES.md) of ``state``: a string is taken as one already.

    ``None`` (no game yet) gives ``None``: renderers then draw the empty board. Renderers draw
    from the normative position string, so they stay independent of each engine's internal state.
    """
    if state is None or isinstance(state, str):
        return state
    from engines import registry

    return registry.get(game).position(state)
