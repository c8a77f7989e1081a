"""Bot levels 1-8: how long a bot thinks and how much it plays at random.

=====  ===========  ========  ====================================================
Level  Think (max)  Margin    Character
=====  ===========  ========  ====================================================
1      0.05 s       150       random among moves within 1.5 pawns of the best
2      0.1 s        60        random among moves within 0.6 pawns of the best
3      0.2 s        0         best move found
4      0.4 s        0         best move found
5      0.8 s        0         best move found
6      1.6 s        0         best move found
7      3.2 s        0         best move found
8      6.4 s        0         best move found
=====  ===========  ========  ====================================================

Level L thinks at most ``0.05 * 2 ** (L - 1)`` seconds per move and never more than the clock
allows (:func:`think_seconds`). Margins are in evaluation units, where every game's evaluation
scales 100 to about one pawn / one man / one tempo of advantage; a level-1 or level-2 bot never
passes over a forced win or walks into a mate it has seen, since mate scores are never randomised.
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
SAFETY_SECONDS = 0.25
"""Kept back from every clock limit for the network and the interpreter."""


@dataclass(frozen=True)
class Level:
    """One row of the levels table."""

    level: int
    seconds: float
    """Most seconds per move."""
    margin: int
    """Root moves within this many evaluation units of the best are picked at random."""


TABLE: dict[int, Level] = {
    level: Level(level, 0.05 * 2 ** (level - 1), {1: 150, 2: 60}.get(level, 0))
    for level in LEVELS
}
"""The published levels table."""


def level_info(level: int) -> Level:
    """The row of ``level``; raises :class:`ValueError` naming the valid levels."""
    if isinstance(level, bool) or not isinstance(level, int) or level not in TABLE:
        raise ValueError(f"bot level must be a whole number from 1 to 8, not {level!r}")
    return TABLE[level]


def think_seconds(
    level: int,
    main_ms: int | None = None,
    increment_s: float = 0.0,
    move_ms: int | None = None,
) -> float:
    """Seconds the bot of ``level`` may think for its next move under the clock.

    Args:
        level: 1-8.
        main_ms: the bot's remaining main time (Fischer), ``None`` without one.
        increment_s: the Fischer increment.
        move_ms: what is left of the per-move limit, ``None`` without one.

    Returns:
        ``min(level time, what the clock allows)``, never below 0.01 s.
    """
    seconds = level_info(level).seconds
    if move_ms is not None:
        seconds = min(seconds, move_ms / 1000 - SAFETY_SECONDS)
    if main_ms is not None:
        main = main_ms / 1000
        seconds = min(seconds, main / 30 + 0.8 * increment_s, main - SAFETY_SECONDS)
    return max(0.01, seconds)
