"""Identities cost nothing until they do something worth keeping.

A client saying ``hello`` without a token in a loop (or many clients from one address) made a new
identity each time, written to the database for ever. Now an identity is written with its first
seat, seek or chat line (in the same write), and the hall forgets an identity with no connection,
no seat and no seek: one that was stored is loaded again by its token, one that never did
anything gets ``bad_token`` (the client then starts afresh). These tests use real servers on
loopback with SQLite files in a temporary directory.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.http_tools import http_get
from tests.server.storage_tools import until


def _server(db: Path) -> Any:
    return running_server(host="127.0.0.1", port=0, db=db, ping_interval=None)


def _rows(db: Path) -> list[tuple[str, str]]:
    reader = sqlite3.connect(db)
    try:
        return [(r[0], r[1]) for r in reader.execute("SELECT player, name FROM identities")]
    finally:
        reader.close()


async def _settled(server: BoardhallServer, still_open: int = 0) -> None:
    """Every connection closed so far has been handled by the hall (turns of the loop), with
    ``still_open`` connections left."""
    await until(
        lambda: len(server.connections) == len(server.hall.sessions) == still_open
    )


def _assert_hall_empty(server: BoardhallServer) -> None:
    hall = server.hall
    assert hall.identities == {}
    assert hall.by_token == {}
    assert hall.player_rooms == {}
    assert hall.seeks == {}


async def test_hellos_without_a_token_write_nothing_and_leave_nothing(tmp_path: Path) -> None:
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        for _ in range(200):
            wire = await WireClient.connect(server.url, "spam")
            assert wire.welcome["type"] == "welcome"
            await wire.close()
        await _settled(server)
        _assert_hall_empty(server)
        assert server.hall.addresses == {}
        assert server.storage.held == 0
    assert _rows(db) == []


async def test_a_spectator_comes_back_with_its_token(tmp_path: Path) -> None:
    """Watching a room stores the identity, so a spectator whose connection drops (or whose
    server restarts) comes back as itself, not as a stranger told its identity is unknown."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        eve = await WireClient.connect(server.url, "eve")
        token = eve.welcome["token"]
        watched = await eve.request(type="join", room=room["room"], role="spectator")
        assert watched["type"] == "room"
        await eve.close()
        await _settled(server, still_open=1)
        assert eve.welcome["player"] not in server.hall.identities  # forgotten in memory
        again = await WireClient.connect(server.url, "eve", token=token)
        assert again.welcome["player"] == eve.welcome["player"]
        await again.close()
        await ann.close()
    assert sorted(name for _, name in _rows(db)) == ["ann", "eve"]


async def test_a_lobby_only_identity_is_forgotten(tmp_path: Path) -> None:
    """An identity that only said hello and read the lobby is never stored, and once its
    connection closes its token is unknown (the client then starts afresh)."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        eve = await WireClient.connect(server.url, "eve")
        token = eve.welcome["token"]
        assert (await eve.request(type="list"))["type"] == "rooms"
        await eve.close()
        await _settled(server, still_open=0)
        assert eve.welcome["player"] not in server.hall.identities
        again = await WireClient.connect(server.url)
        refused = await again.request(type="hello", name="eve", protocol=1, token=token)
        assert refused["type"] == "error" and refused["code"] == "bad_token"
        await again.close()
    assert _rows(db) == []


async def test_a_token_resumes_while_its_identity_is_connected(tmp_path: Path) -> None:
    """An identity not yet stored still resumes on a second connection while the first is
    open (the first is closed with 4001), and the name it takes then is the one stored with
    its first seat."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        first = await WireClient.connect(server.url, "ann")
        token = first.welcome["token"]
        second = await WireClient.connect(server.url, "anna", token=token)
        assert second.welcome["player"] == first.welcome["player"]
        assert await first.wait_closed() == 4001
        assert _rows(db) == []
        room = await second.request(type="create", game="hexgomoku", color="first")
        assert room["type"] == "room"
        assert _rows(db) == [(first.welcome["player"], "anna")]
        await second.close()


async def test_seated_players_resume_after_a_restart(tmp_path: Path) -> None:
    """The creator (stored with its create) and the joiner (with its join) resume their seats
    with their tokens after the server restarts, with the names they had."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        joined = await bob.request(type="join", room=room["room"])
        assert joined["status"] == "playing"
        await ann.request(type="move", room=room["room"], ply=0, move="0,0")
        tokens = {"ann": ann.welcome["token"], "bob": bob.welcome["token"]}
        await ann.close()
        await bob.close()
    assert sorted(name for _, name in _rows(db)) == ["ann", "bob"]
    async with _server(db) as server:
        for name, token in tokens.items():
            wire = await WireClient.connect(server.url, "", token=token)
            assert wire.welcome["type"] == "welcome", wire.welcome
            assert wire.welcome["name"] == name
            assert wire.welcome["resumed"] == [room["room"]]
            await wire.close()


async def test_matched_players_are_stored_with_their_room(tmp_path: Path) -> None:
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        queued = await ann.request(type="join", game="hexgomoku")
        assert queued["type"] == "queued"
        assert [name for _, name in _rows(db)] == ["ann"]  # a seek stores its author
        matched = await bob.request(type="join", game="hexgomoku")
        assert matched["type"] == "room" and matched["status"] == "playing"
        assert sorted(name for _, name in _rows(db)) == ["ann", "bob"]
        tokens = [ann.welcome["token"], bob.welcome["token"]]
        await ann.close()
        await bob.close()
    async with _server(db) as server:
        for token in tokens:
            wire = await WireClient.connect(server.url, "x", token=token)
            assert wire.welcome["resumed"] == [matched["room"]]
            await wire.close()


async def test_a_player_who_comes_back_without_a_restart_resumes(tmp_path: Path) -> None:
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        token = ann.welcome["token"]
        await ann.close()
        await _settled(server)
        back = await WireClient.connect(server.url, "ann", token=token)
        assert back.welcome["resumed"] == [room["room"]]
        await back.close()


async def test_a_stored_identity_left_without_a_seat_is_loaded_again(tmp_path: Path) -> None:
    """Storing is for good: an identity that sat down once and left is forgotten from memory
    on its close and loaded again by its token."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        left = await ann.request(type="leave", room=room["room"])
        assert left["type"] == "ok"
        token = ann.welcome["token"]
        await ann.close()
        await _settled(server)
        _assert_hall_empty(server)
        back = await WireClient.connect(server.url, "ann", token=token)
        assert back.welcome["type"] == "welcome"
        assert back.welcome["player"] == ann.welcome["player"]
        await back.close()


async def test_a_name_changed_on_a_hello_of_a_stored_identity_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        await ann.request(type="create", game="hexgomoku", color="first")
        token = ann.welcome["token"]
        await ann.close()
    async with _server(db) as server:
        zed = await WireClient.connect(server.url, "zed", token=token)
        assert zed.welcome["name"] == "zed"
        await zed.close()
    async with _server(db) as server:
        wire = await WireClient.connect(server.url, "", token=token)
        assert wire.welcome["name"] == "zed"
        await wire.close()
    assert [name for _, name in _rows(db)] == ["zed"]


async def test_a_spectator_is_stored_with_its_first_watch(tmp_path: Path) -> None:
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        eve = await WireClient.connect(server.url, "eve")
        assert sorted(name for _, name in _rows(db)) == ["ann"]
        await eve.request(type="join", room=room["room"], role="spectator")
        said = await eve.request(type="chat", room=room["room"], text="hi")  # after the write
        assert said["type"] == "ok"
        assert sorted(name for _, name in _rows(db)) == ["ann", "eve"]
        await eve.close()
        await ann.close()


async def test_identities_loaded_for_a_refused_hello_are_not_kept(tmp_path: Path) -> None:
    """A hello with a stored token that is refused (here for its protocol) loaded the identity
    from the database: it must not stay in memory, or hellos with many stored tokens would fill
    it."""
    db = tmp_path / "hall.db"
    tokens = []
    async with _server(db) as server:
        for i in range(5):
            wire = await WireClient.connect(server.url, f"p{i}")
            await wire.request(type="create", game="hexgomoku", color="first")
            tokens.append(wire.welcome["token"])
            left = [r for r in server.hall.rooms.values()]
            await wire.request(type="leave", room=left[-1].code)
            await wire.close()
    async with _server(db) as server:
        for token in tokens:
            wire = await WireClient.connect(server.url)
            refused = await wire.request(type="hello", name="x", protocol=99, token=token)
            assert refused["code"] == "unsupported_protocol", refused
            await wire.close()
        await _settled(server)
        _assert_hall_empty(server)


async def test_a_fresh_identity_may_list_its_games_over_http(tmp_path: Path) -> None:
    """``GET /games?player=ID&token=T`` with the token of a connected identity not yet stored
    answers its (empty) list, not ``unknown token``."""
    db = tmp_path / "hall.db"
    async with _server(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        player, token = ann.welcome["player"], ann.welcome["token"]
        status, body = await http_get(server, f"/games?player={player}", token=token)
        assert status == 200, body
        assert json.loads(body) == {"player": player, "games": []}
        await ann.close()
