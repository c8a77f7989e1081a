"""The draughts renderer: PDN square geometry on 10 x 10 and 8 x 8, and real drawing."""

from __future__ import annotations

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards.draughts import DARK_SQUARE, LIGHT_SQUARE, DraughtsView, parse_position
from tests.client.board_tools import SavePng

RECTS = [pygame.Rect(0, 0, 500, 500), pygame.Rect(25, 40, 900, 820), pygame.Rect(3, 3, 317, 611)]
VARIANTS = [None, "international", "brazilian", "russian"]


def new_view(variant: str | None = None) -> DraughtsView:
    """A fresh renderer through the public factory."""
    view = make_view("draughts", variant)
    assert isinstance(view, DraughtsView)
    return view


def probe(surface: pygame.Surface, view: DraughtsView, square: str) -> tuple[int, int, int]:
    """Colour a little below the square's centre (clear of the crown and the numbers)."""
    x, y = view.pixel_of(square)
    c = surface.get_at((x, y + view.square // 5))
    return c.r, c.g, c.b


def is_white(c: tuple[int, int, int]) -> bool:
    return min(c) > 170 and c[0] - c[2] < 45


def is_black(c: tuple[int, int, int]) -> bool:
    return max(c) < 80


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", RECTS, ids=lambda r: f"{r.w}x{r.h}")
def test_round_trip_every_square(rect: pygame.Rect, flipped: bool, variant: str | None) -> None:
    """point_at(pixel_of(n)) == n for every dark square; clicks near the edge still hit it."""
    view = new_view(variant)
    view.layout(rect, flipped)
    squares = list(view.points())
    assert squares == [str(n) for n in range(1, view.count + 1)]
    assert view.count == (50 if variant in (None, "international") else 32)
    half = view.square // 2 - 1
    for sq in squares:
        x, y = view.pixel_of(sq)
        assert rect.collidepoint(x, y)
        for dx, dy in ((0, 0), (half, half), (-half, -half), (half, -half)):
            assert view.point_at((x + dx, y + dy)) == sq
        # the light squares beside it are no points
        assert view.point_at((x + view.square, y)) is None


def test_pdn_numbering() -> None:
    """Square 1 is the second square of the top row, 46/29 the bottom-left corner (White's view)."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 1000, 1000))
    assert view.pixel_of("1") == (150, 50)
    assert view.pixel_of("5") == (950, 50)
    assert view.pixel_of("6") == (50, 150)
    assert view.pixel_of("46") == (50, 950)
    assert view.pixel_of("50") == (850, 950)
    view.layout(pygame.Rect(0, 0, 1000, 1000), flipped=True)
    assert view.pixel_of("46") == (950, 50)
    assert view.pixel_of("1") == (850, 950)
    small = new_view("russian")
    small.layout(pygame.Rect(0, 0, 800, 800))
    assert small.pixel_of("1") == (150, 50)
    assert small.pixel_of("29") == (50, 750)
    assert small.pixel_of("32") == (650, 750)


def test_misses_bad_squares_and_variants() -> None:
    """Outside pixels hit nothing; bad square names and unknown variants are refused."""
    view = new_view()
    view.layout(pygame.Rect(0, 0, 600, 600))
    assert view.point_at((-5, 300)) is None
    assert view.point_at((300, 700)) is None
    assert view.point_at((30, 30)) is None  # the light top-left corner
    for bad in ("0", "51", "a", "", "-3"):
        with pytest.raises(ValueError, match="draughts square"):
            view.pixel_of(bad)
    with pytest.raises(ValueError, match="no variant 'frisian'"):
        new_view("frisian")


def test_pdn_fen_reading() -> None:
    """Ranges, kings and either list order are read; broken strings are refused."""
    pieces = parse_position("B:BK3,12-14:W31,K45", 50)
    assert pieces == {3: "B", 12: "b", 13: "b", 14: "b", 31: "w", 45: "W"}
    assert parse_position("W:W:B", 32) == {}
    for bad in ("", "X:W1", "W:W1-x", "W:W55", "W:Q1"):
        with pytest.raises(ValueError):
            parse_position(bad, 50)


@pytest.mark.parametrize("size", [500, 900])
def test_render_international(save_png: SavePng, size: int) -> None:
    """Men and kings are drawn on their squares; empty squares stay plain; marks show."""
    view = new_view()
    rect = pygame.Rect(0, 0, size, size)
    view.layout(rect)
    surface = pygame.Surface(rect.size)

    view.draw(surface, "W:W31-50:B1-20", Marks())
    save_png(surface, f"draughts-opening-{size}.png")
    for sq in ("1", "20", "16", "5"):
        assert is_black(probe(surface, view, sq)), sq
    for sq in ("31", "46", "50", "35"):
        assert is_white(probe(surface, view, sq)), sq
    for sq in ("21", "30", "25"):
        assert probe(surface, view, sq) == DARK_SQUARE, sq
    x, y = view.pixel_of("1")
    assert surface.get_at((x - view.square, y))[:3] == LIGHT_SQUARE

    mid = "B:W27,28,31-36,38-40,K44:B3-9,12-14,K23"
    marks = Marks(
        selected="14", targets=frozenset({"19", "20"}), last_move=("37", "28"), highlight=("23",)
    )
    view.draw(surface, mid, marks)
    save_png(surface, f"draughts-midgame-{size}.png")
    assert is_black(probe(surface, view, "23")) and is_white(probe(surface, view, "44"))
    kx, ky = view.pixel_of("44")  # the crown: gold at the king's centre
    r, g, b, _ = surface.get_at((kx, ky))
    assert r > 180 and g > 130 and b < 110
    r, g, b = probe(surface, view, "37")  # the empty start of the last move is tinted
    assert (r, g, b) != DARK_SQUARE and g > DARK_SQUARE[1]
    tx, ty = view.pixel_of("19")  # a target dot
    assert max(surface.get_at((tx, ty))[:3]) < 110

    view.layout(rect, flipped=True)
    view.draw(surface, "W:WK10:B", Marks(extra={"numbers": False}, highlight=("10",)))
    save_png(surface, f"draughts-over-flipped-{size}.png")
    assert is_white(probe(surface, view, "10"))
    assert view.pixel_of("10")[1] > size // 2
    assert probe(surface, view, "1") == DARK_SQUARE


def test_render_8x8_with_numbers_toggle(save_png: SavePng) -> None:
    """8 x 8 draws 32 squares; the numbers appear only when asked."""
    view = new_view("brazilian")
    view.layout(pygame.Rect(0, 0, 640, 640))
    a, b = pygame.Surface((640, 640)), pygame.Surface((640, 640))
    view.draw(a, "W:W21-32:B1-12", Marks(extra={"numbers": True}))
    view.draw(b, "W:W21-32:B1-12", Marks(extra={"numbers": False}))
    save_png(a, "draughts-brazilian-640.png")
    assert is_black(probe(a, view, "12")) and is_white(probe(a, view, "21"))
    assert probe(a, view, "16") == DARK_SQUARE
    r = view.square_rect("16")
    corner = [(x, y) for x in range(r.x, r.x + r.w // 3) for y in range(r.y, r.y + r.h // 3)]
    assert any(a.get_at(p) != b.get_at(p) for p in corner)
    assert all(b.get_at(p)[:3] == DARK_SQUARE for p in corner)
    c = pygame.Surface((640, 640))  # the room's coordinates toggle stands in for numbers
    view.draw(c, "W:W21-32:B1-12", Marks(extra={"coordinates": False}))
    assert pygame.image.tobytes(c, "RGB") == pygame.image.tobytes(b, "RGB")


def test_engine_state_draws_like_its_fen() -> None:
    """A real draughts engine state (russian) renders the same pixels as its position string."""
    engines = pytest.importorskip("engines.registry")
    engine = engines.get("draughts")
    state = engine.start("russian")
    state = engine.play(state, engine.legal_moves(state)[0])
    view = new_view("russian")
    view.layout(pygame.Rect(0, 0, 400, 400))
    a, b = pygame.Surface((400, 400)), pygame.Surface((400, 400))
    view.draw(a, state, Marks())
    view.draw(b, engine.position(state), Marks())
    assert pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")
    assert sum(is_white(probe(a, view, str(n))) for n in range(1, 33)) == 12
