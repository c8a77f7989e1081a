"""The saved settings and identity as a user meets them: a first run, a damaged or unwritable
config file, two windows on one config file, several servers, a crash in the middle of a save
and two clients saving at once."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from client.app import App, Severity
from client.config import MAX_BYTES, Config, server_key
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.conftest import shoot
from tests.client.helpers import click, pump, px, room_of

ROOT = Path(__file__).resolve().parents[2]


def window(path: Path, url: str, name: str) -> App:
    """A client started on the config file at ``path`` (loaded as a new process does) that
    connects to ``url`` as ``name`` through its connect scene."""
    app = App(Config.load(path), headless=True)
    scene = ConnectScene(app, url, name)
    app.push(scene)
    scene.submit()
    return app


def sit_down(app: App) -> str:
    """Open a hexgomoku room as first (a seat makes the identity one the server keeps)."""
    app.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump([app], lambda: bool(app.find(RoomScene)))
    return room_of(app).model.room


# ---- two windows on one config file ------------------------------------------------------------


def test_two_windows_on_one_config_file_are_two_players_and_both_are_kept(
        tmp_path: Path) -> None:
    """Two windows of the same user (one config file) connect to one server. The second used to
    send the first one's saved token, so the server closed the first with 4001 and one window
    was dead: nobody could play a friend on the same computer. Now the second takes its own
    identity, the first one's saved token is untouched, the two play each other, and after a
    restart each window resumes its own seat."""
    path = tmp_path / "config.json"
    db = tmp_path / "server.db"
    server = EmbeddedServer(db=db).start()
    try:
        alice = window(path, server.url, "Alice")
        pump([alice], lambda: isinstance(alice.top, LobbyScene))
        room = sit_down(alice)
        alice_id, alice_token = alice.player_id, alice.welcome["token"]
        bob = window(path, server.url, "Bob")
        apps = [alice, bob]
        pump(apps, lambda: isinstance(bob.top, LobbyScene))
        assert bob.player_id != alice_id
        bob.send({"type": "join", "room": room})
        pump(apps, lambda: bool(bob.find(RoomScene)))
        click(alice, px(alice, "0,0"))
        pump(apps, lambda: len(room_of(bob).model.moves) == 1)
        assert alice.net_status == bob.net_status == "online"
        assert alice.closed_code is None and bob.closed_code is None
        bob_id = bob.player_id
        saved = Config.load(path)
        assert saved.token_for(server.url) == alice_token, "the first window's token is kept"
        assert bob.welcome["token"] in saved.tokens.values(), "the second's is kept too"
        assert "Another Boardhall window" in bob.notice
        assert bob.notice_severity is Severity.INFO, "news, not drawn as a problem"
        shoot(bob, tmp_path, "config-second-window")
        for app in apps:
            app.disconnect()

        # a restart, in the other order: each name gets its own identity (and seat) back
        bob2 = window(path, server.url, "Bob")
        pump([bob2], lambda: bool(bob2.find(RoomScene)))
        alice2 = window(path, server.url, "Alice")
        pump([bob2, alice2], lambda: bool(alice2.find(RoomScene)))
        assert (bob2.player_id, alice2.player_id) == (bob_id, alice_id)
        assert room_of(alice2).model.you == "first" and room_of(bob2).model.you == "second"
        assert alice2.closed_code is None and bob2.closed_code is None
        for app in (alice2, bob2):
            app.disconnect()
    finally:
        server.stop()


def test_a_refused_token_of_the_second_window_leaves_the_first_ones(tmp_path: Path) -> None:
    """bad_token for the identity one window uses forgets only that one."""
    server = EmbeddedServer().start()
    path = tmp_path / "config.json"
    key = server_key(server.url)
    Config(path=path, tokens={key: "first-token", f"{key}#1": "second-token"},
           names={key: "Alice", f"{key}#1": "Bob"}).save()
    try:
        bob = window(path, server.url, "Bob")
        pump([bob], lambda: isinstance(bob.top, LobbyScene))
        saved = Config.load(path)
        assert saved.tokens[key] == "first-token"
        assert saved.tokens[f"{key}#1"] == bob.welcome["token"] != "second-token"
        bob.disconnect()
    finally:
        server.stop()


# ---- several servers, and the same server written differently ---------------------------------


def test_tokens_are_kept_per_server_whichever_way_the_address_is_typed(tmp_path: Path) -> None:
    """Two servers each keep their own identity; 127.0.0.1, localhost, a ws:// prefix or a
    trailing slash name the same server and find the same token."""
    path = tmp_path / "config.json"
    one, two = EmbeddedServer().start(), EmbeddedServer().start()
    try:
        ids = {}
        for server, typed in ((one, f"127.0.0.1:{one.server.port}"),
                              (two, f"ws://localhost:{two.server.port}")):
            app = window(path, typed, "Alice")
            pump([app], lambda: isinstance(app.top, LobbyScene))  # noqa: B023
            sit_down(app)
            ids[server.url] = app.player_id
            app.disconnect()
        for server, typed in ((one, f"localhost:{one.server.port}/"),
                              (two, f"ws://127.0.0.1:{two.server.port}/"),
                              (one, f"ws://LOCALHOST:{one.server.port}")):
            app = window(path, typed, "Alice")
            pump([app], lambda: app.net_status == "online")  # noqa: B023
            assert app.player_id == ids[server.url], typed
            app.disconnect()
        assert len(Config.load(path).tokens) == 2
    finally:
        one.stop()
        two.stop()


def test_server_keys() -> None:
    assert server_key("ws://127.0.0.1:9000/") == server_key("ws://localhost:9000/")
    assert server_key("ws://[::1]:9000/") == server_key("ws://localhost:9000/")
    assert server_key("wss://play.example.org/") == server_key("wss://play.example.org:443/")
    assert server_key("ws://h:1/") != server_key("ws://h:2/")
    assert server_key("ws://h:1/") != server_key("wss://h:1/")


def test_a_file_an_older_client_wrote_keeps_its_tokens(tmp_path: Path) -> None:
    """Keys as the older client wrote them (the URL as typed) are found under the new ones."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"server": "127.0.0.1:9", "name": "Alice",
                                "tokens": {"ws://127.0.0.1:9/": "t0k"}}))
    config = Config.load(path)
    assert config.token_for("ws://localhost:9/") == config.token_for("ws://127.0.0.1:9/") == "t0k"
    assert not config.problem


def test_a_new_name_renames_the_saved_identity(tmp_path: Path) -> None:
    """Typing another name for a server with a saved identity renames it (the seats stay), and
    the new name is the one remembered."""
    path = tmp_path / "config.json"
    server = EmbeddedServer().start()
    try:
        app = window(path, server.url, "Alice")
        pump([app], lambda: isinstance(app.top, LobbyScene))
        sit_down(app)
        before = app.player_id
        app.disconnect()
        again = window(path, server.url, "Alicia")
        pump([again], lambda: bool(again.find(RoomScene)))
        assert again.player_id == before and again.welcome["name"] == "Alicia"
        saved = Config.load(path)
        assert saved.name == "Alicia" and saved.names[server_key(server.url)] == "Alicia"
        again.disconnect()
    finally:
        server.stop()


# ---- a damaged or unusable config file -------------------------------------------------------


DAMAGED = {
    "garbage": b"\x00\x01 hello this is not json",
    "truncated": b'{"server": "h:1", "name": "Alice", "tokens": {"ws://h:1/": "t',
    "wrong-types": b'{"server": ["x"], "name": {"a": 1}, "tokens": "abc", "names": 7}',
    "huge": b'{"name": "' + b"A" * (MAX_BYTES + 10) + b'"}',
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_a_damaged_config_file_is_said_and_the_client_still_works(
        tmp_path: Path, embedded: EmbeddedServer, case: str) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(DAMAGED[case])
    app = window(path, embedded.url, "Alice")
    scene = app.top
    assert isinstance(scene, ConnectScene)
    if case != "wrong-types":  # well-formed JSON: only the bad values are dropped, quietly
        assert "settings file" in scene.settings_note and str(path) in scene.settings_note
        shoot(app, tmp_path, f"config-damaged-{case}")
    pump([app], lambda: isinstance(app.top, LobbyScene))
    app.disconnect()
    saved = Config.load(path)
    assert not saved.problem and saved.token_for(embedded.url) == app.welcome["token"]
    if case != "wrong-types":
        assert (tmp_path / "config.json.unreadable").read_bytes() == DAMAGED[case]


def test_a_long_name_in_the_config_file_fits_the_name_field(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"server": "h" * 5000, "name": "N" * 5000}))
    config = Config.load(path)
    assert len(config.name) <= 32 and len(config.server) <= 200


@pytest.mark.parametrize("case", ["folder", "parent-is-a-file"])
def test_a_config_that_cannot_be_saved_is_said_and_the_client_still_works(
        tmp_path: Path, embedded: EmbeddedServer, case: str) -> None:
    """The config path is a folder, or its folder cannot be made: connecting works, and the
    user is told that this identity will not be remembered."""
    if case == "folder":
        path = tmp_path / "config.json"
        path.mkdir()
    else:
        (tmp_path / "boardhall").write_text("a file, not a folder")
        path = tmp_path / "boardhall" / "config.json"
    app = window(path, embedded.url, "Alice")
    pump([app], lambda: isinstance(app.top, LobbyScene))
    assert "Could not save your settings" in app.notice and str(path) in app.notice
    assert app.notice_severity is Severity.ERROR
    shoot(app, tmp_path, f"config-unsaved-{case}")
    app.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump([app], lambda: bool(app.find(RoomScene)))
    app.disconnect()
    if case == "folder":
        assert path.is_dir()


# ---- writing the file --------------------------------------------------------------------------


def test_a_save_that_fails_half_way_leaves_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.json"
    Config(path=path, name="Alice", tokens={"ws://h:1/": "t0k"}).save()
    before = path.read_bytes()
    config = Config.load(path)
    config.tokens["ws://h:2/"] = "other"

    def crash(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        config.save()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".config.json.locks") == [
        "config.json"]


SAVING_CHILD = """\
import os, sys, threading
from pathlib import Path
from client.config import Config

path, point, saves = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
steps = {"written": ("fsync", 1), "synced": ("replace", 1), "replaced": ("fsync", 2)}
name, nth = steps[point]
real, calls = getattr(os, name), []

def step(*args):
    calls.append(args)
    if len(calls) == nth:
        print("paused", point, flush=True)
        threading.Event().wait()  # until the SIGKILL
    return real(*args)

c = Config(path=path, name="Alice")
for i in range(1, saves + 1):
    c.tokens = {f"ws://h:{n}/": "x" * 40 + str(i) for n in range(1, 300)}
    if i == saves:
        setattr(os, name, step)
    c.save()
"""
"""A client that saves ``argv[3]`` times and stops in the last save at ``argv[2]``: the new
file ``written`` (not synced), ``synced`` (not yet in place) or ``replaced`` (in place, its
folder not synced); it prints ``paused POINT`` there and waits to be killed."""


def test_a_client_killed_while_saving_never_leaves_a_damaged_file(tmp_path: Path) -> None:
    """Killed at each step of its third save, a client leaves the file of its second save
    whole, or of its third once that is in place; never a damaged one."""
    path = tmp_path / "config.json"
    for point in ("written", "synced", "replaced"):
        proc = subprocess.Popen([sys.executable, "-c", SAVING_CHILD, str(path), point, "3"],
                                cwd=ROOT, stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert proc.stdout is not None
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready and proc.stdout.readline() == f"paused {point}\n", point
            left = list(tmp_path.glob(".boardhall-*.tmp"))
            assert bool(left) == (point != "replaced"), (point, left)  # mid-save, surely
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            proc.stdout.close()
        config = Config.load(path)
        assert not config.unreadable and not config.problem and len(config.tokens) == 299
        save = 3 if point == "replaced" else 2
        assert set(config.tokens.values()) == {"x" * 40 + str(save)}, point
    Config.load(path).save()  # a later save tidies what a killed one left
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".config.json.locks") == [
        "config.json"]


def test_two_clients_saving_at_once_keep_each_others_entries(tmp_path: Path) -> None:
    """Each client adds its own tokens and saves after each; none is lost to the other's
    write (each save merges with what is on disk)."""
    path = tmp_path / "config.json"
    Config(path=path).save()
    configs = [Config.load(path) for _ in range(4)]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            for n in range(25):
                configs[i].tokens[f"ws://h{i}:{n + 1}/"] = f"t{i}-{n}"
                configs[i].save()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(Config.load(path).tokens) == 100


def test_a_forgotten_token_does_not_remove_one_another_client_saved(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    Config(path=path, tokens={"ws://h:1/": "old"}).save()
    mine, theirs = Config.load(path), Config.load(path)
    theirs.tokens["ws://h:1/"] = "renewed"
    theirs.save()
    del mine.tokens["ws://h:1/"]  # "old" was refused
    mine.save()
    assert Config.load(path).tokens == {"ws://h:1/": "renewed"}
