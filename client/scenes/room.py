"""The room: board, clocks, players, move list, chat and every action (button + key).

The scene mirrors the server: it sends what the user asks and shows what the server answers.
Legal targets come from the engine; results come only from ``over``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from client import sounds
from client.annotations import CaptureTracker, position_highlight
from client.boards import make_view
from client.boards.base import BoardView, Marks
from client.browse import BROWSE_KEYS, Browse
from client.chat_mute import ChatEntry, can_mute, chat_entries, entry_of
from client.end_reasons import claim_refusal
from client.moves import (
    PAIRED_GAMES,
    MoveCell,
    MovePicker,
    PathMemo,
    Pick,
    display_moves,
    legal_shapes,
    move_path,
    move_rows,
    shorter_captures,
)
from client.net import NO_RECONNECT_CODES
from client.premove import PREMOVE_CANCELLED, PREMOVE_GAMES, Premoves, describe
from client.room_model import (
    ANSWERED_WORDS,
    OFFER_WORDS,
    SEATS,
    ChatLine,
    RoomModel,
    ending_words,
    format_clock,
    reply_to,
)
from client.scenes import room_panel
from client.scenes.base import BesideBoard
from client.scenes.dialogs import PICTURE, ChoiceDialog, ExpressionDialog
from client.scenes.room_panel import (
    LOCAL_MESSAGE_RECT,
    MESSAGE_RECT,
    PANEL_W,
    PANEL_X,
)
from client.shuqi_hints import landing_refusal, piece_moves
from client.slides import Slides
from client.sound_cues import RoomSounds
from client.ui import draw, fonts, theme, widgets
from client.ui.widgets import Button, TextField, plain_key, pressed
from protocol import limits

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent
    from client.scenes.replay import RecordFetch

BOARD_RECT = pygame.Rect(16, 16, 768, 768)
GAME_NAMES = {"chess": "Chess", "draughts": "Draughts", "shuqi": "Number chess",
              "hexgomoku": "Hexagonal five-in-a-row", "custom": "Custom"}
PROMOTIONS = [("Queen", "q"), ("Rook", "r"), ("Bishop", "b"), ("Knight", "n")]
MOVE_EXAMPLES = {"chess": "/e2e4 or /Nf3", "draughts": "/32-28", "shuqi": "/13,8-10,5=6+3",
                 "hexgomoku": "/0,0", "custom": "/7,2-6,2"}
"""A typed move of each game, shown in the chat field's hint."""


def chat_hint(game: str, seated: bool = True, over: bool = False, local: bool = False) -> str:
    """The chat field's placeholder: for a player during the game with a move example in
    ``game``'s notation; for a spectator, who reads it until the end; and how to mute
    someone's chat. In a ``local`` game nobody reads a chat: only how to type a move."""
    if local:
        example = MOVE_EXAMPLES.get(game) if seated and not over else None
        return f"Enter: type a move, e.g. {example}" if example else ""
    if not seated:
        return f"Enter: chat  ·  {MUTE_HINT}" if over else (
            f"Enter: chat with the other spectators  ·  {MUTE_HINT}")
    example = MOVE_EXAMPLES.get(game) if not over else None
    if example:
        return f"Enter: chat  ·  move: {example}  ·  {MUTE_HINT}"
    return f"Enter: chat  ·  {MUTE_HINT} a player"


MUTE_HINT = "B: mute"
"""How to mute a player, in the chat field's hint (see :meth:`RoomScene.pick_chat`)."""


MESSAGE_LINES = 4
"""The most lines a message shows (a longer one ends with "…")."""
CONFIRM_SECONDS = 4.0
CONFIRM = {
    "resign": "Resign? Press R (or click Resign) again to confirm.",
    "abort": "Abort the game? Press A (or click Abort) again to confirm.",
    "stop": "Call stop and compare scores? Press T (or click Stop) again to confirm.",
    "report": "Report a rule break? Press P (or click Report) again to confirm.",
}
"""Actions that end the game at once ask for a second press first."""


@dataclass(frozen=True)
class Action:
    """A room action: its button label, key, and when it applies."""

    name: str
    label: str
    key: int
    key_text: str
    games: tuple[str, ...] = ()
    """Only for these games (empty: all)."""
    seated: bool = True
    """Only for a player (not a spectator)."""
    short: str = ""
    """The label shown when ``label`` does not fit the button (a small window: the full label
    is then its tooltip)."""


ACTIONS: tuple[Action, ...] = (
    Action("resign", "Resign", pygame.K_r, "R"),
    Action("abort", "Abort", pygame.K_a, "A"),
    Action("draw", "Offer draw", pygame.K_d, "D", short="Draw"),
    Action("undo", "Takeback", pygame.K_u, "U", short="Undo"),
    Action("rematch", "Rematch", pygame.K_m, "M"),
    Action("swap", "Swap sides", pygame.K_s, "S", short="Swap"),
    Action("stop", "Stop", pygame.K_t, "T", games=("shuqi",)),
    Action("report", "Report", pygame.K_p, "P", games=("shuqi",)),
    Action("timeout", "Claim time", pygame.K_c, "C", short="Claim"),
    Action("sit", "Take seat", pygame.K_j, "J", seated=False, short="Sit"),
    Action("result", "Result", pygame.K_g, "G", seated=False),
    Action("flip", "Flip board", pygame.K_f, "F", seated=False, short="Flip"),
    Action("coords", "Coordinates", pygame.K_k, "K", seated=False, short="Coords"),
    Action("premove", "Premoves", pygame.K_q, "Q", games=tuple(sorted(PREMOVE_GAMES)),
           short="Premove"),
    Action("slide", "Slides", pygame.K_o, "O", seated=False),
    Action("sound", "Sound", pygame.K_v, "V", seated=False),
    Action("leave", "Leave", pygame.K_ESCAPE, "Esc", seated=False),
)
"""The room's actions in button order. A button too narrow for its label (number chess's five
columns in a 640x480 window) shows the short label, keeps its key under it, and shows the full
label and key as a tooltip under the pointer."""
ACTIONS_BY_NAME = {a.name: a for a in ACTIONS}
LOCAL_ACTIONS = frozenset({"result", "flip", "coords", "premove", "slide", "sound", "leave"})
"""Actions that work without the server (the others are off while the connection is down)."""
CLOSED_WORDS = ("This room has closed: the game is over and its players have left. "
                "Esc goes back to the lobby.")
OFFLINE_WORDS = "Not connected to the server: wait for it to come back, or Esc to leave."
PICK_WORDS = ("Enter: ", " · Up/Down: other lines · Esc")
"""What the room says while a chat line is picked, around "mute NAME" or "unmute NAME"."""
MUTE_KEY = pygame.K_b
"""Picks a chat line to mute (or unmute) its author (then Up/Down, Enter, Esc)."""
VOLUME_KEYS = {pygame.K_MINUS: -1, pygame.K_KP_MINUS: -1, pygame.K_EQUALS: 1,
               pygame.K_PLUS: 1, pygame.K_KP_PLUS: 1}
"""Keys that make the sounds softer or louder (``+`` is Shift and ``=`` on many keyboards)."""
PENDING_WORDS = "Your move is on its way to the server…"
PREMOVES_OFF = "Premoves are off: wait for your turn (Q turns them on)."

TRACKED = frozenset({"chat", "offer", "answer", "resign", "abort", "stop", "report", "timeout",
                     "join"})
"""Requests kept until their reply: when the connection drops first, the room says they were not
confirmed, and after the reconnect which ones the server never had (a move has its own line)."""
ACT_WORDS = {"resign": "your resignation", "abort": "your abort", "stop": "your stop call",
             "report": "your report", "timeout": "your claim on time",
             "join": "your taking the free seat"}
"""What a request that ends the game (or takes a seat) is called when it was lost."""
QUOTE_CHARS = 32
"""A lost chat line is quoted up to this many characters."""


@dataclass(frozen=True)
class Asked:
    """A request sent about this room and not answered yet."""

    message: dict[str, Any]
    seat: str | None
    """Our seat when it was sent."""
    plies: int
    """Moves made when it was sent."""


WAITING_WITH_CODE = (
    "Waiting for an opponent: room code {code} (Ctrl+C copies)",
    "Waiting for an opponent: code {code} (Ctrl+C copies)",
    "Waiting for an opponent: code {code} (Ctrl+C)",
    "Waiting for an opponent: code {code}",
    "Waiting · code {code}",
    "Code {code}",
)
"""The status line of a seated player waiting in their room, longest first: the window shows
the longest that fits (each keeps the code whole)."""


def joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


class RoomScene(BesideBoard):
    """One room: playing or watching."""

    def __init__(self, app: App, code: str) -> None:
        super().__init__(app)
        self.model = RoomModel(room=code)
        self.view: BoardView | None = None
        self.view_key: tuple[str, str | None] = ("", None)
        self.view_error = ""
        self.flipped = False
        self.coordinates = True
        self.picker = MovePicker("")
        self.picker_key: tuple[str, str, str | None, int, str] | None = None
        self.premoves = Premoves(app.config.premoves)
        """The move entered during the opponent's turn (see :mod:`client.premove`)."""
        self.promotion_dialog: ChoiceDialog | None = None
        """The dialog offering another piece for a promotion premove (it queens meanwhile)."""
        self.hover: str | None = None
        self.message = ""
        self.message_color = theme.MUTED
        self.message_until = 0.0
        self.message_lines = 2
        """The most lines the current message takes (see :meth:`say`)."""
        self.pick_note = ""
        """What the move picker last said about a click (it goes once the move is played)."""
        self.my_requests: set[int] = set()
        self.asked: dict[int, Asked] = {}
        """Requests (see :data:`TRACKED`) waiting for their reply, by id."""
        self.cut_off: list[Asked] = []
        """Requests whose connection dropped before their reply: the snapshot after the
        reconnect tells which ones the server had."""
        self.chat_field = TextField(pygame.Rect(PANEL_X, 574, PANEL_W, 36), "", "",
                                    chat_hint(""),
                                    limits.CHAT_CHARS)
        self.offer_buttons = (
            Button(pygame.Rect(0, 0, 110, 42), "Accept", "accept", "Y", primary=True, size=15),
            Button(pygame.Rect(0, 0, 110, 42), "Decline", "decline", "N", size=15),
        )
        offer_rect = self.offer_rect()
        self.offer_buttons[0].rect.midright = (offer_rect.right - 130, offer_rect.centery)
        self.offer_buttons[1].rect.midright = (offer_rect.right - 12, offer_rect.centery)
        self._armed: tuple[str, float, str] | None = None
        """An action asked once that needs a second press to happen, until when, and the
        question that asks it."""
        self.last_clock_face: tuple[str, ...] = ()
        self._buttons: list[Button] = []
        self._buttons_key: tuple[str, bool] | None = None
        self._shown_key: tuple[int, str | None] = (-1, None)
        self.end_fetch: RecordFetch | None = None
        """The record being read of a game whose room closed under it."""
        self._shown_moves: list[str] = []
        self.result_shown_for = ""
        self.pending_move: str | None = None
        self.pending_ply: int | None = None
        """The ply :attr:`pending_move` was sent for."""
        self.pending_cut = False
        """The connection dropped while :attr:`pending_move` was on its way: the snapshot after
        the reconnect tells whether the server got it."""
        self._pending_state: tuple[Any, str | None, Any] = (None, None, None)
        """The position :attr:`pending_move` was played in, the move, and the position after it
        (see :meth:`pending_state`)."""
        self.drag: tuple[str, tuple[int, int]] | None = None
        self.mouse: tuple[int, int] = (-1, -1)
        """(point, pointer position) while a piece is dragged."""
        self.move_scroll = 0
        """Move-list lines scrolled back from the newest (mouse wheel); a new move resets it."""
        self.captures = CaptureTracker()
        self.span: tuple[str, ...] = ()
        """A number chess span whose expression is being asked: the mover's point, the spanned
        pieces' points, the landing point (marked on the board while the dialog is open)."""
        self._check: tuple[tuple[Any, ...], tuple[str, ...]] = ((), ())
        self._pending_path = PathMemo()
        self.browse = Browse()
        """Which position the board shows: the live one, or one the user stepped back to."""
        self.sound = RoomSounds(app.sounds.play)
        """This room's sounds (see :mod:`client.sound_cues`)."""
        self.slides = Slides(app.clock)
        """The slide of a move that came from the server (see :mod:`client.slides`)."""
        self.chat_pick: ChatLine | None = None
        """The chat line picked (B, Up/Down, or a click) to mute or unmute its author."""
        self._chat_shown: tuple[Any, list[ChatEntry]] = (None, [])
        """:meth:`chat_shown`'s last answer, with what it was made from."""

    # ---- helpers ------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        """The app's monotonic time."""
        return self.app.clock()

    def say(self, text: str, color: theme.Color = theme.MUTED, seconds: float = 8.0,
            lines: int = 2) -> None:
        """Show a message near the board for a while, in up to ``lines`` lines (more than two
        only for what must be read whole: actions a dropped connection cut off)."""
        self.message, self.message_color = text, color
        self.message_until = self.now + seconds
        self.message_lines = max(1, min(lines, MESSAGE_LINES))

    def warning_shown(self) -> bool:
        """Whether a warning or an error is on screen still (a routine notice waits)."""
        return (bool(self.message) and self.now < self.message_until
                and self.message_color in (theme.WARN, theme.BAD))

    def request(self, message: dict[str, Any], seat: str | None = None) -> None:
        """Send a message about this room, remembering its id for errors."""
        message = {**message, "room": self.model.room}
        sent = self.app.send(message, seat or self.acting_seat())
        self.my_requests.add(sent)
        if message.get("type") in TRACKED and not self.app.seat_connections:
            # hot-seat play runs on an embedded server (no drops), partly through a helper
            # connection whose replies the app does not deliver
            self.asked[sent] = Asked(message, self.model.you, len(self.model.moves))

    def acting_seat(self) -> str | None:
        """The seat we act for: ours, or in hot-seat play the side to move."""
        if self.app.seat_connections:
            return self.model.turn if self.model.status == "playing" else self.model.you
        return self.model.you

    @property
    def online(self) -> bool:
        """True while the connection to the server is up (actions can reach it)."""
        return self.app.net_status == "online"

    @property
    def seated(self) -> bool:
        """True when we hold a seat (or play both in hot-seat)."""
        return self.model.you is not None or bool(self.app.seat_connections)

    def opponent_away(self) -> bool:
        """True when a seat we do not play for has a player who is not connected."""
        for seat in ("first", "second"):
            info = self.model.seats.get(seat)
            if seat != self.model.you and isinstance(info, dict) and not info.get("connected",
                                                                                    True):
                return True
        return False

    def opponent_out_of_time(self) -> bool:
        """True when the clock running is the opponent's and reads zero (its main time, its
        per-move limit or its first-move deadline): the server ends the game itself after a
        short grace for lag, and a claim ends it at once."""
        m, now = self.model, self.now
        running = m.clocks.get("running")
        if running not in ("first", "second") or running == m.you:
            return False
        return m.remaining_ms(running, now) == 0 or m.move_ms(now) == 0

    def bottom_seat(self) -> str:
        """The seat drawn at the bottom (ours, unless flipped)."""
        base = self.model.you or "first"
        if self.app.seat_connections:
            base = "first"
        if self.flipped:
            return "second" if base == "first" else "first"
        return base

    def ensure_view(self) -> None:
        """Create the board renderer for this room's game once its snapshot is known."""
        key = (self.model.game, self.model.variant)
        if not self.model.game or key == self.view_key:
            return
        self.view_key = key
        try:
            self.view = make_view(self.model.game, self.model.variant, self.model.variant_info)
            self.view_error = ""
        except Exception as exc:  # a missing or broken renderer: show text instead of the board
            self.view = None
            self.view_error = f"No board renderer for {self.model.game}: {exc}"
        self.layout_view()

    def layout_view(self) -> None:
        """Fit the board (flipped when we sit second, or on request)."""
        if self.view is not None:
            self.view.layout(BOARD_RECT.inflate(-8, -8), self.bottom_seat() == "second")

    def refresh_picker(self) -> None:
        """New legal moves after the position changed."""
        m = self.model
        key = (m.game, m.game_id, m.start, len(m.moves), m.status)
        if key == self.picker_key:
            return
        self.picker = MovePicker(self.model.game)
        self.picker_key = key
        self.clear_pick_note()  # it was about the position before
        engine = self.model.engine
        if engine is None or self.model.state is None or self.model.status == "over":
            return
        try:
            self.picker.reset(legal_shapes(self.model.game, engine, self.model.state))
        except Exception as exc:
            self.say(f"Cannot list legal moves: {exc}", theme.BAD)
            return
        mover = self.model.turn
        if self.view is not None:
            with contextlib.suppress(Exception):
                self.picker.own = frozenset(
                    point for point, (owner, _) in self.view.pieces_of(self.model.state).items()
                    if owner == mover)
        self.picker.shorter = shorter_captures(engine, self.model.state)

    def pending_state(self) -> Any:
        """The position after our move on its way to the server: the board shows it, and a
        premove entered meanwhile is for it (``None``: no move on its way, or one the engine
        cannot play here, such as a typed move it does not read)."""
        m, move = self.model, self.pending_move
        if move is None or m.engine is None or m.state is None or self.pending_ply != len(m.moves):
            return None
        before, played, after = self._pending_state
        if before is not m.state or played != move:
            after = None
            with contextlib.suppress(Exception):
                after = m.engine.play(m.state, move)
            self._pending_state = (m.state, move, after)
        return after

    def board_state(self) -> Any:
        """The position the board shows: a browsed one, else the live one with our move on its
        way already played."""
        if self.browse.active:
            return self.browse.state(self.model)
        pending = self.pending_state()
        return self.model.state if pending is None else pending

    def premove_mode(self) -> bool:
        """True when a click on the board enters a premove: we play one seat (not both, as in
        hot-seat play) of a game with premoves, and it is the opponent's turn, or ours with our
        move on its way (the premove is then for the position after it and the reply)."""
        m = self.model
        return (m.you is not None and not self.app.seat_connections and m.status == "playing"
                and m.game in PREMOVE_GAMES
                and (m.turn != m.you or self.pending_state() is not None))

    def active_picker(self) -> MovePicker:
        """The picker board clicks go to: the premove one during the opponent's turn."""
        return self.premoves.picker if self.premove_mode() else self.picker

    def refresh_premoves(self) -> None:
        """List what may be premoved in this position (once per position, when first needed):
        the position after our move on its way is the one its confirmation brings, so a premove
        half entered meanwhile stays."""
        m = self.model
        pending = self.pending_state()
        plies = len(m.moves) + (pending is not None)
        self.premoves.prepare((m.game, m.game_id, m.start, plies, m.you), m.game, m.engine,
                              m.state if pending is None else pending)

    def available(self, action: Action) -> bool:
        """Whether ``action`` makes sense now."""
        m = self.model
        if action.games and m.game not in action.games:
            return False
        if action.name == "result":
            return m.status == "over"
        if action.name not in LOCAL_ACTIONS and not self.online:
            return False  # nothing would reach the server (a message sent now is dropped)
        if action.name == "sit":
            return (not self.seated and m.status == "waiting"
                    and any(not m.seats.get(seat) for seat in ("first", "second")))
        if not action.seated:
            return True
        if not self.seated:
            return False
        if action.name == "premove":  # in hot-seat play every turn is the user's
            return not self.app.seat_connections
        if action.name == "rematch":
            return m.status == "over" and not m.closed
        if action.name == "swap":
            return m.status != "over" and not m.moves
        if action.name == "resign":
            return m.status == "playing" or (m.status == "waiting" and bool(m.moves))
        if action.name == "abort":
            return m.status == "playing" and len(m.moves) < 2
        if action.name == "undo":  # a takeback undoes the asker's own last move
            if (m.variant_info or {}).get("undo_allowed") is False:
                return False  # a custom variant without undo: the server refuses every offer
            return m.status == "playing" and (
                bool(m.moves) if self.app.seat_connections else m.has_moved(m.you))
        if action.name == "timeout":  # the server can only refuse a claim before time is up
            if m.status != "playing":
                return False
            return self.opponent_out_of_time() if timed(m.clock) else self.opponent_away()
        return m.status == "playing"

    # ---- input --------------------------------------------------------------------------------

    def handle_event(self, event: pygame.event.Event) -> None:
        """Board clicks, buttons, offer answers, chat and shortcuts."""
        if event.type == pygame.MOUSEWHEEL and room_panel.moves_rect(self).collidepoint(self.mouse):
            self.scroll_moves(event.y * 2)
            return
        if event.type == pygame.MOUSEWHEEL and any(
                b.action == "sound" and b.rect.collidepoint(self.mouse) for b in self.buttons()):
            self.change_volume(event.y)  # the wheel over the Sound button: its volume
            return
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
            self.hover = self.view.point_at(event.pos) if self.view else None
            if self.drag is not None:
                self.drag = (self.drag[0], event.pos)
            for b in [*self.buttons(), *self.offer_buttons]:
                b.handle_event(event)
            return
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.drag is not None:
            origin, self.drag = self.drag[0], None
            if self.browse.active:  # stepped back while holding the piece: no move there
                return
            target = self.view.point_at(event.pos) if self.view else None
            if target is not None and target != origin and self.active_picker().at == origin:
                self.click_board(target)  # dropped on another point: the second click
            return
        if self.model.pending_offer() is not None:
            answer = pressed(self.offer_buttons, event)
            if answer:
                self.answer(answer == "accept")
                return
        action = pressed(self.buttons(), event)
        if action:
            self.act(action)
            return
        if (event.type == pygame.MOUSEBUTTONDOWN and event.button == 3
                and BOARD_RECT.collidepoint(event.pos)):
            self.drag = None
            self.cancel_premove()
            return
        if (
            event.type == pygame.MOUSEBUTTONDOWN
            and event.button == 1
            and BOARD_RECT.collidepoint(event.pos)
            and self.view is not None
        ):
            self.chat_field.focused = False
            if self.browse.active:
                # lichess: a click on a browsed board only brings the game back; no move (and no
                # premove) is ever entered on an earlier position
                self.browse.end()
                return
            point = self.view.point_at(event.pos)
            self.click_board(point)
            if point is not None and self.active_picker().at == point:
                self.drag = (point, event.pos)  # a press on a piece may become a drag
                self.slides.lift(point)
            return
        if (event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
                and not self.app.plays_locally  # no chat: the move list is there
                and room_panel.chat_rect(self).collidepoint(event.pos)):
            self.click_chat(event.pos)
            return
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            ply = room_panel.ply_at(self, event.pos)
            if ply is not None:  # the position after that move (the last one: live)
                self.chat_field.focused = False
                self.browse.go(self.model, ply + 1)
                return
        if (event.type == pygame.KEYDOWN and event.key == pygame.K_c
                and event.mod & (pygame.KMOD_CTRL | pygame.KMOD_META)):
            self.copy_code()  # also while typing in the chat: the chat has nothing to copy
            return
        if self.chat_field.handle_event(event):
            if event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.send_chat()
            return
        if event.type == pygame.KEYDOWN:
            self.key(event)

    def key(self, event: pygame.event.Event) -> None:
        """Keyboard shortcuts (chat not focused)."""
        if self.chat_field.focused:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.send_chat()
            elif event.key == pygame.K_ESCAPE:
                self.chat_field.focused = False
            return
        if self.chat_pick is not None and self.chat_key(event):
            return
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.chat_field.focused = True
            return
        if not plain_key(event):  # Ctrl+D is not D: a modifier never offers a draw
            if event.key == pygame.K_d and event.mod & (pygame.KMOD_CTRL | pygame.KMOD_META):
                self.say("Ctrl+D disconnects from the lobby: leave the room first (Esc).")
            return
        if self.model.pending_offer() is not None and event.key in (pygame.K_y, pygame.K_n):
            self.answer(event.key == pygame.K_y)
            return
        if event.key == pygame.K_ESCAPE and self.premoves.busy:
            self.cancel_premove()
            return
        if event.key == pygame.K_ESCAPE and self.picker.selected is not None:
            self.picker.clear()
            return
        if event.key in (pygame.K_PAGEUP, pygame.K_PAGEDOWN):
            page = self.moves_per_column()
            self.scroll_moves(page if event.key == pygame.K_PAGEUP else -page)
            return
        if event.key in BROWSE_KEYS:
            m, was = self.model, self.browse.index(self.model)
            self.browse.key(m, event.key)
            if self.browse.index(m) != was:
                self.slides.stop()
                if self.app.config.slides and event.key in (pygame.K_LEFT, pygame.K_RIGHT):
                    self.slides.step(self.view, m.game, m.engine, m.history, m.moves, was,
                                     self.browse.index(m))
            self.reveal_browsed()
            return
        if event.key in VOLUME_KEYS:
            self.change_volume(VOLUME_KEYS[event.key])
            return
        if event.key == MUTE_KEY:
            self.pick_chat(-1)
            return
        for action in ACTIONS:
            if event.key == action.key and self.available(action):
                self.act(action.name)
                return

    # ---- muting players' chat ------------------------------------------------------------------

    def muted_ids(self) -> dict[str, str]:
        """The players muted on this server: id -> the name they had when muted."""
        return self.app.config.muted_on(self.app.url) if self.app.url else {}

    def chat_shown(self) -> list[ChatEntry]:
        """The chat as shown: muted players' lines hidden (see :mod:`client.chat_mute`); made
        again only when the lines or the mutes have changed (a frame asks several times)."""
        muted = self.muted_ids()
        key = (tuple(self.model.chat), tuple(muted))
        if self._chat_shown[0] != key:
            self._chat_shown = (key, chat_entries(self.model.chat, muted))
        return self._chat_shown[1]

    def picked_entry(self) -> int | None:
        """The index in :meth:`chat_shown` of the picked line's entry (``None``: none)."""
        return entry_of(self.chat_shown(), self.model.chat, self.chat_pick)

    def is_muted(self, message: dict[str, Any]) -> bool:
        """Whether ``message`` (a chat line or an offer) comes from a muted player."""
        player = message.get("player") if message.get("type") == "chat" else None
        seat = message.get("role") if message.get("type") == "chat" else message.get("by")
        if not isinstance(player, str) or not player:
            info = self.model.seats.get(seat) if seat in SEATS else None
            player = info.get("player") if isinstance(info, dict) else None
        return isinstance(player, str) and player in self.muted_ids()

    def pick_chat(self, step: int) -> None:
        """Pick a chat line whose author can be muted: the newest one, or, while one is
        picked, the next older (``step`` < 0) or newer one (B, Up, Down)."""
        if self.app.plays_locally:
            self.chat_pick = None
            self.say("A game on this computer has no chat to mute.")
            return
        entries = self.chat_shown()
        able = [n for n, e in enumerate(entries) if can_mute(e, self.app.player_id)]
        if not able:
            self.chat_pick = None
            self.say("No chat line from anyone else to mute here.")
            return
        current = entry_of(entries, self.model.chat, self.chat_pick)
        if current is None:
            n = able[-1]
        elif step < 0:
            n = max((a for a in able if a < current), default=current)
        else:
            n = min((a for a in able if a > current), default=current)
        self.show_pick(entries[n])

    def show_pick(self, entry: ChatEntry) -> None:
        """Pick ``entry``'s line and say what Enter does with it."""
        self.chat_pick = self.model.chat[entry.first]
        self.chat_field.focused = False
        verb = "unmute" if entry.player in self.muted_ids() else "mute"
        self.say(f"{PICK_WORDS[0]}{verb} {entry.sender}{PICK_WORDS[1]}", theme.TEXT, 30.0)

    def chat_key(self, event: pygame.event.Event) -> bool:
        """Keys while a chat line is picked: Enter mutes or unmutes its author, Up/Down pick
        another line, Esc (or B on the oldest) stops picking. Returns whether it was one."""
        if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.toggle_mute()
        elif event.key in (pygame.K_UP, pygame.K_DOWN):
            self.pick_chat(-1 if event.key == pygame.K_UP else 1)
        elif event.key == pygame.K_ESCAPE:
            self.stop_picking()
        else:
            return False
        return True

    def stop_picking(self) -> None:
        """No line picked any more (the words about it go too)."""
        self.chat_pick = None
        if self.message.startswith(PICK_WORDS[0]) and self.message.endswith(PICK_WORDS[1]):
            self.message = ""

    def click_chat(self, pos: tuple[int, int]) -> None:
        """A click in the chat: on the picked line's button, mute or unmute; on a line of
        someone else, pick it (again: stop picking); elsewhere, stop picking."""
        button = room_panel.mute_button(self)
        if button is not None and button.rect.collidepoint(pos):
            self.toggle_mute()
            return
        n = room_panel.chat_entry_at(self, pos)
        entries = self.chat_shown()
        if n is None or not can_mute(entries[n], self.app.player_id) or n == self.picked_entry():
            self.stop_picking()
            return
        self.show_pick(entries[n])

    def toggle_mute(self) -> None:
        """Mute the picked line's author, or unmute them, and keep it in the config file."""
        n = self.picked_entry()
        self.chat_pick = None
        if n is None:
            return
        entry = self.chat_shown()[n]
        was = entry.player in self.muted_ids()
        config = self.app.config
        config.set_muted(self.app.url, entry.player, None if was else entry.sender)
        if was:
            words = f"{entry.sender} is heard again: their chat lines show."
        else:
            words = f"{entry.sender} muted: lines hidden, offers silent (B to undo)."
        if not config.save():
            self.say(f"{words} Not kept for next time: {config.problem}", theme.WARN, 12.0, 3)
            return
        self.say(words, theme.TEXT)

    def scroll_moves(self, lines: int) -> None:
        """Scroll the move list back (positive) or forward by ``lines`` (wheel, PgUp/PgDn)."""
        total = len(self.move_rows())
        most = max(0, total - self.moves_per_column() * room_panel.move_columns(self.model.game))
        self.move_scroll = max(0, min(most, self.move_scroll + lines))

    def moves_per_column(self) -> int:
        """How many lines the move list shows per column (more in a local game)."""
        return room_panel.move_rows_in(room_panel.moves_rect(self))

    def reveal_browsed(self) -> None:
        """Scroll the move list so the move whose position a browsed board shows is in view."""
        if not self.browse.active:
            return
        rows = self.move_rows()
        shown = self.browse.index(self.model) - 1
        line = next((j for j, (_, cells) in enumerate(rows)
                     if any(ply == shown for ply, _ in cells)), 0)
        visible = self.moves_per_column() * room_panel.move_columns(self.model.game)
        scroll = max(len(rows) - line - visible, min(len(rows) - line - 1, self.move_scroll))
        self.move_scroll = max(0, min(max(0, len(rows) - visible), scroll))

    def buttons(self) -> list[Button]:
        """The action buttons in a grid under the chat (only the ones for this game)."""
        key = (self.model.game, self.seated)
        if self._buttons_key != key:
            self._buttons_key = key
            shown = [a for a in ACTIONS if (not a.games or self.model.game in a.games)
                     and (self.seated or not a.seated) and not (self.seated and a.name == "sit")]
            cols = 4 if len(shown) <= 12 else 5
            gap = 8
            w, h = (PANEL_W - gap * (cols - 1)) // cols, 50
            top = 626
            self._buttons = []
            for i, a in enumerate(shown):
                x, y = PANEL_X + (i % cols) * (w + gap), top + (i // cols) * (h + gap)
                self._buttons.append(Button(pygame.Rect(x, y, w, h), a.label, a.name, a.key_text,
                                            size=15, short=a.short))
            self.refresh_buttons()
        return self._buttons

    def can(self, name: str) -> bool:
        """Whether the action called ``name`` makes sense now (see :meth:`available`)."""
        return self.available(ACTIONS_BY_NAME[name])

    def refresh_buttons(self) -> None:
        """Enable the buttons that apply now; label the coordinates toggle."""
        for b in self._buttons:
            b.enabled = self.can(b.action)
            if b.action == "coords":
                word = room_panel.coordinates_word(self.model.game)
                state = "on" if self.coordinates else "off"
                b.label, b.short, b.short_hint = f"{word} {state}", word, f"{b.hint} · {state}"
            elif b.action == "premove":
                state = "on" if self.premoves.enabled else "off"
                b.label, b.short = f"Premoves {state}", "Premove"
                b.short_hint = f"{b.hint} · {state}"
            elif b.action == "slide":
                state = "on" if self.app.config.slides else "off"
                b.label, b.short, b.short_hint = f"Slides {state}", "Slides", f"{b.hint} · {state}"
            elif b.action == "sound":
                on, volume = self.app.config.sound, self.app.config.volume
                b.label = f"Sound {volume}%" if on else sounds.label(on)
                b.short, b.short_hint = "Sound", f"{b.hint} · {f'{volume}%' if on else 'off'}"

    def act(self, name: str) -> None:
        """Perform a room action by name."""
        self._act(name)
        self.refresh_buttons()

    def confirmed(self, name: str, question: str) -> bool:
        """True on the second ask of ``name`` within :data:`CONFIRM_SECONDS`; the first ask
        shows ``question`` and waits."""
        armed, self._armed = self._armed, None
        if armed is not None and armed[0] == name and self.now <= armed[1]:
            if self.message == question:  # answered: the question is not shown any more
                self.message = ""
            return True
        self._armed = (name, self.now + CONFIRM_SECONDS, question)
        self.say(question, theme.WARN, CONFIRM_SECONDS)
        return False

    def claim_refusal(self, name: str) -> str:
        """Why a number chess ``stop`` or ``report`` asked now would be refused (see
        :func:`claim_refusal`), or ""."""
        m = self.model
        if name not in ("stop", "report") or m.status != "playing":
            return ""
        claimant = m.turn if self.app.seat_connections else m.you  # hot-seat: the mover's
        return claim_refusal(m, name, claimant or "", lambda seat: short_name(m, seat))

    def forget_asked(self) -> None:
        """The game ended: an action asked once and not confirmed (a report, a resignation,
        leaving a game on) is forgotten, and its question no longer shown: its key may mean
        something else on the result panel (P, number chess's Report, is its Replay)."""
        armed, self._armed = self._armed, None
        if armed is not None and self.message == armed[2]:
            self.message = ""

    def _act(self, name: str) -> None:
        m = self.model
        refusal = self.claim_refusal(name)
        if refusal:  # said at once, nothing asked or sent
            self._armed = None
            self.say(refusal, theme.WARN, 8.0, 3)  # read whole: the pieces still out, say
            return
        if name in CONFIRM and not self.confirmed(name, CONFIRM[name]):
            return
        if name not in CONFIRM and name != "leave":
            self._armed = None  # another action: a half-asked one is forgotten
        if name == "leave":
            self.leave()
        elif name == "flip":
            self.flipped = not self.flipped
            self.layout_view()
        elif name == "coords":
            self.coordinates = not self.coordinates
        elif name == "premove":
            self.toggle_premoves()
        elif name == "slide":
            self.toggle_slides()
        elif name == "sound":
            saved, words = sounds.toggle(self.app.config)
            on = self.app.config.sound
            volume = f", volume {self.app.config.volume}% (- and + change it)" if on else ""
            self.say(f"{words}{volume} (V turns it {'off' if on else 'on'})."
                     if saved else words, theme.TEXT if saved else theme.WARN)
        elif name == "sit":
            self.request({"type": "join", "role": "player"})
            self.say("Taking the free seat…")
        elif name == "result":
            self.result_shown_for = ""
            self.close_result_panel()
            self.show_result()
        elif name == "resign":
            self.request({"type": "resign"})
        elif name in ("draw", "undo", "rematch", "swap"):
            seat = m.you
            if self.app.seat_connections and m.status == "playing":
                # Hot-seat: a takeback is asked by the side that just moved, others by the mover.
                seat = m.turn if name != "undo" else ("second" if m.turn == "first" else "first")
            self.request({"type": "offer", "kind": name}, seat)
            self.say(f"You offered {OFFER_WORDS.get(name, name)}.")
        elif name in ("stop", "report", "timeout", "abort"):
            self.request({"type": name})

    def change_volume(self, steps: int) -> None:
        """Make the sounds louder (``steps`` > 0) or softer (see :func:`sounds.change_volume`):
        the new level is said, shown on the Sound button and heard."""
        saved, words = sounds.change_volume(self.app.config, steps)
        self.say(words, theme.TEXT if saved else theme.WARN, 4)
        self.app.sounds.play("move")
        self.refresh_buttons()

    def answer(self, accept: bool) -> None:
        """Answer the opponent's pending offer."""
        offer = self.model.pending_offer()
        if offer is None:
            return
        by = offer.get("by")
        seat = None
        if self.app.seat_connections:
            seat = "second" if by == "first" else "first"
        self.request({"type": "answer", "kind": offer.get("kind"), "accept": accept}, seat)
        self.model.offers = [o for o in self.model.offers if o is not offer]

    def leave(self) -> None:
        """Leave the room: resign first is the player's choice, so a running game is kept."""
        if not self.online:  # nothing to tell the server; a seat stays ours on the server
            self.close()
            return
        if self.model.status == "playing" and self.model.you is not None:
            if self.confirmed("leave", "The game is on: resign first (R), or press Esc again to "
                              "leave it open for you."):
                self.close()
            return
        self.request({"type": "leave"})
        self.close()

    def close(self) -> None:
        """Remove this scene (and any dialogs above it)."""
        self.cancel_premove()
        self.app.left_rooms[self.model.room] = self.model.game_id
        if self.app.seat_connections and self.app.find(RoomScene) == [self]:
            # Hot-seat ends with its room: close the second seat's connection.
            for conn in self.app.seat_connections.values():
                if conn is not self.app.connection:
                    conn.close()
            self.app.seat_connections = {}
        while self.app.stack and self.app.stack[-1] is not self:
            self.app.pop()
        self.app.pop(self)

    def send_chat(self) -> None:
        """Send the chat line."""
        text = self.chat_field.value.strip()
        if text and not self.online:  # keep the line: it can be sent when the server is back
            self.say(OFFLINE_WORDS, theme.WARN)
            return
        if text and self.model.closed:  # nobody is left to read it
            self.say(CLOSED_WORDS, theme.WARN)
            return
        self.chat_field.value = ""
        self.chat_field.focused = False
        if text.startswith("/") and len(text) > 1:
            self.type_move(text[1:].strip())
        elif text:
            self.request({"type": "chat", "text": text[: limits.CHAT_CHARS]}, self.model.you)

    def copy_code(self) -> None:
        """Put the room's code on the clipboard, to tell a friend (Ctrl+C)."""
        code = self.model.room
        if self.app.plays_locally:
            self.say("A game on this computer has no code to share: nobody else can join it.")
            return
        if widgets.copy_text(code):
            self.say(f"Room code {code} copied: a friend types it under Join by code.",
                     theme.GOOD)
        else:
            self.say(f"No clipboard here: tell your friend the room code {code}.", theme.WARN)

    def type_move(self, text: str) -> None:
        """A move typed as ``/e2e4`` (any notation the server accepts, e.g. SAN ``/Nf3``)."""
        m = self.model
        if not self.seated or m.status == "over":
            self.say("Only a player can move, during the game.", theme.WARN)
            return
        if m.status == "playing" and not self.app.seat_connections and not m.is_my_turn():
            self.say(f"Wait for your turn: it is {short_name(m, m.turn)}'s move.", theme.WARN)
            return  # the server would refuse it ("it is first's turn, not yours")
        self.browse.end()  # a move is played on the live position: show it
        self.send_move(text[: limits.MOVE_CHARS])

    def click_board(self, point: str | None) -> None:
        """A click on the board: select, extend a capture, or move."""
        m = self.model
        if m.status == "over":
            return
        if not self.seated:
            self.say("You are watching this game.")
            return
        if not self.online:
            self.picker.clear()
            self.say(OFFLINE_WORDS, theme.WARN)
            return
        if self.pending_move is not None and not (self.premove_mode()
                                                  and self.premoves.enabled):
            self.say(PENDING_WORDS)  # one move per turn: a second click sends nothing
            return
        if not self.app.seat_connections and (not m.is_my_turn()
                                               or self.pending_move is not None):
            self.picker.clear()
            if self.premove_mode():
                self.premove_click(point)
            elif point is not None:
                self.say("Wait for your turn.")
            return
        self.refresh_picker()
        picked = self.picker.selected
        pick = self.picker.click(point)
        if pick.kind == "none" and m.game == "shuqi" and picked and point and point != picked:
            why = landing_refusal(m.engine, m.state, picked, point)
            if why:  # said, and the piece stays picked for another point
                self.picker.selected = picked
                pick = Pick("illegal", message=why)
        self.apply_pick(pick)

    # ---- premoves -----------------------------------------------------------------------------

    def premove_click(self, point: str | None) -> None:
        """A click during the opponent's turn: enter, replace or cancel the premove."""
        if not self.premoves.enabled:
            if point is not None:
                self.say(PREMOVES_OFF)
            return
        self.refresh_premoves()
        pick = self.premoves.click(point)
        if pick.kind == "choose":
            self.offer_promotions(pick.moves)
        elif pick.kind == "pending" and pick.message:  # a capture path: what comes next
            self.say(pick.message, theme.TEXT, 8)
            self.pick_note = pick.message
        elif pick.kind == "illegal" and pick.message:  # halfway through a path: kept
            self.say(pick.message, theme.WARN, 4)
            self.pick_note = pick.message
        else:
            self.clear_pick_note()

    def offer_promotions(self, moves: list[str]) -> None:
        """A promotion premove queens at once; a dialog beside the board (which stays in view)
        offers the other pieces until the user picks one or the premove is played."""
        suffixes = {mv[-1] for mv in moves}
        options = [(label, key, key) for label, key in PROMOTIONS if key in suffixes]
        self.close_promotion_dialog()
        self.promotion_dialog = ChoiceDialog(self.app, "Premove: promote to", options,
                                             self.premoves.promote, area=SIDE_AREA,
                                             footer="Esc: keep the queen",
                                             pictures=self.promotion_pictures(
                                                 {key: key for _, key, _ in options},
                                                 self.model.you))
        self.app.push(self.promotion_dialog)

    def close_promotion_dialog(self) -> None:
        """Remove the promotion premove's dialog if it is still open."""
        dialog, self.promotion_dialog = self.promotion_dialog, None
        if dialog is not None and dialog in self.app.stack:
            self.app.pop(dialog)

    def cancel_premove(self) -> bool:
        """Forget the premove (and a half-entered one); returns whether there was one."""
        self.close_promotion_dialog()
        if self.premoves.clear():
            self.clear_pick_note()
            self.app.invalidate()
            return True
        return False

    def play_premove(self) -> None:
        """The opponent's move has arrived: send the premove for the new ply, like a clicked
        move, when the engine allows it here (a draughts capture grown to the longer one now
        compulsory, saying so), the opponent's piece still sliding under it; else drop it with a
        calm notice of why (silently when the move ended the game: the result says enough)."""
        m = self.model
        if self.premoves.move is None or not m.is_my_turn() or self.app.seat_connections:
            return
        self.close_promotion_dialog()
        ended = False
        with contextlib.suppress(Exception):
            ended = m.engine is not None and m.engine.outcome(m.state) is not None
        text, note = self.premoves.take(m.game, m.engine, m.state)
        if text is not None and self.online and self.pending_move is None:
            self.send_move(text)
            self.slides.follow(self.view, m.state, self.pending_state())
            if note:
                self.say(note, theme.TEXT, 4)
        elif not ended:
            self.say(note if text is None and note else PREMOVE_CANCELLED, theme.MUTED, 4)

    def toggle_premoves(self) -> None:
        """Switch premoves on or off (kept in the config file for the next rooms and runs)."""
        on = not self.premoves.enabled
        self.premoves.enabled = on
        self.premoves.forget_position()
        if not on:
            self.cancel_premove()
        config = self.app.config
        config.premoves = on
        if not config.save():
            self.say(config.problem, theme.WARN)
        elif on:
            self.say("Premoves on: during your opponent's turn, move as usual; it is played "
                     "when your turn comes if still legal. Right-click or Esc cancels.")
        else:
            self.say("Premoves off (Q turns them on).")

    def toggle_slides(self) -> None:
        """Make moves slide to their squares or jump there (kept in the config file)."""
        config = self.app.config
        config.slides = not config.slides
        self.slides.stop()
        if not config.save():
            self.say(config.problem, theme.WARN)
        else:
            self.say(f"Slides {'on: a move slides to its square' if config.slides else 'off'}"
                     f" ({ACTIONS_BY_NAME['slide'].key_text} turns them"
                     f" {'off' if config.slides else 'on'}).")

    def apply_pick(self, pick: Pick) -> None:
        """Act on what a click meant."""
        if pick.kind == "send":
            self.send_move(pick.moves[0])
        elif pick.kind == "choose":
            self.choose_promotion(pick.moves)
        elif pick.kind == "expression":
            self.ask_expression(pick.moves[0])
        elif pick.kind == "illegal" and pick.message:
            self.say(pick.message, theme.WARN, 4)
            self.pick_note = pick.message
        elif pick.kind == "pending" and pick.message:  # a capture path: what comes next
            self.say(pick.message, theme.TEXT, 8)
            self.pick_note = pick.message
        elif pick.kind == "select" and self.model.game == "shuqi":  # how the piece moves
            m = self.model
            self.clear_pick_note()
            note = piece_moves(m.engine, m.state, self.picker.selected or "")
            if note:
                self.say(note, theme.TEXT, 12, 3)
                self.pick_note = note
        elif pick.kind == "none":  # the pick dropped: what was said about it goes with it
            self.clear_pick_note()

    def clear_pick_note(self) -> None:
        """Remove the picker's note on a click (e.g. "Several captures end there…") if it is
        still shown: the move it was about has been sent or played."""
        if self.pick_note and self.message == self.pick_note:
            self.message = ""
            self.app.invalidate()
        self.pick_note = ""

    def choose_promotion(self, moves: list[str]) -> None:
        """Chess promotion picker (or any choice among moves with the same squares)."""
        by_suffix = {mv[-1]: mv for mv in moves}
        options = [(label, key, by_suffix[key]) for label, key in PROMOTIONS if key in by_suffix]
        if len(options) != len(moves):
            options = [(mv, str(i + 1), mv) for i, mv in enumerate(moves)]
        self.app.push(ChoiceDialog(self.app, "Promote to", options, self.send_move,
                                   pictures=self.promotion_pictures(
                                       {value: value[-1] for _, _, value in options},
                                       self.model.turn)))

    def promotion_pictures(self, pieces: dict[str, str], side: str | None
                           ) -> dict[str, pygame.Surface]:
        """The promotion pieces of a chooser (``pieces``: each choice's piece letter) as the
        board draws them, in ``side``'s colour; empty in other games."""
        if self.model.game != "chess" or self.view is None:
            return {}
        pictures: dict[str, pygame.Surface] = {}
        for value, piece in pieces.items():
            icon = self.view.piece_icon(piece.upper() if side == "first" else piece, PICTURE)
            if icon is not None:
                pictures[value] = icon
        return pictures

    def ask_expression(self, move: str) -> None:
        """Number chess span: ask for the expression, with the engine's one as the hint."""
        body, _, hint = move.partition("=")
        numbers = re.findall(r"\d", hint)
        target = None
        state = self.model.state
        origin = body.split("-")[0]
        try:
            x, y = (int(v) for v in origin.split(","))
            piece = state.piece_at((x, y)) if state is not None else None
            target = piece[1] if piece else None
        except (ValueError, AttributeError, TypeError):
            target = None
        engine, before = self.model.engine, self.model.state

        def check(expression: str) -> str | None:
            if engine is None or before is None:
                return None
            try:
                engine.play(before, f"{body}={expression}")
            except Exception as exc:
                return str(exc)
            return None

        self.span = span_points(body, state)
        self.app.push(ExpressionDialog(self.app, body, ", ".join(numbers), target, hint, check,
                                       lambda expression: self.send_move(f"{body}={expression}"),
                                       SIDE_AREA))

    def send_move(self, move: str) -> None:
        """Send ``move`` for the current ply (once: until the server answers, nothing more)."""
        m = self.model
        self.picker.clear()
        self.clear_pick_note()
        if not self.online:  # a promotion or expression chosen after the drop: say it is not sent
            self.say(OFFLINE_WORDS, theme.WARN)
            return
        if self.pending_move is not None:
            self.say(PENDING_WORDS)
            return
        self.pending_move, self.pending_ply, self.pending_cut = move, len(m.moves), False
        self.request({"type": "move", "ply": len(m.moves), "move": move})

    def settle_pending(self) -> str:
        """A snapshot came while a move was on its way: it shows the move (played, once), or,
        when the connection dropped meanwhile, that the move never reached the server (said, so
        the player plays it again). Otherwise the move may still be on its way: its reply
        (``moved``, or an error such as ``stale``) settles it. Returns what to say."""
        move, ply = self.pending_move, self.pending_ply
        if move is None:
            return ""
        if ply is not None and len(self.model.moves) > ply:
            self.pending_move = None
        elif self.pending_cut:
            self.pending_move = None
            return (f"Your move {move} was not sent: play it again (the connection dropped "
                    "before the server had it).")
        return ""

    def asked_words(self, asked: Asked) -> str:
        """What a request was, in words: ``your draw offer``, ``your chat line “gg”``."""
        message, kind = asked.message, asked.message.get("type")
        if kind == "chat":
            text = str(message.get("text", ""))
            if len(text) > QUOTE_CHARS:
                text = text[:QUOTE_CHARS - 1].rstrip() + "…"
            return f"your chat line “{text}”"
        offer = str(message.get("kind"))
        offer_words = ANSWERED_WORDS.get(offer, f"{offer} offer")
        if kind == "offer":
            return f"your {offer_words}"
        if kind == "answer":
            other = "second" if asked.seat == "first" else "first"
            return f"your answer to {self.model.name_of(other)}'s {offer_words}"
        return ACT_WORDS.get(str(kind), f"your {kind}")

    def fate(self, asked: Asked) -> str:
        """Whether the server had a request cut off by a drop, read from the snapshot after the
        reconnect: ``done`` (it shows, or the game has moved past it), ``lost``, or
        ``unknown`` (a chat line leaves no trace in the snapshot)."""
        m, message = self.model, asked.message
        kind, offer = message.get("type"), message.get("kind")
        if kind == "chat":
            return "unknown"
        if kind == "join":
            return "done" if m.you is not None else "lost"
        if kind in ACT_WORDS:  # a resignation that happened shows as the game over
            return "done" if m.status == "over" else "lost"
        if offer != "rematch" and m.status == "over":
            return "done"  # a draw agreed, or an end that makes the offer moot
        pending = [o for o in m.offers if o.get("kind") == offer]
        if kind == "answer":  # the opponent's offer is back when the answer never arrived
            return "lost" if any(o.get("by") not in (m.you, None) for o in pending) else "done"
        if any(o.get("by") == m.you for o in pending):
            return "done"
        if (offer == "undo" and len(m.moves) < asked.plies) or (
                offer == "swap" and m.you != asked.seat):
            return "done"  # accepted meanwhile
        return "lost"

    def settle_cut_off(self) -> str:
        """After the reconnect snapshot: which requests cut off by the drop the server never had
        (said, to be done again by the user: nothing is sent again by itself), which may not
        have arrived (chat lines), and, when all arrived, that they did."""
        if not self.cut_off:
            return ""
        fates: dict[str, list[str]] = {"done": [], "lost": [], "unknown": []}
        for asked in self.cut_off:
            fates[self.fate(asked)].append(self.asked_words(asked))
        self.cut_off = []
        parts = []
        lost, unknown = fates["lost"], fates["unknown"]
        if lost:
            them = "it" if len(lost) == 1 else "them"
            parts.append(f"{_cap(joined(lost))} did not reach the server (the connection "
                         f"dropped first): do {them} again if you still mean {them}.")
        if unknown:
            parts.append(f"{_cap(joined(unknown))} may not have been sent.")
        if not parts and fates["done"]:
            parts.append(f"{_cap(joined(fates['done']))} reached the server before the "
                         "connection dropped.")
        return " ".join(parts)

    def unconfirmed(self) -> list[str]:
        """The requests (and the move) still without a reply, in words."""
        words = [f"your move {self.pending_move}"] if self.pending_move is not None else []
        return words + [self.asked_words(a) for a in [*self.cut_off, *self.asked.values()]]

    # ---- network ------------------------------------------------------------------------------

    def on_message(self, message: dict[str, Any]) -> None:
        """Update the room from the server; show errors meant for us."""
        kind = message.get("type")
        answered = reply_to(message)
        asked = self.asked.pop(answered, None) if answered is not None else None
        self.model.hotseat = bool(self.app.seat_connections)
        if kind == "welcome" and self.message == OFFLINE_WORDS:
            self.message = ""  # back online: the line is not true any more
            return
        if kind == "error":
            if reply_to(message) in self.my_requests or message.get("room") == self.model.room:
                if self.pending_move is not None:  # a premove entered on top of it was for a
                    self.cancel_premove()  # position that will not come
                    self.premoves.forget_position()
                self.pending_move = None
                if message.get("code") == "unknown_room" and self.model.status == "over":
                    self.model.closed = True  # everyone left a finished game: the room went
                    self.say(CLOSED_WORDS, theme.WARN)
                    return
                self.say(error_text(message), theme.BAD)
                if (asked is not None and asked.message.get("type") == "chat"
                        and message.get("code") == "rate_limited" and not self.chat_field.value):
                    self.chat_field.value = str(asked.message.get("text", ""))  # to send later
                if message.get("code") == "stale":
                    self.app.send({"type": "join", "room": self.model.room})
                if message.get("code") == "unknown_room" and message.get("room") == self.model.room:
                    self.fetch_end()
            return
        if kind == "room" and message.get("room") != self.model.room and self.is_rematch(message):
            self.give_way()
            return
        was, position = self.model.status, self.model.state
        game_was = self.game_key() if kind == "room" else None
        before = self.sound.before(self.model, message, self.view)
        muted = kind in ("chat", "offer") and self.is_muted(message)
        line = self.model.apply(message, self.now)
        self.sound.after(self.model, message, before, self.view, muted)
        if message.get("room") != self.model.room:
            return
        if kind == "room":
            self.follow_hot_seats()
            if game_was == self.game_key():  # the same position again: its slide goes on
                self.slides.carry(position, self.model.state)
        if kind == "moved":
            self.pending_move = None
        elif kind == "room":  # an undo, a swap, a reconnection: the position is not the one
            self.cancel_premove()  # the premove was entered for
            after_drop = " ".join(t for t in (self.settle_pending(), self.settle_cut_off()) if t)
            if after_drop:
                self.say(after_drop, theme.WARN, 20.0, MESSAGE_LINES)
        if kind in ("room", "moved"):
            self.move_scroll = 0
            self.browse.follow(self.model)  # a browsed view stays (clamped by a takeback)
            self.reveal_browsed()
            self.ensure_view()
            self.layout_view()
        if kind == "moved":
            self.slide(message, position)
            self.play_premove()
        elif kind == "over":
            self.cancel_premove()
        if kind == "room" and self.model.status != "over":
            self.close_result_panel()  # a rematch or an undo after the end: back to the board
        if self.model.needs_resync:
            self.model.needs_resync = False
            self.app.send({"type": "join", "room": self.model.room,
                           "role": "player" if self.model.you else "spectator"})
        if line and kind != "offer" and not (kind == "presence" and self.warning_shown()):
            self.say(line, theme.TEXT)  # an offer has its own banner, a seat card its presence
        if kind == "over" or (kind == "room" and was == "playing" and self.model.status == "over"):
            self.forget_asked()
            self.show_result()  # a snapshot after a reconnect can bring the end too
        if self.model.engine_error:
            self.say(self.model.engine_error, theme.BAD)

    def slide(self, moved: dict[str, Any], before: Any) -> None:
        """Slide the piece of a move that came from the server: the opponent's (both sides'
        for a spectator). Our own move is on its square already (dragged or clicked there), so
        it does not slide, nor do the moves of a hot-seat game (all ours)."""
        m = self.model
        if (not self.app.config.slides or self.app.seat_connections or m.state is before
                or (m.you is not None and moved.get("by") == m.you)):
            return
        self.slides.start(self.view, before, m.state,
                          move_path(m.game, m.engine, before, m.last_move))

    def is_rematch(self, message: dict[str, Any]) -> bool:
        """Whether another room's snapshot is this finished game's rematch: we play in both,
        against the same player; or we watched this one and the server moved us to watch its
        rematch (the same two players, each in the other colour)."""
        m = self.model
        seats = message.get("seats")
        if m.status != "over" or not isinstance(seats, dict):
            return False
        if m.you is None:
            if message.get("you") is not None:
                return False
            swapped = {"first": "second", "second": "first"}

            def player(table: dict[str, Any], seat: str) -> Any:
                info = table.get(seat)
                return info.get("player") if isinstance(info, dict) else None

            return all(
                player(m.seats, seat) is not None
                and player(m.seats, seat) == player(seats, swapped[seat])
                for seat in swapped
            )
        if message.get("you") not in ("first", "second"):
            return False

        def players(table: dict[str, Any]) -> set[Any]:
            return {info.get("player") for info in table.values() if isinstance(info, dict)}

        ours = players(m.seats)
        return len(ours) == 2 and players(seats) == ours

    def give_way(self) -> None:
        """The rematch has its own room: leave this finished one (and its result panel), so
        leaving the rematch goes back to the lobby. A spectator sends no ``leave``: the server
        moved it to the rematch, so it no longer watches this room."""
        if self.model.you is not None:
            self.request({"type": "leave"})
        self.app.left_rooms[self.model.room] = self.model.game_id
        self.close_result_panel()
        self.app.pop(self)

    def follow_hot_seats(self) -> None:
        """In hot-seat play, send each seat's moves through the connection that now holds it:
        a rematch or a swap gives the window's connection the other colour."""
        conns, you = self.app.seat_connections, self.model.you
        main = self.app.connection
        if not conns or you not in ("first", "second") or main is None or conns.get(you) is main:
            return
        helper = next((c for c in conns.values() if c is not main), None)
        if helper is not None:
            self.app.seat_connections = {you: main,
                                         "second" if you == "first" else "first": helper}

    def on_net(self, event: NetEvent) -> None:
        """A drop stops the clocks (the server's snapshot sets them again) and marks a move on
        its way as cut off. After a reconnect, ask for the room again: our seat comes back with
        our token, and a spectator watches again."""
        if event.kind == "closed":
            self.model.connection_lost()
            self.freeze_clocks()
            # nothing can be played before the snapshot after the drop, whose position may not
            # be the one a premove was entered for
            premove = self.premoves.move
            if self.cancel_premove() and premove is not None:
                self.say(f"Your premove {describe(self.model.game, premove)} was cancelled: "
                         "the connection dropped. Play it again once back.", theme.WARN, 20.0)
            self.pending_cut = self.pending_move is not None
            self.cut_off.extend(self.asked.values())  # their replies will never come
            self.asked.clear()
        for_good = event.kind == "failed" or (event.kind == "closed"
                                              and event.code in NO_RECONNECT_CODES)
        unsure = self.unconfirmed() if event.kind == "closed" or for_good else []
        if for_good:
            if unsure:  # no snapshot will tell
                were = "was" if len(unsure) == 1 else "were"
                self.say(f"{_cap(joined(unsure))} {were} not confirmed by the server (the "
                         "connection is lost).", theme.WARN, 30.0, MESSAGE_LINES)
            self.pending_move, self.cut_off = None, []
        elif unsure and self.cut_off:
            were = "was" if len(unsure) == 1 else "were"
            self.say(f"{_cap(joined(unsure))} {were} not confirmed before the connection "
                     "dropped: once back, the room says what the server had.", theme.WARN, 30.0,
                     MESSAGE_LINES)
        if event.kind == "open" and self.model.game:
            role = "player" if self.model.you is not None else "spectator"
            self.app.send({"type": "join", "room": self.model.room, "role": role})

    def on_wake(self, slept_at: float) -> None:
        """After a sleep the clocks stop where they stood when the frames stopped (counting on
        across the gap could show a flag the server never saw) and the room asks the server
        for its snapshot, which sets them to the server's time. Offline, the snapshot after the
        reconnect does the same."""
        if self.model.status != "playing":
            return
        self.freeze_clocks(slept_at)
        if self.app.net_status == "online":
            role = "player" if self.model.you is not None else "spectator"
            self.app.send({"type": "join", "room": self.model.room, "role": role})

    def freeze_clocks(self, at: float | None = None) -> None:
        """Stop the running clock where it stands (or stood ``at`` that time): with the
        connection down nobody here knows the server's time (it may be charged to nobody while
        the server restarts)."""
        self.model.freeze_clocks(self.now if at is None else at)

    def fetch_end(self) -> None:
        """The room has closed under a game still on here: it ended while this client was away
        (and the server restarted, or nobody came back within a minute). Read its record;
        :meth:`update` shows the end."""
        m = self.model
        if m.status == "over" or not m.game_id or self.end_fetch is not None:
            return
        self.end_fetch = self.app.record_fetch(m.game_id)
        self.say("The room has closed; fetching how the game ended…", theme.TEXT)

    def _show_fetched_end(self) -> None:
        from client.scenes.replay import RecordError

        found = self.end_fetch.result() if self.end_fetch is not None else None
        if found is None:
            return
        self.end_fetch = None
        self.app.invalidate()
        if isinstance(found, RecordError):
            self.say(f"The room has closed and its record could not be read: {found}", theme.BAD)
        elif self.model.apply_record(found, self.now):
            self.say("The game ended while you were away.", theme.TEXT)
            self.show_result()
        else:
            self.say("The room has closed; its record does not show an end.", theme.BAD)

    def game_key(self) -> tuple[str, str | None, tuple[str, ...]]:
        """The game and its position as moves: a snapshot that leaves it the same repeats it."""
        m = self.model
        return m.game_id, m.start, tuple(m.moves)

    def move_landing(self) -> bool:
        """Whether the board shows a move still sliding to its square."""
        return self.slides.motion(self.board_state()) is not None

    def close_result_panel(self) -> None:
        """Remove a result panel shown over this room."""
        from client.scenes.result import ResultPanel

        for panel in self.app.find(ResultPanel):
            if panel.room is self:
                self.app.pop(panel)

    def show_result(self) -> None:
        """Push the result panel once per game."""
        from client.scenes.result import ResultPanel

        key = f"{self.model.game_id}:{len(self.model.moves)}"
        if key == self.result_shown_for:
            return
        self.result_shown_for = key
        self.app.push(ResultPanel(self.app, self))

    def update(self, dt: float) -> None:
        """Expire the message; keep the move picker in step with the position."""
        self._show_fetched_end()
        self.model.hotseat = bool(self.app.seat_connections)
        if self.message and self.now > self.message_until:
            self.message = ""
            self.app.invalidate()
        if self.model.game:
            self.browse.follow(self.model)
            self.refresh_picker()
            self.follow_captures()
            self.chat_field.placeholder = chat_hint(self.model.game, self.seated,
                                                    self.model.status == "over",
                                                    self.app.plays_locally)
        self.buttons()
        self.refresh_buttons()
        self.shown_moves()
        self.sound.tick(self.model, self.now)
        if self.slides.need_frame():
            self.app.invalidate()
        shown = self.clock_face()
        if shown != self.last_clock_face:
            self.last_clock_face = shown
            self.app.invalidate()

    def clock_face(self) -> tuple[str, ...]:
        """The clock texts as drawn now (a redraw is needed when they change)."""
        m, now = self.model, self.now
        if m.status != "playing":
            return ()
        move = m.move_ms(now)
        return (format_clock(m.remaining_ms("first", now)),
                format_clock(m.remaining_ms("second", now)),
                str(move // 100 if move is not None else ""))

    # ---- drawing ------------------------------------------------------------------------------

    def check(self) -> tuple[str, ...]:
        """The checked king's square while a chess game is on, or a custom game's threatened
        captains (computed once per position)."""
        m = self.model
        state = self.board_state()
        key = (m.game, m.game_id, m.start, len(m.moves), m.status, state)
        if key != self._check[0]:
            found: tuple[str, ...] = ()
            if m.status != "over" and m.engine is not None and state is not None:
                found = position_highlight(m.game, m.variant, m.engine, state, self.view)
            self._check = (key, found)
        return self._check[1]

    def follow_captures(self) -> None:
        """Keep the captured pieces in step with the room's states (new ones only)."""
        m = self.model
        if self.view is not None:
            self.captures.update(self.view, (m.game, m.variant, m.game_id, m.start), m.history)

    def marks(self) -> Marks:
        """What to emphasise on the board (while a span's expression is asked: the span, its
        spanned pieces highlighted; on a browsed position only what that position shows)."""
        if self.browse.active:
            return self.slides.marks(self.browse.marks(self.model, self.view, self.coordinates),
                                     self.board_state())
        picker = self.active_picker()
        targets = picker.targets() if picker.selected else frozenset()
        last, before = self.model.last_points(), self.model.before_last()
        if self.pending_state() is not None:  # our move on its way, drawn played
            last = self._pending_path.path(self.model.game, self.model.engine, self.model.state,
                                           self.pending_move)
            before = self.model.state
        if picker.partial and picker.selected:  # a capture path being entered
            last, before = (picker.selected, *picker.partial), None
        marks = self.slides.marks(Marks(
            selected=picker.selected,
            targets=targets,
            last_move=last,
            before=before,
            highlight=self.model.highlight or self.check(),
            premove=self.premoves.points() if self.premove_mode() else (),
            premoving=picker is self.premoves.picker and picker.selected is not None,
            extra={"coordinates": self.coordinates, "hover": self.hover_point(),
                   "drag": self.drag, "must_capture": self.must_capture(picker),
                   "capturing": bool(picker.partial and picker.selected),
                   **({"mover": self.model.you} if self.premove_mode() else {})},
        ), self.board_state())
        if self.span and self.app.find(ExpressionDialog):  # the span being asked, at once
            marks = dataclasses.replace(marks, selected=self.span[0],
                                        targets=frozenset({self.span[-1]}),
                                        highlight=self.span[1:-1])
        return marks

    def must_capture(self, picker: MovePicker) -> tuple[str, ...]:
        """Draughts: the pieces that can make the compulsory capture, while the player to move
        (us, or either side in hot-seat play) has picked none up; else none."""
        m = self.model
        if (m.game != "draughts" or picker is not self.picker or picker.selected is not None
                or not (m.is_my_turn() or self.app.seat_connections)
                or self.pending_move is not None or self.browse.active):
            return ()
        shapes = picker.shapes
        if not shapes or not all("x" in s.text for s in shapes):
            return ()
        return tuple(sorted(picker.origins()))

    def hover_point(self) -> str | None:
        """The hovered point when a click there would do something (pick a piece, or play)."""
        if (not self.hover or not self.seated or self.model.status == "over"
                or self.browse.active):
            return None
        picker = self.picker
        if self.premove_mode() and self.premoves.enabled:
            self.refresh_premoves()
            picker = self.premoves.picker
        elif not (self.model.is_my_turn() or self.app.seat_connections):
            return None
        if self.hover in picker.targets() or (
            not picker.placement and self.hover in picker.origins()
        ):
            return self.hover
        return None

    def draw(self, surface: pygame.Surface) -> None:
        """Board, side panel, banners."""
        draw.panel(surface, BOARD_RECT, theme.PANEL, theme.BORDER)
        if self.view is not None and self.model.state is not None:
            try:
                self.view.draw(surface, self.board_state(), self.marks())
            except Exception as exc:  # a renderer bug must not take the window down
                draw.paragraph(surface, f"Cannot draw the board: {exc}",
                               BOARD_RECT.inflate(-60, -60), 16, theme.BAD)
        else:
            text = self.view_error or self.model.engine_error or "Waiting for the room…"
            draw.paragraph(surface, text, BOARD_RECT.inflate(-80, -300), 18, theme.MUTED)
        self.draw_offer(surface)
        room_panel.draw_panel(self, surface)
        if self.message:
            self.draw_message(surface)
        widgets.draw_tooltip(surface, self.buttons())

    def draw_message(self, surface: pygame.Surface) -> None:
        """The current message (an error, a question, news) in the panel beside the board, where
        it hides no piece: two lines (up to four for a long one) above the chat, which makes
        room for it."""
        rect = self.message_rect()
        draw.panel(surface, rect, (30, 34, 42), self.message_color)
        wrapped = fonts.wrap(self.message, 15, rect.width - 24)
        step = fonts.line_step(15)
        room = max(1, min(self.message_lines, (rect.height - 6) // step))
        lines = wrapped[:room]
        if len(wrapped) > room:
            lines[-1] = fonts.fit(lines[-1] + " …", 15, rect.width - 24)
        top = rect.centery - (len(lines) * step - 4) // 2
        for i, line in enumerate(lines):
            draw.text(surface, line, (rect.left + 12, top + i * step), 15, self.message_color)

    def message_rect(self) -> pygame.Rect:
        """Where the message goes: :data:`MESSAGE_RECT` (:data:`LOCAL_MESSAGE_RECT` in a local
        game), taller for a message that needs more lines than it holds (up to the lines it
        was said in), over more of the chat (locally: of the move list, growing upwards). The
        lines are counted as the window shows them: in a small window the text is larger than
        the box's share, and the box holds one line of a two-line message at 800x600."""
        base = LOCAL_MESSAGE_RECT if self.app.plays_locally else MESSAGE_RECT
        if not self.message:
            return base
        step = fonts.line_step(15)
        lines = min(len(fonts.wrap(self.message, 15, base.width - 24)), self.message_lines)
        if lines <= max(1, (base.height - 6) // step):
            return base
        rect = base.copy()
        rect.height = lines * step + 14
        if self.app.plays_locally:  # grown upwards: the field is right under the strip
            rect.bottom = base.bottom
        return rect

    def draw_offer(self, surface: pygame.Surface) -> None:
        """The opponent's offer with Accept / Decline."""
        offer = self.model.pending_offer()
        if offer is None:
            return
        rect = self.offer_rect()
        draw.panel(surface, rect, (30, 40, 56), theme.ACCENT)
        who = self.model.name_of(str(offer.get("by")))
        what = OFFER_WORDS.get(str(offer.get("kind")), str(offer.get("kind")))
        line = fonts.fit_keeping(who, f" offers {what}.", 17, rect.width - 270)
        draw.text(surface, line, (rect.left + 16, rect.centery), 17, theme.TEXT, "midleft",
                  rect.width - 270)
        for button in self.offer_buttons:
            button.draw(surface)

    @staticmethod
    def offer_rect() -> pygame.Rect:
        """Where an offer banner goes (top of the board)."""
        return pygame.Rect(BOARD_RECT.left + 24, BOARD_RECT.top + 20, BOARD_RECT.width - 48, 52)

    def titles(self) -> tuple[str, str]:
        """The game's name and the variant's name (empty for the default variant)."""
        m = self.model
        title = GAME_NAMES.get(m.game, m.game or "…")
        variant = ""
        for info in self.app.games:
            if info.get("game") != m.game:
                continue
            variants = info.get("variants") if isinstance(info.get("variants"), list) else []
            for i, v in enumerate(variants or []):
                if isinstance(v, dict) and v.get("id") == m.variant and (i or m.game == "custom"):
                    variant = str(v.get("name") or m.variant)
        return title, variant

    def option_defaults(self) -> dict[str, Any] | None:
        """The game's options with their defaults, as the server lists them (``None``: not
        known)."""
        for info in self.app.games:
            if info.get("game") == self.model.game and isinstance(info.get("options"), dict):
                return dict(info["options"])
        return None

    def caption(self) -> str:
        """``Boardhall · Chess · Your move`` (the window title tells whose turn it is)."""
        title, _ = self.titles()
        return f"Boardhall · {title} · {self.status_line()}"

    def status_line(self) -> str:
        """Whose turn it is, or how the game stands."""
        m = self.model
        if m.status == "over":
            return result_text(m, bool(self.app.seat_connections))
        if self.app.net_status == "reconnecting":
            return "Reconnecting to the server…"
        if self.app.closed_code in NO_RECONNECT_CODES:
            return "Offline: another window took over"
        if self.app.net_status == "connecting":
            return "Connecting to the server…"
        if not self.online:
            return "Offline · Esc: back to connect"
        if m.status == "waiting" and not all(m.seats.get(s) for s in ("first", "second")):
            if self.seated:  # whoever comes needs the code (Ctrl+C copies it)
                return WAITING_WITH_CODE[0].format(code=m.room)
            return "Waiting for an opponent…"
        if self.pending_move:
            return "Sending your move…"
        if self.app.seat_connections:
            return f"{short_name(m, m.turn)} to move"
        away = not (m.seats.get(m.turn) or {}).get("connected", True)
        if m.you is None:
            doing = "is away" if away else "to move"
            return f"{short_name(m, m.turn)} {doing} · you are watching"
        if m.is_my_turn():
            return "Your move"
        if away:
            line = f"{short_name(m, m.turn)} is away"
            return f"{line} · their clock runs" if timed(m.clock) else line
        return f"{short_name(m, m.turn)} is thinking…"

    def status_forms(self) -> list[str]:
        """The status line, then shorter forms of it for a narrow window: a waiting room's
        forms all keep its code whole, which whoever joins needs."""
        line = self.status_line()
        code = self.model.room
        if line == WAITING_WITH_CODE[0].format(code=code):
            return [form.format(code=code) for form in WAITING_WITH_CODE]
        left = self.first_move_left_s()
        if line == "Your move" and left is not None:
            return [f"{line} · {left} s left for your first move", f"{line} · {left} s", line]
        mover = f"{short_name(self.model, self.model.turn)} to move"
        if line == f"{mover} · you are watching" and left is not None:
            return [f"{mover} · {left} s left for a first move · you are watching",
                    f"{mover} · {left} s left for a first move", f"{mover} · {left} s", line]
        return [line]

    def first_move_left_s(self) -> int | None:
        """Whole seconds left for the mover's first move (the user's; to a spectator, either
        player's) before the server aborts the game, while that deadline runs and only the
        status line can say so (a per-move clock's face shows it; a main time stands still
        until the first move)."""
        m = self.model
        if (m.status != "playing" or not (m.is_my_turn() or m.you is None)
                or self.app.seat_connections or m.clock.get("per_move") or m.has_moved(m.turn)):
            return None
        move = m.move_ms(self.now)
        return None if move is None else math.ceil(move / 1000)

    def status_color(self) -> theme.Color:
        """Accent for our move (every move in hot-seat play), muted otherwise."""
        m = self.model
        if m.status == "over":
            return theme.WARN
        if not self.online:
            return theme.BAD
        if self.app.seat_connections:  # hot-seat: both seats are the user's, every move too
            return theme.GOOD if m.status == "playing" else theme.TEXT
        return theme.GOOD if m.is_my_turn() else theme.TEXT

    def shown_moves(self) -> list[str]:
        """The move list as displayed (SAN for chess), computed once per position."""
        key = (len(self.model.moves), self.model.start)
        if key != self._shown_key:
            self._shown_moves = display_moves(self.model.game, self.model.start, self.model.moves)
            self._shown_key = key
        return self._shown_moves

    def move_rows(self) -> list[tuple[int, list[MoveCell]]]:
        """The move list in numbered lines (a start with the second side to move opens with
        "…")."""
        m = self.model
        first = m.history[0] if m.history else m.state
        second_first = getattr(first, "turn", "first") == "second"
        return move_rows(m.game, m.start, self.shown_moves(), second_first)

SIDE_AREA = pygame.Rect(PANEL_X, BOARD_RECT.top, PANEL_W, BOARD_RECT.height)
"""The side panel beside the board: a dialog about the board (a span's expression) goes there,
so the board stays in view."""


def span_points(body: str, state: Any) -> tuple[str, ...]:
    """A number chess span ``FROM-TO``'s points: the mover, every piece on the line between
    (the spanned pieces), the landing point; just (FROM, TO) when the text or state is odd.

    >>> span_points("13,8-10,5", None)
    ('13,8', '10,5')
    """
    origin, _, target = body.partition("-")
    try:
        (x, y), (tx, ty) = ((int(v) for v in p.split(",")) for p in (origin, target))
    except ValueError:
        return (origin, target)
    sx, sy = (tx > x) - (tx < x), (ty > y) - (ty < y)
    if sx == 0:
        sy *= 2  # the vertical line steps two rows at a time
    spanned = []
    x, y = x + sx, y + sy
    while (x, y) != (tx, ty) and 0 <= x <= 14 and 0 <= y <= 14 and state is not None:
        with contextlib.suppress(Exception):
            if state.piece_at((x, y)):
                spanned.append(f"{x},{y}")
        x, y = x + sx, y + sy
    return (origin, *spanned, target)


def timed(clock: dict[str, Any]) -> bool:
    """Whether a room's clock setting runs (any positive initial time or per-move limit)."""
    return any(isinstance(clock.get(k), (int, float)) and clock[k] > 0
               for k in ("initial", "per_move"))


STATUS_NAME_PX = 200
"""A name in the status line is cut to this width, so the words after it stay in view."""


def short_name(m: RoomModel, seat: str) -> str:
    """``seat``'s name, cut to fit a status line beside other words."""
    return fonts.fit(m.name_of(seat), 17, STATUS_NAME_PX)


LOSER_SPEAKS = frozenset({"resign", "timeout", "abandoned", "no_moves"})
"""Reasons whose sentence is about the loser (``You resigned``): the loser reads it as the
headline, with who won under it."""


def _result_parts(m: RoomModel, hotseat: bool, name: Callable[[str], str]
                  ) -> tuple[str, str, bool]:
    """(what happened, the outcome, whether the reader is the loser whose act the sentence
    tells), both from the reader's point of view: the reader is "you", anyone else (and
    everyone to a spectator or in hot-seat play) by name. Not capitalised."""
    you = None if hotseat else m.you

    def who(seat: str) -> str:
        return "you" if seat == you else name(seat)

    def whose(seat: str) -> str:
        return "your" if seat == you else f"{name(seat)}'s"

    reason = m.reason or ""
    words = ending_words(reason, m.variant)
    winner = m.result if m.result in ("first", "second") else None
    if winner is None:
        mover = m.turn if m.turn in ("first", "second") else "first"
        other = "second" if mover == "first" else "first"
        if reason == "agreement":
            return "", "draw agreed", False
        if reason == "stop":
            return f"{who(mover)} called stop", "draw", False
        if reason == "timeout_vs_insufficient":
            return (f"{who(mover)} ran out of time, but {who(other)} cannot checkmate", "draw",
                    False)
        if reason == "no_moves":
            return f"{who(mover)} had no move left", "draw", False
        limit = m.move_limit()
        if reason == "move_limit" and limit is not None:
            plies = f"{limit} {'ply' if limit == 1 else 'plies'}"
            return f"move limit of {plies} reached", "draw", False
        return words, "draw", False
    loser = "second" if winner == "first" else "first"
    events = {
        "resign": f"{who(loser)} resigned",
        "timeout": f"{who(loser)} ran out of time",
        "abandoned": f"{who(loser)} left the game",
        "no_moves": f"{who(loser)} had no {'pieces' if m.has_no_pieces(loser) else 'move'} left",
        "checkmate": f"{who(winner)} checkmated {who(loser)}",
        "five": f"{who(winner)} made five in a row",
        "captain": f"{who(winner)} captured {whose(loser)} captain",
        "report": f"{who(winner)} reported {whose(loser)} rule break",
        "stop": f"{who(m.turn if m.turn in ('first', 'second') else winner)} called stop",
    }
    outcome = "you win" if winner == you else f"{name(winner)} won"
    return (events.get(reason, words), outcome,
            reason in LOSER_SPEAKS and loser == you)


def _cap(text: str, names: tuple[str, ...] = ()) -> str:
    """``text`` with a capital first letter, unless it begins with one of ``names`` (players'
    names are written as their players typed them: "alice checkmated you")."""
    if any(name and text.startswith((f"{name} ", f"{name}'s ")) for name in names):
        return text
    return text[:1].upper() + text[1:]


def result_lines(m: RoomModel, hotseat: bool = False,
                 name: Callable[[str], str] | None = None) -> tuple[str, str]:
    """The result panel's headline and the line under it, as the reader reads them: the player
    who resigned reads ("You resigned", "Bob won"), the winner ("You win", "Alice resigned"),
    a spectator ("Bob won", "Alice resigned"). In hot-seat play both seats are the user's, so
    the winner is named, never "You". ``name`` gives a seat's name (cut to fit)."""
    if m.result is None and m.status == "over":
        if m.reason == "aborted":
            return "Game aborted", "before both sides moved"
        return "Game over", ending_words(m.reason or "", m.variant)
    named = name or m.name_of
    event, outcome, loser_speaks = _result_parts(m, hotseat, named)
    names = (named("first"), named("second"))
    if m.result == "draw":
        return _cap(outcome, names) if outcome != "draw" else "Draw", _cap(event, names)
    if loser_speaks:
        return _cap(event, names), _cap(outcome, names)
    return _cap(outcome, names), _cap(event, names)


def result_text(m: RoomModel, hotseat: bool = False) -> str:
    """The end in one line, from the reader's point of view: "You resigned: Bob won", "Bob
    resigned: you win", "Alice checkmated Bob: Alice won", "Draw: stalemate", "Game aborted
    before both sides moved"; number chess's stop with the scores ("You called stop: you win
    285 to 91")."""
    if m.result is None:
        if m.status == "over" and m.reason == "aborted":
            return "Game aborted before both sides moved"
        if m.status == "over" and m.reason:
            return f"Game over: {ending_words(m.reason, m.variant)}"
        return "Game over"
    event, outcome, _ = _result_parts(m, hotseat, lambda seat: short_name(m, seat))
    names = (short_name(m, "first"), short_name(m, "second"))
    scores = m.scores or {}
    if m.reason == "stop" and all(isinstance(scores.get(s), int) for s in ("first", "second")):
        mine = m.result if m.result in ("first", "second") else "first"
        theirs = "second" if mine == "first" else "first"
        outcome += f" {scores[mine]} to {scores[theirs]}"
    if m.result == "draw" and m.reason != "stop":
        return _cap(outcome, names) if not event else f"Draw: {event}"
    return f"{_cap(event, names)}: {outcome}" if event else _cap(outcome, names)


def moves_played(game: str, plies: int, numbered: int) -> str:
    """How long the game was, as its players count: chess and draughts moves are pairs (the
    move numbers: ``numbered`` lines of the move list), five-in-a-row counts stones, number
    chess and custom games count plies (as their move limits do)."""
    if game in PAIRED_GAMES:
        return f"{numbered} move{'' if numbered == 1 else 's'}"
    if game == "hexgomoku":
        return f"{plies} stone{'' if plies == 1 else 's'}"
    return f"{plies} {'ply' if plies == 1 else 'plies'}"


def error_text(message: dict[str, Any]) -> str:
    """A readable line for an ``error`` message."""
    text = message.get("message")
    code = message.get("code")
    words = {
        "stale": "The position changed before your move arrived; it was not played.",
        "not_your_turn": "It is not your turn.",
        "rate_limited": "Too many messages: slow down a little.",
        "game_over": "The game is already over.",
    }
    if isinstance(code, str) and code in words and not text:
        return words[code]
    if isinstance(text, str) and text:
        return text[:300]
    return words.get(str(code), f"The server refused that ({code}).")
