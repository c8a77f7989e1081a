"""A player's profile card over the lobby: the name, whether the player is online or when they
last were (reckoned from the app's wall clock), when first and last seen in a game and the
won/lost/drawn totals; under them, on the left, the most recent finished public games (result
mark, game, opponent, moves, when) and, on the right, each rating pool (rating with "?" while
provisional, rated games) and the totals by game (a game played in more than one variant with
its variants' totals under it, indented); read over HTTP on a thread
(:class:`client.profile.ProfileFetch`). Up/Down pick a game and Enter (or the Replay button)
opens its replay as "Your games" does; Esc (or the Back button) goes back to the lobby list it
was opened from; PgUp/PgDn (and the wheel) scroll the pools, Shift+PgUp/PgDn the totals by
game; the wheel scrolls the recent games and the totals by game, where they have more rows than
fit; Ctrl+R reads the profile again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pygame

from client.http_get import FetchFailed
from client.my_games import GameRow
from client.profile import (
    ONLINE_NOW,
    KindRow,
    ProfileFetch,
    ProfileSummary,
    summary_of,
    totals_text,
)
from client.scenes.base import Scene
from client.scenes.dialogs import Dialog
from client.top_players import reason_first
from client.ui import draw, fonts, theme
from client.ui.widgets import (
    HINT_ROOM,
    Button,
    Fit,
    ListView,
    ScrolledList,
    fitting,
    plain_key,
    pressed,
)

if TYPE_CHECKING:
    from client.app import App
    from client.scenes.replay import RecordFetch

CARD_WIDTH = 1232
"""The card's width (logical pixels): the recent games beside the pools and totals by game;
its height fits what it shows."""
LOADING_HEIGHT = 300
"""The card's height while the profile is read (or could not be)."""
POOL_ROWS = 5
"""Pools shown at once (more scroll): with the five games' totals, the card fits the
window."""
KIND_ROWS = 5
"""Games' totals shown at once (more scroll), and as many more as the pools leave of their
:data:`POOL_ROWS` (a player of few pools sees more of their games and variants)."""
RECENT_ROWS = 10
"""Recent games shown at once: as many as this server lists (more, from another server,
scroll)."""
LISTS_TOP = 200
"""Where the lists start, below the card's top (their titles above them, under the totals)."""
FIRST_LINE = 98
"""Where the lines under the name start (whether online, when the games were), below the
card's top; each takes :data:`LINE_STEP`."""
LINE_STEP = 22
TOTALS_TOP = 146
"""Where the totals are, below the card's top."""
FOOT = 86
"""Room under the longest column for the keys and the buttons."""
RECENT_WIDTH = 600
"""The recent games' column; the pools and totals by game take the rest."""
COLUMN_GAP = 24
RECENT_WIDTHS = [44, 176, 190, 84, 106]
"""Result mark, game, opponent, moves and when columns."""
POOL_WIDTHS = [310, 120, 130]
"""Pool, rating and rated games columns."""
KIND_WIDTHS = [200, 90, 90, 90, 90]
"""Game, games, won, lost and drawn columns."""
VARIANT_INDENT = 18
"""How far a variant's name is indented under its game's."""
MARKS = {"won": ("W", theme.GOOD), "lost": ("L", theme.BAD), "draw": ("D", theme.TEXT),
         "aborted": ("–", theme.MUTED)}
"""A result from the player's side as the recent games' mark, and its colour."""
UNKNOWN_MARK = ("?", theme.MUTED)
PICK_KEYS = {pygame.K_UP: -1, pygame.K_DOWN: 1}
PAGE_KEYS = {pygame.K_PAGEUP: -1, pygame.K_PAGEDOWN: 1}
OPEN_KEYS = (pygame.K_RETURN, pygame.K_KP_ENTER)
KEYS_HINT = Fit("Esc: back · Up/Down: pick a game · PgUp/PgDn: pools, with Shift: by game · "
                "Ctrl+R: read again",
                "Esc · Up/Down · PgUp/PgDn: pools, Shift: games · Ctrl+R",
                "Esc · Up/Down · Ctrl+R")
"""The keys, said in full where they fit (a small window draws text relatively larger)."""


def list_height(rows: int, most: int, empty: int) -> int:
    """The height of a list of ``rows`` rows under its header that shows at most ``most`` (and
    keeps room for its scroll hint when it has more), or ``empty`` rows' room when it has
    none (for its "none" line)."""
    shown = min(rows, most) or empty
    return ListView.row_height * (1 + shown) + (HINT_ROOM if rows > most else 0)


class VariantCells(list[str]):
    """The cells of a variant's row of the "By game" list (drawn indented under its game)."""


def kind_cells(row: KindRow) -> list[str]:
    """A game's (or a variant's: :class:`VariantCells`) totals as a row of the "By game" list
    (its short name where the full one does not fit)."""
    label = Fit(row.label, row.short) if row.short else row.label
    cells = [label, str(row.games), str(row.won), str(row.lost), str(row.drawn)]
    return VariantCells(cells) if row.nested else cells


def short_when(when: str) -> str:
    """A row's time without the hour where it has a date too (``1 Mar 18:05``: ``1 Mar``).

    >>> [short_when(w) for w in ("1 Mar 18:05", "08:20", "31 Dec 2025", "")]
    ['1 Mar', '08:20', '31 Dec 2025', '']
    """
    date, _, hour = when.rpartition(" ")
    return date if date and ":" in hour else when


def recent_cells(row: GameRow) -> list[str]:
    """A recent game as a row of its list: its mark (the result from the player's side), the
    game, the opponent, the length (just the number where the word does not fit) and when it
    ended (just the day where the hour does not fit)."""
    mark = MARKS.get(row.outcome, UNKNOWN_MARK)[0]
    count = row.moves.split()[0] if row.moves.split() else row.moves
    return [mark, row.label, row.opponent, Fit(row.moves, count),
            Fit(row.when, short_when(row.when))]


@dataclass
class PoolsView(ScrolledList):
    """The rating pools (and, with its own header, the totals by game), scrolled (nothing to
    pick)."""

    widths: list[int] = field(default_factory=lambda: list(POOL_WIDTHS))
    header: Sequence[str] = ("Rating pool", "Rating", "Rated")
    empty_text: str = "No rated games yet."

    def handle_event(self, event: pygame.event.Event) -> bool:
        """The wheel scrolls; a click picks nothing."""
        if event.type == pygame.MOUSEBUTTONDOWN:
            return False
        return super().handle_event(event)


@dataclass
class KindsView(PoolsView):
    """The totals by game, a variant's (:class:`VariantCells`) with its name indented and
    muted under its game's."""

    def _row(self, surface: pygame.Surface, cells: Sequence[str], y: int, color: theme.Color,
             size: int) -> None:
        if not isinstance(cells, VariantCells) or not cells:
            super()._row(surface, cells, y, color, size)
            return
        super()._row(surface, ["", *cells[1:]], y, color, size)
        width = self.widths[0] - 10 - VARIANT_INDENT
        draw.text(surface, fitting(cells[0], width, size),
                  (self.rect.left + 12 + VARIANT_INDENT, y + self.row_height // 2), size,
                  theme.MUTED, "midleft", width)


@dataclass
class RecentView(ScrolledList):
    """The recent games (:func:`recent_cells` rows), one picked with Up/Down or a click; the
    mark drawn in its result's colour, and a column whose fullest forms do not all fit shown
    in its shortest in every row (not "15 Nov" above "9 Nov 18:30")."""

    widths: list[int] = field(default_factory=lambda: list(RECENT_WIDTHS))
    header: Sequence[str] = ("", "Game", "Opponent", "Moves", "Ended")
    empty_text: str = "No finished public games yet."
    narrow: list[bool] = field(default_factory=list)
    """Each column, as last drawn: one of its cells does not fit."""

    def draw(self, surface: pygame.Surface) -> None:
        """The list, each column's cells in the same form."""
        self.narrow = [any(i < len(row) and fonts.text_width(str(row[i]), 16) > width - 10
                           for row in self.rows)
                       for i, width in enumerate(self.widths)]
        super().draw(surface)

    def row_rect(self, index: int) -> pygame.Rect:
        """Where row ``index`` is drawn (it may be scrolled out of the list)."""
        top = self.rect.top + self.row_height * (1 + index - self.scroll)
        return pygame.Rect(self.rect.left + 1, top, self.rect.width - 2, self.row_height)

    def form(self, column: int, cell: str) -> str:
        """``cell`` as column ``column`` shows it: its shortest form when the column is
        narrow."""
        shorter = getattr(cell, "shorter", ())
        narrow = column < len(self.narrow) and self.narrow[column]
        return shorter[-1] if narrow and shorter else cell

    def _row(self, surface: pygame.Surface, cells: Sequence[str], y: int, color: theme.Color,
             size: int) -> None:
        mark, *rest = [self.form(i, cell) for i, cell in enumerate(cells)] or [""]
        super()._row(surface, ["", *rest], y, color, size)
        shade = next((c for m, c in MARKS.values() if m == mark), UNKNOWN_MARK[1])
        draw.text(surface, mark, (self.rect.left + 12, y + self.row_height // 2), size,
                  shade if mark else color, "midleft", self.widths[0] - 10, bold=True)


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
        self.record: RecordFetch | None = None
        """The record of the game being opened, on its way."""
        self.opening: GameRow | None = None
        """The row of the game being opened (the pick may move while its record comes)."""
        self.status = ""
        """What happens to the game being opened (or why it could not be)."""
        self.status_color = theme.MUTED
        side = CARD_WIDTH - 48 - RECENT_WIDTH - COLUMN_GAP
        self.recent = RecentView(pygame.Rect(0, 0, RECENT_WIDTH, 0))
        self.pools = PoolsView(pygame.Rect(0, 0, side, 0))
        self.kinds = KindsView(pygame.Rect(0, 0, side, 0),
                               header=("Game", "Games", "Won", "Lost", "Drawn"),
                               widths=list(KIND_WIDTHS), empty_text="")
        self.back = Button(pygame.Rect(0, 0, 160, 48), "Back", "back", "Esc")
        self.replay = Button(pygame.Rect(0, 0, 160, 48), "Replay", "replay", "Enter",
                             enabled=False)
        self.layout()
        self.reload()

    def layout(self) -> None:
        """Size the card to what it shows, centred: the recent games on the left (at most
        :data:`RECENT_ROWS`), the pools (at most :data:`POOL_ROWS`) and the games' totals (at
        most :data:`KIND_ROWS` and the rows the pools leave) on the right, each list with room
        for the scroll hint when it has more; or only the name and a line while the profile is
        read."""
        height = LOADING_HEIGHT
        if self.summary is not None:
            pools = len(self.pools.rows)
            self.pools.rect.height = list_height(pools, POOL_ROWS, 2)
            spare = POOL_ROWS - (min(pools, POOL_ROWS) or 2)
            self.kinds.rect.height = list_height(len(self.kinds.rows), KIND_ROWS + spare, 1)
            self.recent.rect.height = list_height(len(self.recent.rows), RECENT_ROWS, 2)
            right = self.pools.rect.height + 42 + self.kinds.rect.height
            height = LISTS_TOP + max(self.recent.rect.height, right) + FOOT
        self.card.size = (CARD_WIDTH, height)
        self.card.center = (theme.LOGICAL_SIZE[0] // 2, theme.LOGICAL_SIZE[1] // 2)
        top, left = self.card.top + LISTS_TOP, self.card.left + 24
        self.recent.rect.topleft = (left, top)
        self.pools.rect.topleft = (left + RECENT_WIDTH + COLUMN_GAP, top)
        self.kinds.rect.topleft = (self.pools.rect.left, self.pools.rect.bottom + 42)
        self.back.rect.bottomright = (self.card.right - 24, self.card.bottom - 18)
        self.replay.rect.bottomright = (self.back.rect.left - 12, self.back.rect.bottom)

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

    def picked_game(self) -> GameRow | None:
        """The recent game picked, if any."""
        index, summary = self.recent.selected, self.summary
        if summary is None or index is None or index >= len(summary.recent):
            return None
        return summary.recent[index]

    def update(self, dt: float) -> None:
        """Take the profile once read, and open a game's replay once its record is; close
        when the scene below has gone."""
        if self.origin is not None and self.origin not in self.app.stack:
            self.close()
            return
        self.take_record()
        self.refresh_replay()
        found = self.fetch.result() if self.fetch is not None else None
        if found is None:
            return
        self.fetch = None
        self.app.invalidate()
        if isinstance(found, FetchFailed):
            self.error = reason_first(str(found))
            return
        self.summary = summary_of(found, self.app.games, self.app.wall_clock())
        self.name = self.summary.name
        self.recent.set_rows([recent_cells(r) for r in self.summary.recent])
        self.pools.set_rows([[p.label, p.rating, p.games] for p in self.summary.pools])
        self.kinds.set_rows([kind_cells(k) for k in self.summary.kinds])
        self.layout()

    def refresh_replay(self) -> None:
        """Replay is on while a game is picked and no record is on its way."""
        self.replay.enabled = self.picked_game() is not None and self.record is None

    def open_game(self) -> None:
        """Read the picked game's record (as "Your games" does: with our token, the
        connection's certificate trust) to open its replay once it is in."""
        row = self.picked_game()
        if row is None:
            self.say("Pick a game first (Up/Down, or a click).", theme.BAD)
            return
        if self.record is not None:
            return  # one game at a time
        self.record = self.app.record_fetch(row.game_id)
        self.opening = row
        self.refresh_replay()
        self.say(f"Reading game {row.game_id}…")

    def take_record(self) -> None:
        """Open the replay once the record is in, from the player's side in that game (their
        seat at the bottom); say why when it could not be read."""
        from client.scenes.replay import ReplayScene

        found = self.record.result() if self.record is not None else None
        if found is None:
            return
        row, self.record, self.opening = self.opening, None, None
        self.app.invalidate()
        error = ReplayScene.open_fetched(self.app, found, row.seat if row is not None else None)
        if error is None:
            self.say("")
        else:
            self.say(f"Cannot open that game: {reason_first(str(error))}", theme.BAD)

    def say(self, text: str, color: theme.Color = theme.MUTED) -> None:
        """Show a line at the card's foot (instead of the keys)."""
        self.status, self.status_color = text, color

    def handle_event(self, event: pygame.event.Event) -> None:
        """Back (Esc), Replay (Enter), Ctrl+R, Up/Down and clicks that pick a game, and the
        keys and wheel that scroll the pools (PgUp/PgDn) and the totals by game (with Shift)."""
        self.refresh_replay()
        action = pressed([self.back, self.replay], event)
        if action == "back":
            self.close()
            return
        if action == "replay":
            self.open_game()
            return
        views = (self.pools, self.recent, self.kinds)
        if any(view.handle_event(event) for view in views):
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
        elif event.key in PICK_KEYS:
            self.recent.move(PICK_KEYS[event.key])
        elif event.key in OPEN_KEYS:
            self.open_game()
        elif event.key in PAGE_KEYS:
            view = self.kinds if event.mod & pygame.KMOD_SHIFT else self.pools
            view.scroll_by(PAGE_KEYS[event.key] * view.visible_rows())

    def draw(self, surface: pygame.Surface) -> None:
        """The card: name, when seen, totals; the recent games, the pools and the totals by
        game; the keys (or what happens to the game being opened) and the buttons."""
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
            self.draw_lists(surface, summary)
        foot = self.replay.rect.left - 16 - left
        if self.status:
            draw.text(surface, self.status, (left, card.bottom - 40), 13, self.status_color,
                      "midleft", foot)
        else:
            draw.text(surface, fitting(KEYS_HINT, foot, 13), (left, card.bottom - 40), 13,
                      theme.FAINT, "midleft", foot)
        self.replay.draw(surface)
        self.back.draw(surface)

    def draw_lists(self, surface: pygame.Surface, summary: ProfileSummary) -> None:
        """Whether online (a green dot when so) and when seen, the totals, and the three lists
        with their titles."""
        card, width = self.card, self.card.width - 48
        left, y = card.left + 24, card.top + FIRST_LINE
        if summary.presence:
            online = summary.presence == ONLINE_NOW
            middle = (left + 5, y + LINE_STEP // 2 - 2)
            draw.disc(surface, theme.GOOD if online else theme.FAINT, middle, 5)
            draw.text(surface, summary.presence, (left + 18, middle[1]), 15,
                      theme.GOOD if online else theme.MUTED, "midleft", width - 18)
            y += LINE_STEP
        if summary.seen:
            draw.text(surface, summary.seen, (left, y), 15, theme.MUTED, max_width=width)
        draw.text(surface, totals_text(summary.totals), (left, card.top + TOTALS_TOP), 18,
                  theme.TEXT, max_width=width)
        for title, view in (("Recent games", self.recent), ("Ratings", self.pools),
                            ("By game", self.kinds)):
            draw.text(surface, title, (view.rect.left, view.rect.top - 6), 16, theme.MUTED,
                      "bottomleft")
        self.recent.draw(surface)
        self.pools.draw(surface)
        if summary.kinds:
            self.kinds.draw(surface)
        else:
            draw.text(surface, "No finished games yet.", (self.kinds.rect.left,
                                                          self.kinds.rect.top + 8),
                      15, theme.FAINT)
