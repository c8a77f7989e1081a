"""What every board renderer promises, and the shared drawing helpers."""

from __future__ import annotations

import pygame
import pytest

from client.boards import Marks, common, make_view

GAMES = {
    "hexgomoku": "second;0,0 7,0 -7,7;0,1 0,-7",
    "chess": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "draughts": "W:W31-50,K1:B2-20",
    "shuqi": (
        "first;0;14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8;"
        "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"
    ),
}


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("flipped", [False, True])
def test_draw_stays_inside_its_rect(game: str, flipped: bool) -> None:
    """A renderer paints only inside the rectangle it was laid out in, marks included."""
    view = make_view(game)
    rect = pygame.Rect(60, 40, 420, 380)
    view.layout(rect, flipped)
    pts = list(view.points())
    surface = pygame.Surface((600, 500))
    surface.fill((1, 2, 3))
    marks = Marks(
        selected=pts[0],
        targets=frozenset(pts[1:4]),
        last_move=(pts[-1], pts[-2]),
        highlight=(pts[0], pts[-1], pts[len(pts) // 2]),
        extra={"coordinates": True, "numbers": True, "hover": pts[5]},
    )
    view.draw(surface, GAMES[game], marks)
    for x in range(0, 600, 3):
        for y in range(0, 500, 3):
            if not rect.collidepoint(x, y):
                assert surface.get_at((x, y))[:3] == (1, 2, 3), (x, y)
    assert surface.get_at(view.pixel_of(pts[0]))[:3] != (1, 2, 3)


@pytest.mark.parametrize("game", list(GAMES))
def test_float_pixels_hit_like_int_pixels(game: str) -> None:
    """Scaled mouse positions may be floats: they hit the same points."""
    view = make_view(game)
    view.layout(pygame.Rect(10, 10, 500, 420), flipped=True)
    for p in view.points():
        x, y = view.pixel_of(p)
        assert view.point_at((x + 0.25, y - 0.25)) == p  # type: ignore[arg-type]


@pytest.mark.parametrize("game", list(GAMES))
def test_tiny_and_odd_rects_do_not_break_geometry(game: str) -> None:
    """Even a very small rect keeps every point distinct and inside it."""
    view = make_view(game)
    rect = pygame.Rect(5, 9, 181, 97)
    view.layout(rect)
    pixels = [view.pixel_of(p) for p in view.points()]
    assert all(rect.collidepoint(p) for p in pixels)
    assert len(set(pixels)) == len(pixels)
    view.draw(pygame.Surface((200, 120)), GAMES[game], Marks())


@pytest.mark.parametrize("game", list(GAMES))
def test_no_state_draws_the_empty_board(game: str) -> None:
    """Before a game exists (state None) the board is drawn without pieces."""
    view = make_view(game)
    view.layout(pygame.Rect(0, 0, 300, 300))
    empty, full = pygame.Surface((300, 300)), pygame.Surface((300, 300))
    view.draw(empty, None, Marks())
    view.draw(full, GAMES[game], Marks())
    assert pygame.image.tobytes(empty, "RGB") != pygame.image.tobytes(full, "RGB")
    assert common.position_string(game, None) is None


def test_position_string_accepts_strings_and_engine_states() -> None:
    """A string passes through; an engine state is asked for its position."""
    assert (
        common.position_string("chess", "8/8/8/8/8/8/8/8 w - - 0 1") == "8/8/8/8/8/8/8/8 w - - 0 1"
    )
    registry = pytest.importorskip("engines.registry")
    engine = registry.get("hexgomoku")
    state = engine.play(engine.start(), "0,0")
    assert common.position_string("hexgomoku", state) == engine.position(state)


def test_nearest_respects_the_tolerance() -> None:
    """The nearest centre wins, and nothing beyond the tolerance is hit."""
    centres = [("a", (0.0, 0.0)), ("b", (10.0, 0.0))]
    assert common.nearest((4, 0), centres, 5) == "a"
    assert common.nearest((6, 1), centres, 5) == "b"
    assert common.nearest((5, 6), centres, 5) is None
    assert common.nearest((0, 0), [], 5) is None


def test_lerp_and_sprites() -> None:
    """Colours mix and clamp; stones are opaque discs with transparent corners."""
    assert common.lerp((0, 0, 0), (200, 100, 50), 0.5) == (100, 50, 25)
    assert common.lerp((0, 0, 0), (200, 100, 50), 2) == (200, 100, 50)
    for black in (True, False):
        stone = common.stone_sprite(20, black)
        w, h = stone.get_size()
        assert stone.get_at((w // 2, h // 2)).a >= 250
        assert stone.get_at((0, 0)).a == 0
        assert (max(stone.get_at((w // 2, h // 2 + 10))[:3]) < 100) == black
    token = common.token_sprite(16, (200, 0, 0), (255, 90, 90), (90, 0, 0), "7")
    assert token.get_at((token.get_width() // 2, token.get_height() // 2)).a >= 250
