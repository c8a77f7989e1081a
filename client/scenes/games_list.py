"""The lobby's "Your games" list: two lines a game (the result and the opponent, then the game,
how it ended and its length), selected like the rooms list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pygame

from client.my_games import GameRow
from client.ui import draw, fonts, theme
from client.ui.widgets import ListView

OUTCOME_COLORS = {"won": theme.GOOD, "lost": theme.BAD, "playing": theme.ACCENT,
                  "waiting": theme.ACCENT}
"""The result word's colour (others are plain text)."""
OUTCOME_WORDS = ("won", "lost", "draw", "aborted", "ended", "playing", "waiting")


CHANGE_SAMPLE = "· -100"
"""The widest rating change a row makes room for after the result word."""


def outcome_width() -> int:
    """Room for the result word and a rating change (``won · +12``) at the start of a row, as
    the window shows them (a small window's text takes relatively more room)."""
    words = max(fonts.text_width(word, 16, bold=True) for word in OUTCOME_WORDS)
    return words + 6 + fonts.text_width(CHANGE_SAMPLE, 14) + 10


def row_cells(row: GameRow) -> list[str]:
    """A row as the list keeps it: result, opponent, when, then the second line's game,
    reason and length, and the rating change after the result."""
    return [row.outcome, row.opponent, row.when, row.label, row.reason, row.moves,
            row.rating_change]


@dataclass
class GamesView(ListView):
    """A :class:`ListView` whose rows are two lines (see :func:`row_cells`)."""

    row_height: int = 52
    empty_text: str = "No games of yours on this server yet."

    def row_rect(self, index: int) -> pygame.Rect:
        """Where row ``index`` is drawn (it may be scrolled out of the list)."""
        top = self.rect.top + (self.row_height if self.header else 0)
        return pygame.Rect(self.rect.left + 1, top + (index - self.scroll) * self.row_height,
                           self.rect.width - 2, self.row_height)

    def move(self, step: int) -> None:
        """Select the row ``step`` rows down (up when negative), wrapping, and scroll to it."""
        if not self.rows:
            return
        current = self.selected
        if current is None:
            index = 0 if step > 0 else len(self.rows) - 1
        else:
            index = (current + step) % len(self.rows)
        self.selected = index
        visible = self.visible_rows()
        if index < self.scroll:
            self.scroll = index
        elif index >= self.scroll + visible:
            self.scroll = index - visible + 1

    def _row(self, surface: pygame.Surface, cells: Sequence[str], y: int, color: theme.Color,
             size: int) -> None:
        outcome, opponent, when, label, reason, moves, change = (list(cells) + [""] * 7)[:7]
        left, right = self.rect.left + 12, self.rect.right - 12
        top = y + 15
        when_rect = draw.text(surface, when, (right, top), 14, theme.MUTED, "midright")
        column = outcome_width()
        word = draw.text(surface, outcome, (left, top), 16,
                         OUTCOME_COLORS.get(outcome, theme.TEXT), "midleft", column - 8,
                         bold=True)
        if change:
            draw.text(surface, f"· {change}", (word.right + 6, top), 14, theme.MUTED, "midleft",
                      max(left + column - 8 - word.right - 6, 10))
        name_room = when_rect.left - 12 - (left + column)
        draw.text(surface, f"vs {opponent}", (left + column, top), 16, theme.TEXT,
                  "midleft", max(name_room, 20))
        details = "  ·  ".join(part for part in (label, moves, reason) if part)  # cut last
        draw.text(surface, details, (left, y + 37), 14, theme.MUTED, "midleft", right - left)
