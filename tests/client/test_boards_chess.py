"""The chess renderer: square geometry, FEN reading, and real drawing onto offscreen surfaces."""

from __future__ import annotations

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards.chess import (
    DARK_SQUARE,
    LIGHT_SQUARE,
    ChessView,
    parse_fen_board,
    piece_sprite,
)
from tests.client.board_tools import SavePng

RECTS = [pygame.Rect(0, 0, 500, 500), pygame.Rect(30, 12, 900, 760), pygame.Rect(3, 7, 333, 517)]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"


def new_view() -> ChessView:
    """A fresh renderer through the public factory."""
    view = make_view("chess")
    assert isinstance(view, ChessView)
    return view


def colour(surface: pygame.Surface, view: ChessView, square: str) -> tuple[int, int, int]:
    c = surface.get_at(view.pixel_of(square))
    return c.r, c.g, c.b


def is_white_piece(c: tuple[int, int, int]) -> bool:
    return min(c) > 185 and abs(c[0] - c[2]) < 40


def is_black_piece(c: tuple[int, int, int]) -> bool:
    return max(c) < 90


@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_round_trip_every_square(rect: pygame.Rect, flipped: bool) -> None:
    """point_at(pixel_of(s)) == s for all 64 squares, and near-edge clicks stay on the square."""
    view = new_view()
    view.layout(rect, flipped)
    squares = list(view.points())
    assert len(set(squares)) == 64
    for sq in squares:
        x, y = view.pixel_of(sq)
        assert rect.collidepoint(x, y)
        assert view.point_at((x, y)) == sq
        half = view.square // 2 - 1
        for dx, dy in ((half, 0), (-half, 0), (0, half), (0, -half)):
            assert view.point_at((x + dx, y + dy)) == sq


def test_orientation_and_flip() -> None:
    """White's a1 is bottom left; flipped it is top right."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 800, 800))
    assert view.pixel_of("a1") == (50, 750)
    assert view.pixel_of("h8") == (750, 50)
    view.layout(pygame.Rect(0, 0, 800, 800), flipped=True)
    assert view.pixel_of("a1") == (750, 50)
    assert view.pixel_of("e2") == (350, 150)


def test_misses_and_bad_squares() -> None:
    """Pixels outside the 8 x 8 area hit nothing; bad square names are refused."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 900, 700))  # board 696 wide, centred
    assert view.point_at((10, 350)) is None
    assert view.point_at((890, 350)) is None
    assert view.point_at((450, -3)) is None
    assert view.point_at((-1000, 1000)) is None
    for bad in ("i1", "a9", "e", "", "e44"):
        with pytest.raises(ValueError, match="chess square"):
            view.pixel_of(bad)


def test_fen_reading() -> None:
    """The placement field is read square by square; broken FENs are refused."""
    pieces = parse_fen_board(START)
    assert len(pieces) == 32 and pieces["e1"] == "K" and pieces["d8"] == "q" and "e4" not in pieces
    for bad in ("", "8/8/8", "9/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/ppppXppp/8/8/8/8/8/8 w"):
        with pytest.raises(ValueError, match="FEN"):
            parse_fen_board(bad)


@pytest.mark.parametrize("size", [500, 900])
def test_render_opening_mid_game_and_mate(save_png: SavePng, size: int) -> None:
    """Pieces are drawn where the FEN has them, in both colours; marks show."""
    view = new_view()
    rect = pygame.Rect(0, 0, size, size)
    view.layout(rect)
    surface = pygame.Surface(rect.size)

    view.draw(surface, START, Marks())
    save_png(surface, f"chess-opening-{size}.png")
    for sq in ("a1", "e1", "d1", "g1", "c1", "h2", "e2"):
        assert is_white_piece(colour(surface, view, sq)), sq
    for sq in ("a8", "e8", "d8", "g8", "c8", "h7"):
        assert is_black_piece(colour(surface, view, sq)), sq
    assert colour(surface, view, "e4") == LIGHT_SQUARE
    assert colour(surface, view, "d4") == DARK_SQUARE

    marks = Marks(
        selected="f3",
        targets=frozenset({"e5", "g5", "h4", "d4", "g1"}),
        last_move=("f8", "c5"),
        extra={"coordinates": True, "hover": "g5"},
    )
    view.draw(surface, ITALIAN, marks)
    save_png(surface, f"chess-midgame-{size}.png")
    assert is_black_piece(colour(surface, view, "c5"))
    assert is_white_piece(colour(surface, view, "c4"))
    r, g, b = colour(surface, view, "f8")  # empty last-move square: tinted, not plain
    assert (r, g, b) not in (LIGHT_SQUARE, DARK_SQUARE) and g > b + 40
    r, g, b = colour(surface, view, "g5")  # target dot
    assert max(r, g, b) < 160
    x, y = view.pixel_of("e5")  # capture ring at the square's edge
    ring_px = surface.get_at((x, y - view.square // 2 + 3))[:3]
    assert ring_px != LIGHT_SQUARE and ring_px != DARK_SQUARE

    view.layout(rect, flipped=True)
    view.draw(surface, MATE, Marks(last_move=("d8", "h4"), highlight=("e1",)))
    save_png(surface, f"chess-mate-flipped-{size}.png")
    x, y = view.pixel_of("e1")
    r, g, b, _ = surface.get_at((x - view.square // 2 + 2, y - view.square // 2 + 2))
    assert r > g + 40  # red glow in the checked king's square corner
    assert is_white_piece(colour(surface, view, "e1"))
    assert is_black_piece(colour(surface, view, "h4"))
    assert view.pixel_of("h4")[0] < size // 2


def test_coordinates_toggle_and_drag(save_png: SavePng) -> None:
    """Coordinates are drawn only when asked; a dragged piece leaves its square."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 480, 480))
    with_coords = pygame.Surface((480, 480))
    without = pygame.Surface((480, 480))
    view.draw(with_coords, START, Marks(extra={"coordinates": True}))
    view.draw(without, START, Marks(extra={"coordinates": False}))
    a3 = view.square_rect("a3")
    corner = pygame.Rect(a3.x, a3.y, a3.w // 3, a3.h // 3)
    assert any(
        with_coords.get_at((x, y)) != without.get_at((x, y))
        for x in range(corner.left, corner.right)
        for y in range(corner.top, corner.bottom)
    )
    view.draw(without, START, Marks(extra={"coordinates": False, "drag": ("e2", (240, 240))}))
    save_png(without, "chess-drag-480.png")
    assert colour(without, view, "e2") == LIGHT_SQUARE
    c = without.get_at((240, 240))
    assert is_white_piece((c.r, c.g, c.b))


def test_every_piece_sprite_is_drawn() -> None:
    """All twelve sprites have opaque pixels, and white differs from black."""
    for letter in "KQRBNPkqrbnp":
        sprite = piece_sprite(letter, 64)
        c = sprite.get_at((32, 50))
        assert c.a > 200, letter
        assert (min(c[:3]) > 150) == letter.isupper(), letter


def test_engine_state_draws_like_its_fen(save_png: SavePng) -> None:
    """A real chess engine state renders the same pixels as its FEN."""
    engines = pytest.importorskip("engines.registry")
    engine = engines.get("chess")
    state = engine.play(engine.play(engine.start(), "e2e4"), "c7c5")
    view = new_view()
    view.layout(pygame.Rect(0, 0, 400, 400))
    a, b = pygame.Surface((400, 400)), pygame.Surface((400, 400))
    view.draw(a, state, Marks())
    view.draw(b, engine.position(state), Marks())
    assert pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")
    assert is_white_piece(colour(a, view, "e4")) and is_black_piece(colour(a, view, "c5"))
