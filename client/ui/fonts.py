"""Fonts: pygame's bundled default font for Latin text, a system CJK font when one exists.

Rendering is cached per (text, size, colour, bold), so drawing the same label every frame is cheap.
"""

from __future__ import annotations

import os
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


def font(size: int, bold: bool = False, cjk: bool = False) -> pygame.font.Font:
    """A font for logical ``size`` (at least :data:`MIN_SIZE`): the bundled default, or the CJK
    font when asked and present."""
    return exact_font(max(size, MIN_SIZE), bold, cjk)


@lru_cache(maxsize=96)
def exact_font(px: int, bold: bool = False, cjk: bool = False) -> pygame.font.Font:
    """A font of exactly ``px`` pixels (used when text is drawn at the window's scale)."""
    _ensure_init()
    path = cjk_font_path() if cjk else None
    f = pygame.font.Font(path, max(1, px))
    f.set_bold(bold and path is not None)
    return f


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
        return exact_font(px, bold, cjk).size(text)
    w, h = exact_font(px * 3, bold, cjk).size(text)
    return max(1, -(-w // 3)), max(1, round(h / 3))


def _render(text: str, px: int, color: tuple[int, int, int], bold: bool) -> pygame.Surface:
    text = _drawable(text)
    cjk = needs_cjk(text) and has_cjk()
    if px >= SUPERSAMPLE_BELOW or not text:
        return exact_font(px, bold, cjk).render(text, True, color)
    big = exact_font(px * 3, bold, cjk).render(text, True, color)
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
    """Width in pixels of ``text`` rendered at ``size``."""
    return measure(text, max(size, MIN_SIZE), bold)[0]


def fit(text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so it fits in ``width`` pixels."""
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"


def wrap(text: str, size: int, width: int) -> list[str]:
    """Split ``text`` into lines no wider than ``width`` (words longer than a line are cut)."""
    lines: list[str] = []
    for para in text.split("\n"):
        current = ""
        for word in para.split(" "):
            trial = f"{current} {word}" if current else word
            if text_width(trial, size) <= width:
                current = trial
                continue
            if current:
                lines.append(current)
            while text_width(word, size) > width and len(word) > 1:
                cut = len(word)
                while cut > 1 and text_width(word[:cut], size) > width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            current = word
        lines.append(current)
    return lines
