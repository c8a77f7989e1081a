"""The client application: window, scene stack, connection and the frame loop.

Scenes are laid out on a fixed logical surface (``theme.LOGICAL_SIZE``); the app scales it to the
window (keeping its aspect) and maps mouse positions back, so every scene works at any window size.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import gc
import itertools
import time
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import pygame

from client.analysis import AnalysisCache
from client.config import Claim, Config
from client.net import NO_RECONNECT_CODES, Connection, NetEvent, Patience
from client.scenes.base import NOTICE_LINE_STEP, Scene
from client.sounds import Sounds
from client.ui import draw, theme

if TYPE_CHECKING:
    from client.scenes.replay import RecordFetch

PING_EVERY_S = 10.0
"""How often the app pings the server to measure the round trip."""
MAX_EVENTS_PER_FRAME = 200
"""Network events handled per frame, so a burst of messages never freezes the window."""

NET_BUDGET_S = 0.004
"""Time per frame spent on network events (the rest waits for the next frame)."""

WAKE_GAP_S = 5.0
"""The wall clock running this far ahead of the monotonic one between two frames is a sleep (a
laptop's lid closed: the monotonic clock stops while suspended, the wall clock does not): what
the scenes counted on the monotonic clock missed it, so they catch up from the server."""

SceneT = TypeVar("SceneT", bound=Scene)

MOUSE_EVENTS = (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION)

TAKEN_OVER = ("Another window took over this identity (it connected with the same saved token); "
              "this one has stopped.")
"""The notice after close code 4001: this window does not reconnect, or the two would take the
identity from each other for ever."""
RENEWED = "The server did not know your saved identity; you have a new one."
RENEWED_FOR_S = 20.0
"""How long :data:`RENEWED` stays up once the new identity is welcomed."""
SECOND_WINDOW = ("Another Boardhall window uses your saved identity on this server: this one "
                 "plays as another player.")
"""The notice when a second window on the same config file connects to the same server."""


class Severity(enum.Enum):
    """How much a notice asks of the user (it sets the notice's colours)."""

    INFO = "info"
    """News: nothing is wrong (a second window plays as another player, a new identity)."""
    WARNING = "warning"
    """The connection is lost and being retried."""
    ERROR = "error"
    """A problem: the connection given up or taken over, settings not saved, a message the
    client could not read."""


NOTICE_COLORS: dict[Severity, tuple[theme.Color, theme.Color]] = {
    Severity.INFO: (theme.PANEL_HI, theme.ACCENT_DIM),
    Severity.WARNING: (theme.WARN_BG, theme.WARN),
    Severity.ERROR: (theme.BAD_BG, theme.BAD),
}
"""(fill, border) of a notice of each severity: news calm, problems in warning colours."""


def limit_window(size: tuple[int, int]) -> None:
    """Keep the user from shrinking the window below ``size`` (where text stops fitting)."""
    with contextlib.suppress(Exception), warnings.catch_warnings():
        # pygame-ce warns that from_display_module will go; it is the way to reach the window
        # that pygame.display opened
        warnings.simplefilter("ignore", DeprecationWarning)
        from pygame._sdl2.video import Window

        Window.from_display_module().minimum_size = size


class App:
    """Owns the window, the scene stack and the server connection(s).

    Args:
        config: the loaded config file (saved when the server gives us a token); none: an
            in-memory one.
        headless: draw only on an offscreen surface (screenshots, tests, benchmarks).
        clock: monotonic seconds; tests inject their own.
        window_size: initial window size.
        wall_clock: the wall clock's seconds since the epoch (what server times are read
            against: "Last online 3 h ago"); tests inject their own.
    """

    def __init__(
        self,
        config: Config | None = None,
        headless: bool = False,
        clock: Callable[[], float] = time.monotonic,
        window_size: tuple[int, int] = theme.LOGICAL_SIZE,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        pygame.display.init()
        pygame.font.init()
        self.config = config or Config(persist=False)
        self.headless = headless
        self.clock = clock
        self.wall_clock = wall_clock
        self.sounds = Sounds(self.config)
        """The sounds the scenes play (a window opens the mixer; tests may put a recorder)."""
        if not headless:
            self.sounds.start()
        self.surface = pygame.Surface(theme.LOGICAL_SIZE)
        self.window: pygame.Surface | None = None
        if not headless:
            window_size = (max(window_size[0], theme.MIN_WINDOW[0]),
                           max(window_size[1], theme.MIN_WINDOW[1]))
            self.window = pygame.display.set_mode(window_size, pygame.RESIZABLE)
            pygame.display.set_caption("Boardhall")
            limit_window(theme.MIN_WINDOW)
        self.stack: list[Scene] = []
        self.analyses = AnalysisCache()
        """The replays' computer analyses of this session (see ``client.analysis``)."""
        self.running = True
        self.dirty = True
        self._scaled: pygame.Surface | None = None
        self._caption = ""
        self.settle_soon = False
        self._after_frame: list[Callable[[], None]] = []
        self.present = not headless
        """Flip the display after drawing (False when ``window`` is an offscreen image)."""
        self.connection: Connection | None = None
        self.seat_connections: dict[str, Connection] = {}
        """Hot-seat play: one connection per seat, each sends for its own seat."""
        self.url = ""
        self.address = ""
        self.welcome: dict[str, Any] = {}
        self.greeted = False
        """The current connection got its ``welcome`` (``welcome`` keeps the last one, for the
        games list, while a dropped connection comes back)."""
        self.net_status = "offline"
        """``connecting``, ``online`` (welcomed: messages reach the server), ``reconnecting``
        or ``offline``."""
        self.closed_code: int | None = None
        """The close code of the last connection that ended (4001: another window took over)."""
        self._notice = ""
        self.notice_severity = Severity.ERROR
        """How the current :attr:`notice` is drawn (see :meth:`tell`)."""
        self._flash: tuple[str, float] | None = None
        """A notice that goes by itself, and when."""
        self._renewed = False
        """The server refused our token: say so once the new identity is welcomed."""
        self.patience = Patience()
        """How long the next :meth:`connect`'s connection waits for each step (tests shorten
        it)."""
        self._ids = itertools.count(1)
        self.sent: collections.deque[dict[str, Any]] = collections.deque(maxlen=200)
        """The last messages sent (for the status line, debugging and tests)."""
        self.left_rooms: dict[str, str] = {}
        """Room code -> game id of rooms the user left: a late snapshot does not reopen one."""
        self.local_server: Any = None
        self.rtt_ms: int | None = None
        """The last measured round trip to the server (``ping`` to ``pong``), in ms."""
        self._ping_due = 0.0
        self._ping_stamp: int | None = None
        self.ssl_context: Any = None
        """``ssl.SSLContext`` for ``wss://`` servers with a private certificate authority."""
        self.claim: Claim | None = None
        """The saved identity this window uses on the connected server (held while connected,
        so another window on the same config file takes another one)."""
        self._told_second = False
        self._keep_claim: Claim | None = None
        """Set by a refused token: the next :meth:`connect` renews that same identity slot."""
        self._told_unsaved = False
        self._last_frame: tuple[float, float] | None = None
        """(monotonic, wall) clocks at the last frame (see :meth:`catch_up_after_sleep`)."""

    # ---- scene stack --------------------------------------------------------------------------

    @property
    def top(self) -> Scene | None:
        """The scene receiving input."""
        return self.stack[-1] if self.stack else None

    def push(self, scene: Scene) -> None:
        """Put ``scene`` on top."""
        self.dirty = True
        self.stack.append(scene)
        scene.enter()

    def pop(self, scene: Scene | None = None) -> None:
        """Remove the top scene (or ``scene`` wherever it is)."""
        if not self.stack:
            return
        self.dirty = True
        target = scene or self.stack[-1]
        if target in self.stack:
            self.stack.remove(target)
            target.exit()
        if self.stack:
            self.stack[-1].enter()

    def replace(self, scene: Scene) -> None:
        """Replace the top scene with ``scene``."""
        if self.stack:
            self.stack.pop().exit()
        self.push(scene)

    def reset(self, scenes: Iterable[Scene]) -> None:
        """Replace the whole stack."""
        while self.stack:
            self.stack.pop().exit()
        for scene in scenes:
            self.push(scene)

    def find(self, kind: type[SceneT]) -> list[SceneT]:
        """Scenes of ``kind`` on the stack, bottom first."""
        return [s for s in self.stack if isinstance(s, kind)]

    # ---- connection ---------------------------------------------------------------------------

    def connect(self, url: str, name: str, address: str = "", ssl: Any = None) -> None:
        """Open the connection to ``url`` as ``name`` (resuming the saved token for that URL)."""
        self.disconnect()
        self.url = url
        self.address = address or url
        self.welcome = {}
        self.greeted = False
        self.closed_code = None
        self.net_status = "connecting"
        token = None
        kept, self._keep_claim = self._keep_claim, None
        if not self._local(url):
            # a local game's server is gone after this run: nothing of it is saved or resumed
            self.claim = kept or self.config.claim(url, name)
            if self.claim.token_key is not None:
                token = self.config.tokens.get(self.claim.token_key)
        self.connection = Connection(url, name, token,
                                     ssl=ssl or self.ssl_context, patience=self.patience)
        self.connection.start()

    @property
    def plays_locally(self) -> bool:
        """Whether the app is connected to this program's own embedded server: a game on one
        computer, with no ratings, spectators or anyone to chat with."""
        return bool(self.url) and self._local(self.url)

    def _local(self, url: str) -> bool:
        """Whether ``url`` is this program's own embedded server."""
        return self.local_server is not None and url == self.local_server.url

    def record_fetch(self, game_id: str) -> RecordFetch:
        """Start reading game ``game_id``'s record from the connected server, as this player (so
        their private games are readable) and with the connection's certificate trust."""
        from client.scenes.replay import RecordFetch

        context = self.connection.ssl if self.connection is not None else self.ssl_context
        token = self.connection.token if self.connection is not None else None
        return RecordFetch(self.url, game_id, token, context)

    def disconnect(self) -> None:
        """Close every connection."""
        for conn in [self.connection, *self.seat_connections.values()]:
            if conn is not None:
                conn.close()
        self.connection = None
        self.seat_connections = {}
        if self.net_status in ("connecting", "reconnecting") and (
                self.notice_severity is Severity.WARNING):
            self.notice = ""  # "reconnecting…" is not true any more
        self.net_status = "offline"
        if self.claim is not None:  # another window may use this identity now
            self.claim.release()
            self.claim = None

    def next_id(self) -> int:
        """A fresh request id."""
        return next(self._ids)

    def send(self, message: dict[str, Any], seat: str | None = None) -> int:
        """Send ``message`` with a fresh ``id`` (through ``seat``'s connection in hot-seat play)."""
        message = dict(message)
        message["id"] = self.next_id()
        conn = self.seat_connections.get(seat or "") or self.connection
        self.sent.append(message)
        if message.get("type") in ("join", "create"):
            self.left_rooms.pop(str(message.get("room", "")), None)
        if conn is not None:
            conn.send(message)
        return int(message["id"])

    @property
    def games(self) -> list[dict[str, Any]]:
        """GameInfo list from ``welcome`` (only well-formed entries)."""
        games = self.welcome.get("games")
        if not isinstance(games, list):
            return []
        return [g for g in games if isinstance(g, dict) and isinstance(g.get("game"), str)]

    @property
    def player_id(self) -> str | None:
        """Our public identity id."""
        value = self.welcome.get("player")
        return value if isinstance(value, str) else None

    def poll_network(self) -> int:
        """Deliver queued connection events to the scenes; returns how many.

        At most :data:`MAX_EVENTS_PER_FRAME` events and :data:`NET_BUDGET_S` seconds per frame,
        so a burst of messages is spread over a few frames instead of freezing one.
        """
        deadline = time.perf_counter() + NET_BUDGET_S
        for count in range(MAX_EVENTS_PER_FRAME):
            if count and time.perf_counter() > deadline:
                return count
            event = self._next_net_event()
            if event is None:
                return count
            self.dispatch_net(event)
        return MAX_EVENTS_PER_FRAME

    def _next_net_event(self) -> NetEvent | None:
        for conn in [self.connection, *self.seat_connections.values()]:
            if conn is None:
                continue
            try:
                event = conn.inbox.get_nowait()
            except Exception:  # queue.Empty
                continue
            if conn is not self.connection:
                # A hot-seat helper connection: only its errors matter to the player, and the
                # offers the other seat made (the server sends an offer to the opponent only).
                if event.kind == "message" and event.data.get("type") in ("error", "offer"):
                    return event
                continue
            return event
        return None

    def dispatch_net(self, event: NetEvent) -> None:
        """Handle one connection event: bookkeeping, then every scene sees it."""
        self.dirty = True
        if event.kind == "message":
            self._on_message(event.data)
            return
        if event.kind == "open":
            # online once the server says welcome: until then nothing sent is sure to count
            self.greeted = False
        elif event.kind == "reconnecting":
            self.net_status = "reconnecting"
            self.tell(event.text, Severity.WARNING)
        elif event.kind == "failed":
            self.net_status = "offline"
            self.tell(event.text, Severity.ERROR)
        elif event.kind == "closed":
            self.net_status = "offline"
            self.greeted = False
            self.closed_code = event.code
            if event.code in NO_RECONNECT_CODES:
                self.tell(TAKEN_OVER, Severity.ERROR)
        for scene in list(self.stack):
            scene.on_net(event)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            self.welcome = message
            self.greeted = True
            self.closed_code = None
            self.net_status = "online"
            self.notice = ""
            if self._renewed:  # said now: the welcome would wipe it if said before
                self._renewed = False
                self.tell(RENEWED, Severity.INFO)
                self._flash = (RENEWED, self.clock() + RENEWED_FOR_S)
            self._remember(message)
        elif kind == "pong":
            sent = message.get("t")
            if sent == self._ping_stamp and isinstance(sent, int) and not isinstance(sent, bool):
                self.rtt_ms = max(0, round(self.clock() * 1000 - sent))
        elif kind == "error" and message.get("code") == "bad_token" and not self.greeted:
            # The server forgot our identity (a new database), on the first connection or on a
            # reconnect after a restart: start afresh as a new one.
            if self.connection is not None and self.connection.token:
                if self.claim is not None:
                    self.config.forget(self.claim)
                    self.config.save()
                self._keep_claim, self.claim = self.claim, None  # not released: renewed
                name = self.connection.name
                self.connect(self.url, name, self.address)
                self._renewed = True
                return
        elif kind == "room":
            from client.scenes.room import RoomScene

            code = message.get("room")
            left = isinstance(code, str) and code in self.left_rooms and (
                self.left_rooms[code] == message.get("game_id"))
            if isinstance(code, str) and not left and not any(
                isinstance(s, RoomScene) and s.model.room == code for s in self.stack
            ):
                self.push(RoomScene(self, code))
                self.settle_soon = True
        for scene in list(self.stack):
            try:
                scene.on_message(message)
            except Exception as exc:  # a message the scene could not digest must not kill us
                self.tell(f"Ignored a message the client could not read ({kind}): {exc}",
                          Severity.ERROR)

    def _remember(self, welcome: dict[str, Any]) -> None:
        """Save the welcomed identity (its token under this window's claim), the name and the
        server; say once when it cannot be saved, or when it is not the main saved one."""
        token, name = welcome.get("token"), welcome.get("name")
        if self.claim is None:
            if not self.url or self._local(self.url):
                return  # a local game's server is gone after this run
            self.claim = self.config.claim(self.url, name if isinstance(name, str) else "")
        claim = self.claim
        if isinstance(token, str) and isinstance(name, str):
            self.config.remember(claim, token, name)
        if isinstance(name, str):
            self.config.name = name
        if self.address:
            self.config.server = self.address
        said, severity = "", Severity.INFO
        if not self.config.save() and not self._told_unsaved:
            self._told_unsaved = True
            said, severity = self.config.problem, Severity.ERROR
        elif claim.others_busy and not self._told_second and not self.notice:
            self._told_second = True
            said = SECOND_WINDOW
        if said:
            self.tell(said, severity)
            self._flash = (said, self.clock() + RENEWED_FOR_S)

    @property
    def notice(self) -> str:
        """The line shown over the bottom of the top scene ("": none)."""
        return self._notice

    @notice.setter
    def notice(self, text: str) -> None:
        """Text set without a severity is a problem: an unclassified notice never looks like
        harmless news (use :meth:`tell` to say which it is)."""
        self.tell(text, Severity.ERROR)

    def tell(self, text: str, severity: Severity) -> None:
        """Show ``text`` as the notice, drawn as ``severity`` asks."""
        self._notice = text
        self.notice_severity = severity

    # ---- frames -------------------------------------------------------------------------------

    def viewport(self) -> tuple[float, int, int]:
        """(scale, x offset, y offset) of the logical surface inside the window."""
        if self.window is None:
            return 1.0, 0, 0
        w, h = self.window.get_size()
        lw, lh = theme.LOGICAL_SIZE
        scale = min(w / lw, h / lh)
        return scale, int((w - lw * scale) / 2), int((h - lh * scale) / 2)

    def to_logical(self, event: pygame.event.Event) -> pygame.event.Event:
        """The same event with its mouse position in logical coordinates."""
        if event.type not in MOUSE_EVENTS or self.window is None:
            return event
        scale, ox, oy = self.viewport()
        if scale == 1.0 and ox == 0 and oy == 0:
            return event
        x, y = event.pos
        attrs = dict(event.dict)
        attrs["pos"] = (int((x - ox) / scale), int((y - oy) / scale))
        return pygame.event.Event(event.type, attrs)

    def handle_event(self, event: pygame.event.Event) -> None:
        """Route one pygame event to the top scene (after window-level handling)."""
        if event.type == pygame.QUIT:
            self.running = False
            return
        if event.type == pygame.VIDEORESIZE and self.window is not None:
            self.window = pygame.display.get_surface()
            return
        top = self.top
        if top is not None:
            top.handle_event(self.to_logical(event))

    def step(self, dt: float, events: Iterable[pygame.event.Event] = ()) -> bool:
        """One frame: input, network, update, and draw when anything may have changed.

        Returns True when the frame was drawn. Nothing is drawn when no event, message or scene
        asked for it (a scene's ``update`` calls :meth:`invalidate`, e.g. when a clock ticks).
        """
        self.catch_up_after_sleep()
        for event in events:
            self.handle_event(event)
            self.dirty = True
        if self.poll_network():
            self.dirty = True
        self.keep_alive()
        if self._flash is not None and self.clock() >= self._flash[1]:
            if self.notice == self._flash[0]:
                self.notice = ""
                self.dirty = True
            self._flash = None
        for scene in list(self.stack):
            scene.update(dt)
        if self.present and self.stack:
            caption = self.visible_scenes()[0].caption()  # a dialog keeps its scene's title
            if caption != self._caption:
                self._caption = caption
                pygame.display.set_caption(caption)
        drawn = self.dirty
        if drawn:
            self.dirty = False
            self.render()
            if self.settle_soon:  # after the first frame of a new room, while the user looks
                self.settle_soon = False
                self.settle(collect=False)
        after, self._after_frame = self._after_frame, []
        for work in after:
            work()
        return drawn

    def catch_up_after_sleep(self) -> None:
        """After a sleep (see :data:`WAKE_GAP_S`), let every scene catch up (before the
        messages that waited are read) and measure the round trip again at once."""
        now, wall = self.clock(), self.wall_clock()
        last, self._last_frame = self._last_frame, (now, wall)
        if last is None or (wall - last[1]) - (now - last[0]) < WAKE_GAP_S:
            return
        self.dirty = True
        self._ping_due = now
        for scene in list(self.stack):
            scene.on_wake(last[0])

    def after_frame(self, work: Callable[[], None]) -> None:
        """Call ``work`` once at the end of this frame, after it is drawn and presented: what
        would hold the GIL while a frame draws (starting a process: vfork waits for the exec)
        is let begin while the loop waits for the next frame. Keep ``work`` itself short."""
        self._after_frame.append(work)

    def keep_alive(self) -> None:
        """Every :data:`PING_EVERY_S` while online, send ``ping`` stamped with our clock; the
        ``pong`` gives the round trip (shown in the room and the lobby)."""
        now = self.clock()
        if self.net_status != "online" or not self.welcome or self.connection is None:
            self._ping_due = now  # ping at once when the connection is (back) up
            return
        if now >= self._ping_due:
            self._ping_due = now + PING_EVERY_S
            self._ping_stamp = round(now * 1000)
            self.send({"type": "ping", "t": self._ping_stamp})

    def invalidate(self) -> None:
        """Ask for the next frame to be drawn."""
        self.dirty = True

    def visible_scenes(self) -> list[Scene]:
        """The top opaque scene and the transparent ones above it, bottom first, without the
        dialogs still waiting to show (see :meth:`Scene.waiting_to_show`)."""
        start = len(self.stack) - 1
        while start > 0 and self.stack[start].transparent:
            start -= 1
        scenes = self.stack[max(start, 0):]
        return [s for i, s in enumerate(scenes) if i == 0 or not s.waiting_to_show()]

    def render(self) -> None:
        """Draw the visible scenes and present them.

        At the logical size the scenes draw straight onto the logical surface. In a window of
        another size each scene's shapes are drawn on the logical surface and scaled, and its
        text is drawn afterwards at the window's scale, so text stays sharp.
        """
        scenes = self.visible_scenes()
        scale, ox, oy = self.viewport()
        if self.window is None or scale == 1.0:
            self.surface.fill(theme.BG)
            for scene in scenes:
                scene.draw(self.surface)
            if self.notice:
                self._draw_notice(self.surface)
            if self.window is not None:
                self.window.fill(_bars_colour(scenes))
                self.window.blit(self.surface, (ox, oy))
        else:
            # Scenes under a dialog are dimmed: their text may be scaled with them. Only the
            # top scene's text (and the notice) is drawn sharp at the window's scale.
            self.window.fill(_bars_colour(scenes))
            lw, lh = theme.LOGICAL_SIZE
            size = (max(1, int(lw * scale)), max(1, int(lh * scale)))
            self.surface.fill(theme.BG)
            for scene in scenes[:-1]:
                scene.draw(self.surface)
            with draw.collect_text(scale) as texts:
                if scenes:
                    scenes[-1].draw(self.surface)
            if self._scaled is None or self._scaled.get_size() != size:
                self._scaled = pygame.Surface(size)
            pygame.transform.smoothscale(self.surface, size, self._scaled)
            self.window.blit(self._scaled, (ox, oy))
            draw.draw_collected(self.window, texts, scale, (ox, oy))
            if self.notice:  # over the scene's text too (a panel's title under it)
                with draw.collect_text(scale) as texts:
                    self._draw_notice(self.window, scale, (ox, oy))
                draw.draw_collected(self.window, texts, scale, (ox, oy))
        if self.present and self.window is not None:
            pygame.display.flip()

    def notice_box(self) -> tuple[pygame.Rect, list[str]]:
        """Where the notice is drawn over the visible scenes, and its lines as the window shows
        them (a small window's text takes relatively more room)."""
        scenes = self.visible_scenes()
        scene = scenes[0] if scenes else Scene(self)
        width = scene.notice_rect().width - 24
        scale = self.viewport()[0]
        lines = _notice_lines(self.notice, width, scale, scene.notice_lines)
        return scene.notice_box(len(lines), scale), lines

    def _draw_notice(self, surface: pygame.Surface, scale: float = 1.0,
                     offset: tuple[int, int] = (0, 0)) -> None:
        """The notice's panel on ``surface`` (the window: at ``scale``, from ``offset``) and its
        lines at logical positions (collected, in a scaled window)."""
        rect, lines = self.notice_box()
        fill, border = NOTICE_COLORS[self.notice_severity]
        draw.panel(surface, draw.window_rect(rect, scale, offset), fill, border)
        top = rect.centery - NOTICE_LINE_STEP * (len(lines) - 1) // 2
        for row, line in enumerate(lines):
            draw.text(surface, line, (rect.centerx, top + row * NOTICE_LINE_STEP), 15,
                      theme.TEXT, "center", rect.width - 24)

    def settle(self, collect: bool = True) -> None:
        """Freeze the objects alive now (engines, fonts, scenes, and in local play the embedded
        server) out of the garbage collector's way, so later collections have little to walk
        and never stall a frame for long. At start-up garbage is collected first; when a room
        opens only the (cheap) freeze runs, so the first frames of the room do not hitch."""
        if collect:
            gc.collect()
        gc.freeze()

    def run(self, fps: int = 60) -> None:
        """The main loop until the window closes."""
        self.settle()
        clock = pygame.time.Clock()
        while self.running and self.stack:
            dt = clock.tick(fps) / 1000.0
            self.step(dt, pygame.event.get())
        self.analyses.cancel_all()  # no analysis process outlives the window
        self.disconnect()
        if self.local_server is not None:
            with contextlib.suppress(Exception):
                self.local_server.stop()
        # Only the window closes: fonts stay valid for anything else in this process.
        pygame.display.quit()


def _bars_colour(scenes: list[Scene]) -> pygame.Color:
    """The colour of the window's bars beside the layout: the background as the visible scenes
    leave it (dimmed under a dialog, as the scene's own background is)."""
    swatch = pygame.Surface((1, 1))
    swatch.fill(theme.BG)
    for scene in scenes:
        scene.shade_bars(swatch)
    return swatch.get_at((0, 0))


def _notice_lines(text: str, width: int, scale: float, most: int = 2) -> list[str]:
    """``text`` in at most ``most`` lines of ``width`` logical pixels as the window shows them
    (a small window's text takes relatively more room); the last is cut if it must be."""
    lines: list[str] = []
    words = text.split(" ")
    while words:
        count = 1
        if len(lines) == most - 1:
            count = len(words)
        while count < len(words) and draw.text_extent(" ".join(words[: count + 1]), 15,
                                                      scale) <= width:
            count += 1
        lines.append(" ".join(words[:count]))
        words = words[count:]
    return lines
