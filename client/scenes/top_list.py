"""The lobby's "Top players" list: rank, name, rating ("?" while provisional) and rated games,
the user's own row highlighted; it scrolls (keys, wheel) and picks nothing."""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from client.top_players import PlayerRow
from client.ui.widgets import Fit, ListView

WIDTHS = [52, 206, 78, 84]
"""Rank, name, rating and games columns (the list is 420 wide)."""
HINT_ROOM = 24
"""Room kept at the foot of a list longer than it shows, for its "scroll: 1-14 of 41"."""


def top_cells(row: PlayerRow) -> list[str]:
    """A row as the list shows it; the user's own name says so where it fits."""
    name = Fit(f"{row.name} (you)", row.name) if row.mine else row.name
    games = Fit(row.games, row.games.split()[0]) if row.games else ""
    return [f"{row.rank}.", name, row.rating, games]


@dataclass
class TopView(ListView):
    """A :class:`ListView` of :func:`top_cells` rows whose selection is the user's own row
    (clicks select nothing)."""

    widths: list[int] = field(default_factory=lambda: list(WIDTHS))
    header: tuple[str, ...] = ("#", "Player", "Rating", "Games")
    empty_text: str = "No rated games on this server yet."

    def visible_rows(self) -> int:
        """How many rows fit, above the scroll hint when there are more (a small window draws
        that hint taller than a row's gap)."""
        top = self.row_height if self.header else 0
        fits = max(1, (self.rect.height - top) // self.row_height)
        if len(self.rows) <= fits:
            return fits
        return max(1, (self.rect.height - top - HINT_ROOM) // self.row_height)

    def show(self, rows: list[PlayerRow]) -> None:
        """Show ``rows``, the user's own highlighted."""
        self.set_rows([top_cells(r) for r in rows])
        self.selected = next((i for i, r in enumerate(rows) if r.mine), None)

    def scroll_by(self, step: int) -> None:
        """Scroll ``step`` rows down (up when negative), within the list."""
        last = max(0, len(self.rows) - self.visible_rows())
        self.scroll = max(0, min(self.scroll + step, last))

    def handle_event(self, event: pygame.event.Event) -> bool:
        """The wheel scrolls; a click selects nothing (the highlight is the user's row)."""
        if event.type == pygame.MOUSEBUTTONDOWN:
            return False
        return super().handle_event(event)
