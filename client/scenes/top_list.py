"""The lobby's "Top players" list: rank, name, rating ("?" while provisional) and rated games,
the user's own row marked; Up/Down (PgUp/PgDn by a page) move the pick, which starts on the
user's own row, and Enter or a click opens the picked player's profile (the lobby does)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from client.top_players import PlayerRow
from client.ui import theme
from client.ui.widgets import Fit, ScrolledList

WIDTHS = [52, 206, 78, 84]
"""Rank, name, rating and games columns (the list is 420 wide)."""
MINE_BAR = 4
"""Width of the accent bar at the left of the user's own row when the pick is elsewhere."""


def top_cells(row: PlayerRow) -> list[str]:
    """A row as the list shows it; the user's own name says so where it fits."""
    name = Fit(f"{row.name} (you)", row.name) if row.mine else row.name
    games = Fit(row.games, row.games.split()[0]) if row.games else ""
    return [f"{row.rank}.", name, row.rating, games]


@dataclass
class TopView(ScrolledList):
    """A :class:`ScrolledList` of :func:`top_cells` rows whose pick (``selected``) starts on the
    user's own row and stays on the same player when the list is read again."""

    widths: list[int] = field(default_factory=lambda: list(WIDTHS))
    header: tuple[str, ...] = ("#", "Player", "Rating", "Games")
    empty_text: str = "No rated games on this server yet."
    mine: int | None = None
    """The user's own row, if listed."""
    players: list[str] = field(default_factory=list)
    """Each row's player id."""

    def show(self, rows: list[PlayerRow]) -> None:
        """Show ``rows``: the pick stays on the player picked before if listed, else goes to
        the user's own row (or none)."""
        picked = self.picked_player()
        self.set_rows([top_cells(r) for r in rows])
        self.players = [r.player for r in rows]
        self.mine = next((i for i, r in enumerate(rows) if r.mine), None)
        kept = self.players.index(picked) if picked and picked in self.players else None
        self.selected = kept if kept is not None else self.mine
        if self.selected is not None:
            self.scroll_to(self.selected)

    def picked_player(self) -> str | None:
        """The picked row's player id, if any."""
        index = self.selected
        return self.players[index] if index is not None and index < len(self.players) else None

    def draw(self, surface: pygame.Surface) -> None:
        """The list, and a bar at the left of the user's own row when the pick is elsewhere."""
        super().draw(surface)
        mine = self.mine
        if mine is None or mine == self.selected or not self.rows:
            return
        if self.scroll <= mine < self.scroll + self.visible_rows():
            top = self.rect.top + (self.row_height if self.header else 0)
            y = top + (mine - self.scroll) * self.row_height
            pygame.draw.rect(surface, theme.ACCENT,
                             pygame.Rect(self.rect.left + 1, y, MINE_BAR, self.row_height))
