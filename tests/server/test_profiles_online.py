"""``GET /players/ID`` says whether the player is online (``online``: a connection now) and when
they last were (``last_online``: when their last connection began or ended), as lichess does:
real clients on a real server (loopback, port 0) with its SQLite database in a temporary
directory and its wall clock set ahead (the hall's ``wall_offset``), across a restart, while
the database fails, and on an older database; the hall writes the times only at connections,
never with a move, and not for an identity that only said hello."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from server.net import BoardhallServer
from server.outputs import SaveOnline
from server.storage import Storage
from server.testing import HallDriver, WireClient
from tests.server.http_tools import http_request as http
from tests.server.storage_tools import until
from tests.server.tables import close_all, play, seated_pair, serving

T0 = 2_000_000_000.0
"""The wall clock the tests set: 2033-05-18T03:33:20Z."""
HOUR = 3600.0


def set_wall(server: BoardhallServer, wall: float) -> None:
    """Make the server's hall read ``wall`` (seconds since the epoch) as of now."""
    server.hall.wall_offset = wall - server.loop.time()


def iso(wall: float) -> str:
    """A wall time as the server writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def near(stamp: object, wall: float) -> bool:
    """Whether ``stamp`` is ``wall`` or a few seconds after it (the test's own time)."""
    return isinstance(stamp, str) and iso(wall) <= stamp <= iso(wall + 10)


async def profile(server: BoardhallServer, player: str) -> dict[str, object]:
    reply = await http(server, f"/players/{player}")
    assert reply.status == 200, reply.body
    body = reply.json()
    assert isinstance(body, dict)
    return body


def online_rows(db: Path) -> dict[str, str]:
    """The stored last online times, by player, as a fresh connection finds them."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT player, at FROM last_online").fetchall())


async def test_online_now_then_last_online_when_the_connection_ended(tmp_path: Path) -> None:
    """ann and bob sit at a table: both are online, last online when ann's seat stored her.
    An hour on, ann goes: she is offline, last online when she left, her game times
    (``first_seen``/``last_seen``) as they were. Two hours on she comes back with her token:
    online again, last online when she came. bob, connected all along, never changed."""
    async with serving(tmp_path) as server:
        set_wall(server, T0)
        ann, bob, code = await seated_pair(server.url)
        player, token = ann.welcome["player"], ann.welcome["token"]
        try:
            await play(ann, bob, code, ["0,0", "0,1"])
            seated = await profile(server, player)
            assert seated["online"] is True
            assert near(seated["last_online"], T0), seated["last_online"]

            set_wall(server, T0 + HOUR)
            await ann.close()
            await until(lambda: server.hall.identities[player].conn is None)
            gone = await profile(server, player)
            assert gone["online"] is False
            assert near(gone["last_online"], T0 + HOUR), gone["last_online"]
            assert (gone["first_seen"], gone["last_seen"]) == (
                seated["first_seen"],
                seated["last_seen"],
            )
            assert near(gone["last_seen"], T0)  # the game's time, not the connection's

            set_wall(server, T0 + 3 * HOUR)
            ann = await WireClient.connect(server.url, "ann", token=token)
            back = await profile(server, player)
            assert back["online"] is True
            assert near(back["last_online"], T0 + 3 * HOUR), back["last_online"]
            bobs = await profile(server, bob.welcome["player"])
            assert bobs["online"] is True and near(bobs["last_online"], T0)
        finally:
            await close_all(ann, bob)
        assert set(online_rows(tmp_path / "hall.db")) == {player, bob.welcome["player"]}


async def test_a_stop_is_the_last_time_online_after_the_restart(tmp_path: Path) -> None:
    """Players still connected when the server stops were last online then: the restarted
    server says so, and that they are offline."""
    async with serving(tmp_path) as server:
        set_wall(server, T0)
        ann, bob, _ = await seated_pair(server.url)
        set_wall(server, T0 + HOUR)
    await close_all(ann, bob)
    async with serving(tmp_path) as server:
        for wire in (ann, bob):
            body = await profile(server, wire.welcome["player"])
            assert body["online"] is False
            assert near(body["last_online"], T0 + HOUR), body["last_online"]


async def test_a_failing_database_does_not_hold_up_a_connection(tmp_path: Path) -> None:
    """eve, stored as a spectator, comes back while every commit fails (the database made
    read-only): she is welcomed at once (the failure still on); her time online is written
    once the database takes writes again."""
    async with serving(tmp_path) as server:
        set_wall(server, T0)
        ann, bob, code = await seated_pair(server.url)
        eve = await WireClient.connect(server.url, "eve")
        player, token = eve.welcome["player"], eve.welcome["token"]
        await eve.request(type="join", room=code, role="spectator")
        await eve.close()
        await until(lambda: player not in server.hall.identities)  # forgotten, stored
        server.storage.writer.db.execute("PRAGMA query_only=1")
        try:
            await ann.send(type="move", room=code, ply=0, move="0,0")  # a failing commit
            await until(lambda: server.storage.failure is not None)
            set_wall(server, T0 + HOUR)
            eve = await WireClient.connect(server.url, "eve", token=token)
            assert eve.welcome["player"] == player
            assert server.storage.failure is not None
        finally:
            server.storage.writer.db.execute("PRAGMA query_only=0")
        await until(lambda: server.storage.failure is None)
        body = await profile(server, player)
        assert body["online"] is True
        assert near(body["last_online"], T0 + HOUR), body["last_online"]
        await close_all(ann, bob, eve)


async def test_a_commit_of_times_online_alone_asks_for_no_sync(tmp_path: Path) -> None:
    """A time online is a stamp, as the server's alive stamp: a commit of such stamps alone
    asks for no log sync of its own (a killed process keeps it; the next sync covers it)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        set_wall(server, T0)
        ann, bob, code = await seated_pair(server.url)
        eve = await WireClient.connect(server.url, "eve")
        await eve.request(type="join", room=code, role="spectator")
        await until(lambda: server.storage.held == 0)
        commits = server.storage._commits  # numbered commits are the synced ones
        set_wall(server, T0 + HOUR)
        await eve.close()
        player = eve.welcome["player"]
        await until(lambda: online_rows(db).get(player, "") >= iso(T0 + HOUR))
        assert server.storage._commits == commits
        await close_all(ann, bob)


async def test_an_older_database_has_no_times_online_until_a_connection(tmp_path: Path) -> None:
    """A database from before times online were kept (no ``last_online`` table) opens with
    none: a stored player is offline with ``last_online`` null until they connect. The
    identities table keeps its three columns, so an older server's insert of one still
    works in the migrated database."""
    db = tmp_path / "hall.db"
    storage = Storage(db)
    storage.close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TABLE last_online")
        conn.execute("INSERT INTO identities VALUES ('p-old', 'h-old', 'Old')")
    async with serving(db) as server:
        body = await profile(server, "p-old")
        assert (body["online"], body["last_online"]) == (False, None)
        assert (body["first_seen"], body["last_seen"]) == (None, None)
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("INSERT INTO identities VALUES ('p-older', 'h-older', 'Older')")
    assert online_rows(db) == {}


def test_times_online_are_written_at_connections_only() -> None:
    """The hall stamps a stored identity's time online when it is stored (its first seat) and
    when its connection ends, never with a move and never among the writes its outputs wait
    for; an identity that only said hello gets none."""
    driver = HallDriver()
    ann, bob, code = driver.table()
    ids = {identity.name: player for player, identity in driver.hall.identities.items()}
    wall = driver.hall.wall(driver.now)
    assert driver.online == [SaveOnline(ids["ann"], wall), SaveOnline(ids["bob"], wall)]
    driver.online.clear()
    driver.move(ann, code, "0,0")
    driver.move(bob, code, "0,1")
    assert driver.online == []
    assert not any(isinstance(op, SaveOnline) for op in driver.writes)

    eve = driver.player("eve")
    driver.advance(60)
    driver.drop(eve)
    driver.drop(ann)
    assert driver.online == [SaveOnline(ids["ann"], driver.hall.wall(driver.now))]
