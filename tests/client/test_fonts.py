"""Fonts: the bundled font for Latin, a system CJK font when one exists, graceful without."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client.ui import fonts


@pytest.fixture
def no_cjk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pretend the system has no CJK font."""
    monkeypatch.setattr(fonts, "cjk_font_path", lambda: None)
    fonts.render.cache_clear()
    fonts.render_px.cache_clear()
    yield
    fonts.render.cache_clear()
    fonts.render_px.cache_clear()


def test_cjk_detection() -> None:
    """Only characters the default font lacks need the CJK font."""
    assert fonts.needs_cjk("国际数棋") and not fonts.needs_cjk("Number chess · 5+3")


def test_without_a_cjk_font_labels_fall_back(no_cjk: None) -> None:
    """No CJK font: labels keep the Latin part, and CJK text still renders (never raises)."""
    assert not fonts.has_cjk()
    assert fonts.label("Number chess", "国际数棋") == "Number chess"
    assert fonts.render("国际数棋", 16, (255, 255, 255)).get_width() > 0


def test_with_the_found_cjk_font_labels_show_both() -> None:
    """When a CJK font is installed, it is used for CJK text (skipped on machines without)."""
    if fonts.cjk_font_path() is None:
        pytest.skip("no CJK font on this machine")
    assert fonts.label("Number chess", "国际数棋").endswith("国际数棋")
    assert fonts.text_width("国际数棋", 16) > 40


def test_fit_and_wrap() -> None:
    """Long text is cut with an ellipsis or wrapped within the width."""
    cut = fonts.fit("a very long line of text that cannot fit", 16, 100)
    assert cut.endswith("…") and fonts.text_width(cut, 16) <= 100
    lines = fonts.wrap("one two three four five six seven eight nine ten", 16, 120)
    assert len(lines) > 1 and all(fonts.text_width(line, 16) <= 120 for line in lines)


def test_text_with_a_nul_character_is_drawn_not_refused() -> None:
    """SDL_ttf refuses NUL; a room code or name with one (a fuzzed or hostile message) is
    drawn with a replacement character instead of crashing the frame."""
    for px in (14, 60):  # supersampled and exact
        image = fonts.render("Room þ\x00&", px, (255, 255, 255))
        assert image.get_width() > 0
        assert fonts.measure("a\x00b", px) == fonts.measure("a\ufffdb", px)


def test_bold_cjk_is_heavier_but_not_a_blot() -> None:
    """Bold CJK text (names in titles) has more ink than regular, and no more than 1.5 times:
    SDL_ttf's own bold of the same name filled dense ideographs (1.65-1.8 times the ink at
    these sizes). It is drawn as wide as :func:`fonts.measure` says, supersampled or not."""
    import pygame

    if fonts.cjk_font_path() is None:
        pytest.skip("no CJK font on this machine")
    name = "欧阳娜娜"
    for size in (16, 20, 30, 60):
        regular = fonts.render(name, size, (255, 255, 255))
        bold = fonts.render(name, size, (255, 255, 255), bold=True)
        assert bold.get_size() == fonts.measure(name, size, bold=True)
        ink = pygame.mask.from_surface(regular, 127).count()
        bold_ink = pygame.mask.from_surface(bold, 127).count()
        assert 1.15 * ink < bold_ink <= 1.5 * ink, (size, ink, bold_ink)
