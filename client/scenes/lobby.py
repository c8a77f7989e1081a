"""The lobby: pick a game, seek an opponent, create or join a room, or watch one."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import pygame

from client import sounds
from client.clocks import clock_presets
from client.my_games import GameRow, MyGames
from client.net import NO_RECONNECT_CODES
from client.room_model import clock_text, game_label, rating_label, reply_to
from client.scenes.base import Scene
from client.scenes.games_list import GamesView, row_cells
from client.scenes.top_list import TopView
from client.top_players import PlayerRow, Pool, TopPlayers, pool_label
from client.ui import draw, fonts, theme
from client.ui.widgets import Button, Chooser, Fit, ListView, TextField, Toggle, plain_key
from protocol import limits

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent
    from client.scenes.replay import RecordFetch

RECORD_LIMIT = limits.RECORD_BYTES
OFFLINE_ACTIONS = frozenset({"replay", "disconnect", "open_game", "refresh_games", "sound",
                             "top_profile", "opponent_profile"})
"""What the lobby does without its connection (records and profiles are read over HTTP)."""
LIST_STEPS = {pygame.K_UP: -1, pygame.K_DOWN: 1, pygame.K_PAGEUP: -1, pygame.K_PAGEDOWN: 1}
"""Keys that move the pick in "Your games" (as PgUp/PgDn do in the rooms list)."""
CYCLE_KEYS = {pygame.K_v: "variant", pygame.K_k: "clock", pygame.K_o: "color",
              pygame.K_b: "opponent", pygame.K_p: "private"}
"""Lobby keys that step a chooser (Shift steps back) or flip the private switch."""
CREATE_WAIT_S = 10.0
"""A second Create room press within this long of an unanswered one sends nothing (a double
click on a slow server opens one room); after it, the server may have lost the first."""


def parse_options(text: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """Read ``name=value`` pairs (spaces or commas between) typed against the game's defaults.

    >>> parse_options("exact5=yes", {"exact5": False})
    {'exact5': True}
    >>> parse_options("max_plies=300, home_limit=20", {"max_plies": 400, "home_limit": 30})
    {'max_plies': 300, 'home_limit': 20}

    Raises ``ValueError`` naming the option that is unknown or has a bad value.
    """
    options: dict[str, Any] = {}
    for item in text.replace(",", " ").split():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"write options as name=value, not {item!r}")
        if name not in defaults:
            known = ", ".join(sorted(defaults)) or "none"
            raise ValueError(f"this game has no option {name!r} (options: {known})")
        default = defaults[name]
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "yes", "no", "on", "off", "1", "0"):
                raise ValueError(f"option {name!r} is true or false, not {value!r}")
            options[name] = value.lower() in ("true", "yes", "on", "1")
        elif isinstance(default, int):
            if not value.isdigit():
                raise ValueError(f"option {name!r} is a whole number, not {value!r}")
            options[name] = int(value)
        else:
            options[name] = value
    return options


def read_start(text: str) -> tuple[str, str]:
    """Interpret the start-position field: (``position`` or ``record``, the text).

    A path to an existing file is read (at most 48 KiB). PGN, PDN and JSON records are sent as
    ``record``; anything else as ``position``. Raises ``ValueError`` with a readable reason.
    """
    value = text.strip()
    if value and len(value) < 1024 and "\n" not in value:
        path = Path(os.path.expanduser(value))
        if path.is_file():
            if path.stat().st_size > RECORD_LIMIT:
                raise ValueError(f"{path.name} is larger than 48 KiB")
            try:
                value = path.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise ValueError(f"cannot read {path}: {exc}") from exc
    looks_like_record = value.startswith(("[", "{")) or "\n1." in value or value.startswith("1.")
    return ("record" if looks_like_record else "position"), value


OPTION_WORDS = {"exact5": "Exactly five wins", "home_limit": "Home limit (moves)",
                "max_plies": "Draw after (plies)"}
"""Game options in words (any other option is shown by its name)."""
OPTION_ROWS = 3
"""Option rows the lobby's left column has room for; more options share a free-text field in
the last row."""
OPTION_TOP, OPTION_STEP = 636, 42


def option_words(name: str) -> str:
    """An option's caption: ``Home limit (moves)``; an unknown ``moves_to_go`` reads ``Moves
    to go``."""
    return OPTION_WORDS.get(name) or name.replace("_", " ").capitalize()


OptionWidget: TypeAlias = TextField | Toggle


START_HINTS = {
    "chess": "optional: FEN or PGN, or a file",
    "draughts": "optional: PDN position (W:W31-50:B1-20) or PDN, or a file",
    "shuqi": "optional: position (TURN;PLY;FIRST;SECOND) or a file",
    "hexgomoku": "optional: position (TURN;BLACK;WHITE) or a file",
    "custom": "optional: position string or JSON record, or a file",
    "": "optional: start position or record, or a file",
}
"""The start-position field's hint for each game, in that game's own formats."""
TAB_KEY = pygame.K_g
"""Switches the right column between the rooms and the user's games."""
TOP_KEY = pygame.K_t
"""Switches the right column between the rooms and the top players."""
OPPONENT_KEY = pygame.K_i
"""In "Your games": opens the picked game's opponent's profile."""
SOUND_KEY = pygame.K_s
"""Flips the sound, as the Sound button does (the room's V: V is the lobby's variant)."""
LIST_RECT = pygame.Rect(836, 112, 420, 560)
"""The right column's list (rooms, the user's games, or the top players)."""
TAB_X = {"rooms": 836, "games": 914, "top": 1034}
"""Where the right column's three titles start (fixed, so a click finds them at every window
size; apart enough for a small window's larger text)."""
TAB_HINTS = {"rooms": "G: your games · T: top players · PgUp/PgDn",
             "games": "G: rooms · T: top players · Up/Down · Enter · I",
             "top": "T: rooms · G: your games · Up/Down · Enter"}
"""The keys of each list, under its buttons (the switches' keys first: the rest may be cut)."""
HINT_TOP = 736
"""Where the keys hint starts, under the right column's buttons."""
ERROR_HEIGHT = 64
"""Room at the foot of a list (your games, top players) for why it could not be read."""
ROOM_WIDTHS = (50, 92, 146, 68, 52)
"""The room list's columns: Room, Game, Players, Clock, Viewers (together the list's width
less its 12-pixel margin). Players is the widest: two usual names with their ratings."""
NAME_KEEP = 3
"""Letters a name keeps at the least when it is cut to make room for the ratings."""
LONE_NAME_KEEP = 5
"""Letters a seeking player's name keeps at the least when it is cut to make room for
"(seeking)": a short name ("Gita") reads better whole with "(seeki…" cut than as "Git."."""



VIEWERS = Fit("Viewers", "View.")
"""The room list's last title, shorter where its column is narrow."""
SHORTER_GAME_NAMES = {"Number chess": "Num. chess"}
"""A game's name in the room list where its column is narrow (an 800x600 window)."""


def room_widths(rows: list[Sequence[str]]) -> list[int]:
    """The room list's column widths with every row's room code (and the "Room" title) whole
    in the Room column: a small window draws text relatively larger, and a cut code ("54v…")
    cannot be told or typed; and the last column wide enough for its short title. Players, the
    column whose names have shorter forms, gives up the room (the widths still add up to the
    list's)."""
    widths = list(ROOM_WIDTHS)
    codes = [str(row[0]) for row in rows]
    need = max([fonts.text_width(code, 16) for code in codes] + [fonts.text_width("Room", 14)])
    extra = max(0, need + 10 - widths[0])  # _row leaves 10 pixels after each column's text
    widths[0] += extra
    widths[2] -= extra
    title = max(0, fonts.text_width(VIEWERS.shorter[-1], 14) + 10 - widths[4])
    widths[4] += title
    widths[2] -= title
    return widths


def clock_cell(clock: Any) -> Fit:
    """A room row's clock as the lobby writes it (``20 s/move``, ``3+2``, ``untimed``), a
    per-move one shorter (``20 s``) where its column is narrow."""
    text = clock_text(clock)
    return Fit(text, text.removesuffix("/move")) if text.endswith("/move") else Fit(text)


def abbreviations(names: list[str], keep: int = NAME_KEEP) -> list[list[str]]:
    """``names`` shorter and shorter, one letter at a time off the longest name, down to
    ``keep`` letters each: the forms to try before dropping the ratings. A cut name ends in
    "." as an abbreviated name does (an ellipsis is as wide as two letters).

    >>> abbreviations(["Alexa", "Bo"])
    [['Alex.', 'Bo'], ['Ale.', 'Bo']]
    """
    lengths = [len(n) for n in names]
    forms: list[list[str]] = []
    while True:
        longest = max(range(len(names)), key=lambda i: lengths[i], default=None)
        if longest is None or lengths[longest] <= keep:
            return forms
        lengths[longest] -= 1
        forms.append([n if len(n) == k else n[:k] + "." for n, k in zip(names, lengths,
                                                                        strict=True)])


def players_cell(r: dict[str, Any]) -> Fit:
    """A room row's players: ``Alice 1523 vs Bob 1480?`` (the summary's ``ratings`` and
    ``rds``, parallel to ``seats``); where that does not fit, the names abbreviated
    (``Alex. 1523 vs Bart. 1480?``), then the names alone, and last the names alone
    abbreviated (``Maxim. vs Barth.``: both players stay told apart, where cutting the whole
    line would drop the second). The names alone too when the ratings are not a list parallel
    to the names."""
    seats = r.get("seats")
    names = [str(s) for s in seats if s] if isinstance(seats, list) else []
    ratings, rds = r.get("ratings"), r.get("rds")
    labels = [""] * len(names)
    if isinstance(ratings, list) and isinstance(seats, list) and (
            len(ratings) == len(seats) == len(names)):
        if not isinstance(rds, list) or len(rds) != len(names):
            rds = [None] * len(names)
        labels = [rating_label(rating, rd) for rating, rd in zip(ratings, rds, strict=True)]
    suffix = " (seeking)" if r.get("seek") else ""
    if not names:
        return Fit("—" + suffix)
    keep = NAME_KEEP if len(names) > 1 else LONE_NAME_KEEP
    plain = [" vs ".join(short) + suffix for short in [names, *abbreviations(names, keep)]]
    if not any(labels):
        return Fit(*plain)

    def rated(shown: list[str]) -> str:
        return " vs ".join(f"{n} {label}" if label else n
                           for n, label in zip(shown, labels, strict=True)) + suffix

    return Fit(rated(names), *(rated(short) for short in abbreviations(names)), *plain)


class LobbyScene(Scene):
    """Games on the left, playing in the middle, rooms to watch (or the user's own games) on
    the right."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.game_index = 0
        self.rooms: list[dict[str, Any]] = []
        self.queued: dict[str, Any] | None = None
        self.seeking: dict[str, Any] | None = None
        """The quick-game search asked for (until it finds a game, is cancelled or refused): a
        dropped connection ends it on the server, so it is asked again once back."""
        self.status = ""
        self.status_color = theme.MUTED
        self.my_requests: set[int] = set()
        self.creating: tuple[int, float] | None = None
        """The id of a ``create`` the server has not answered yet, and until when a second
        press waits for it rather than opening a second room."""
        col2 = 412
        self.variant = Chooser(pygame.Rect(28, 470, 352, 40), "Variant  (V)", [])
        self.clock = Chooser(pygame.Rect(col2 + 16, 296, 180, 40), "Clock  (K)", [])
        self.color = Chooser(pygame.Rect(col2 + 212, 296, 180, 40), "Your colour  (O)",
                             [("random", "random"), ("first", "first (moves first)"),
                              ("second", "second")])
        self.opponent = Chooser(pygame.Rect(col2 + 16, 366, 180, 40), "Opponent  (B)",
                                self.opponent_choices())
        self.hotseat_pending = False
        self.private = Toggle(pygame.Rect(col2 + 212, 371, 180, 30), "Private  (P)")
        self.position = TextField(pygame.Rect(col2 + 16, 436, 376, 40),
                                  "Start position (paste with Ctrl+V, or a file path)", "",
                                  "optional: FEN, PGN, PDN, position or file…",
                                  limits.RECORD_BYTES, multiline=True)
        self.create = Button(pygame.Rect(col2 + 16, 488, 376, 44), "Create room", "create",
                             "Ctrl+N", primary=True)
        self.code = TextField(pygame.Rect(col2 + 16, 606, 150, 40), "Room code", "", "code", 16)
        self.join = Button(pygame.Rect(col2 + 178, 606, 104, 40), "Join", "join", "Enter")
        self.watch_code = Button(pygame.Rect(col2 + 290, 606, 102, 40), "Watch", "watch_code",
                                 "Shift+Enter")
        self.rooms_view = ListView(LIST_RECT.copy(), header=(
            "Room", "Game", "Players", "Clock", VIEWERS), widths=list(ROOM_WIDTHS),
            empty_text="No open rooms yet.")
        self.watch_room = Button(pygame.Rect(836, 688, 200, 42), "Watch", "watch", "W")
        self.join_room = Button(pygame.Rect(1056, 688, 200, 42), "Join seat", "join_room", "J")
        self.tab = "rooms"
        """What the right column shows: ``rooms`` (live), ``games`` (the user's own) or
        ``top`` (the selected game's top players)."""
        self.tab_rects = {"rooms": pygame.Rect(TAB_X["rooms"] - 6, 70, 78, 36),
                          "games": pygame.Rect(TAB_X["games"] - 6, 70, 116, 36),
                          "top": pygame.Rect(TAB_X["top"] - 6, 70, 124, 36)}
        self.top_players = TopPlayers()
        self.top_rows: list[PlayerRow] = []
        """The top players as the list shows them, best first."""
        self.top_view = TopView(LIST_RECT.copy())
        self.top_profile = Button(pygame.Rect(836, 688, 200, 42), "Profile", "top_profile",
                                  "Enter")
        self.refresh_top = Button(pygame.Rect(1056, 688, 200, 42), "Refresh", "refresh_games",
                                  "Ctrl+R")
        self.my_games = MyGames()
        self.my_rows: list[GameRow] = []
        """The user's games as the list shows them, newest first."""
        self.games_view = GamesView(LIST_RECT.copy())
        self.open_game = Button(pygame.Rect(836, 688, 132, 42), "Open", "open_game", "Enter")
        self.opponent_profile = Button(pygame.Rect(980, 688, 132, 42), "Opponent",
                                       "opponent_profile", "I")
        self.refresh_games = Button(pygame.Rect(1124, 688, 132, 42), "Refresh",
                                    "refresh_games", "Ctrl+R")
        self.cancel = Button(pygame.Rect(col2 + 236, 156, 140, 44), "Cancel", "cancel", "Esc")
        self.sound_button = Button(pygame.Rect(650, 10, 120, 42), sounds.label(app.config.sound),
                                   "sound", "S")
        """Sound on or off (the room's V does the same)."""
        self.leave_button = Button(pygame.Rect(1136, 10, 120, 42), "Disconnect", "disconnect",
                                   "Ctrl+D")
        self.replay_source = TextField(pygame.Rect(col2 + 16, 700, 266, 40),
                                       "Replay a game: its id, or a record file (JSON, PGN, PDN)",
                                       "", "game id or file path", 1024,
                                       label_width=376)  # over the Replay button, no further
        self.replay_button = Button(pygame.Rect(col2 + 290, 700, 102, 40), "Replay", "replay",
                                    "Ctrl+O")
        self.option_widgets: dict[str, OptionWidget] = {}
        """One widget per option of the chosen game (built from GameInfo.options: a switch for
        a true/false option, a number field for a number, a text field otherwise)."""
        self.options_text: TextField | None = None
        """``name=value`` pairs for the options that have no row of their own (only when the
        game has more options than rows)."""
        self.fetch: RecordFetch | None = None
        """The server record being read for a replay."""
        self.opening: GameRow | None = None
        """The "Your games" row whose record ``fetch`` reads (the pick may move meanwhile);
        ``None`` for a game id typed in the replay field."""
        self._refresh_game()

    # ---- data ---------------------------------------------------------------------------------

    @property
    def game(self) -> dict[str, Any]:
        """The selected GameInfo (an empty dict when the server listed none)."""
        games = self.app.games
        if not games:
            return {}
        return games[min(self.game_index, len(games) - 1)]

    def _refresh_game(self) -> None:
        game = self.game
        variants: list[Any] = game["variants"] if isinstance(game.get("variants"), list) else []
        self.variant.set_options([
            (str(v.get("id")), str(v.get("name") or v.get("id")))
            for v in variants if isinstance(v, dict) and v.get("id") is not None
        ])
        self.position.placeholder = START_HINTS.get(str(game.get("game", "")), START_HINTS[""])
        self.build_options(self.option_defaults())
        presets = clock_presets(str(game.get("game", "")))
        self.clock.set_options([(str(i), name) for i, (name, _) in enumerate(presets)]
                               + [("none", "untimed")])

    def build_options(self, defaults: dict[str, Any]) -> None:
        """A row per option (its caption left, its widget right), at each option's default;
        when there are more options than rows, the last row is a free-text field for the
        rest."""
        self.option_widgets, self.options_text = {}, None
        names = list(defaults)
        own = names if len(names) <= OPTION_ROWS else names[:OPTION_ROWS - 1]
        right = 28 + 352
        for i, name in enumerate(own):
            top, default = OPTION_TOP + i * OPTION_STEP, defaults[name]
            widget: OptionWidget
            if isinstance(default, bool):
                widget = Toggle(pygame.Rect(right - 96, top + 3, 96, 30), "", on=default)
            elif isinstance(default, int):
                widget = TextField(pygame.Rect(right - 110, top, 110, 36), "", "", str(default),
                                   9, digits=True)
            else:
                widget = TextField(pygame.Rect(right - 170, top, 170, 36), "", "",
                                   str(default), 100)
            self.option_widgets[name] = widget
        rest = names[len(own):]
        if rest:
            top = OPTION_TOP + len(own) * OPTION_STEP
            self.options_text = TextField(pygame.Rect(28, top, 352, 36), "", "", " ".join(
                f"{k}={str(defaults[k]).lower()}" for k in rest), 300)

    @property
    def fields(self) -> list[OptionWidget]:
        """Every focusable field (text fields, and the options' switches)."""
        extra = [self.options_text] if self.options_text is not None else []
        return [self.position, self.code, self.replay_source, *self.option_widgets.values(),
                *extra]

    def opponent_choices(self) -> list[tuple[str, str]]:
        """A person, the computer at each level, and (offline) a second player on this screen."""
        choices = [("", "a person"), *((f"bot:{n}", f"computer, level {n}") for n in range(1, 9))]
        if self.app.local_server is not None:
            choices.insert(1, ("hotseat", "hot-seat, this screen"))
        return choices

    def opponent_label(self) -> str:
        """The opponent choice's label: with the computer picked, which end of its levels is
        the strong one (its think times and picks are in the README's levels table)."""
        if self.opponent.value.startswith("bot:"):
            return "Opponent  (B)  ·  level 1 easiest, 8 strongest"
        return "Opponent  (B)"

    def seek_buttons(self) -> list[Button]:
        """One button per clock preset of the selected game."""
        presets = clock_presets(str(self.game.get("game", "")))
        buttons = []
        for i, (name, _) in enumerate(presets):
            rect = pygame.Rect(412 + 16 + (i % 2) * 192, 112 + (i // 2) * 52, 184, 44)
            buttons.append(Button(rect, name, f"seek:{i}", f"F{i + 1}", size=17))
        return buttons

    def game_rows(self) -> list[pygame.Rect]:
        """Rectangles of the game cards."""
        return [pygame.Rect(28, 112 + i * 62, 352, 54) for i in range(len(self.app.games))]

    def option_defaults(self) -> dict[str, Any]:
        """The selected game's options with their defaults."""
        options = self.game.get("options")
        return dict(options) if isinstance(options, dict) else {}

    def chosen_options(self) -> dict[str, Any]:
        """The options set otherwise than their defaults (``ValueError`` when one typed in the
        free-text field is wrong): what a quick game and a created room send."""
        defaults = self.option_defaults()
        chosen: dict[str, Any] = {}
        for name, widget in self.option_widgets.items():
            default = defaults.get(name)
            if isinstance(widget, Toggle):
                value: Any = widget.on
            elif not widget.value.strip():
                continue
            elif widget.digits:
                value = int(widget.value)
            else:
                value = widget.value.strip()
            if value != default:
                chosen[name] = value
        if self.options_text is not None:
            rest = {k: v for k, v in defaults.items() if k not in self.option_widgets}
            chosen.update(parse_options(self.options_text.value, rest))
        return chosen

    def variant_description(self) -> str:
        """Description of the chosen variant."""
        for v in self.game.get("variants") or []:
            if isinstance(v, dict) and str(v.get("id")) == self.variant.value:
                return str(v.get("description") or "")
        return ""

    # ---- lifecycle ----------------------------------------------------------------------------

    def enter(self) -> None:
        """Ask for the live room list and read the user's games whenever the lobby shows."""
        self._refresh_game()
        self.sound_button.label = sounds.label(self.app.config.sound)  # a room may have changed it
        self.opponent.set_options(self.opponent_choices())
        self.app.send({"type": "list", "watch": True})
        self.reload_games()
        if self.tab == "top":
            self.reload_top()  # a game played since may have changed them

    def pool(self) -> Pool | None:
        """The rating pool of the selected game and variant (None: the server listed none)."""
        game = str(self.game.get("game", ""))
        return (game, self.variant.value) if game else None

    def reload_top(self) -> None:
        """Read the selected pool's top players (over HTTP, on a thread); nothing without a
        connection (a screenshot's made-up lobby)."""
        conn, pool = self.app.connection, self.pool()
        if conn is not None and pool is not None:
            self.top_players.refresh(self.app.url, pool, conn.ssl)

    def reload_games(self) -> None:
        """Read the user's games again from the server (over HTTP, on a thread); nothing
        without a connection (a screenshot's made-up lobby)."""
        conn = self.app.connection
        if conn is None:
            return
        self.my_games.refresh(self.app.url, self.app.player_id, conn.token, conn.ssl)

    # ---- input --------------------------------------------------------------------------------

    def handle_event(self, event: pygame.event.Event) -> None:
        """Buttons, list selection, typing, and keyboard shortcuts."""
        listed = ([self.open_game, self.opponent_profile, self.refresh_games]
                  if self.tab == "games" else
                  [self.top_profile, self.refresh_top] if self.tab == "top" else
                  [self.watch_room, self.join_room])
        for button in [*self.seek_buttons(), self.create, self.join, self.watch_code,
                       *listed, self.sound_button, self.leave_button, self.cancel,
                       self.replay_button]:
            if button is self.cancel and not self.queued:
                continue
            action = button.handle_event(event)
            if action:
                self.act(action)
                return
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for i, rect in enumerate(self.game_rows()):
                if rect.collidepoint(event.pos):
                    self.game_index = i
                    self._refresh_game()
                    return
            for tab, rect in self.tab_rects.items():
                if rect.collidepoint(event.pos):
                    self.show_tab(tab)
                    return
        if self.tab == "games":
            if self.games_view.handle_event(event):
                if getattr(event, "clicks", 1) == 2:
                    self.act("open_game")
                return
        elif self.tab == "top":
            if self.top_view.handle_event(event):
                if event.type == pygame.MOUSEBUTTONDOWN:  # a click on a row opens it
                    self.act("top_profile")
                return
        elif self.rooms_view.handle_event(event):
            if getattr(event, "clicks", 1) == 2:
                self.act("watch")
            return
        for widget in (self.variant, self.clock, self.color, self.opponent, self.private):
            if widget.handle_event(event):
                return
        fields = self.tab_order()
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            self.focus_next(-1 if event.mod & pygame.KMOD_SHIFT else 1)
            return
        typing = any(f.focused for f in fields)
        for f in fields:
            f.handle_event(event)
        if event.type == pygame.KEYDOWN:
            self._key(event, typing)

    def tab_order(self) -> list[OptionWidget]:
        """The fields shown, in the order Tab visits them (left column, then down the middle
        one): game options (for a game that has some; Space flips a switch), start position,
        room code, replay source."""
        shown: list[OptionWidget] = [*self.option_widgets.values()]
        if self.options_text is not None:
            shown.append(self.options_text)
        return [*shown, self.position, self.code, self.replay_source]

    def focus_next(self, step: int) -> None:
        """Move the focus to the next field (``step`` 1) or the previous one (-1), wrapping;
        from no field, Tab goes to the first and Shift+Tab to the last."""
        order = self.tab_order()
        current = next((i for i, f in enumerate(order) if f.focused), None)
        for f in self.fields:
            f.focused = False
        if current is None:
            index = 0 if step > 0 else len(order) - 1
        else:
            index = (current + step) % len(order)
        order[index].focused = True

    def _key(self, event: pygame.event.Event, typing: bool) -> None:
        ctrl = event.mod & (pygame.KMOD_CTRL | pygame.KMOD_META)
        if event.key == pygame.K_n and ctrl:
            self.act("create")
        elif event.key == pygame.K_r and ctrl:
            self.act("refresh_games")
        elif (event.key == pygame.K_o and ctrl) or (
            event.key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.replay_source.focused
        ):
            self.act("replay")
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.code.focused:
            self.act("watch_code" if event.mod & pygame.KMOD_SHIFT else "join")
        elif event.key == pygame.K_d and ctrl:
            self.act("disconnect")
        elif event.key == pygame.K_ESCAPE:
            if typing:
                for f in self.fields:
                    f.focused = False
            elif self.queued:
                self.act("cancel")
        elif not plain_key(event):
            return  # Ctrl+W, Alt+P...: not the letter's shortcut
        elif not typing and pygame.K_F1 <= event.key <= pygame.K_F12:
            self.act(f"seek:{event.key - pygame.K_F1}")
        elif not typing and event.key in CYCLE_KEYS:
            chooser = getattr(self, CYCLE_KEYS[event.key])
            if isinstance(chooser, Toggle):
                chooser.on = not chooser.on
            elif chooser.options:
                step = -1 if event.mod & pygame.KMOD_SHIFT else 1
                chooser.index = (chooser.index + step) % len(chooser.options)
        elif not typing and event.key == TAB_KEY:
            self.show_tab("rooms" if self.tab == "games" else "games")
        elif not typing and event.key == SOUND_KEY:
            self.act("sound")
        elif not typing and event.key == TOP_KEY:
            self.show_tab("rooms" if self.tab == "top" else "top")
        elif not typing and self.tab == "top" and event.key in LIST_STEPS:
            page = self.top_view.visible_rows()
            steps = {pygame.K_UP: -1, pygame.K_DOWN: 1, pygame.K_PAGEUP: -page,
                     pygame.K_PAGEDOWN: page}
            self.top_view.move(steps[event.key])
        elif not typing and self.tab == "top" and event.key in (pygame.K_RETURN,
                                                                pygame.K_KP_ENTER):
            self.act("top_profile")
        elif not typing and self.tab == "games" and event.key == OPPONENT_KEY:
            self.act("opponent_profile")
        elif not typing and self.tab == "games" and event.key in LIST_STEPS:
            self.games_view.move(LIST_STEPS[event.key])
        elif not typing and self.tab == "games" and event.key in (pygame.K_RETURN,
                                                                  pygame.K_KP_ENTER):
            self.act("open_game")
        elif not typing and event.key in (pygame.K_PAGEUP, pygame.K_PAGEDOWN) and self.rooms:
            step = -1 if event.key == pygame.K_PAGEUP else 1
            current = self.rooms_view.selected
            index = 0 if current is None else (current + step) % len(self.rooms)
            self.rooms_view.selected = index
            visible = self.rooms_view.visible_rows()
            if index < self.rooms_view.scroll or index >= self.rooms_view.scroll + visible:
                self.rooms_view.scroll = max(0, index - visible + 1) if step > 0 else index
        elif not typing and event.key == pygame.K_w:
            self.act("watch")
        elif not typing and event.key == pygame.K_j:
            self.act("join_room")
        elif not typing and event.key in (pygame.K_UP, pygame.K_DOWN) and self.app.games:
            step = -1 if event.key == pygame.K_UP else 1
            self.game_index = (self.game_index + step) % len(self.app.games)
            self._refresh_game()

    def act(self, action: str) -> None:
        """Do what a button or shortcut asks."""
        game = str(self.game.get("game", ""))
        if action not in OFFLINE_ACTIONS and self.app.net_status != "online":
            # a message sent now would be dropped: say so instead of doing nothing
            self.say("Not connected to the server: wait until it is back (see the top right), "
                     "or Disconnect (Ctrl+D).", theme.WARN)
            return
        if action.startswith("seek:"):
            presets = clock_presets(game)
            i = int(action[5:])
            if not game or i >= len(presets):
                return
            try:
                options = self.chosen_options()
            except ValueError as exc:
                self.say(f"Options: {exc}", theme.BAD)
                return
            seek: dict[str, Any] = {"type": "join", "game": game, "clock": presets[i][1]}
            if self.variant.value:
                seek["variant"] = self.variant.value
            if options:
                seek["options"] = options
            self.request(seek)
            self.seeking = seek
            self.say(f"Looking for an opponent: {self.game.get('name', game)}, {presets[i][0]}…")
        elif action == "cancel":
            self.request({"type": "leave"})
            self.queued = self.seeking = None
            self.say("Search cancelled.")
        elif action == "create":
            self.create_room(game)
        elif action in ("join", "watch_code"):
            code = self.code.value.strip()
            if not code:
                self.say("Type a room code first.", theme.BAD)
                return
            role = "spectator" if action == "watch_code" else "player"
            self.request({"type": "join", "room": code, "role": role})
        elif action in ("watch", "join_room"):
            index = self.rooms_view.selected
            if index is None or index >= len(self.rooms):
                self.say("Pick a room in the list first.", theme.BAD)
                return
            found = self.rooms[index].get("room")
            if not isinstance(found, str):
                return
            code = found
            if action == "watch" and self.rooms[index].get("seek"):
                self.say("That is someone waiting for an opponent: Join seat (J) plays them.",
                         theme.WARN)
                return
            self.refresh_room_buttons()
            if action == "join_room" and not self.join_room.enabled:
                self.say("Both seats of that game are taken: Watch (W) follows it.", theme.WARN)
                return
            role = "spectator" if action == "watch" else "player"
            self.request({"type": "join", "room": code, "role": role})
        elif action == "replay":
            self.start_replay(self.replay_source.value.strip())
        elif action == "open_game":
            self.open_my_game()
        elif action == "top_profile":
            self.open_top_profile()
        elif action == "opponent_profile":
            self.open_opponent_profile()
        elif action == "refresh_games" and self.tab == "top":
            self.reload_top()
        elif action == "refresh_games":
            self.show_tab("games")
            self.reload_games()
        elif action == "disconnect":
            self.app.disconnect()
            self.app.pop(self)
        elif action == "sound":
            saved, words = sounds.toggle(self.app.config)
            self.sound_button.label = sounds.label(self.app.config.sound)
            self.say(f"{words} (in a room, V turns it {'off' if self.app.config.sound else 'on'})."
                     if saved else words, theme.TEXT if saved else theme.WARN)

    def create_room(self, game: str) -> None:
        """Send ``create`` with the form's choices (checking the start position first); once
        until the server answers, so a double click on a slow server opens one room."""
        if not game:
            return
        message: dict[str, Any] = {"type": "create", "game": game,
                                   "color": self.color.value, "private": self.private.on}
        if self.variant.value:
            message["variant"] = self.variant.value
        if self.opponent.value == "hotseat":
            self.start_hotseat()
            message["color"] = "first"
        elif self.opponent.value:
            message["opponent"] = self.opponent.value
        try:
            options = self.chosen_options()
        except ValueError as exc:
            self.say(f"Options: {exc}", theme.BAD)
            return
        if options:
            message["options"] = options
        if self.clock.value != "none":
            message["clock"] = clock_presets(game)[int(self.clock.value)][1]
        if self.position.value.strip():
            try:
                kind, text = read_start(self.position.value)
            except ValueError as exc:
                self.say(f"Start position: {exc}", theme.BAD)
                return
            message[kind] = text
        if self.creating is not None and self.app.clock() < self.creating[1]:
            self.say("Creating the room… (waiting for the server)")
            return
        self.creating = (self.request(message), self.app.clock() + CREATE_WAIT_S)
        self.say("Creating the room…")

    def start_hotseat(self) -> None:
        """Open a second connection for the other seat (it joins when the room exists)."""
        from client.net import Connection

        if self.app.connection is None:
            return
        for seat, conn in list(self.app.seat_connections.items()):
            if conn is not self.app.connection:
                conn.close()
            del self.app.seat_connections[seat]
        helper = Connection(self.app.url, "Player 2", ssl=self.app.ssl_context)
        helper.start()
        self.app.seat_connections = {"first": self.app.connection, "second": helper}
        self.hotseat_pending = True

    def start_replay(self, source: str) -> None:
        """Load a record (a file here, or ``GET /games/ID?format=json`` on a thread)."""
        from client.scenes.replay import RecordError, ReplayScene, parse_record

        if not source:
            self.say("Type a game id or the path of a record file.", theme.BAD)
            return
        path = Path(os.path.expanduser(source))
        if path.is_file():
            try:
                record = parse_record(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, RecordError) as exc:
                self.say(f"Cannot replay {path.name}: {exc}", theme.BAD)
                return
            self.app.push(ReplayScene.from_record(self.app, record))
            return
        if any(mark in source for mark in "/\\.~:"):  # a game id is letters and digits only
            self.say(f"No record file {source}: type the path of a JSON, PGN or PDN file, or a "
                     "game id (letters and digits).", theme.BAD)
            return
        self.fetch, self.opening = self.app.record_fetch(source), None
        self.say(f"Fetching game {source}…")

    def show_tab(self, tab: str) -> None:
        """Show the rooms (``rooms``) or the user's games (``games``) in the right column; the
        games are read when they have not been yet."""
        self.tab = tab
        if tab == "games" and not self.my_games.loaded and not self.my_games.loading:
            self.reload_games()
        top = self.top_players
        if tab == "top" and not top.loading and (not top.loaded or top.pool != self.pool()):
            self.reload_top()

    def open_my_game(self) -> None:
        """Open the game picked in "Your games": a finished one as a replay (its record is
        usually read already), an unfinished one by going back to its room."""
        from client.scenes.replay import ReplayScene

        index = self.games_view.selected
        if index is None or index >= len(self.my_rows):
            self.say("Pick a game in the list first.", theme.BAD)
            return
        row = self.my_rows[index]
        if not row.finished:
            if self.app.net_status != "online":
                self.say("Not connected to the server: wait until it is back to go back to "
                         "that game.", theme.WARN)
                return
            self.request({"type": "join", "room": row.room})
            self.say(f"Going back to room {row.room}…")
            return
        record = self.my_games.records.get(row.game_id)
        if record is None:
            self.fetch, self.opening = self.app.record_fetch(row.game_id), row
            self.say(f"Fetching game {row.game_id}…")
            return
        self.say("")
        self.app.push(ReplayScene.from_seat(self.app, record, row.seat))

    def picked_opponent(self) -> tuple[str, str] | None:
        """The player id and name of the opponent in the game picked in "Your games" (None:
        no game picked, nobody in the other seat, or the server's computer player)."""
        index = self.games_view.selected
        if index is None or index >= len(self.my_rows):
            return None
        row = self.my_rows[index]
        return (row.opponent_id, row.opponent) if row.opponent_id else None

    def open_top_profile(self) -> None:
        """Open the profile of the player picked in "Top players"."""
        index = self.top_view.selected
        if index is None or index >= len(self.top_rows) or not self.top_rows[index].player:
            self.say("Pick a player in the list first (Up/Down, or a click).", theme.BAD)
            return
        row = self.top_rows[index]
        self.open_profile(row.player, row.name)

    def open_opponent_profile(self) -> None:
        """Open the profile of the opponent in the game picked in "Your games"."""
        if self.games_view.selected is None:
            self.say("Pick a game in the list first.", theme.BAD)
            return
        found = self.picked_opponent()
        if found is None:
            self.say("That game's opponent has no profile (nobody sat there, or it was the "
                     "server's computer player).", theme.WARN)
            return
        self.open_profile(*found)

    def open_profile(self, player: str, name: str) -> None:
        """Show ``player``'s profile over the lobby (Esc comes back to this list)."""
        from client.scenes.profile_card import ProfileCard

        self.say("")
        self.app.push(ProfileCard(self.app, player, name, origin=self))

    def selected_room(self) -> dict[str, Any] | None:
        """The room picked in the list, if any."""
        index = self.rooms_view.selected
        return self.rooms[index] if index is not None and index < len(self.rooms) else None

    def refresh_room_buttons(self) -> None:
        """Watch and Join seat are on only for a picked room where they can work: nobody
        watches a seek (it has no game yet), and a seat is free only in a seek, a room still
        waiting for its second player, or a game we sit in ourselves (Join seat goes back)."""
        picked = self.selected_room()
        if picked is None:
            self.watch_room.enabled = self.join_room.enabled = False
            return
        seats = picked.get("seats") if isinstance(picked.get("seats"), list) else []
        names = [str(n) for n in seats or [] if n]
        self.watch_room.enabled = not picked.get("seek")
        self.join_room.enabled = bool(
            picked.get("seek") or len(names) < 2 or self.app.welcome.get("name") in names)

    def update(self, dt: float) -> None:
        """Open a replay once its record has arrived."""
        from client.scenes.replay import ReplayScene

        self.refresh_room_buttons()
        if self.my_games.poll():
            self.show_games()
        games = self.my_games
        self.games_view.empty_text = (
            "Reading your games…" if games.loading and not games.loaded else
            "" if games.error and not games.loaded else "No games of yours on this server yet.")
        self.open_game.enabled = self.games_view.selected is not None
        self.opponent_profile.enabled = self.picked_opponent() is not None
        self.top_profile.enabled = self.top_view.picked_player() is not None
        self.update_top()
        found = self.fetch.result() if self.fetch is not None else None
        if found is None:
            return
        row, self.fetch, self.opening = self.opening, None, None
        self.app.invalidate()
        # a game of ours from our side in it, as when its record was read already
        error = ReplayScene.open_fetched(self.app, found, row.seat if row is not None else None)
        if error is None:
            self.say("")
        else:
            self.say(str(error), theme.BAD)

    def update_top(self) -> None:
        """Take the top players once read; read them again when the selected game or variant
        is no longer the one shown."""
        top = self.top_players
        if self.tab == "top" and top.pool != self.pool():
            self.reload_top()
        if top.poll():
            self.top_rows = top.rows(self.app.player_id)
            self.top_view.show(self.top_rows)
            self.app.invalidate()
        label = pool_label(self.game, self.variant.value) if self.game else "?"
        self.top_view.header = ("#", Fit(f"Player · {label}", "Player"), "Rating", "Games")
        self.top_view.empty_text = (
            "Reading the top players…" if not top.loaded and not top.error else
            "" if top.error and not top.loaded else f"No rated {label} games here yet.")
        self.top_view.rect.height = LIST_RECT.height - (ERROR_HEIGHT + 8 if top.error else 0)

    def show_games(self) -> None:
        """Rebuild the games list from what has been read (keeping the picked game picked)."""
        picked = self.games_view.selected
        picked_id = (self.my_rows[picked].game_id
                     if picked is not None and picked < len(self.my_rows) else None)
        self.my_rows = self.my_games.rows(self.app.player_id, self.app.games)
        self.games_view.set_rows([row_cells(r) for r in self.my_rows])
        ids = [r.game_id for r in self.my_rows]
        self.games_view.selected = ids.index(picked_id) if picked_id in ids else None
        self.games_view.rect.height = LIST_RECT.height - (ERROR_HEIGHT + 8
                                                          if self.my_games.error else 0)
        self.app.invalidate()

    def request(self, message: dict[str, Any]) -> int:
        """Send ``message`` and remember its id to show its error here; returns the id."""
        sent = self.app.send(message)
        self.my_requests.add(sent)
        return sent

    def say(self, text: str, color: theme.Color = theme.MUTED) -> None:
        """Show a status line."""
        self.status, self.status_color = text, color

    # ---- network ------------------------------------------------------------------------------

    def on_message(self, message: dict[str, Any]) -> None:
        """Rooms list, queue state, errors; a new ``welcome`` refreshes the games."""
        kind = message.get("type")
        if self.creating is not None and reply_to(message) == self.creating[0]:
            self.creating = None
        if kind == "rooms" and isinstance(message.get("rooms"), list):
            self.rooms = [r for r in message["rooms"] if isinstance(r, dict)]
            self.rooms_view.set_rows([self.room_row(r, self.app.games) for r in self.rooms])
        elif kind == "queued":
            self.queued = message
        elif kind == "over":
            self.reload_games()  # a game of ours (or one we watch) ended: its row changes
            if self.tab == "top":
                self.reload_top()
        elif kind == "room":
            self.queued = self.seeking = None
            self.say("")
            code = message.get("room")
            if self.hotseat_pending and isinstance(code, str) and message.get("you") == "first":
                self.hotseat_pending = False
                self.app.send({"type": "join", "room": code}, "second")
        elif kind == "welcome":
            self._refresh_game()
            if self.app.top is self:
                self.app.send({"type": "list", "watch": True})
                self.reload_games()
            resumed = message.get("resumed")
            if isinstance(resumed, list):
                from client.scenes.room import RoomScene

                open_rooms = {s.model.room for s in self.app.find(RoomScene)}
                for code in resumed:
                    if isinstance(code, str) and code not in open_rooms:
                        self.app.send({"type": "join", "room": code})
                        self.seeking = None  # perhaps the game it found: no second one
            self.search_again()
        elif kind == "error" and reply_to(message) in self.my_requests:
            self.say(str(message.get("message") or message.get("code")), theme.BAD)
            if self.queued and message.get("code") != "not_allowed":
                self.queued = None
            if message.get("code") != "not_allowed":
                self.seeking = None

    def search_again(self) -> None:
        """Ask again for the search a dropped connection ended, and say so."""
        if self.seeking is None:
            return
        self.request(self.seeking)
        self.say("Connection back: looking for an opponent again…")

    def on_net(self, event: NetEvent) -> None:
        """Forget the queue on a drop (the server forgets it too; :meth:`search_again` asks
        for it once back)."""
        if event.kind in ("closed", "failed"):
            self.queued = None
            self.creating = None  # the answer went with the connection
            if self.seeking is not None:
                self.say("Connection lost: the search goes on once it is back…", theme.WARN)
        if event.kind == "failed" or (event.kind == "closed" and event.code in NO_RECONNECT_CODES):
            self.seeking = None
            # The connection is gone for good: an offline lobby has only dead buttons. Leave
            # it, also from under a room, so leaving the room goes back to the connect scene
            # (with the reason) to connect again.
            self.app.pop(self)

    @staticmethod
    def room_row(r: dict[str, Any], games: list[dict[str, Any]] | None = None) -> list[str]:
        """One row of the room list: the game by name (a variant other than the game's first
        by the variant's name), players, clock and how many watch."""
        spectators = r.get("spectators")
        game = game_label(r.get("game"), r.get("variant"), games or [])
        shorter = SHORTER_GAME_NAMES.get(game)
        return [str(r.get("room", "?")), Fit(game, shorter) if shorter else game,
                players_cell(r), clock_cell(r.get("clock")),
                str(spectators if isinstance(spectators, int) else 0)]

    # ---- drawing ------------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        """Header, the three columns and the status line."""
        w, _ = theme.LOGICAL_SIZE
        draw.text(surface, "Boardhall", (28, 16), 30)
        who = f"{self.app.welcome.get('name', '?')} @ {self.app.address or self.app.url}"
        status_color = theme.GOOD if self.app.net_status == "online" else theme.WARN
        draw.disc(surface, status_color, (790, 31), 6)
        status = self.app.net_status
        if status == "online" and self.app.rtt_ms is not None:
            status += f" · ping {self.app.rtt_ms} ms"
        line = fonts.fit_keeping(who, f"  ·  {status}", 15, 320)  # cut the address, not the state
        draw.text(surface, line, (804, 31), 15, theme.MUTED, "midleft", 320)
        self.sound_button.draw(surface)
        self.leave_button.draw(surface)
        pygame.draw.line(surface, theme.BORDER, (0, 62), (w, 62))
        self._draw_games(surface)
        self._draw_play(surface)
        self._draw_rooms(surface)
        self._draw_status(surface)

    def _draw_status(self, surface: pygame.Surface) -> None:
        """The lobby's line along the bottom, left of the app's notice while one is up (in two
        lines if it must)."""
        if not self.status:
            return
        if not self.app.notice:
            draw.text(surface, self.status, (28, 770), 16, self.status_color, "midleft", 1220)
            return
        width = self.notice_rect().left - 28 - 12
        lines = fonts.wrap(self.status, 16, width)
        if len(lines) > 2:  # the rest of the second line is cut rather than lost under the notice
            lines = [lines[0], " ".join(lines[1:])]
        top = 770 - 10 * (len(lines) - 1)
        for row, line in enumerate(lines):
            draw.text(surface, line, (28, top + 20 * row), 16, self.status_color, "midleft",
                      width)

    def notice_rect(self) -> pygame.Rect:
        """The app's notice goes right of the bottom strip, so the lobby's line keeps the left
        (it answers what the user just did)."""
        return pygame.Rect(652, 752, 604, 36)

    def _draw_games(self, surface: pygame.Surface) -> None:
        draw.text(surface, "Games", (28, 78), 20)
        games = self.app.games
        if not games:
            draw.text(surface, "The server listed no games.", (28, 120), 16, theme.MUTED)
        for i, (rect, g) in enumerate(zip(self.game_rows(), games, strict=False)):
            chosen = i == min(self.game_index, len(games) - 1)
            draw.panel(surface, rect, theme.ACCENT_DIM if chosen else theme.PANEL,
                       theme.ACCENT if chosen else theme.BORDER)
            name_rect = draw.text(surface, str(g.get("name") or g.get("game")),
                                  (rect.left + 14, rect.top + 9), 18, theme.TEXT,
                                  max_width=rect.width - 28)
            cjk = theme.game_subtitle(str(g.get("game")))  # a custom game's variants: none
            if cjk and fonts.can_show(cjk) and (
                    name_rect.right + 16 + fonts.text_width(cjk, 20) < rect.right - 12):
                draw.text(surface, cjk, (rect.right - 12, rect.top + 9), 20,
                          theme.TEXT if chosen else theme.MUTED, "topright")
            variants: list[Any] = g["variants"] if isinstance(g.get("variants"), list) else []
            names = ", ".join(str(v.get("name") or v.get("id")) for v in variants
                              if isinstance(v, dict))
            draw.text(surface, names or str(g.get("game")), (rect.left + 14, rect.top + 32), 13,
                      theme.MUTED if not chosen else theme.TEXT, max_width=rect.width - 28)
        if games:
            self.variant.draw(surface)
            bottom = OPTION_TOP - 34 if self.option_widgets or self.options_text else 614
            draw.paragraph(surface, self.variant_description() or "No description.",
                           pygame.Rect(28, 524, 352, bottom - 524), 15, theme.MUTED)
            self._draw_options(surface)

    def _draw_options(self, surface: pygame.Surface) -> None:
        """The chosen game's options: a row each, its caption left and its widget right."""
        if not self.option_widgets and self.options_text is None:
            return
        draw.text(surface, "Game options",
                  (28, OPTION_TOP - 8), 14, theme.MUTED, "bottomleft", 352)
        for name, widget in self.option_widgets.items():
            row = widget.rect.centery
            draw.text(surface, option_words(name), (28, row), 16, theme.TEXT, "midleft",
                      widget.rect.left - 28 - 12)
            if isinstance(widget, Toggle):
                widget.label = "on" if widget.on else "off"
            widget.draw(surface)
        if self.options_text is not None:
            self.options_text.draw(surface)

    def _draw_play(self, surface: pygame.Surface) -> None:
        box = pygame.Rect(412, 74, 400, 680)
        draw.text(surface, "Quick game", (box.left + 16, 78), 20)
        if self.queued:
            clock = clock_text(self.queued.get("clock") if isinstance(self.queued.get("clock"),
                                                                       dict) else None)
            draw.panel(surface, pygame.Rect(box.left + 16, 112, 376, 100), theme.PANEL_HI,
                       theme.ACCENT)
            draw.text(surface, "Looking for an opponent…", (box.left + 32, 128), 18)
            game = game_label(self.queued.get("game"), self.queued.get("variant"), self.app.games)
            draw.text(surface, f"{game} · {clock}", (box.left + 32, 158),
                      15, theme.MUTED)
            self.cancel.draw(surface)
        else:
            for b in self.seek_buttons():
                b.draw(surface)
        pygame.draw.line(surface, theme.BORDER, (box.left + 16, 226), (box.right - 8, 226))
        draw.text(surface, "Create a room", (box.left + 16, 238), 20)
        self.opponent.label = self.opponent_label()
        for widget in (self.clock, self.color, self.opponent, self.private, self.position,
                       self.create):
            widget.draw(surface)
        pygame.draw.line(surface, theme.BORDER, (box.left + 16, 546), (box.right - 8, 546))
        draw.text(surface, "Join by code", (box.left + 16, 556), 20)
        draw.text(surface, "Tab: next field  ·  Esc: leave it", (box.right - 8, 562), 13,
                  theme.FAINT, "topright")
        for widget in (self.code, self.join, self.watch_code):
            widget.draw(surface)
        pygame.draw.line(surface, theme.BORDER, (box.left + 16, 660), (box.right - 8, 660))
        self.replay_source.draw(surface)
        self.replay_button.draw(surface)

    def _draw_tabs(self, surface: pygame.Surface) -> None:
        """The right column's three titles, the shown one underlined, and its keys under the
        buttons."""
        for tab, title in (("rooms", "Rooms"), ("games", "Your games"), ("top", "Top players")):
            shown = tab == self.tab
            rect = draw.text(surface, title, (TAB_X[tab], 78), 20, theme.TEXT if shown else
                             theme.MUTED)
            if shown:
                pygame.draw.line(surface, theme.ACCENT, (rect.left, 104), (rect.right, 104), 2)
        draw.text(surface, TAB_HINTS[self.tab], (LIST_RECT.right, HINT_TOP), 13, theme.FAINT,
                  "topright", LIST_RECT.width)

    def _draw_rooms(self, surface: pygame.Surface) -> None:
        self._draw_tabs(surface)
        if self.tab == "games":
            self._draw_my_games(surface)
            return
        if self.tab == "top":
            self._draw_top(surface)
            return
        self.rooms_view.widths = room_widths(self.rooms_view.rows)
        self.rooms_view.draw(surface)
        self.watch_room.draw(surface)
        self.join_room.draw(surface)

    def _draw_my_games(self, surface: pygame.Surface) -> None:
        """The user's games, with a line saying why they could not be read."""
        self.games_view.draw(surface)
        self._draw_error(surface, self.games_view, "your games", self.my_games.error)
        self.open_game.draw(surface)
        self.opponent_profile.draw(surface)
        self.refresh_games.draw(surface)

    def _draw_top(self, surface: pygame.Surface) -> None:
        """The top players, with a line saying why they could not be read."""
        self.top_view.draw(surface)
        self._draw_error(surface, self.top_view, "the top players", self.top_players.error)
        self.top_profile.draw(surface)
        self.refresh_top.draw(surface)

    @staticmethod
    def _draw_error(surface: pygame.Surface, view: ListView, what: str, error: str) -> None:
        """Under a list (made shorter for it), why ``what`` could not be read, if it could
        not."""
        if not error:
            return
        box = pygame.Rect(LIST_RECT.left, view.rect.bottom + 8, LIST_RECT.width, ERROR_HEIGHT)
        draw.panel(surface, box, theme.BAD_BG, theme.BAD)
        draw.paragraph(surface, f"Could not read {what}: {error}", box.inflate(-20, -12), 14,
                       theme.BAD)
