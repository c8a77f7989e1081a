"""What a player meets when the network or the server misbehaves, against real servers: a
connection cut mid-game (with a move on its way), a silent link, a server gone for good, an
identity taken over by another window, a slow server, and every way connecting can fail.

The network's misbehaviour comes from a real server (its connections aborted, stopped) or from
a TCP proxy in front of it (tests/client/netproxy.py) that holds, silences or resets traffic on
demand, so nothing here waits on a timer of its own."""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
from pathlib import Path
from typing import Any

import pygame
import pytest
from websockets.sync.server import ServerConnection

from client.app import RENEWED, RENEWED_FOR_S, App
from client.config import Config
from client.demo import demo_room
from client.local import EmbeddedServer
from client.net import NetEvent, describe_failure, gave_up_text, retry_text
from client.room_model import format_clock
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from client.ui import draw, theme
from tests.client.helpers import (
    FixedAnswer,
    click,
    first_move_at_a_table,
    fixed_http,
    key,
    kinds,
    open_app,
    proxied,
    pump,
    px,
    record_events,
    room_of,
    table,
    websocket_server,
)

QUICK: dict[str, Any] = {"reconnect_for": 1.0, "welcome_timeout": 2.0}
"""Connection settings that make a test's failures come quickly (the defaults are minutes)."""


def wait_for_failure(app: App, scene: ConnectScene, timeout: float = 15.0) -> None:
    """Pump ``app`` until its connect scene stops trying."""
    pump([app], lambda: not scene.busy, timeout=timeout)


def server_aborts(server: EmbeddedServer, app: App) -> None:
    """The server resets ``app``'s TCP connection (as a crashed proxy or a dying link would)."""
    hall = server.server.hall
    conns = [c for c, s in hall.sessions.items()
             if s.identity is not None and s.identity.player == app.player_id]
    assert conns, "the server does not know this player"
    for conn in conns:
        server.server.loop.call_soon_threadsafe(server.server.connections[conn].transport.abort)


# ---- a connection lost mid-game ------------------------------------------------------------


def test_a_server_side_abort_is_noticed_and_the_seat_board_and_clocks_come_back(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """The server resets Bob's connection mid-game: Bob's room says it is reconnecting (his
    clock stops counting on a guess), a click says why nothing happens, and he comes back by
    himself to the same seat with the board and clocks of the server's snapshot; the "not
    connected" line goes once he is back."""
    with table(tmp_path, embedded.url, embedded.url) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        server_aborts(embedded, bob)
        pump(apps, lambda: bob.net_status == "reconnecting")
        assert "Reconnecting" in scene.status_line()
        assert bob.notice, "the reconnecting state is said over the room"
        assert scene.model.clocks["running"] is None, "the clocks wait for the server"
        click(bob, px(scene, "0,1"))
        assert "Not connected" in scene.message and scene.pending_move is None
        pump(apps, lambda: bob.net_status == "online"
             and "room" in kinds(events[kinds(events).index("welcome"):]), timeout=15)
        snapshots = [e.data for e in events if e.data.get("type") == "room"]
        assert scene.model.you == "second"
        assert (scene.model.seats.get("second") or {}).get("connected") is True
        assert scene.model.moves == snapshots[-1]["moves"] == ["0,0"]
        assert scene.model.clocks == snapshots[-1]["clocks"]
        assert kinds(events)[:3] == ["closed", "reconnecting", "open"]
        assert "welcome" in kinds(events) and "failed" not in kinds(events)
        assert "Not connected" not in scene.message, "the offline line went with the offline"
        assert not bob.notice
        click(bob, px(scene, "0,1"))
        pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])


def test_a_move_lost_with_the_connection_is_said_not_sent_and_can_be_played_again(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Bob's move is on its way when the link resets: it never reached the server. Once back,
    his room says so (it was showing "Sending your move…") and he plays it again, once."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        proxy.hold("up")
        click(bob, px(scene, "0,1"))
        assert scene.pending_move == "0,1" and scene.status_line() == "Sending your move…"
        pump(apps, lambda: proxy.held("up") > 0)
        proxy.cut()
        proxy.release("up")
        pump(apps, lambda: bob.net_status == "reconnecting")
        pump(apps, lambda: bob.net_status == "online" and scene.pending_move is None, timeout=15)
        assert scene.model.moves == ["0,0"] and room_of(alice).model.moves == ["0,0"]
        assert scene.message.startswith("Your move 0,1 was not sent: play it again")
        assert scene.status_line() == "Your move"
        click(bob, px(scene, "0,1"))
        pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1"])


def test_a_move_the_server_took_before_the_link_reset_is_played_once(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """The server takes Bob's move but its reply is lost with the connection: once back, Bob's
    board has the move once, nothing is sent again, and no error or "not sent" is shown."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        proxy.hold("down")
        click(bob, px(scene, "0,1"))
        pump([alice], lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        proxy.cut()
        proxy.release("down")
        pump(apps, lambda: bob.net_status == "online" and scene.pending_move is None, timeout=15)
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1"])
        assert len([m for m in bob.sent if m.get("type") == "move"]) == 1
        assert "not sent" not in scene.message and scene.message_color != theme.BAD
        assert room_of(alice).model.moves == ["0,0", "0,1"]


def test_a_silent_link_is_noticed_and_reconnected(tmp_path: Path,
                                                  embedded: EmbeddedServer) -> None:
    """The link goes silent (no reset, no close: a dead Wi-Fi): the client's keep-alive notices
    it within its ping timeout, and it reconnects by itself to the same seat."""
    with proxied(embedded) as proxy:
        alice = open_app(tmp_path, "Alice", embedded.url)
        bob = open_app(tmp_path, "Bob", proxy.url(), ping_interval=0.3, ping_timeout=1.0)
        try:
            first_move_at_a_table(alice, bob)
            apps = [alice, bob]
            proxy.blackhole()
            pump(apps, lambda: bob.net_status == "reconnecting", timeout=10)
            pump(apps, lambda: bob.net_status == "online"
                 and room_of(bob).model.you == "second", timeout=15)
            click(bob, px(room_of(bob), "0,1"))
            pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        finally:
            for app in (alice, bob):
                app.disconnect()


def test_clocks_stop_while_the_connection_is_down_and_take_the_servers_time_back(
        ui: Any) -> None:
    """While the connection is down nobody here knows the server's clocks: the running one
    stops where it was (it would otherwise run down to a flag the server may never see); the
    snapshot after the reconnect sets both."""
    room = ui.open_room(demo_room("chess", plies=4))
    running = room.model.clocks["running"]
    ui.clock.now += 2.0
    before = format_clock(room.model.remaining_ms(running, ui.clock.now))
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
    ui.clock.now += 30.0
    assert format_clock(room.model.remaining_ms(running, ui.clock.now)) == before
    snapshot = demo_room("chess", plies=4)
    snapshot["clocks"][running] = 12_345
    ui.app.dispatch_net(NetEvent("open"))
    ui.message({**ui.app.welcome, "resumed": ["K7QD"]})
    ui.message(snapshot)
    assert room.model.remaining_ms(running, ui.clock.now) == 12_345
    assert room.model.clocks["running"] == running


# ---- the server restarts, or is gone for good ----------------------------------------------


def test_a_server_gone_for_good_is_given_up_and_esc_goes_back_with_the_reason(
        tmp_path: Path) -> None:
    """The server stops and never comes back: the client tries for a while (reconnecting,
    with the attempt and the wait said), then gives up and says so; Esc leaves the room for
    the connect scene with the reason, ready to connect again."""
    server = EmbeddedServer().start()
    alice = open_app(tmp_path, "Alice", server.url, **QUICK)
    try:
        pump([alice], lambda: isinstance(alice.top, LobbyScene))
        alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
        pump([alice], lambda: bool(alice.find(RoomScene)))
        scene = room_of(alice)
        events = record_events(alice)
        server.stop()
        pump([alice], lambda: alice.net_status == "reconnecting")
        pump([alice], lambda: any(e.kind == "failed" for e in events), timeout=15)
        retries = [e.text for e in events if e.kind == "reconnecting"]
        assert any(t.startswith("Reconnecting in") and "attempt" in t for t in retries), retries
        assert alice.net_status == "offline"
        assert alice.notice.startswith("Could not reconnect"), alice.notice
        assert "Connection refused" in alice.notice
        assert scene.status_line().startswith("Offline")
        assert not alice.find(LobbyScene), "an offline lobby is not kept"
        assert alice.connection is not None and alice.connection._thread is not None
        alice.connection._thread.join(5)
        assert not alice.connection._thread.is_alive(), "it stopped trying"
        alice.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0,
                                              unicode=""))
        alice.step(0.0)
        top = alice.top
        assert isinstance(top, ConnectScene)
        assert top.message.startswith("Could not reconnect") and top.connect_button.enabled
    finally:
        alice.disconnect()


def test_leaving_while_reconnecting_stops_it_and_its_notice_goes(tmp_path: Path) -> None:
    """The server is down and the client is still trying: Esc leaves the room, Ctrl+D (the
    lobby's Disconnect) goes to the connect scene and stops trying. The notice "Connection lost;
    reconnecting…" goes with it (it stayed over the connect scene, saying something nothing
    was doing any more)."""
    server = EmbeddedServer().start()
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump([alice], lambda: isinstance(alice.top, LobbyScene))
        alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
        pump([alice], lambda: bool(alice.find(RoomScene)))
        server.stop()
        pump([alice], lambda: alice.net_status == "reconnecting")
        assert "reconnecting" in alice.notice
        key(alice, pygame.K_ESCAPE)
        alice.step(0.0)
        assert isinstance(alice.top, LobbyScene)
        key(alice, pygame.K_d, mod=pygame.KMOD_CTRL)
        alice.step(0.0)
        assert isinstance(alice.top, ConnectScene) and alice.connection is None
        assert alice.net_status == "offline"
        assert "reconnecting" not in alice.notice.lower(), alice.notice
    finally:
        alice.disconnect()


def test_a_server_that_forgot_us_gives_a_new_identity_not_a_dead_session(
        tmp_path: Path) -> None:
    """The server restarts on an empty database and refuses the saved token on the reconnect:
    the client starts afresh as a new identity and says so, instead of sitting "online" with
    every action answered "say hello first"."""
    first = EmbeddedServer().start()
    port = first.server.port
    alice = open_app(tmp_path, "Alice", first.url)
    pump([alice], lambda: isinstance(alice.top, LobbyScene))
    old = alice.player_id
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump([alice], lambda: bool(alice.find(RoomScene)))
    first.stop()
    pump([alice], lambda: alice.net_status != "online")
    second = EmbeddedServer(port=port).start()
    try:
        pump([alice], lambda: alice.net_status == "online" and alice.player_id not in (None, old),
             timeout=20)
        assert alice.notice == RENEWED
        assert "hello" not in room_of(alice).message
        lobby = alice.find(LobbyScene)[0]
        alice.send({"type": "create", "game": "chess", "color": "first"})
        pump([alice], lambda: any(r.model.game == "chess" for r in alice.find(RoomScene)))
        assert not lobby.status.startswith("say hello")
    finally:
        alice.disconnect()
        second.stop()


def test_a_refused_saved_token_is_said_once_welcomed_and_the_line_goes(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Connecting with a saved token the server does not know gives a new identity; the line
    that says so used to be wiped by that identity's own welcome a moment later, so nobody
    ever read it. Now it shows once welcomed, for a while, then goes."""
    now = [1000.0]
    config = Config(path=tmp_path / "c.json", tokens={embedded.url: "not-a-real-token"})
    app = App(config, headless=True, clock=lambda: now[0])
    scene = ConnectScene(app, embedded.url, "Carol")
    app.push(scene)
    scene.submit()
    try:
        pump([app], lambda: isinstance(app.top, LobbyScene), timeout=15)
        assert app.notice == RENEWED
        now[0] += RENEWED_FOR_S + 1
        app.step(0.0)
        assert not app.notice
    finally:
        app.disconnect()


# ---- another window takes over ---------------------------------------------------------------


def test_another_window_with_the_same_identity_takes_over_without_a_fight(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """A client with a copy of the same config file (another computer, or BOARDHALL_CONFIG
    naming a copy: two windows on one config file take two identities instead, see
    test_config_audit) connects with the same saved token: the first one is closed with 4001,
    says that another window took over, and does not reconnect (which would close the other
    one in turn, and so on). Esc takes it to the connect scene with that line."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    pump([alice], lambda: isinstance(alice.top, LobbyScene))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump([alice], lambda: bool(alice.find(RoomScene)))
    events = record_events(alice)
    copy = tmp_path / "elsewhere" / "Alice.json"
    copy.parent.mkdir()
    copy.write_bytes((tmp_path / "Alice.json").read_bytes())
    again = open_app(tmp_path, "Alice", embedded.url, config=Config.load(copy))
    try:
        pump([alice, again], lambda: alice.net_status == "offline"
             and bool(again.find(RoomScene)) and room_of(again).model.you == "first")
        assert alice.connection is not None and alice.connection._thread is not None
        alice.connection._thread.join(5)
        assert not alice.connection._thread.is_alive(), "the old window does not fight back"
        while not alice.connection.inbox.empty():
            alice.dispatch_net(alice.connection.inbox.get())
        assert [e.code for e in events if e.kind == "closed"] == [4001]
        assert "reconnecting" not in kinds(events)
        assert "Another window took over" in alice.notice
        assert "another window" in room_of(alice).status_line()
        alice.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0,
                                              unicode=""))
        top = alice.top
        assert isinstance(top, ConnectScene) and "Another window took over" in top.message
        assert again.net_status == "online"
    finally:
        alice.disconnect()
        again.disconnect()


# ---- connecting fails ------------------------------------------------------------------------


def echo(ws: ServerConnection) -> None:
    """Send every frame back."""
    with contextlib.suppress(Exception):
        for frame in ws:
            ws.send(frame)


def test_a_websocket_server_that_is_not_boardhall_is_named_without_hanging(
        tmp_path: Path) -> None:
    """An echo server answers the WebSocket handshake but never says welcome: the connect
    scene says so within the welcome timeout instead of "Connecting…" for ever."""
    with websocket_server(echo) as port:
        app = open_app(tmp_path, "Alice", f"127.0.0.1:{port}", **QUICK)
        scene = app.top
        assert isinstance(scene, ConnectScene)
        wait_for_failure(app, scene)
        app.disconnect()
    assert "not answer as a Boardhall server" in scene.message, scene.message
    assert scene.connect_button.enabled and "Traceback" not in scene.message


def test_a_server_speaking_another_protocol_version_is_named(tmp_path: Path) -> None:
    """A (future) server that refuses protocol 1 answers hello with ``unsupported_protocol``:
    one line says to update, and Connect works again."""

    def future(ws: ServerConnection) -> None:
        with contextlib.suppress(Exception):
            for _ in ws:
                ws.send(json.dumps({"type": "error", "code": "unsupported_protocol",
                                    "message": "this server speaks protocol 2"}))

    with websocket_server(future) as port:
        app = open_app(tmp_path, "Alice", f"127.0.0.1:{port}", **QUICK)
        scene = app.top
        assert isinstance(scene, ConnectScene)
        wait_for_failure(app, scene)
        app.disconnect()
    assert scene.message.startswith("Wrong protocol version") and "protocol 2" in scene.message
    assert scene.connect_button.enabled


@pytest.fixture(scope="module")
def tls() -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context trusting it) from a throwaway CA."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    return server_ctx, client_ctx


def test_ws_to_a_secure_server_suggests_wss(tmp_path: Path,
                                           tls: tuple[ssl.SSLContext, ssl.SSLContext]) -> None:
    """ws:// to a wss:// server: one line that says to type wss://, no traceback."""
    secure = EmbeddedServer(ssl_context=tls[0]).start()
    port = secure.server.port
    try:
        app = open_app(tmp_path, "Alice", f"ws://127.0.0.1:{port}", **QUICK)
        scene = app.top
        assert isinstance(scene, ConnectScene)
        wait_for_failure(app, scene)
        app.disconnect()
    finally:
        secure.stop()
    assert f"wss://127.0.0.1:{port}/" in scene.message, scene.message
    assert "Traceback" not in scene.message and scene.connect_button.enabled


def test_wss_to_a_plain_server_suggests_ws(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """wss:// to a ws:// server: one line that says the server may not use TLS and to type
    ws:// (it used to end "Cannot reach …: " with nothing after the colon)."""
    app = open_app(tmp_path, "Alice", f"wss://127.0.0.1:{embedded.server.port}", **QUICK)
    scene = app.top
    assert isinstance(scene, ConnectScene)
    wait_for_failure(app, scene)
    app.disconnect()
    assert f"ws://127.0.0.1:{embedded.server.port}/" in scene.message, scene.message
    assert not scene.message.rstrip().endswith(":") and "TLS" in scene.message


def test_an_address_nobody_answers_is_given_up_in_bounded_time(tmp_path: Path) -> None:
    """A port that accepts TCP and then says nothing (a firewall, a hung program): the connect
    scene gives up after the connect timeout with a line that says so."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        app = open_app(tmp_path, "Alice", f"127.0.0.1:{port}", open_timeout=0.5)
        scene = app.top
        assert isinstance(scene, ConnectScene)
        wait_for_failure(app, scene)
        app.disconnect()
    assert "timed out" in scene.message and scene.connect_button.enabled


def test_a_plain_web_server_is_named_as_one_without_a_tls_hint(tmp_path: Path) -> None:
    """A web server on the port (``python -m http.server`` answers in HTTP/1.0): the line says
    a web server answered, with its status line, and does not tell the user to type wss://
    (that hint is for a TLS server, which hangs up on plain text instead of answering)."""
    with fixed_http(FixedAnswer(200, b"<html>files</html>", "text/html")) as answer:
        app = open_app(tmp_path, "Alice", f"127.0.0.1:{answer.port}", **QUICK)
        scene = app.top
        assert isinstance(scene, ConnectScene)
        wait_for_failure(app, scene)
        app.disconnect()
    assert "a web server" in scene.message and "HTTP/1.0 200 OK" in scene.message, scene.message
    assert "wss://" not in scene.message and "TLS" not in scene.message
    assert scene.connect_button.enabled


# ---- a slow server ---------------------------------------------------------------------------


def test_a_move_to_a_slow_server_is_pending_and_a_double_click_sends_it_once(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """The server is slow to answer: the move shows as being sent, a second click on the board
    sends nothing more (it would come back as "the position changed, not played"), and once the
    server answers the move is played once and nothing went wrong."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        proxy.hold("up")
        click(bob, px(scene, "0,1"))
        click(bob, px(scene, "0,1"))
        click(bob, px(scene, "1,1"))
        assert len([m for m in bob.sent if m.get("type") == "move"]) == 1
        assert scene.status_line() == "Sending your move…"
        proxy.release("up")
        pump(apps, lambda: scene.model.moves == ["0,0", "0,1"] and scene.pending_move is None)
        pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"])
        assert scene.message_color != theme.BAD, scene.message


def test_create_room_double_clicked_on_a_slow_server_opens_one_room(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Create room pressed twice while the server is slow to answer makes one room, not two
    (the second would open on top, the first left waiting for nobody)."""
    with proxied(embedded) as proxy:
        alice = open_app(tmp_path, "Alice", proxy.url())
        try:
            pump([alice], lambda: isinstance(alice.top, LobbyScene))
            lobby = alice.top
            assert isinstance(lobby, LobbyScene)
            proxy.hold("up")
            click(alice, lobby.create.rect.center)
            click(alice, lobby.create.rect.center)
            assert len([m for m in alice.sent if m.get("type") == "create"]) == 1
            proxy.release("up")
            pump([alice], lambda: bool(alice.find(RoomScene)))
            pump([alice], lambda: embedded.server.hall.rooms != {})
            assert len(embedded.server.hall.rooms) == 1
        finally:
            alice.disconnect()


# ---- what the states look like ---------------------------------------------------------------


def notice_in_a_small_window(app: App, size: tuple[int, int] = (640, 480)) -> str:
    """The connection notice as a window of ``size`` shows it (its lines, cut to what fits)."""
    scale = min(size[0] / theme.LOGICAL_SIZE[0], size[1] / theme.LOGICAL_SIZE[1])
    with draw.collect_text(scale) as texts:
        app._draw_notice(app.surface)
    return " ".join(draw.placed(text, scale, (0, 0))[0] for text in texts)


def test_the_connection_notice_says_its_news_first_in_a_small_window(ui: Any) -> None:
    """At 640x480 the notice is cut to what fits: what is happening (reconnecting and when,
    given up, taken over) comes first, so the cut never hides it."""
    ui.open_room(demo_room("chess", plies=4))
    refused = describe_failure(ConnectionRefusedError(111, "refused"), "ws://192.168.1.20:8765/")
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent("reconnecting", text=retry_text(refused, 8.0, 5)))
    assert "Reconnecting in 8 s" in notice_in_a_small_window(ui.app)
    ui.app.dispatch_net(NetEvent("failed", text=gave_up_text(refused, 125.0)))
    assert "Could not reconnect" in notice_in_a_small_window(ui.app)
    ui.app.dispatch_net(NetEvent("closed", code=4001, text="connected again elsewhere"))
    assert "Another window took over" in notice_in_a_small_window(ui.app)
