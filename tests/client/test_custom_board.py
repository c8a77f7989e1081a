"""The custom-variant renderer: pure square geometry and real drawing onto offscreen surfaces."""

from __future__ import annotations

import pygame
import pytest

from client.boards import Marks, make_view
from client.boards import custom as board
from client.boards.custom import CustomView, display_name
from client.ui import fonts
from engines.custom import ENGINE
from tests.client.board_tools import CUSTOM_RECTS, SavePng, is_wood, rgb


def view_of(
    variant: str, rect: pygame.Rect = CUSTOM_RECTS[0], flipped: bool = False
) -> CustomView:
    view = make_view("custom", variant, ENGINE.variant_info(variant))
    assert isinstance(view, CustomView)
    view.layout(rect, flipped)
    return view


def is_red(c: tuple[int, int, int]) -> bool:
    return c[0] > 120 and c[0] - max(c[1], c[2]) > 60


def is_blue(c: tuple[int, int, int]) -> bool:
    return c[2] > 110 and c[2] - c[0] > 60


def is_grey(c: tuple[int, int, int]) -> bool:
    return max(c) - min(c) < 24 and 60 < c[0] < 170


@pytest.mark.parametrize("variant", ["xiangqi", "stones", "guards"])
@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("rect", CUSTOM_RECTS)
def test_pixel_square_round_trip(variant: str, flipped: bool, rect: pygame.Rect) -> None:
    """point_at(pixel_of(p)) == p for every square, also for float pixels; all inside the rect."""
    view = view_of(variant, rect, flipped)
    points = list(view.points())
    info = ENGINE.variant_info(variant)
    assert len(points) == info["board"]["rows"] * info["board"]["cols"]
    pixels = [view.pixel_of(p) for p in points]
    assert len(set(pixels)) == len(points)
    for p, (x, y) in zip(points, pixels, strict=True):
        assert rect.collidepoint(x, y)
        assert view.point_at((x, y)) == p
        assert view.point_at((x + 0.3, y - 0.3)) == p  # type: ignore[arg-type]


def test_orientation_and_outside() -> None:
    """Row 1 is at the top (red at the bottom), at the bottom when flipped; margins hit nothing."""
    view = view_of("xiangqi")
    assert view.pixel_of("1,1")[1] < view.pixel_of("10,1")[1]
    assert view.pixel_of("1,1")[0] < view.pixel_of("1,9")[0]
    flipped = view_of("xiangqi", flipped=True)
    assert flipped.pixel_of("1,1")[1] > flipped.pixel_of("10,1")[1]
    assert flipped.pixel_of("1,1")[0] > flipped.pixel_of("1,9")[0]
    assert view.point_at((1, 1)) is None and view.point_at((599, 659)) is None
    with pytest.raises(ValueError):
        view.pixel_of("11,1")


def test_render_xiangqi_to_png(save_png: SavePng) -> None:
    """Pieces show their side colour on the rim, empty squares are wood, hints point their way."""
    view = view_of("xiangqi")
    state = ENGINE.play(ENGINE.start("xiangqi"), "7,3-6,3")
    surface = pygame.Surface((600, 660))
    view.draw(
        surface,
        state,
        Marks(
            selected="8,2",
            targets=frozenset({"8,3", "1,2"}),
            last_move=("7,3", "6,3"),
            extra={"coordinates": True},
        ),
    )
    path = save_png(surface, "custom.png")
    assert path.stat().st_size > 10_000
    loaded = pygame.image.load(str(path))
    r = view.piece_radius()
    for square, check in (("10,5", is_red), ("1,5", is_blue), ("6,3", is_red), ("4,1", is_blue)):
        x, y = view.pixel_of(square)
        assert check(rgb(loaded, x - r * 0.95, y)), square
    x, y = view.pixel_of("5,5")  # Xiangqi's pieces sit on crossing lines: look beside them
    above = y - view.cell * 0.2
    assert is_wood(rgb(loaded, x + r * 0.3, above)) and is_wood(rgb(loaded, x + r * 0.95, above))
    # Red chariot at 10,1 slides up and right: arrowheads near the cell edge; nothing to the left.
    x, y = view.pixel_of("10,1")
    assert is_red(rgb(loaded, x, y - view.cell * 0.45))
    assert is_red(rgb(loaded, x + view.cell * 0.45, y))
    assert is_wood(rgb(loaded, x - view.cell * 0.45, y))
    # The unpromoted face is light, inside the rim.
    x, y = view.pixel_of("10,1")
    face = rgb(loaded, x, y + r * 0.62)
    assert min(face) > 190


def test_neutral_promoted_and_captain_pieces(save_png: SavePng) -> None:
    """Neutral stones are grey; a promoted piece has a face in its side colour; captains gold."""
    view = view_of("stones", pygame.Rect(0, 0, 420, 420))
    position = (
        "stones;first;0,0;4,.,5*,2,.,.,4/.,6,.,6,6,6,./.,.,.,.,.,.,./9,.,.,9,.,.,9/"
        ".,.,.,.,.,.,./.,5,5,.,5,6*,./3,.,7,1,7,.,3"
    )
    surface = pygame.Surface((420, 420))
    view.draw(surface, position, Marks(highlight=("1,4",)))
    save_png(surface, "custom-stones.png")
    r = view.piece_radius()
    x, y = view.pixel_of("4,4")
    assert is_grey(rgb(surface, x - r * 0.95, y))
    x, y = view.pixel_of("1,3")  # red soldier promoted to a knight
    assert is_red(rgb(surface, x, y + r * 0.62))
    x, y = view.pixel_of("6,6")  # blue soldier promoted
    assert is_blue(rgb(surface, x, y + r * 0.62))
    x, y = view.pixel_of("7,4")  # red king: gold ring just inside the rim
    ring = [rgb(surface, x - r * f, y) for f in (0.72, 0.76, 0.8, 0.84)]
    assert any(c[0] > 180 and c[1] > 120 and c[2] < 100 for c in ring)


def test_none_state_draws_the_board_without_pieces() -> None:
    """Before a game exists the grid is drawn, with no pieces."""
    view = view_of("xiangqi")
    surface = pygame.Surface((600, 660))
    view.draw(surface, None, Marks())
    x, y = view.pixel_of("10,5")
    assert is_wood(rgb(surface, x - view.piece_radius() * 0.95, y - view.cell * 0.2))


def test_draw_stays_inside_its_rect() -> None:
    """Nothing is painted outside the layout rectangle, marks and coordinates included."""
    rect = pygame.Rect(60, 40, 420, 380)
    view = view_of("guards", rect, flipped=True)
    surface = pygame.Surface((600, 500))
    surface.fill((1, 2, 3))
    pts = list(view.points())
    marks = Marks(
        selected=pts[0],
        targets=frozenset(pts[1:4]),
        last_move=(pts[-1], pts[-2]),
        highlight=(pts[0], "99,99", "junk"),
        extra={"coordinates": True, "hover": pts[5]},
    )
    view.draw(surface, ENGINE.start("guards"), marks)
    for x in range(0, 600, 3):
        for y in range(0, 500, 3):
            if not rect.collidepoint(x, y):
                assert surface.get_at((x, y))[:3] == (1, 2, 3), (x, y)


def test_without_variant_info_uses_the_local_engine() -> None:
    """make_view('custom') alone draws the default variant (for previews and contract tests)."""
    view = make_view("custom")
    assert isinstance(view, CustomView)
    assert (view.rows, view.cols) == (10, 9)
    view = make_view("custom", "stones")
    assert isinstance(view, CustomView) and (view.rows, view.cols) == (7, 7)
    view = make_view("custom", "no-such-variant")
    assert isinstance(view, CustomView) and (view.rows, view.cols) == (10, 9)


def test_latin_labels_without_a_cjk_font(
    monkeypatch: pytest.MonkeyPatch, save_png: SavePng
) -> None:
    """No CJK font: pieces show their short Latin label; drawing still works."""
    horse = ENGINE.variant_info("xiangqi")["pieces"][10]
    assert display_name(horse, False, cjk_font=True) == "傌"
    assert display_name(horse, False, cjk_font=False) == "H"
    assert display_name({"name": "马", "id": 7}, False, cjk_font=False) == "#7"
    assert display_name({"name": "兵", "promoted_name": "骑", "label": "P"}, True, True) == "骑"
    monkeypatch.setattr(board, "cjk_font_path", lambda: None)
    board._font.cache_clear()
    board._piece_sprite.cache_clear()
    try:
        view = view_of("xiangqi")
        surface = pygame.Surface((600, 660))
        view.draw(surface, ENGINE.start("xiangqi"), Marks())
        save_png(surface, "custom-latin.png")
        x, y = view.pixel_of("10,5")
        assert is_red(rgb(surface, x - view.piece_radius() * 0.95, y))
    finally:
        board._font.cache_clear()
        board._piece_sprite.cache_clear()


def test_cjk_font_is_found_when_installed() -> None:
    """With a CJK font installed (CI installs one) the name glyphs are real, not boxes."""
    path = board.cjk_font_path()
    if path is None:
        pytest.skip("no CJK font installed here")
    assert fonts.draws_cjk(path)
    assert not fonts.draws_cjk(__file__), "a file that is no font draws nothing"


def test_hints_follow_conditions_on_the_current_square() -> None:
    """The red elephant may slide up only from rows 10 and 8: its up arrows show there only."""
    view = view_of("xiangqi")
    base = [".,.,.,.,.,.,.,.,."] * 10
    rows = list(base)
    rows[0] = ".,.,.,2,.,.,.,.,."
    rows[9] = ".,.,5,.,1,.,.,.,."
    rows[5] = ".,.,.,.,5,.,.,.,."
    position = "xiangqi;first;0,0;" + "/".join(rows)
    surface = pygame.Surface((600, 660))
    view.draw(surface, position, Marks())
    d = view.cell * 0.36  # inside the diagonal arrowheads, in the cell's corners
    x, y = view.pixel_of("10,3")  # row 10: up-left and up-right active, down off the board
    assert is_red(rgb(surface, x - d, y - d)) and is_red(rgb(surface, x + d, y - d))
    x, y = view.pixel_of("6,5")  # row 6 (the river bank): only down-left and down-right
    assert is_wood(rgb(surface, x - d, y - d)) and is_wood(rgb(surface, x + d, y - d))
    assert is_red(rgb(surface, x - d, y + d)) and is_red(rgb(surface, x + d, y + d))
