"""An app rendered as a window of a given size shows it, for the polish and display tests: the
image (saved under /tmp/polish or /tmp/boardhall-shots), each text line drawn and where it
landed, and where a logical rectangle shows in the window."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.ui import draw, fonts, theme
from tests.client.conftest import SHOTS

POLISH = Path("/tmp/polish")

Drawn = tuple[Any, float, tuple[int, int], int]
"""A text line the window drew: (logical item, scale, offset, smallest pixel size)."""


def _as_window(app: Any, size: tuple[int, int]) -> tuple[pygame.Surface, list[Drawn]]:
    """Render ``app`` on a window of ``size`` (in place of its own) and note each text line
    drawn at the window's scale."""
    drawn: list[Drawn] = []
    original = draw.draw_collected

    def record(
        surface: pygame.Surface,
        items: list[Any],
        scale: float,
        offset: tuple[int, int],
        min_px: int = draw.MIN_WINDOW_PX,
    ) -> None:
        drawn.extend((item, scale, offset, min_px) for item in items)
        original(surface, items, scale, offset, min_px)

    previous, present = app.window, app.present
    app.window, app.present = pygame.Surface(size), False
    draw.draw_collected = record
    try:
        app.render()
        return app.window.copy(), drawn
    finally:
        draw.draw_collected = original
        app.window, app.present = previous, present


def render_at(app: App, size: tuple[int, int], name: str) -> list[tuple[Any, str, pygame.Rect]]:
    """Render ``app`` as a window of ``size`` shows it (saved as /tmp/polish/NAME-WxH.png);
    returns each text line drawn: (logical item, value as shown, rectangle in the window)."""
    recorded: list[tuple[Any, str, pygame.Rect]] = []
    app.step(0.0)
    if size == theme.LOGICAL_SIZE:
        with draw.collect_text(1.0) as texts:  # the top scene's lines, as in a window
            app.visible_scenes()[-1].draw(app.surface)
        for item in texts:
            value, _, rect = draw.placed(item, 1.0, (0, 0))
            recorded.append((item, value, rect))
    image, drawn = _as_window(app, size)
    for item, scale, offset, min_px in drawn:
        value, _, rect = draw.placed(item, scale, offset, min_px)
        recorded.append((item, value, rect))
    POLISH.mkdir(parents=True, exist_ok=True)
    pygame.image.save(image, str(POLISH / f"{name}-{size[0]}x{size[1]}.png"))
    return recorded


def window_shot(app: Any, size: tuple[int, int], name: str) -> tuple[pygame.Surface, list[Any]]:
    """Render ``app`` as a window of ``size`` shows it (saved as /tmp/boardhall-shots/NAME.png);
    returns the image and the text lines drawn at the window's scale, each as (logical item,
    window rect)."""
    recorded: list[Any] = []
    if size == theme.LOGICAL_SIZE:  # drawn straight on the logical surface: record it so
        with draw.collect_text() as texts:
            for scene in app.visible_scenes():
                scene.draw(app.surface)
        recorded = [(item, window_rect(item, 1.0, (0, 0), draw.MIN_WINDOW_PX)) for item in texts]
    image, drawn = _as_window(app, size)
    recorded += [(item, window_rect(item, scale, offset, px)) for item, scale, offset, px in drawn]
    SHOTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(image, str(SHOTS / f"{name}.png"))
    return image, recorded


def window_rect(item: Any, scale: float, offset: tuple[int, int], min_px: int) -> pygame.Rect:
    """Where a recorded line shows in the window (as the app draws it: cut to its max width)."""
    px = max(min_px, round(max(item.size, fonts.MIN_SIZE) * scale))
    value = item.value
    if item.max_width is not None and fonts.measure(value, px)[0] > int(item.max_width * scale):
        while value and fonts.measure(value + "…", px)[0] > int(item.max_width * scale):
            value = value[:-1]
        value += "…"
    rect = pygame.Rect((0, 0), fonts.measure(value, px, item.bold))
    setattr(
        rect,
        item.anchor,
        (offset[0] + round(item.pos[0] * scale), offset[1] + round(item.pos[1] * scale)),
    )
    return rect


def window_bounds(rect: pygame.Rect, size: tuple[int, int]) -> pygame.Rect:
    """A logical rectangle as the window of ``size`` shows it, widened to every pixel it
    touches (and one more), so that text drawn inside it is inside this."""
    lw, lh = theme.LOGICAL_SIZE
    scale = min(size[0] / lw, size[1] / lh)
    ox, oy = int((size[0] - lw * scale) / 2), int((size[1] - lh * scale) / 2)
    return pygame.Rect(
        ox + math.floor(rect.left * scale),
        oy + math.floor(rect.top * scale),
        math.ceil(rect.width * scale) + 1,
        math.ceil(rect.height * scale) + 1,
    )


def lines_inside(recorded: list[Any], box: pygame.Rect, size: tuple[int, int]) -> list[str]:
    """The lines laid out inside logical ``box`` whose drawn text leaves it in the window."""
    shown = window_bounds(box, size)
    return [item.value for item, rect in recorded
            if box.collidepoint(item.pos) and not shown.contains(rect)]  # fmt: skip


def on_window(rect: pygame.Rect, size: tuple[int, int]) -> pygame.Rect:
    """A logical rectangle as a window of ``size`` shows it."""
    lw, lh = theme.LOGICAL_SIZE
    scale = min(size[0] / lw, size[1] / lh)
    ox, oy = int((size[0] - lw * scale) / 2), int((size[1] - lh * scale) / 2)
    return pygame.Rect(
        ox + round(rect.left * scale),
        oy + round(rect.top * scale),
        round(rect.width * scale),
        round(rect.height * scale),
    )


def drawn_whole(
    app: Any, area: pygame.Rect, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> dict[str, bool]:
    """Render ``app`` as a window of ``size`` shows it: each text drawn in ``area`` (logical),
    and whether it shows whole (not cut to its width at that window's scale)."""
    seen: dict[str, bool] = {}
    real = draw.text
    scale = min(size[0] / 1280, size[1] / 800)

    def recording(
        surface: pygame.Surface,
        value: str,
        pos: tuple[int, int],
        size: int = 18,
        color: Any = (0, 0, 0),
        anchor: draw.Anchor = "topleft",
        max_width: int | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> pygame.Rect:
        if area.collidepoint(pos):
            seen[value] = max_width is None or draw.text_extent(value, size, scale) <= max_width
        return real(surface, value, pos, size, color, anchor, max_width, *args, **kwargs)

    app.step(0.0)
    previous = app.window
    with monkeypatch.context() as patch:
        patch.setattr(draw, "text", recording)
        app.window = pygame.Surface(size)
        try:
            app.render()
        finally:
            app.window = previous
    return seen
