"""Plain helpers shared by the client tests (fixtures live in conftest.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import http.server
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygame
from websockets.sync.server import ServerConnection, serve

from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from client.net import NetEvent
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.netproxy import Proxy


def open_app(tmp_path: Path, name: str, url: str, *, config: Config | None = None,
             clock: Callable[[], float] = time.monotonic, **patience: Any) -> App:
    """A headless app that connects to ``url`` as ``name`` through its connect scene (its own
    config file in ``tmp_path`` unless ``config`` is given; ``clock``: the app's monotonic
    clock; ``patience`` replaces fields of its :class:`client.net.Patience`)."""
    app = App(config or Config(path=tmp_path / f"{name}.json"), headless=True, clock=clock)
    if patience:
        app.patience = dataclasses.replace(app.patience, **patience)
    scene = ConnectScene(app, url, name)
    app.push(scene)
    scene.submit()
    return app


# ---- colours as an eye sees them ----------------------------------------------------------------


def luminance(color: tuple[int, ...]) -> float:
    """WCAG relative luminance of an sRGB colour (alpha ignored)."""

    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in color[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG contrast ratio of two colours, 1 to 21. It measures lightness only, so it holds
    for a colour-blind eye as for any other (red against green is about 1:1 to a
    deuteranope)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# ---- driving apps as a user does ---------------------------------------------------------------


def pump(apps: App | list[App], until: Callable[[], bool], timeout: float = 15.0) -> None:
    """Deliver the apps' connection events (and step their frames) until ``until()``."""
    group = apps if isinstance(apps, list) else [apps]
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out waiting for the server"
        for app in group:
            if app.connection is not None:
                with contextlib.suppress(queue.Empty):
                    app.dispatch_net(app.connection.inbox.get(timeout=0.05 / len(group)))
            app.step(0.0)


def room_of(app: App) -> RoomScene:
    """The app's open room scene (the newest)."""
    rooms = app.find(RoomScene)
    assert rooms, "no room open"
    return rooms[-1]


def px(where: App | RoomScene, point: str) -> tuple[int, int]:
    """Where ``point`` is drawn in a room scene (or in an app's open room)."""
    scene = room_of(where) if isinstance(where, App) else where
    assert scene.view is not None, "no board view"
    return scene.view.pixel_of(point)


def click(app: App, pos: tuple[int, int]) -> None:
    """A left click at logical ``pos`` through the app's own event handling."""
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.handle_event(pygame.event.Event(kind, pos=pos, button=1))


def drag(app: App, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press on ``start``, move to ``end`` with the button held, release."""
    app.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1))
    app.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=end, rel=(0, 0),
                                        buttons=(1, 0, 0)))
    app.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=1))


def key(app: App, code: int, text: str = "", mod: int = 0) -> None:
    """A key press, with its text input when it types something (as pygame: not with Ctrl or
    Alt held)."""
    app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=code, mod=mod, unicode=text))
    if text and not mod & (pygame.KMOD_CTRL | pygame.KMOD_ALT):
        app.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=text))


def type_text(app: App, text: str) -> None:
    """Text typed into the focused field."""
    app.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=text))


@contextlib.contextmanager
def two_players_on_a_server(tmp_path: Path, db: Path) -> Iterator[tuple[EmbeddedServer, App, App]]:
    """A server on ``db`` with Alice and Bob connected; both disconnected at the end."""
    server = EmbeddedServer(db=db).start()
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    try:
        yield server, alice, bob
    finally:
        for app in (alice, bob):
            app.disconnect()
        server.stop()


def sit_at_a_table(apps: list[App], game: str, **create: Any) -> None:
    """The first app opens a ``game`` room as its first player, the second joins it and any
    others watch it, once all are in the lobby (``create``: more fields of the ``create``
    message: a variant, a position, a clock, options); returns once the game is on for all."""
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    apps[0].send({"type": "create", "game": game, "color": "first", **create})
    pump(apps, lambda: bool(apps[0].find(RoomScene)))
    code = room_of(apps[0]).model.room
    apps[1].send({"type": "join", "room": code})
    for watcher in apps[2:]:
        watcher.send({"type": "join", "room": code, "role": "spectator"})
    pump(apps, lambda: all(a.find(RoomScene) for a in apps)
         and all(room_of(a).model.status == "playing" for a in apps))


@contextlib.contextmanager
def seated_on_a_server(tmp_path: Path, game: str, watchers: tuple[str, ...] = (),
                       **create: Any) -> Iterator[list[App]]:
    """Alice (first) and Bob at a ``game`` table (:func:`sit_at_a_table`) on a real server with
    a database in ``tmp_path``, each of ``watchers`` watching; all disconnect and the server
    stops at the end."""
    server = EmbeddedServer(db=tmp_path / "db.sqlite").start()
    apps = [open_app(tmp_path, name, server.url) for name in ("Alice", "Bob", *watchers)]
    try:
        sit_at_a_table(apps, game, **create)
        yield apps
    finally:
        for app in apps:
            app.disconnect()
        server.stop()


def first_move_at_a_table(alice: App, bob: App) -> None:
    """Alice opens a hexgomoku room, Bob joins it, Alice plays 0,0 and Bob sees it."""
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump(apps, lambda: bool(alice.find(RoomScene)))
    bob.send({"type": "join", "room": room_of(alice).model.room})
    pump(apps, lambda: bool(bob.find(RoomScene)))
    click(alice, px(room_of(alice), "0,0"))
    pump(apps, lambda: len(room_of(bob).model.moves) == 1)


@contextlib.contextmanager
def back_on_the_same_port(
    first: EmbeddedServer, db: Path, apps: list[App]
) -> Iterator[EmbeddedServer]:
    """Stop ``first`` and start a server again on its port and ``db``; once the apps are back
    online with both seats connected, yield it. The apps disconnect and it stops at the end."""
    port = first.server.port
    first.stop()
    pump(apps, lambda: all(a.net_status != "online" for a in apps))
    second = EmbeddedServer(db=db, port=port).start()
    try:
        pump(apps, lambda: all(a.net_status == "online" for a in apps), timeout=30)
        pump(apps, lambda: all((room_of(a).model.seats.get("second") or {}).get("connected")
                               for a in apps))
        yield second
    finally:
        for app in apps:
            app.disconnect()
        second.stop()


def running_clock_at_zero(snapshot: dict[str, Any]) -> dict[str, Any]:
    """``snapshot`` (a ``room`` message) with the running side's time up: its main time and the
    per-move limit read zero, so the opponent may claim it."""
    clocks = snapshot["clocks"]
    running = clocks["running"]
    if clocks.get(running) is not None:
        clocks[running] = 0
    if clocks.get("move") is not None:
        clocks["move"] = 0
    return snapshot


class StubConnection:
    """A hot-seat helper connection that only records what it is asked to send."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def close(self) -> None:
        """Nothing to close."""


def drawn(room: str) -> dict[str, Any]:
    """The ``over`` message of the demo game in ``room``, drawn by agreement."""
    return {"type": "over", "room": room, "game_id": "g-demo-1", "result": "draw",
            "reason": "agreement", "position": "?"}


def next_game(finished: dict[str, Any], room: str, you: str | None,
              swapped: bool = True) -> dict[str, Any]:
    """The ``room`` snapshot of a new chess game of ``finished``'s two players: in the other
    colours (what a rematch opens) unless ``swapped`` is false."""
    from client.demo import demo_room

    snapshot = demo_room("chess", plies=0, you=you, room=room)
    snapshot["game_id"] = "g-demo-2"
    seats = finished["seats"]
    snapshot["seats"] = ({"first": seats["second"], "second": seats["first"]} if swapped
                         else dict(seats))
    return snapshot


# ---- watching the connection ----------------------------------------------------------------


def record_events(app: App) -> list[NetEvent]:
    """Every connection event ``app`` handles from now on, in order."""
    seen: list[NetEvent] = []
    handle = app.dispatch_net

    def recording(event: NetEvent) -> None:
        seen.append(event)
        handle(event)

    app.dispatch_net = recording  # type: ignore[method-assign]
    return seen


def kinds(events: list[NetEvent]) -> list[str]:
    """The events' kinds, messages by their type."""
    return [str(e.data.get("type")) if e.kind == "message" else e.kind for e in events]


@contextlib.contextmanager
def proxied(server: EmbeddedServer) -> Iterator[Proxy]:
    """A proxy in front of ``server``."""
    proxy = Proxy(server.server.port).start()
    try:
        yield proxy
    finally:
        proxy.stop()


@contextlib.contextmanager
def table(tmp_path: Path, alice_url: str, bob_url: str,
          bob_clock: Callable[[], float] = time.monotonic) -> Iterator[tuple[App, App]]:
    """Alice (first) and Bob (second, his app on ``bob_clock``) at a hexgomoku table with a 5+3
    clock, after Alice's first move 0,0."""
    alice = open_app(tmp_path, "Alice", alice_url)
    bob = open_app(tmp_path, "Bob", bob_url, clock=bob_clock)
    apps = [alice, bob]
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        alice.send({"type": "create", "game": "hexgomoku", "color": "first",
                    "clock": {"initial": 300, "increment": 3}})
        pump(apps, lambda: bool(alice.find(RoomScene)))
        bob.send({"type": "join", "room": room_of(alice).model.room})
        pump(apps, lambda: bool(bob.find(RoomScene)))
        click(alice, px(room_of(alice), "0,0"))
        pump(apps, lambda: len(room_of(bob).model.moves) == 1)
        assert room_of(bob).model.clocks.get("running") == "second"
        yield alice, bob
    finally:
        for app in (alice, bob):
            app.disconnect()


STATUS_Y = 244
"""The room's status line is drawn at this height, from the panel's left edge."""


def status_parts(app: App, size: tuple[int, int], monkeypatch: Any
                 ) -> list[tuple[str, Any, bool]]:
    """Render ``app`` as a window of ``size`` shows it and return the parts of the room's
    status line as drawn: each text, its colour, and whether it is shown whole (not cut to its
    width at that window's scale)."""
    from client.ui import draw

    parts: list[tuple[str, Any, bool]] = []
    real = draw.text
    scale = min(size[0] / 1280, size[1] / 800)

    def recording(surface: pygame.Surface, value: str, pos: tuple[int, int], size: int = 18,
                  color: Any = (0, 0, 0), anchor: draw.Anchor = "topleft",
                  max_width: int | None = None, *args: Any, **kwargs: Any) -> pygame.Rect:
        if pos[1] == STATUS_Y and anchor == "midleft" and size == 17:
            whole = max_width is None or draw.text_extent(value, size, scale) <= max_width
            parts.append((value, color, whole))
        return real(surface, value, pos, size, color, anchor, max_width, *args, **kwargs)

    app.step(0.0)
    monkeypatch.setattr(draw, "text", recording)
    previous = app.window
    app.window = pygame.Surface(size)
    try:
        app.render()
    finally:
        app.window = previous
        monkeypatch.setattr(draw, "text", real)
    return parts


def replay_lines(scene: Any, monkeypatch: Any) -> list[str]:
    """Every text a replay scene draws in one frame (``monkeypatch``: pytest's fixture)."""
    from client.scenes import replay

    seen: list[str] = []
    real = replay.draw.text

    def record(surface: Any, value: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(value)
        return real(surface, value, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(replay.draw, "text", record)
        scene.draw(pygame.Surface((1280, 800)))
    return seen


@dataclasses.dataclass
class FixedAnswer:
    """What a :func:`fixed_http` server answers every GET with (a test may change it between
    requests), and the paths it was asked for."""

    status: int = 200
    body: bytes = b""
    content_type: str | None = None
    port: int = 0
    """The server's port on 127.0.0.1, once it listens."""
    asked: list[str] = dataclasses.field(default_factory=list)


@contextlib.contextmanager
def fixed_http(answer: FixedAnswer) -> Iterator[FixedAnswer]:
    """A plain HTTP server on a free loopback port answering every GET with ``answer`` (a
    server from before a route, a proxy's page, a bad record), stopped on exit."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer.asked.append(self.path)
            self.send_response(answer.status)
            if answer.content_type is not None:
                self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def log_message(self, *args: Any) -> None:
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    answer.port = server.server_address[1]
    try:
        yield answer
    finally:
        server.shutdown()
        server.server_close()


def arrived(fetch: Any, timeout: float = 10.0) -> Any:
    """What ``fetch`` (a :class:`~client.http_get.Fetch`: a record's, a profile's…) read or
    why it failed, once its read has ended (waited for on its thread's signal, not polled)."""
    assert fetch.wait(timeout), f"the fetch did not end within {timeout} s"
    found = fetch.result()
    assert found is not None
    return found


@contextlib.contextmanager
def watched_table(tmp_path: Path, url: str, clock: dict[str, int],
                  carol_clock: Callable[[], float] = time.monotonic
                  ) -> Iterator[tuple[App, App, App, str]]:
    """Alice (first) and Bob at a chess table with ``clock`` on the server at ``url``, watched
    by Carol (her app on ``carol_clock``), before any move; yields the three apps and the room
    code, and disconnects them at the end."""
    alice = open_app(tmp_path, "Alice", url)
    bob = open_app(tmp_path, "Bob", url)
    carol = open_app(tmp_path, "Carol", url, clock=carol_clock)
    apps = [alice, bob, carol]
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        alice.send({"type": "create", "game": "chess", "color": "first", "clock": clock})
        pump(apps, lambda: bool(alice.find(RoomScene)) and room_of(alice).model.game == "chess")
        code = room_of(alice).model.room
        bob.send({"type": "join", "room": code})
        pump(apps, lambda: bool(bob.find(RoomScene)))
        carol.send({"type": "join", "room": code, "role": "spectator"})
        pump(apps, lambda: bool(carol.find(RoomScene)) and room_of(carol).model.status == "playing")
        yield alice, bob, carol, code
    finally:
        for app in apps:
            app.disconnect()


@contextlib.contextmanager
def websocket_server(handler: Callable[[ServerConnection], None]) -> Iterator[int]:
    """A plain WebSocket server (not Boardhall) on a free port."""
    server = serve(handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.socket.getsockname()[1]
    finally:
        server.shutdown()
        thread.join(5)
