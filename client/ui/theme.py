"""The client's colours and sizes: a dark, calm theme."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Color = tuple[int, int, int]

LOGICAL_SIZE: tuple[int, int] = (1280, 800)
"""Every scene lays itself out on a surface of this size; the window scales it."""

MIN_WINDOW: tuple[int, int] = (640, 480)
"""The smallest window: below it, text kept readable (at least 13 px) no longer fits the
widgets laid out for the logical size (button labels run over their key hints, move-list lines
over each other)."""

BG: Color = (24, 27, 33)
PANEL: Color = (33, 37, 45)
PANEL_HI: Color = (42, 47, 57)
BORDER: Color = (58, 64, 76)
TEXT: Color = (226, 229, 234)
MUTED: Color = (146, 153, 166)
FAINT: Color = (98, 105, 118)
ACCENT: Color = (94, 160, 236)
ACCENT_DIM: Color = (52, 92, 140)
PRIMARY_HINT: Color = (208, 222, 242)
"""A primary button's key hint (``Ctrl+N``, ``Enter``, ``Y``): :data:`MUTED` on
:data:`ACCENT_DIM` was 2.4:1, too faint to read; this is 5:1, near MUTED's 5.4:1 on a plain
button."""
GOOD: Color = (104, 190, 130)
WARN: Color = (226, 182, 92)
BAD: Color = (226, 104, 100)
WARN_BG: Color = (52, 40, 30)
"""Behind a warning (a lost connection being retried), with a :data:`WARN` border."""
BAD_BG: Color = (58, 32, 34)
"""Behind a problem (an error, a connection given up), with a :data:`BAD` border."""
INPUT_BG: Color = (20, 23, 28)
PICTURE_TILE: Color = (212, 200, 178)
"""Behind a piece's picture in a dialog (a promotion's): light, like a light board square, so
pieces of either colour stand out; :data:`PICTURE_TILE_HI` under the pointer."""
PICTURE_TILE_HI: Color = (238, 226, 204)
OVERLAY: tuple[int, int, int, int] = (10, 12, 16, 170)

SEAT_COLORS: dict[str, Color] = {"first": (236, 236, 236), "second": (40, 40, 44)}
"""Light pieces move first (chess, draughts)."""
GAME_SEAT_COLORS: dict[str, dict[str, Color]] = {
    "hexgomoku": {"first": (30, 30, 34), "second": (236, 236, 236)},
    "shuqi": {"first": (196, 56, 48), "second": (52, 96, 180)},
    "custom": {"first": (196, 56, 48), "second": (52, 96, 180)},
}
"""Games whose seats wear other colours (black moves first in gomoku; red and blue)."""


def seat_color(game: str, seat: str) -> Color:
    """The colour of ``seat``'s pieces in ``game``."""
    return GAME_SEAT_COLORS.get(game, SEAT_COLORS).get(seat, MUTED)

CJK_GAME_NAMES: dict[str, str] = {
    "chess": "国际象棋", "draughts": "国际跳棋", "shuqi": "国际数棋", "hexgomoku": "三角网络五子棋",
}
"""Chinese names shown beside the English ones when a CJK font is installed. Custom games have
none: each variant has its own name (see :func:`game_subtitle`)."""


CJK_VARIANT_NAMES: dict[tuple[str, str], str] = {
    ("draughts", "russian"): "俄罗斯跳棋", ("draughts", "brazilian"): "巴西跳棋",
}
"""Chinese names of variants that are not what the game's own name says (国际跳棋 is the
international game)."""


def game_subtitle(game: str, variant_info: Mapping[str, Any] | None = None,
                  variant: str | None = None) -> str:
    """The line under (or beside) a game's name: its Chinese name (its ``variant``'s, where
    that has its own); for a custom game the name its variant gives itself in ``variant_info``
    (``Xiangqi (JBQ rules)``, ``standard(7x7)``), or nothing when it is not known (never one
    fixed name for every variant).

    >>> game_subtitle("chess"), game_subtitle("custom"), game_subtitle("custom", {"name": "A"})
    ('国际象棋', '', 'A')
    >>> game_subtitle("draughts", None, "russian")
    '俄罗斯跳棋'
    """
    if game == "custom":
        name = (variant_info or {}).get("name")
        return name.strip() if isinstance(name, str) else ""
    return CJK_VARIANT_NAMES.get((game, variant or ""), CJK_GAME_NAMES.get(game, ""))

RADIUS = 6
PAD = 12
