"""Two real clients play a whole hexgomoku game against a real server, through the UI's own
input handlers (synthetic mouse events on the room scene); then a dropped connection resumes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pygame

from client.address import http_url
from client.app import App
from client.config import Config
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.scenes.replay import RecordError, RecordFetch, ReplayScene, fetch_record
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from protocol import decode_client
from tests.client.conftest import shoot
from tests.client.helpers import (
    arrived,
    back_on_the_same_port,
    click,
    first_move_at_a_table,
    key,
    open_app,
    pump,
    px,
    room_of,
    two_players_on_a_server,
)


def test_whole_hexgomoku_game_through_the_ui(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Alice creates a room from the lobby, Bob joins by code, they click stones until five."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    assert alice.config.token_for(embedded.url)

    lobby = alice.top
    assert isinstance(lobby, LobbyScene)
    index = next(i for i, g in enumerate(alice.games) if g["game"] == "hexgomoku")
    click(alice, lobby.game_rows()[index].center)
    lobby.color.select("first")
    click(alice, lobby.create.rect.center)
    pump(apps, lambda: bool(alice.find(RoomScene)))
    code = room_of(alice).model.room

    bob_lobby = bob.top
    assert isinstance(bob_lobby, LobbyScene)
    pump(apps, lambda: any(r.get("room") == code for r in bob_lobby.rooms))  # live room list
    click(bob, bob_lobby.code.rect.center)
    bob.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=code))
    click(bob, bob_lobby.join.rect.center)
    pump(apps, lambda: bool(bob.find(RoomScene))
         and room_of(alice).model.seats.get("second") is not None)
    assert room_of(bob).model.you == "second"

    black = ["0,0", "1,0", "2,0", "3,0", "4,0"]
    white = ["0,1", "1,1", "2,1", "3,1"]
    for ply in range(9):
        app = alice if ply % 2 == 0 else bob
        point = (black if ply % 2 == 0 else white)[ply // 2]
        scene = room_of(app)
        assert scene.view is not None and scene.model.is_my_turn()
        click(app, px(scene, point))
        pump(apps, lambda n=ply + 1: all(  # type: ignore[misc]
            len(room_of(a).model.moves) == n for a in apps))
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    for app in apps:
        model = room_of(app).model
        assert (model.result, model.reason) == ("first", "five")
        assert isinstance(app.top, ResultPanel)
    assert room_of(alice).model.moves == [m for pair in zip(black, [*white, ""], strict=True)
                                          for m in pair if m]
    for app in apps:
        for message in app.sent:  # everything the UI sent is a valid protocol message
            decode_client(json.dumps(message))

    game_id = room_of(alice).model.game_id
    record = fetch_record(http_url(embedded.url, f"/games/{game_id}?format=json"))
    replay = ReplayScene.from_record(alice, record)
    assert (replay.moves, replay.result, replay.error) == (room_of(alice).model.moves, "first", "")

    # The same record through Bob's lobby: type the game id, Enter (fetched on a thread).
    while not isinstance(bob.top, LobbyScene):
        bob.pop()
    replay_lobby = bob.top
    assert isinstance(replay_lobby, LobbyScene)
    click(bob, replay_lobby.replay_source.rect.center)
    bob.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=game_id))
    bob.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode=""))
    pump(apps, lambda: isinstance(bob.top, ReplayScene), timeout=15)
    fetched = bob.top
    assert isinstance(fetched, ReplayScene) and fetched.moves == replay.moves
    for app in apps:
        app.disconnect()


def test_dropped_connection_resumes_the_seat(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """After a network drop the client reconnects with its token and gets its seat back."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump(apps, lambda: bool(alice.find(RoomScene)))
    code = room_of(alice).model.room
    bob.send({"type": "join", "room": code})
    pump(apps, lambda: bool(bob.find(RoomScene)))
    click(alice, px(room_of(alice), "0,0"))
    pump(apps, lambda: len(room_of(bob).model.moves) == 1)
    player = alice.player_id

    assert alice.connection is not None
    alice.connection.drop()
    pump(apps, lambda: alice.net_status == "reconnecting" or alice.net_status == "offline")
    pump(apps, lambda: alice.net_status == "online" and alice.player_id == player, timeout=15)
    pump(apps, lambda: room_of(alice).model.you == "first"
         and (room_of(alice).model.seats["first"] or {}).get("connected") is True)
    click(bob, px(room_of(bob), "0,1"))
    pump(apps, lambda: len(room_of(alice).model.moves) == 2)
    for app in apps:
        app.disconnect()


def test_hot_seat_local_game(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """One window, two seats: each click plays for the side to move, through the server."""
    from client.local import start_local

    app = App(Config(path=tmp_path / "local.json"), headless=True)
    start_local(app, embedded, "hexgomoku")
    helper = app.seat_connections["second"]
    pump([app], lambda: bool(app.find(RoomScene))
         and room_of(app).model.seats.get("second") is not None, timeout=15)
    scene = room_of(app)
    for ply, point in enumerate(["0,0", "0,1", "1,0", "1,1"]):
        assert scene.acting_seat() == ("first" if ply % 2 == 0 else "second")
        click(app, px(scene, point))
        pump([app], lambda n=ply + 1: len(scene.model.moves) == n)  # type: ignore[misc]
    assert scene.model.moves == ["0,0", "0,1", "1,0", "1,1"]
    assert not (tmp_path / "local.json").exists()  # a local game's token is not saved
    app.disconnect()
    assert helper is not None


def test_unknown_saved_token_starts_a_new_identity(tmp_path: Path,
                                                   embedded: EmbeddedServer) -> None:
    """A token the server does not know is dropped and the client reconnects without it."""
    app = App(Config(path=tmp_path / "c.json", tokens={embedded.url: "not-a-real-token"}),
              headless=True)
    scene = ConnectScene(app, embedded.url, "Carol")
    app.push(scene)
    scene.submit()
    pump([app], lambda: isinstance(app.top, LobbyScene), timeout=15)
    assert app.config.token_for(embedded.url) not in (None, "not-a-real-token")
    assert Config.load(tmp_path / "c.json").token_for(embedded.url) == app.welcome["token"]
    app.disconnect()


def test_local_game_against_the_computer(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """``boardhall local --bot 1``: the embedded server starts a bot that answers our move."""
    from client.local import start_local

    app = App(Config(path=tmp_path / "local.json"), headless=True)
    start_local(app, embedded, "hexgomoku", bot="1")
    pump([app], lambda: bool(app.find(RoomScene))
         and room_of(app).model.seats.get("second") is not None, timeout=30)
    scene = room_of(app)
    assert (scene.model.seats["second"] or {}).get("bot") is True
    click(app, px(scene, "0,0"))
    pump([app], lambda: len(scene.model.moves) >= 2, timeout=30)
    assert scene.model.is_my_turn()
    app.disconnect()


def test_chat_watch_draw_offer_and_rematch(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Carol watches from the lobby list; chat by keyboard; D offers a draw, Y accepts; M and Y
    start a rematch."""
    alice, bob, carol = (open_app(tmp_path, n, embedded.url) for n in ("Alice", "Bob", "Carol"))
    apps = [alice, bob, carol]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump(apps, lambda: bool(alice.find(RoomScene)))
    code = room_of(alice).model.room
    bob.send({"type": "join", "room": code})
    pump(apps, lambda: bool(bob.find(RoomScene)))

    lobby = carol.top
    assert isinstance(lobby, LobbyScene)
    pump(apps, lambda: any(r.get("room") == code for r in lobby.rooms))
    row = next(i for i, r in enumerate(lobby.rooms) if r.get("room") == code)
    lobby.rooms_view.selected = row
    key(carol, pygame.K_w)
    pump(apps, lambda: bool(carol.find(RoomScene)))
    assert room_of(carol).model.you is None
    pump(apps, lambda: room_of(alice).model.spectators == 1)

    click(alice, px(room_of(alice), "0,0"))
    pump(apps, lambda: len(room_of(carol).model.moves) == 1)
    key(alice, pygame.K_RETURN)
    key(alice, pygame.K_h, "hi Bob")
    key(alice, pygame.K_RETURN)
    pump(apps, lambda: any(line.text == "hi Bob" for line in room_of(bob).model.chat))

    key(alice, pygame.K_d)
    pump(apps, lambda: room_of(bob).model.pending_offer() is not None)
    key(bob, pygame.K_y)
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    for app in apps:
        model = room_of(app).model
        assert (model.result, model.reason) == ("draw", "agreement")
    first_game = room_of(alice).model.game_id

    key(alice, pygame.K_m)  # on the result panel
    pump(apps, lambda: room_of(bob).model.pending_offer() is not None)
    key(bob, pygame.K_y)  # answered on the result panel
    pump(apps, lambda: room_of(alice).model.game_id not in ("", first_game)
         and room_of(alice).model.status != "over")
    assert isinstance(alice.top, RoomScene)
    for app in apps:
        app.disconnect()


def test_wss_with_a_private_certificate_authority(tmp_path: Path) -> None:
    """A ``wss://`` server signed by a private CA: refused without it, welcomed with it."""
    import ssl

    import trustme

    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    secure = EmbeddedServer(ssl_context=server_ctx).start()
    try:
        assert secure.url.startswith("wss://")
        untrusting = open_app(tmp_path, "Eve", secure.url)
        event = untrusting.connection.inbox.get(timeout=10)  # type: ignore[union-attr]
        untrusting.dispatch_net(event)
        assert event.kind == "failed" and "certificate" in event.text.lower()
        client_ctx = ssl.create_default_context()
        ca.configure_trust(client_ctx)
        app = App(Config(path=tmp_path / "tls.json"), headless=True)
        app.ssl_context = client_ctx
        scene = ConnectScene(app, secure.url, "Tess")
        app.push(scene)
        scene.submit()
        pump([app], lambda: isinstance(app.top, LobbyScene))
        fetch = app.record_fetch("no-such-game")  # HTTPS with the same trust: the server answers
        found = arrived(fetch)
        assert isinstance(found, RecordError) and "404" in str(found), found
        app.disconnect()
    finally:
        secure.stop()


def test_restarted_client_resumes_its_seat(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """A new client run with the same config file gets its seat back (``welcome.resumed``)."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    pump([alice, bob], lambda: all(isinstance(a.top, LobbyScene) for a in (alice, bob)))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump([alice, bob], lambda: bool(alice.find(RoomScene)))
    code = room_of(alice).model.room
    bob.send({"type": "join", "room": code})
    pump([alice, bob], lambda: bool(bob.find(RoomScene)))
    click(alice, px(room_of(alice), "0,0"))
    pump([alice, bob], lambda: len(room_of(bob).model.moves) == 1)
    alice.disconnect()

    again = App(Config.load(tmp_path / "Alice.json"), headless=True)
    scene = ConnectScene(again, embedded.url, "Alice")
    again.push(scene)
    scene.submit()
    pump([again, bob], lambda: bool(again.find(RoomScene)), timeout=15)
    model = room_of(again).model
    assert (model.room, model.you, model.moves) == (code, "first", ["0,0"])
    for app in (again, bob):
        app.disconnect()


def test_play_offline_from_the_connect_scene(tmp_path: Path) -> None:
    """F2 starts a server inside the client; the lobby can then create a game against a bot."""
    app = App(Config(path=tmp_path / "offline.json"), headless=True)
    scene = ConnectScene(app, "", "Olga")
    app.push(scene)
    app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F2, mod=0, unicode=""))
    try:
        pump([app], lambda: isinstance(app.top, LobbyScene), timeout=15)
        assert app.welcome["name"] == "Olga"
        app.send({"type": "create", "game": "hexgomoku", "color": "first", "opponent": "bot:1"})
        pump([app], lambda: bool(app.find(RoomScene))
             and (room_of(app).model.seats.get("second") or {}).get("bot") is True, timeout=30)
        assert not (tmp_path / "offline.json").exists()  # no token saved for a local server
    finally:
        app.disconnect()
        app.local_server.stop()


def test_hot_seat_from_the_offline_lobby(tmp_path: Path) -> None:
    """Offline, the lobby offers hot-seat: both seats play from one window."""
    app = App(Config(path=tmp_path / "offline.json"), headless=True)
    scene = ConnectScene(app, "", "Olga")
    app.push(scene)
    scene.play_offline()
    try:
        pump([app], lambda: isinstance(app.top, LobbyScene), timeout=15)
        lobby = app.top
        assert isinstance(lobby, LobbyScene)
        index = next(i for i, g in enumerate(app.games) if g["game"] == "hexgomoku")
        click(app, lobby.game_rows()[index].center)
        lobby.opponent.select("hotseat")
        assert lobby.opponent.value == "hotseat"
        click(app, lobby.create.rect.center)
        pump([app], lambda: bool(app.find(RoomScene))
             and room_of(app).model.seats.get("second") is not None, timeout=15)
        room = room_of(app)
        for ply, point in enumerate(["0,0", "2,2"]):
            click(app, px(room, point))
            pump([app], lambda n=ply + 1: len(room.model.moves) == n)  # type: ignore[misc]
        assert room.model.name_of("second") == "Player 2"
        room.close()
        assert app.seat_connections == {}
    finally:
        app.disconnect()
        app.local_server.stop()


def test_game_specific_input_against_the_server(tmp_path: Path,
                                                embedded: EmbeddedServer) -> None:
    """A number chess span with the hint, then a chess promotion from a pasted FEN: the server
    accepts what the dialogs send."""
    from client.scenes.dialogs import ChoiceDialog, ExpressionDialog

    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))

    def table(create: dict[str, object]) -> RoomScene:
        before = {s.model.room for s in alice.find(RoomScene)}
        alice.send(create)
        pump(apps, lambda: any(s.model.room not in before for s in alice.find(RoomScene)))
        scene = next(s for s in alice.find(RoomScene) if s.model.room not in before)
        bob.send({"type": "join", "room": scene.model.room})
        pump(apps, lambda: scene.model.seats.get("second") is not None)
        return scene

    shuqi = table({"type": "create", "game": "shuqi", "color": "first"})
    click(alice, px(shuqi, "13,8"))
    click(alice, px(shuqi, "10,5"))
    assert isinstance(alice.top, ExpressionDialog)
    alice.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h,
                                          mod=pygame.KMOD_CTRL, unicode=""))
    key(alice, pygame.K_RETURN)
    pump(apps, lambda: len(shuqi.model.moves) == 1)
    assert shuqi.model.moves[0].startswith("13,8-10,5=")

    shuqi.close()
    chess = table({"type": "create", "game": "chess", "color": "first",
                   "position": "8/P7/8/8/8/8/8/k6K w - - 0 1"})
    click(alice, px(chess, "a7"))
    click(alice, px(chess, "a8"))
    assert isinstance(alice.top, ChoiceDialog)
    key(alice, pygame.K_q, "q")
    pump(apps, lambda: chess.model.moves == ["a7a8q"])
    for app in apps:
        app.disconnect()


def room_panel_texts(app: App) -> str:
    """Every text drawn while rendering ``app`` once, joined by newlines."""
    from unittest import mock

    from client.ui import draw

    drawn: list[str] = []
    real = draw.text

    def record(surface: pygame.Surface, text: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(text)
        return real(surface, text, *args, **kwargs)

    with mock.patch.object(draw, "text", record):
        app.render()
    return "\n".join(drawn)


def test_clients_ride_out_a_server_restart(tmp_path: Path) -> None:
    """The server stops and comes back on the same port and database: both clients reconnect by
    themselves, get their seats back, and the game goes on."""
    db = tmp_path / "games.sqlite"
    with two_players_on_a_server(tmp_path, db) as (first, alice, bob):
        apps = [alice, bob]
        first_move_at_a_table(alice, bob)
        with back_on_the_same_port(first, db, apps):
            assert room_of(bob).model.you == "second"
            click(bob, px(room_of(bob), "0,1"))
            pump(apps, lambda: room_of(alice).model.moves == ["0,0", "0,1"], timeout=15)


def _ended_unseen_across_a_restart(tmp_path: Path, room_closed: bool) -> tuple[App, ResultPanel]:
    """Bob resigns; Alice never gets the ``over`` (dropped here before she reads it) and the
    server restarts (with ``room_closed``, the game's end is pushed back past the room's keep
    time in the database, so the restart does not bring the finished room back). Returns Alice's
    app once it shows the end, and its result panel (the server is stopped at the end)."""
    db = tmp_path / "games.sqlite"
    with two_players_on_a_server(tmp_path, db) as (first, alice, bob):
        port = first.server.port
        first_move_at_a_table(alice, bob)
        pump([alice], lambda: len(room_of(alice).model.moves) == 1)

        bob.send({"type": "resign", "room": room_of(bob).model.room})
        pump([bob], lambda: room_of(bob).model.status == "over")
        assert alice.connection is not None
        lost: list[str] = []
        while not {"over", "room"} <= set(lost):  # the end's messages, lost with the connection
            lost.append(str(alice.connection.inbox.get(timeout=10).data.get("type")))
        first.stop()
        if room_closed:
            with sqlite3.connect(db) as stored:
                stored.execute("UPDATE games SET ended = '2000-01-01T00:00:00Z'")
            stored.close()
        second = EmbeddedServer(db=db, port=port).start()
        try:
            pump([alice], lambda: room_of(alice).model.status == "over", timeout=30)
            scene = room_of(alice)
            assert (scene.model.result, scene.model.reason) == ("first", "resign")
            assert scene.model.moves == ["0,0"]
            panel = alice.find(ResultPanel)[-1]
            assert isinstance(panel, ResultPanel)
            shoot(alice, tmp_path, f"room_ended_while_away{'_closed' if room_closed else ''}")
            details = [t.split(" · ")[0] for t in room_panel_texts(alice).splitlines()]
            if room_closed:
                assert "ended while you were away" in scene.message
                assert "online" not in details and "away" not in details  # no stale presence
            return alice, panel
        finally:
            alice.disconnect()
            bob.disconnect()
            second.stop()


def test_a_game_that_ended_unseen_across_a_restart_shows_its_end(tmp_path: Path) -> None:
    """The finished room is not back after the restart (its keep time is over): Alice's client
    comes back to ``unknown_room``, reads the game's record over HTTP and shows the result, with
    no rematch in a room the server has closed."""
    _, panel = _ended_unseen_across_a_restart(tmp_path, room_closed=True)
    assert not panel.buttons[0].enabled


def test_a_finished_room_back_after_a_restart_offers_a_rematch(tmp_path: Path) -> None:
    """The restart brings the finished room back (within its keep time): Alice sees the end
    she missed, and may offer a rematch."""
    alice, panel = _ended_unseen_across_a_restart(tmp_path, room_closed=False)
    assert panel.buttons[0].enabled
    seats = room_of(alice).model.seats
    assert (seats.get("first") or {}).get("connected"), seats  # she is back, not away


def test_a_record_that_cannot_be_fetched_says_where_and_why() -> None:
    """Nothing listens on the port: the fetch ends in a RecordError naming the URL."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fetch = RecordFetch(f"ws://127.0.0.1:{port}", "g/1")
    found = arrived(fetch)
    assert isinstance(found, RecordError)
    assert f"http://127.0.0.1:{port}/games/g%2F1?format=json" in str(found)


def test_a_private_game_record_is_read_as_its_player(tmp_path: Path) -> None:
    """The app's record fetches carry the player's token (as a bearer header), so a private
    game's record reaches its player and nobody else."""
    from websockets.sync.client import connect

    def result(fetch: RecordFetch) -> dict[str, Any] | RecordError:
        found: dict[str, Any] | RecordError = arrived(fetch)
        return found

    embedded = EmbeddedServer().start()
    try:
        alice = open_app(tmp_path, "Alice", embedded.url)
        pump([alice], lambda: alice.net_status == "online" and bool(alice.welcome))
        token = alice.config.token_for(alice.url)
        assert token
        with connect(embedded.url) as ws:
            def ask(**fields: Any) -> dict[str, Any]:
                ws.send(json.dumps({**fields, "id": "q"}))
                while (reply := json.loads(ws.recv(timeout=10))).get("re") != "q":
                    pass
                return reply

            ask(type="hello", name="Alice", protocol=1, token=token)
            room = ask(type="create", game="hexgomoku", color="first", private=True)
        game_id = room["game_id"]

        record = result(alice.record_fetch(game_id))
        assert isinstance(record, dict) and record["game"] == "hexgomoku"
        stranger = result(RecordFetch(embedded.url, game_id))
        assert isinstance(stranger, RecordError)
        assert "404" in str(stranger)
        alice.disconnect()
    finally:
        embedded.stop()
