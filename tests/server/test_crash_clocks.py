"""Clocks across a crash (SIGKILL, power cut): the time used before the crash is still charged.

DESIGN.md: "a restarted server resumes every unfinished game with every accepted move, and time
while the server was down is charged to nobody". A clean stop keeps each running turn's time
(tests/server/test_clock_restarts.py); a crash leaves no such record, so the server stamps the
database with the time it was last known alive (about once a second) and a restart after a
crash charges each running turn, abort deadline and absence up to that stamp, never beyond it.

Most tests run real servers on SQLite files in temporary directories. A crash is a copy of the
database and its write-ahead log taken on the loop between two commits (what a SIGKILL leaves
on the disk); time is injected by stamping the server alive at a later instant of its own clock,
never by sleeping. The sans-I/O tests drive the hall with an injected clock.
"""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import json
import shutil
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from server.config import ServerConfig
from server.hall import Hall
from server.liveness import Alive
from server.net import BoardhallServer
from server.outputs import SaveAlive, SaveGame, SaveMove, TruncateMoves
from server.storage import Storage
from server.testing import HallDriver, ServerProcess, WireClient
from tests.server import tables
from tests.server.storage_tools import until
from tests.server.tables import claim_when_absence_ends, play, seated_pair


@contextlib.asynccontextmanager
async def serving(db: Path, **kwargs: Any) -> AsyncIterator[BoardhallServer]:
    """:func:`tests.server.tables.serving` with no stamps of its own (the tests stamp it alive
    when they say)."""
    kwargs.setdefault("alive_every", None)
    async with tables.serving(db, **kwargs) as server:
        yield server


async def stamped(server: BoardhallServer, later: float) -> None:
    """Stamp ``server`` alive ``later`` seconds from now on its clock, and let it commit."""
    server.stamp_alive(server.loop.time() + later)
    await until(lambda: server.storage.held == 0)


def crash_image(db: Path, into: Path) -> Path:
    """What a SIGKILL now would leave of ``db``: the database and its write-ahead log as they
    are on the disk (taken on the loop, so between two commits), copied to ``into``."""
    into.mkdir()
    for suffix in ("", "-wal"):
        source = Path(f"{db}{suffix}")
        if source.exists():
            shutil.copyfile(source, into / f"{db.name}{suffix}")
    return into / db.name


CLOCK_FORMS = {
    "per_move": {"per_move": 60},
    "fischer": {"initial": 300, "increment": 5},
    "all_three": {"initial": 300, "increment": 5, "per_move": 60},
}


def _ms_since(began: float) -> float:
    """Milliseconds passed on the loop's clock (the servers' own) since ``began``, and 5 more
    (the servers keep their times to the ms): the most a restart may have charged since then,
    however busy the machine."""
    return (asyncio.get_running_loop().time() - began) * 1000 + 5


async def _clocks_of_bob(db: Path, code: str, token: str, **kwargs: Any) -> dict[str, Any]:
    async with serving(db, **kwargs) as server:
        bob = await WireClient.connect(server.url, "bob", token=token)
        try:
            assert bob.welcome["resumed"] == [code]
            return (await bob.expect("room", room=code))["clocks"]
        finally:
            await bob.close()


@pytest.mark.parametrize("moves", [["0,0", "0,1", "1,0"], ["0,0"]], ids=["clock", "abort"])
@pytest.mark.parametrize("form", list(CLOCK_FORMS))
async def test_a_crash_charges_the_running_turn_up_to_the_last_stamp(
    tmp_path: Path, form: str, moves: list[str]
) -> None:
    """Bob thinks 20 s, the server is last known alive then and crashes: after the restart bob
    has what he had left 20 s into his turn (give or take the second the stored move time is
    rounded to, in his favour), not his whole turn again. With ``abort`` his first move is due:
    10 s of the 30 s abort deadline are left."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, code = await seated_pair(server, CLOCK_FORMS[form])
        await play(ann, bob, code, moves)
        room = server.hall.rooms[code]
        assert room.clock.running == "second"
        began = server.loop.time()
        before = room.view(None, began + 20).clocks
        assert before is not None
        await stamped(server, 20)
        crashed = crash_image(db, tmp_path / "crash")
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    after = await _clocks_of_bob(crashed, code, token)
    passed = _ms_since(began)  # the stamp, the copy, the restart and the reconnect
    assert after["running"] == "second" and after["first"] == before.first
    if before.second is not None:
        assert before.second - passed < after["second"] <= before.second + 1000, (before, after)
    if before.move is not None:  # the per-move limit or the abort deadline
        assert before.move - passed < after["move"] <= before.move + 1000, (before, after)
    assert (before.second, before.move) != (None, None)


async def test_a_stamp_older_than_the_last_move_charges_nothing(tmp_path: Path) -> None:
    """The server was last stamped alive before bob's turn began (at its start): it crashed
    right after the move, and bob gets his whole minute, not a negative charge or a refund of
    ann's time."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, code = await seated_pair(server, {"initial": 300, "per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        first = server.hall.rooms[code].clock.remaining["first"]
        crashed = crash_image(db, tmp_path / "crash")
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    began = asyncio.get_running_loop().time()
    after = await _clocks_of_bob(crashed, code, token)
    assert 60_000 - _ms_since(began) < after["move"] <= 60_000, after
    assert after["first"] == first


async def test_a_turn_kept_at_a_stop_is_charged_until_a_later_crash(tmp_path: Path) -> None:
    """Bob used 20 s before a clean stop; the restarted server is known alive 15 s later and
    crashes: after that restart bob has used 35 s of his minute (the downtimes are free)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, code = await seated_pair(server, {"initial": 300, "per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        server.hall.rooms[code].clock.turn_start -= 20
        began = server.loop.time()
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    async with serving(db) as server:
        await stamped(server, 15)
        crashed = crash_image(db, tmp_path / "crash")
    after = await _clocks_of_bob(crashed, code, token)
    assert 25_000 - _ms_since(began) < after["move"] <= 25_000, after


async def test_two_crashes_in_a_row_charge_both_stretches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob used 20 s before a crash, and 10 s on the server restarted after it before that one
    crashed too: he has used 30 s. The wall clock went back an hour between the two servers,
    which changes nothing (each server's times are compared only with its own)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, code = await seated_pair(server, {"per_move": 60})
        began = server.loop.time()  # bob's turn begins after this
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        await stamped(server, 20)
        first = crash_image(db, tmp_path / "first")
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 3600)
    second_server = BoardhallServer(host="127.0.0.1", port=0, db=str(first), ping_interval=None,
                                    alive_every=None)  # fmt: skip
    monkeypatch.setattr(time, "time", real)
    await second_server.start()
    try:
        await stamped(second_server, 10)
        second = crash_image(first, tmp_path / "second")
    finally:
        await second_server.stop()
    after = await _clocks_of_bob(second, code, token)
    assert 30_000 - _ms_since(began) < after["move"] <= 31_000, after


async def test_an_absence_before_a_crash_still_counts_after_it(tmp_path: Path) -> None:
    """Untimed, 60 s absence grace: bob has been away 50 s when the server is last known alive
    and crashes. After the restart ann may claim after the 10 s that are left."""
    db = tmp_path / "hall.db"
    config = ServerConfig(absence_grace_s=60)
    async with serving(db, config=config) as server:
        ann, bob, code = await seated_pair(server, None)
        await play(ann, bob, code, ["0,0"])
        await bob.close()
        room = server.hall.rooms[code]
        await until(lambda: room.seats["second"] and not room.seats["second"].connected)
        await stamped(server, 50)
        crashed = crash_image(db, tmp_path / "crash")
        token = ann.welcome["token"]
        await ann.close()
    async with serving(crashed, config=config) as server:
        await claim_when_absence_ends(server, token, code, away_s=50, grace_s=60)


async def test_a_player_back_before_the_crash_is_away_only_from_the_restart(
    tmp_path: Path,
) -> None:
    """Bob was away, came back, and was here when the server crashed 50 s later: his absence
    starts at the restart, not when he first left."""
    db = tmp_path / "hall.db"
    config = ServerConfig(absence_grace_s=60)
    async with serving(db, config=config) as server:
        ann, bob, code = await seated_pair(server, None)
        await play(ann, bob, code, ["0,0"])
        token = bob.welcome["token"]
        await bob.close()
        room = server.hall.rooms[code]
        await until(lambda: room.seats["second"] and not room.seats["second"].connected)
        bob = await WireClient.connect(server.url, "bob", token=token)
        await bob.expect("room", room=code)
        await stamped(server, 50)
        crashed = crash_image(db, tmp_path / "crash")
        ann_token = ann.welcome["token"]
        await ann.close()
        await bob.close()
    async with serving(crashed, config=config) as server:
        ann = await WireClient.connect(server.url, "ann", token=ann_token)
        try:
            early = await ann.request(type="timeout", room=code)
        finally:
            await ann.close()
    assert (early["type"], early["code"]) == ("error", "not_allowed"), early
    assert "away 0 s" in early["message"], early


async def test_a_database_without_the_stamp_still_opens_and_charges_nothing(
    tmp_path: Path,
) -> None:
    """A database of an older server (no ``alive`` table, games stored without the new
    records) after a crash: it opens, the game resumes, and bob's turn starts again as it
    always did then (nothing says when that server died)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, code = await seated_pair(server, {"per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        await stamped(server, 20)
        crashed = crash_image(db, tmp_path / "crash")
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    with contextlib.closing(sqlite3.connect(crashed)) as old:
        old.execute("DROP TABLE alive")
        for game_id, meta in old.execute("SELECT id, meta FROM games").fetchall():
            kept = {k: v for k, v in json.loads(meta).items() if k not in ("turn", "away")}
            old.execute("UPDATE games SET meta = ? WHERE id = ?", (json.dumps(kept), game_id))
        old.commit()
    began = asyncio.get_running_loop().time()
    after = await _clocks_of_bob(crashed, code, token)
    assert 60_000 - _ms_since(began) < after["move"] <= 60_000, after


async def test_the_stamp_is_written_about_once_a_second_without_a_sync_of_its_own(
    tmp_path: Path,
) -> None:
    """The server stamps itself alive on its own: the stamp is on the disk (and advances) with
    no move made, and a commit that holds only the stamp asks for no log sync (the next move's
    sync covers it; a crash of the process keeps it in any case)."""
    db = tmp_path / "hall.db"

    def stamp() -> float | None:
        with contextlib.closing(sqlite3.connect(db)) as database:
            row = database.execute("SELECT wall FROM alive").fetchone()
        return None if row is None else float(row[0])

    async with serving(db, alive_every=0.05) as server:
        ann, bob, _ = await seated_pair(server, None)  # a game on: something to charge
        await until(lambda: server.storage.held == 0)  # the first stamp, with the start
        first = stamp()
        assert first is not None
        syncer = server.storage.syncer
        assert syncer is not None
        commits = server.storage._commits
        await until(lambda: (stamp() or 0) > first)
        assert server.storage._commits == commits  # numbered commits are the synced ones
        await ann.close()
        await bob.close()


async def test_an_idle_server_stamps_only_at_its_start(tmp_path: Path) -> None:
    """With no game on there is nothing to charge: after the stamp of its start, an idle
    server writes nothing (the stamp stays where it was)."""
    db = tmp_path / "hall.db"
    async with serving(db, alive_every=3600) as server:
        await until(lambda: server.storage.held == 0)
        with contextlib.closing(sqlite3.connect(db)) as database:
            assert database.execute("SELECT wall FROM alive").fetchone() is not None
        assert server._alive_timer is not None
        server._alive_timer.cancel()
        server._stamp_alive_again()  # what the stamp timer does when it fires
        assert server.storage.held == 0  # no write queued


# ---- the sans-I/O core, with an injected clock ---------------------------------------------------


def _restored(d: HallDriver, alive: SaveAlive | None, wall_offset: float = 1.7e9) -> Hall:
    """A hall restarted after a crash on what ``d`` wrote, last stamped ``alive``."""
    storage = Storage(":memory:")
    storage.apply(w for w in d.writes if isinstance(w, (SaveGame, SaveMove, TruncateMoves)))
    hall = Hall(ServerConfig(), wall_offset=wall_offset)
    found = Alive(alive.run, alive.wall) if alive is not None else None
    for meta, moves in storage.unfinished():
        hall.restore(meta, moves, 5000.0, alive=found)
    hall.restart_clocks(5000.0)
    return hall


def test_an_undo_restarts_what_a_crash_charges() -> None:
    """Bob's turn began with an accepted undo 30 s after ann's move: a crash 5 s later charges
    him 5 s, not the 35 s since the stored move."""
    d = HallDriver()
    a, b, code = d.table(game="hexgomoku", clock={"per_move": 60})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.move(a, code, "1,0")
    d.request(a, type="offer", room=code, kind="undo")
    d.advance(30)
    assert d.request(b, type="answer", room=code, kind="undo", accept=True)["type"] == "ok"
    d.advance(5)
    hall = _restored(d, d.hall.alive(d.now))
    clocks = hall.rooms[code].clock.snapshot(5000.0)
    assert clocks is not None and clocks.running == "first"
    assert clocks.move == 55_000


def test_a_turn_begun_again_after_a_storage_failure_is_charged_from_then() -> None:
    """Ann's move was held 30 s by a failing database, so bob's turn began again when it
    went through (he could not see the position before): a crash 5 s later charges him 5 s,
    not the 35 s since the stored move."""
    d = HallDriver()
    a, b, code = d.table(game="hexgomoku", clock={"per_move": 60})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.move(a, code, "1,0")
    d.advance(30)
    room = d.hall.rooms[code]
    d.writes.extend(d.hall.restart_turns_of({room.game_id}, d.now))
    d.advance(5)
    clocks = _restored(d, d.hall.alive(d.now)).rooms[code].clock.snapshot(5000.0)
    assert clocks is not None and clocks.running == "second"
    assert clocks.move == 55_000


def test_the_first_turn_is_charged_from_the_start_of_the_game() -> None:
    """The game began and ann, to move first, had used 12 s of her 30 s abort deadline."""
    d = HallDriver()
    _, _, code = d.table(game="hexgomoku", clock={"per_move": 60})
    d.advance(12)
    hall = _restored(d, d.hall.alive(d.now))
    clocks = hall.rooms[code].clock.snapshot(5000.0)
    assert clocks is not None and clocks.move == 18_000


def test_a_stamp_of_another_run_charges_nothing() -> None:
    """A stamp that is not of the server that kept the turn's start (it cannot be compared
    with that server's times) charges nothing; nor does a stamp older than the move."""
    d = HallDriver()
    a, b, code = d.table(game="hexgomoku", clock={"per_move": 60})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.advance(20)
    other = HallDriver().hall.alive(d.now)
    for stamp in (SaveAlive(other.run, other.wall), d.hall.alive(d.now - 30)):
        clocks = _restored(d, stamp).rooms[code].clock.snapshot(5000.0)
        assert clocks is not None and clocks.move == 60_000, stamp


def test_a_turn_that_ran_out_before_the_crash_is_lost_on_time_at_the_restart() -> None:
    """Bob's minute ran out 5 s before the server's last stamp (its timer had not fired yet):
    the restart flags him at once, as the crashed server was about to."""
    d = HallDriver()
    a, b, code = d.table(game="hexgomoku", clock={"per_move": 60})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.move(a, code, "1,0")
    d.now += 66  # the timer has not fired
    hall = _restored(d, d.hall.alive(d.now))
    room = hall.rooms[code]
    assert room.status == "playing"
    hall.tick(5000.0)
    assert room.status == "over" and room.outcome is not None
    assert (room.outcome.winner, room.outcome.reason) == ("first", "timeout")


@pytest.mark.slow
async def test_sigkill_charges_the_turn_up_to_the_last_stamp(tmp_path: Path) -> None:
    """``boardhall-server`` killed with SIGKILL a while into bob's turn, after it stamped itself
    alive at least 2 s after his turn began: after the restart bob has been charged at least
    what the stamp shows (less the second the move time is rounded to), and no more than what
    passed until the kill."""
    db = tmp_path / "hall.db"
    process = await ServerProcess.start(str(db))
    try:
        ann, bob, code = await seated_pair(process.url, {"per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1"])
        began = time.monotonic()
        reply = await ann.request(type="move", room=code, ply=2, move="1,0")
        assert reply["type"] == "moved"
        with contextlib.closing(sqlite3.connect(db)) as database:
            (at,) = database.execute("SELECT at FROM moves WHERE ply = 2").fetchone()
        moved_at = calendar.timegm(time.strptime(at, "%Y-%m-%dT%H:%M:%SZ"))

        def stamp() -> float:
            with contextlib.closing(sqlite3.connect(db)) as database:
                return float(database.execute("SELECT wall FROM alive").fetchone()[0])

        # the child's own stamps (about once a second, on its own clock): polled, bounded. No
        # clock of the child's can be moved from here, and its stamping is what is tested.
        async with asyncio.timeout(10):
            while stamp() < moved_at + 3:
                await asyncio.sleep(0.05)
        last = stamp()
        await process.kill()
        killed = time.monotonic()
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    finally:
        await process.kill()
    after = await _clocks_of_bob(db, code, token)
    charged = 60_000 - after["move"]
    assert (last - moved_at - 1) * 1000 - 1000 < charged <= (killed - began) * 1000 + 1000, (
        last - moved_at, killed - began, after)  # fmt: skip
