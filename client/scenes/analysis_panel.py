"""Drawing a computer analysis in the replay: the evaluation bar, the graph over the game and the
best move on the board."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pygame

from client.boards.base import BoardView
from client.moves import points_of
from client.ui import theme
from engines.search.analysis import MoveJudgement, PositionEval

VERDICT_COLORS: dict[str, theme.Color] = {
    "inaccuracy": (190, 150, 240), "mistake": (230, 159, 0), "blunder": (219, 48, 49)}
"""The move list's and the graph's colour of each verdict (lichess's orange and red; lilac for
inaccuracies, which lichess draws in a blue too close to the shown move's accent)."""
BEST_COLOR = (80, 200, 120, 170)
"""The best-move arrow: translucent green."""


def share(score: int, clamp: int) -> float:
    """The first player's share of the bar/graph (0.5 is even), squashed so that small
    advantages show and a clamped one fills it."""
    return 0.5 + 0.5 * math.tanh(2.5 * score / clamp)


def draw_bar(surface: pygame.Surface, rect: pygame.Rect, found: PositionEval | None,
             clamp: int, game: str, first_at_bottom: bool) -> None:
    """The evaluation bar: the first player's colour grows from their end of the board."""
    pygame.draw.rect(surface, theme.seat_color(game, "second"), rect)
    part = 0.5 if found is None else share(found.score, clamp)
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
               judged: Sequence[MoveJudgement], plies: int, index: int, clamp: int,
               game: str) -> None:
    """The evaluation over the game: the first player's colour below the line, the shown ply
    as a vertical line, and a dot in its colour at each inaccuracy, mistake or blunder."""
    pygame.draw.rect(surface, theme.seat_color(game, "second"), rect)
    inner = rect.inflate(0, -4)

    def y_of(score: int) -> int:
        return inner.bottom - round(inner.height * share(score, clamp))

    if evals:
        line = [(graph_x(rect, i, plies), y_of(e.score)) for i, e in enumerate(evals)]
        if len(line) == 1:
            line.append((line[0][0] + 1, line[0][1]))
        area = [(line[0][0], rect.bottom), *line, (line[-1][0], rect.bottom)]
        pygame.draw.polygon(surface, theme.seat_color(game, "first"), area)
        pygame.draw.lines(surface, theme.MUTED, False, line, 1)
    pygame.draw.line(surface, theme.FAINT, (rect.left, rect.centery),
                     (rect.right - 1, rect.centery))
    for item in judged:
        if item.verdict is not None and item.ply + 1 < len(evals):
            at = (graph_x(rect, item.ply + 1, plies), y_of(evals[item.ply + 1].score))
            pygame.draw.circle(surface, VERDICT_COLORS[item.verdict], at, 4)
            pygame.draw.circle(surface, theme.BG, at, 4, 1)
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
