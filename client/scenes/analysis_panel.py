"""Drawing a computer analysis in the replay: the evaluation bar, the graph over the game and the
best move on the board."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pygame

from client.analysis import accuracy_text, count_text
from client.boards.base import BoardView
from client.moves import points_of
from client.ui import draw, theme
from engines.search.analysis import (
    VERDICTS,
    MoveJudgement,
    PositionEval,
    Scale,
    Verdict,
    chances,
)

VERDICT_COLORS: dict[str, theme.Color] = {
    "inaccuracy": (190, 150, 240), "mistake": (230, 159, 0), "blunder": (219, 48, 49)}
"""The move list's and the graph's colour of each verdict (lichess's orange and red; lilac for
inaccuracies, which lichess draws in a blue too close to the shown move's accent)."""
BEST_COLOR = (80, 200, 120, 170)
"""The best-move arrow: translucent green."""
SUMMARY_SIZE = 15
"""The text size of the players' summary rows under the graph."""
SUMMARY_GAP = 12
"""Logical pixels between the parts of a summary row."""


def share(found: PositionEval | None, scale: Scale) -> float:
    """The first player's share of the bar/graph: their winning chances (0.5 is even, a forced
    win fills it), as the moves are judged."""
    return 0.5 if found is None else chances(found, "first", scale) / 100


def summary_spans(rect: pygame.Rect, name: str, figure: float | None,
                  counts: dict[Verdict, int], scale: float) -> list[tuple[str, int, theme.Color]]:
    """One player's summary row in ``rect``: ``(text, x, colour)`` of ``Alice: 87% accuracy``
    on the left (the name cut to fit) and the count of each verdict on the right in its colour
    (``2 mistakes``, or the move list's ``? 2`` when the words leave the name too little room,
    as in a small window: ``scale`` is the window's)."""

    def width(text: str) -> int:
        return draw.text_extent(text, SUMMARY_SIZE, scale)

    least = width(accuracy_text(name[:6] + "…", figure))
    for words in (True, False):
        parts = [count_text(v, counts[v], words) for v in VERDICTS]
        right = sum(width(p) for p in parts) + SUMMARY_GAP * len(parts)
        if rect.width - right >= least or not words:
            break
    room = rect.width - right
    head = name
    while len(head) > 1 and width(accuracy_text(head, figure)) > room:
        head = head[:-2] + "…"
    spans = [(accuracy_text(head, figure), rect.left, theme.TEXT)]
    x = rect.right
    for verdict, text in reversed(list(zip(VERDICTS, parts, strict=True))):
        x -= width(text)
        spans.insert(1, (text, x, VERDICT_COLORS[verdict] if counts[verdict] else theme.FAINT))
        x -= SUMMARY_GAP
    return spans


def draw_summary(surface: pygame.Surface, rect: pygame.Rect, name: str, figure: float | None,
                 counts: dict[Verdict, int], scale: float) -> None:
    """Draw one player's summary row (see :func:`summary_spans`)."""
    for text, x, color in summary_spans(rect, name, figure, counts, scale):
        draw.text(surface, text, (x, rect.top), SUMMARY_SIZE, color)


def draw_bar(surface: pygame.Surface, rect: pygame.Rect, found: PositionEval | None,
             scale: Scale, game: str, first_at_bottom: bool) -> None:
    """The evaluation bar: the first player's colour grows from their end of the board."""
    pygame.draw.rect(surface, theme.seat_color(game, "second"), rect)
    part = share(found, scale)
    height = round(rect.height * part)
    filled = pygame.Rect(rect.left, rect.bottom - height if first_at_bottom else rect.top,
                         rect.width, height)
    pygame.draw.rect(surface, theme.seat_color(game, "first"), filled)
    pygame.draw.line(surface, theme.ACCENT, (rect.left, rect.centery),
                     (rect.right - 1, rect.centery))
    pygame.draw.rect(surface, theme.BORDER, rect, 1)


def graph_x(rect: pygame.Rect, ply: int, plies: int) -> int:
    """The x of ``ply`` (0 to ``plies``) on the graph."""
    return rect.left + 2 + round((rect.width - 5) * ply / max(1, plies))


def graph_ply_at(rect: pygame.Rect, plies: int, pos: tuple[int, int]) -> int | None:
    """The ply under ``pos`` on the graph, or ``None`` outside it."""
    if not rect.collidepoint(pos):
        return None
    ply = round((pos[0] - rect.left - 2) * max(1, plies) / (rect.width - 5))
    return max(0, min(plies, ply))


def draw_graph(surface: pygame.Surface, rect: pygame.Rect, evals: Sequence[PositionEval],
               judged: Sequence[MoveJudgement], plies: int, index: int, scale: Scale,
               game: str) -> None:
    """The evaluation over the game: the first player's colour below the line, the shown ply
    as a vertical line, and a dot in its colour at each inaccuracy, mistake or blunder."""
    pygame.draw.rect(surface, theme.seat_color(game, "second"), rect)
    inner = rect.inflate(0, -4)

    def y_of(found: PositionEval) -> int:
        return inner.bottom - round(inner.height * share(found, scale))

    if evals:
        line = [(graph_x(rect, i, plies), y_of(e)) for i, e in enumerate(evals)]
        if len(line) == 1:
            line.append((line[0][0] + 1, line[0][1]))
        area = [(line[0][0], rect.bottom), *line, (line[-1][0], rect.bottom)]
        pygame.draw.polygon(surface, theme.seat_color(game, "first"), area)
        pygame.draw.lines(surface, theme.MUTED, False, line, 1)
    pygame.draw.line(surface, theme.FAINT, (rect.left, rect.centery),
                     (rect.right - 1, rect.centery))
    for item in judged:
        if item.verdict is not None and item.ply + 1 < len(evals):
            at = (graph_x(rect, item.ply + 1, plies), y_of(evals[item.ply + 1]))
            draw.disc(surface, VERDICT_COLORS[item.verdict], at, 4, rim=theme.BG)
    x = graph_x(rect, index, plies)
    pygame.draw.line(surface, theme.ACCENT, (x, rect.top), (x, rect.bottom - 1), 2)
    pygame.draw.rect(surface, theme.BORDER, rect, 1)


def draw_best(surface: pygame.Surface, view: BoardView, game: str, best: str | None) -> None:
    """The best move on the board: an arrow through its points, or a ring on a placement."""
    points = points_of(game, best)
    if not points:
        return
    try:
        pixels = [view.pixel_of(p) for p in points]
    except Exception:  # a point this board does not draw: no arrow rather than a crash
        return
    layer = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    width = max(4, view.rect.width // 90)
    if len(pixels) == 1:
        pygame.draw.circle(layer, BEST_COLOR, pixels[0], width * 3, width)
    else:
        for a, b in itertools.pairwise(pixels):
            pygame.draw.line(layer, BEST_COLOR, a, b, width)
        (x0, y0), (x1, y1) = pixels[-2], pixels[-1]
        angle = math.atan2(y1 - y0, x1 - x0)
        head = width * 3
        tip = [(x1, y1)] + [
            (round(x1 - head * math.cos(angle + d)), round(y1 - head * math.sin(angle + d)))
            for d in (0.45, -0.45)]
        pygame.draw.polygon(layer, BEST_COLOR, tip)
    surface.blit(layer, (0, 0))
