"""Fonts: pygame's bundled default font for Latin text, a system CJK font when one exists.

Rendering is cached per (text, size, colour, bold), so drawing the same label every frame is cheap.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import pygame

CJK_FONT_CANDIDATES: tuple[str, ...] = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Light.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
)
CJK_FAMILIES: tuple[str, ...] = (
    "notosanscjksc", "notosanscjktc", "notosanscjkjp", "notosanscjk", "notoserifcjksc",
    "sourcehansanssc", "sourcehansans", "wenquanyimicrohei", "wenquanyizenhei", "wqymicrohei",
    "droidsansfallback", "arplumingcn", "arplukaicn", "microsoftyahei", "simhei", "simsun",
    "pingfangsc", "heitisc", "hiraginosansgb",
)
"""Font families asked of the system, in order, when no known file exists."""


def _ensure_init() -> None:
    if not pygame.font.get_init():
        pygame.font.init()


@lru_cache(maxsize=1)
def cjk_font_path() -> str | None:
    """Path of a font that really draws Chinese, found at run time, or ``None`` when none does.

    ``BOARDHALL_CJK_FONT`` names one to use; else known files, then the system's font families.
    """
    override = os.environ.get("BOARDHALL_CJK_FONT")
    if override and os.path.exists(override):
        return override
    for path in CJK_FONT_CANDIDATES:
        if os.path.exists(path) and draws_cjk(path):
            return path
    _ensure_init()
    for family in CJK_FAMILIES:
        try:
            found = pygame.font.match_font(family)
        except Exception:  # the system font scan may fail on odd setups; no CJK then
            continue
        if found and draws_cjk(found):
            return str(found)
    return None


def draws_cjk(path: str) -> bool:
    """Whether the font at ``path`` has real glyphs for CJK (not the 'missing' box)."""
    _ensure_init()
    try:
        f = pygame.font.Font(path, 24)
        known = pygame.image.tobytes(f.render("帅", True, (0, 0, 0)), "RGBA")
        missing = pygame.image.tobytes(f.render("\U0010fffd", True, (0, 0, 0)), "RGBA")
    except (pygame.error, OSError, ValueError):
        return False
    return known != missing


def needs_cjk(text: str) -> bool:
    """True if ``text`` has characters the default font lacks (CJK ideographs, kana, fullwidth)."""
    return any(ord(ch) >= 0x2E80 for ch in text)


def has_cjk() -> bool:
    """True when a CJK font was found."""
    return cjk_font_path() is not None


MIN_SIZE = 15
"""Smallest text size on the logical surface: still readable when a 900x600 window scales it."""

MIN_WINDOW_PX = 13
"""Text drawn at the window's scale is never smaller than this many pixels."""

CJK_SCALE = 0.6875
"""The CJK font is opened at this fraction of the asked size: pygame draws its bundled Latin font
at 0.6875 of the size it is given, so a CJK font at the full size shows almost twice as tall as
the Latin text beside it (and overflows lines spaced for Latin text)."""

_display_scale = 1.0
"""The window's scale while text is laid out to be drawn at it (see :func:`displayed_at`)."""


def display_px(size: int, scale: float, min_px: int = MIN_WINDOW_PX) -> int:
    """The pixel size text of logical ``size`` is drawn at in a window of ``scale``."""
    return max(min_px, round(max(size, MIN_SIZE) * scale))


@contextmanager
def displayed_at(scale: float) -> Iterator[None]:
    """While active, :func:`text_width`, :func:`fit` and :func:`wrap` measure text as it shows
    in a window of ``scale`` (in logical pixels): small windows keep text readable, so it takes
    relatively more room there, and lines laid out at the logical size would overflow."""
    global _display_scale
    previous, _display_scale = _display_scale, scale
    try:
        yield
    finally:
        _display_scale = previous


def display_scale() -> float:
    """The scale text is being laid out for (1.0 outside :func:`displayed_at`)."""
    return _display_scale


def displayed_size(text: str, size: int, bold: bool = False) -> tuple[int, int]:
    """Width and height of ``text`` of logical ``size`` as it shows at the current display
    scale, in logical pixels."""
    scale = _display_scale
    if scale == 1.0:
        return measure(text, max(size, MIN_SIZE), bold)
    w, h = measure(text, display_px(size, scale), bold)
    return math.ceil(w / scale), math.ceil(h / scale)


def line_step(size: int, gap: int = 4) -> int:
    """Distance between the tops of wrapped lines of ``size``: ``size + gap`` at the logical
    size, more when a small window draws the text relatively larger."""
    scale = _display_scale
    if scale == 1.0:
        return size + gap
    px = display_px(size, scale)
    sample = "Ag国" if has_cjk() else "Ag"  # CJK lines are the tallest
    return max(size + gap, math.ceil((measure(sample, px)[1] + 3) / scale))


def font(size: int, bold: bool = False, cjk: bool = False) -> pygame.font.Font:
    """A font for logical ``size`` (at least :data:`MIN_SIZE`): the bundled default, or the CJK
    font when asked and present."""
    return exact_font(max(size, MIN_SIZE), bold, cjk)


@lru_cache(maxsize=96)
def exact_font(px: int, bold: bool = False, cjk: bool = False) -> pygame.font.Font:
    """A font of exactly ``px`` pixels (used when text is drawn at the window's scale). The
    bundled Latin font is bold already; bold CJK text is drawn wider (:func:`cjk_stroke`), so
    ``bold`` changes nothing here."""
    _ensure_init()
    path = cjk_font_path() if cjk else None
    return pygame.font.Font(path, max(1, round(px * CJK_SCALE) if path is not None else px))


def cjk_stroke(px: int) -> int:
    """How many pixels bold CJK text at ``px`` is widened by: it is drawn that many times more,
    a pixel further right each time. SDL_ttf's own bold smears dense ideographs (娜, 橋) into
    blots at every size, as the CJK fonts on these systems have no bold face of their own."""
    return max(1, round(px / 45))


def can_show(text: str) -> bool:
    """Whether ``text`` can be drawn: it needs no CJK font, or one is installed."""
    return not needs_cjk(text) or has_cjk()


def label(latin: str, cjk: str | None = None) -> str:
    """``"Latin (中文)"`` when a CJK font exists, else just the Latin text."""
    if cjk and has_cjk():
        return f"{latin}  {cjk}"
    return latin


SUPERSAMPLE_BELOW = 48
"""Text smaller than this is rendered three times larger and scaled down: the bundled font's
hinting spaces small letters unevenly, and the scaled-down text reads better."""


def _drawable(text: str) -> str:
    """``text`` with NUL characters (which SDL_ttf refuses) shown as U+FFFD."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def measure(text: str, px: int, bold: bool = False) -> tuple[int, int]:
    """Size of ``text`` drawn at exactly ``px`` pixels, as :func:`render_px` draws it."""
    text = _drawable(text)
    cjk = needs_cjk(text) and has_cjk()
    if px >= SUPERSAMPLE_BELOW or not text:
        return _exact_size(text, px, bold, cjk)
    w, h = _exact_size(text, px * 3, bold, cjk)
    return max(1, -(-w // 3)), max(1, round(h / 3))


def _exact_size(text: str, px: int, bold: bool, cjk: bool) -> tuple[int, int]:
    w, h = exact_font(px, cjk=cjk).size(text)
    return (w + cjk_stroke(px), h) if bold and cjk and text else (w, h)


def _render_exact(
    text: str, px: int, color: tuple[int, int, int], bold: bool, cjk: bool
) -> pygame.Surface:
    drawn = exact_font(px, cjk=cjk).render(text, True, color)
    if not (bold and cjk and text):
        return drawn
    stroke = cjk_stroke(px)
    wide = pygame.Surface((drawn.get_width() + stroke, drawn.get_height()), pygame.SRCALPHA)
    for dx in range(stroke + 1):
        wide.blit(drawn, (dx, 0))
    return wide


def _render(text: str, px: int, color: tuple[int, int, int], bold: bool) -> pygame.Surface:
    text = _drawable(text)
    cjk = needs_cjk(text) and has_cjk()
    if px >= SUPERSAMPLE_BELOW or not text:
        return _render_exact(text, px, color, bold, cjk)
    big = _render_exact(text, px * 3, color, bold, cjk)
    return pygame.transform.smoothscale(big, measure(text, px, bold))


@lru_cache(maxsize=2048)
def render(
    text: str, size: int, color: tuple[int, int, int], bold: bool = False
) -> pygame.Surface:
    """Render one line of text (cached); CJK text uses the CJK font when there is one."""
    return _render(text, max(size, MIN_SIZE), color, bold)


@lru_cache(maxsize=2048)
def render_px(
    text: str, px: int, color: tuple[int, int, int], bold: bool = False
) -> pygame.Surface:
    """Render one line at exactly ``px`` pixels (cached)."""
    return _render(text, px, color, bold)


def text_width(text: str, size: int, bold: bool = False) -> int:
    """Width in logical pixels of ``text`` rendered at ``size`` (as it shows at the current
    display scale, see :func:`displayed_at`)."""
    return displayed_size(text, size, bold)[0]


def fit(text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so it fits in ``width`` pixels."""
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


def fit_keeping(head: str, tail: str, size: int, width: int, bold: bool = False) -> str:
    """``head + tail`` fitted into ``width`` by cutting ``head`` only: a long name is cut, never
    the words after it that say what happened (``" won"``, ``" (you)"``, ``" offers a draw."``)."""
    room = width - text_width(tail, size, bold)
    if room < text_width("…", size, bold) * 3:
        return fit(head + tail, size, width, bold)
    return fit(head, size, room, bold) + tail


def wrap(text: str, size: int, width: int) -> list[str]:
    """Split ``text`` into lines no wider than ``width``. A word longer than a line (a link, a
    run of CJK characters without spaces) is cut, starting on the line it follows, so a short
    word before it (``Bob:``) does not stand on a line of its own."""
    lines: list[str] = []
    for para in text.split("\n"):
        current = ""
        for word in para.split(" "):
            trial = f"{current} {word}" if current else word
            if text_width(trial, size) <= width:
                current = trial
                continue
            if text_width(word, size) <= width or len(word) <= 1:
                if current:
                    lines.append(current)
                current = word
                continue
            prefix = f"{current} " if current else ""
            while word:
                cut = _longest_fit(prefix, word, size, width)
                if cut == 0:
                    if prefix:  # not even one character fits after the line's words
                        lines.append(prefix.rstrip())
                        prefix = ""
                        continue
                    cut = 1
                if cut == len(word):
                    break
                lines.append(prefix + word[:cut])
                prefix, word = "", word[cut:]
            current = prefix + word
        lines.append(current)
    return lines


def _longest_fit(prefix: str, word: str, size: int, width: int) -> int:
    """How many leading characters of ``word`` fit after ``prefix`` within ``width``."""
    lo, hi = 0, len(word)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(prefix + word[:mid], size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return lo
