"""The picked piece's square on the square boards (chess, draughts) and a king in check stand
out by lightness, not by a green or red hue alone: a deuteranope sees green, red and the board's
brown as much the same colour."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

import engines
from client.boards import Marks, make_view
from client.boards.squares import SquareBoardView
from tests.client.board_tools import SavePng
from tests.client.helpers import contrast

CASES = [
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "b1", ("g1", "f3")),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2", ("d7", "d5")),
    ("draughts", None, "31", ("35", "30")),
]
"""(game, position or the start, the picked square, a last move elsewhere): a dark and a
light chess square, and a draughts square (always dark)."""


def square_pixels(
    view: SquareBoardView, position: Any, marks: Marks, square: str
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(with ``marks``, without) colours of each pixel of ``square`` that ``marks`` change."""
    plain, marked = pygame.Surface((640, 640)), pygame.Surface((640, 640))
    view.draw(plain, position, Marks())
    view.draw(marked, position, marks)
    rect = view.square_rect(square)
    changed = []
    for x in range(rect.left, rect.right):
        for y in range(rect.top, rect.bottom):
            a, b = marked.get_at((x, y))[:3], plain.get_at((x, y))[:3]
            if a != b:
                changed.append((a, b))
    return changed


@pytest.mark.parametrize(
    ("game", "fen", "picked", "last"), CASES, ids=["chess-dark", "chess-light", "draughts"]
)
def test_the_picked_square_stands_out_by_lightness(
    save_png: SavePng, game: str, fen: str | None, picked: str, last: tuple[str, str]
) -> None:
    """The picked square was tinted green only: on draughts' and chess's brown squares about
    1.1:1 in lightness, the same olive as every other dark square to a deuteranope. Now part of
    it (a frame) is at least 2.5:1 from the square it was, on a dark or a light square, and the
    last move's squares, tinted yellow, have no such frame, so the two marks stay apart by
    shape where their hues run together."""
    engine = engines.get(game)
    state = engine.start(None, position=fen)
    view = make_view(game)
    assert isinstance(view, SquareBoardView)
    view.layout(pygame.Rect(0, 0, 640, 640))
    changed = square_pixels(view, state, Marks(selected=picked, last_move=last), picked)
    framed = sum(contrast(a, b) >= 2.5 for a, b in changed) / len(changed)
    assert framed >= 0.15, framed
    for square in last:
        moved = square_pixels(view, state, Marks(selected=picked, last_move=last), square)
        assert not any(contrast(a, b) >= 2.5 for a, b in moved), square
    shot = pygame.Surface((640, 640))
    view.draw(
        shot,
        state,
        Marks(
            selected=picked,
            last_move=last,
            targets=frozenset(engine_targets(engine, state, picked)),
        ),
    )
    save_png(shot, f"selection_{game}_{picked}.png")


def engine_targets(engine: Any, state: Any, picked: str) -> list[str]:
    """Where the piece on ``picked`` may go (for the picture)."""
    moves = engine.legal_moves(state)
    if picked.isdigit():
        return [
            m.replace("x", "-").split("-")[-1]
            for m in moves
            if m.replace("x", "-").split("-")[0] == picked
        ]
    return [m[2:4] for m in moves if m[:2] == picked]


CHECKS = [
    ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "e1"),
    ("rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3", "e8"),
]
"""A king in check on a dark square (the fool's mate) and on a light one."""


@pytest.mark.parametrize(("fen", "king"), CHECKS, ids=["dark-square", "light-square"])
def test_a_king_in_check_stands_out_by_lightness(save_png: SavePng, fen: str, king: str) -> None:
    """Check was a red glow around the king: on a dark square about as light as the square,
    so to a deuteranope (red and brown alike) a checked king on e1 looked like any king. Now
    at least a tenth of what the mark changes on the king's square is 2.5:1 from what was
    there, on a dark square and on a light one."""
    state = engines.get("chess").start(None, position=fen)
    view = make_view("chess")
    assert isinstance(view, SquareBoardView)
    view.layout(pygame.Rect(0, 0, 640, 640))
    changed = square_pixels(view, state, Marks(highlight=(king,)), king)
    standing_out = sum(contrast(a, b) >= 2.5 for a, b in changed) / len(changed)
    assert standing_out >= 0.1, standing_out
    shot = pygame.Surface((640, 640))
    view.draw(shot, state, Marks(highlight=(king,)))
    save_png(shot, f"check_{king}.png")
