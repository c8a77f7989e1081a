"""A player's profile card over the lobby: the name, when first and last seen in a game, the
won/lost/drawn totals, each rating pool (rating with "?" while provisional, rated games) and the
totals by game; read over HTTP on a thread (:class:`client.profile.ProfileFetch`). Esc (or the
Back button) goes back to the lobby list it was opened from; Up/Down and PgUp/PgDn scroll the
pools; Ctrl+R reads the profile again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pygame

from client.http_get import FetchFailed
from client.profile import KindRow, ProfileFetch, ProfileSummary, summary_of, totals_text
from client.scenes.base import Scene
from client.scenes.dialogs import Dialog
from client.top_players import reason_first
from client.ui import draw, theme
from client.ui.widgets import HINT_ROOM, Button, ListView, ScrolledList, plain_key, pressed

if TYPE_CHECKING:
    from client.app import App

CARD_WIDTH = 780
"""The card's width (logical pixels); its height fits what it shows."""
LOADING_HEIGHT = 300
"""The card's height while the profile is read (or could not be)."""
POOL_ROWS = 5
"""Pools shown at once (more scroll): with the five games' totals, the card fits the
window."""
POOLS_TOP = 170
"""Where the pools' list starts, below the card's top."""
FOOT = 86
"""Room under the last list for the keys and the Back button."""
POOL_WIDTHS = [420, 140, 150]
"""Pool, rating and rated games columns."""
KIND_WIDTHS = [270, 110, 110, 110, 110]
"""Game, games, won, lost and drawn columns."""
SCROLL_KEYS = {pygame.K_UP: -1, pygame.K_DOWN: 1}
PAGE_KEYS = {pygame.K_PAGEUP: -1, pygame.K_PAGEDOWN: 1}


def kind_cells(row: KindRow) -> list[str]:
    """A game's totals as a row of the "By game" list."""
    return [row.label, str(row.games), str(row.won), str(row.lost), str(row.drawn)]


@dataclass
class PoolsView(ScrolledList):
    """The rating pools, scrolled (nothing to pick)."""

    widths: list[int] = field(default_factory=lambda: list(POOL_WIDTHS))
    header: Sequence[str] = ("Rating pool", "Rating", "Rated")
    empty_text: str = "No rated games yet."

    def handle_event(self, event: pygame.event.Event) -> bool:
        """The wheel scrolls; a click picks nothing."""
        if event.type == pygame.MOUSEBUTTONDOWN:
            return False
        return super().handle_event(event)


class ProfileCard(Dialog):
    """``player``'s profile over ``origin``, the lobby (``name``: shown while it is read); it
    closes when its lobby leaves the stack (the connection is given up)."""

    def __init__(self, app: App, player: str, name: str, origin: Scene | None = None) -> None:
        super().__init__(app, "Player", (CARD_WIDTH, LOADING_HEIGHT))
        self.origin = origin
        self.player = player
        self.name = name
        self.summary: ProfileSummary | None = None
        self.error = ""
        self.fetch: ProfileFetch | None = None
        self.pools = PoolsView(pygame.Rect(0, 0, CARD_WIDTH - 48, 0))
        self.kinds = ListView(pygame.Rect(0, 0, CARD_WIDTH - 48, 0),
                              header=("Game", "Games", "Won", "Lost", "Drawn"),
                              widths=list(KIND_WIDTHS), empty_text="")
        self.back = Button(pygame.Rect(0, 0, 160, 48), "Back", "back", "Esc")
        self.layout()
        self.reload()

    def layout(self) -> None:
        """Size the card to what it shows, centred: the pools (at most :data:`POOL_ROWS`,
        with room for the scroll hint when there are more) and every game's totals, or only
        the name and a line while the profile is read."""
        row = ListView.row_height
        height = LOADING_HEIGHT
        if self.summary is not None:
            pools = len(self.pools.rows)
            pools_height = row * (1 + max(1, min(pools, POOL_ROWS)))
            self.pools.rect.height = pools_height + (HINT_ROOM if pools > POOL_ROWS else 0)
            self.kinds.rect.height = row * (1 + max(1, len(self.kinds.rows)))
            height = POOLS_TOP + self.pools.rect.height + 42 + self.kinds.rect.height + FOOT
        self.card.size = (CARD_WIDTH, height)
        self.card.center = (theme.LOGICAL_SIZE[0] // 2, theme.LOGICAL_SIZE[1] // 2)
        self.pools.rect.topleft = (self.card.left + 24, self.card.top + POOLS_TOP)
        self.kinds.rect.topleft = (self.card.left + 24, self.pools.rect.bottom + 42)
        self.back.rect.bottomright = (self.card.right - 24, self.card.bottom - 18)

    def reload(self) -> None:
        """Read the profile (again) over HTTP, on a thread; without a connection, say so."""
        conn = self.app.connection
        if conn is None:
            self.error = "not connected to a server"
            return
        self.error = ""
        self.fetch = ProfileFetch(self.app.url, self.player, conn.ssl)

    @property
    def loading(self) -> bool:
        """The profile is on its way."""
        return self.fetch is not None

    def update(self, dt: float) -> None:
        """Take the profile once read; close when the scene below has gone."""
        if self.origin is not None and self.origin not in self.app.stack:
            self.close()
            return
        found = self.fetch.result() if self.fetch is not None else None
        if found is None:
            return
        self.fetch = None
        self.app.invalidate()
        if isinstance(found, FetchFailed):
            self.error = reason_first(str(found))
            return
        self.summary = summary_of(found, self.app.games)
        self.name = self.summary.name
        self.pools.set_rows([[p.label, p.rating, p.games] for p in self.summary.pools])
        self.kinds.set_rows([kind_cells(k) for k in self.summary.kinds])
        self.layout()

    def handle_event(self, event: pygame.event.Event) -> None:
        """Back (Esc), Ctrl+R, and the keys and wheel that scroll the pools."""
        if pressed([self.back], event):
            self.close()
            return
        if self.pools.handle_event(event):
            return
        if event.type != pygame.KEYDOWN:
            return
        ctrl = event.mod & (pygame.KMOD_CTRL | pygame.KMOD_META)
        if event.key == pygame.K_r and ctrl:
            self.reload()
        elif event.key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
            self.close()
        elif not plain_key(event):
            return
        elif event.key in SCROLL_KEYS:
            self.pools.scroll_by(SCROLL_KEYS[event.key])
        elif event.key in PAGE_KEYS:
            self.pools.scroll_by(PAGE_KEYS[event.key] * self.pools.visible_rows())

    def draw(self, surface: pygame.Surface) -> None:
        """The card: name, when seen, totals, the pools and the totals by game."""
        super().draw(surface)
        card, width = self.card, self.card.width - 48
        left = card.left + 24
        mine = self.player == self.app.player_id
        draw.text(surface, f"{self.name} (you)" if mine else self.name, (left, card.top + 58),
                  30, theme.TEXT, max_width=width, bold=True)
        summary = self.summary
        if self.error:
            box = pygame.Rect(left, card.top + 110, width, 84)
            draw.panel(surface, box, theme.BAD_BG, theme.BAD)
            draw.paragraph(surface, f"Could not read the profile: {self.error}",
                           box.inflate(-20, -12), 15, theme.BAD)
        elif summary is None:
            draw.text(surface, "Reading the profile…", (left, card.top + 110), 16, theme.FAINT)
        else:
            if summary.seen:
                draw.text(surface, summary.seen, (left, card.top + 102), 15, theme.MUTED,
                          max_width=width)
            draw.text(surface, totals_text(summary.totals), (left, card.top + 132), 18,
                      theme.TEXT, max_width=width)
            self.pools.draw(surface)
            draw.text(surface, "By game", (left, self.kinds.rect.top - 6), 16, theme.MUTED,
                      "bottomleft")
            if summary.kinds:
                self.kinds.draw(surface)
            else:
                draw.text(surface, "No finished games yet.", (left, self.kinds.rect.top + 8),
                          15, theme.FAINT)
        draw.text(surface, "Esc: back · Up/Down: scroll · Ctrl+R: read again",
                  (left, card.bottom - 40), 13, theme.FAINT, "midleft",
                  self.back.rect.left - 16 - left)
        self.back.draw(surface)
