"""Finished rooms across a server stop or crash, as players meet them.

A room whose game ended within the keep time (``finished_room_ttl_s``) and that had not closed
(everyone left it) is back after a restart with its result, its chat and a pending rematch
offer, so its players can still rematch. The keep time counts from the end on the wall clock
(the downtime counts); players coming back get ``finished_room_return_s`` from the restart,
within the keep time. Real servers on 127.0.0.1:0 with SQLite files in temporary directories
and real WebSocket clients; time is injected by moving stored or room times, never by sleeping.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

import pytest

from server.storage import Storage
from server.testing import ServerProcess, WireClient
from tests.server.tables import close_all, play, seated_pair, serving


async def _ended(ann: WireClient, bob: WireClient, code: str) -> None:
    """Ann resigns after a few moves: bob wins."""
    await play(ann, bob, code, ["0,0", "0,1", "1,0"])
    assert (await ann.request(type="resign", room=code))["type"] == "over"
    await bob.expect("over", room=code)


async def _back(url: str, tokens: tuple[str, str]) -> tuple[WireClient, WireClient]:
    ann = await WireClient.connect(url, "ann", token=tokens[0])
    bob = await WireClient.connect(url, "bob", token=tokens[1])
    return ann, bob


def _ended_ago(db: Path, code: str, seconds: float) -> None:
    """Make the stored game of room ``code`` end ``seconds`` ago (the server is stopped)."""
    ended = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds))
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "UPDATE games SET ended = ?, meta = json_set(meta, '$.ended', ?) WHERE room = ?",
            (ended, ended, code),
        )


async def test_a_rematch_offer_and_chat_after_the_end_survive_a_clean_stop(
    tmp_path: Path,
) -> None:
    """Ann resigns, says "gg" and offers a rematch; the server stops and starts again: both
    find the finished room with its result, the line and the offer, and bob's acceptance
    opens the rematch."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await _ended(ann, bob, code)
        assert (await ann.request(type="chat", room=code, text="gg"))["type"] == "ok"
        assert (await ann.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
        await bob.expect("offer", room=code)
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens)
        try:
            snap = await bob.request(type="join", room=code)
            assert (snap["type"], snap["status"]) == ("room", "over"), snap
            assert (snap["result"], snap["reason"]) == ("second", "resign")
            assert snap["offers"] == [{"kind": "rematch", "by": "first"}], snap
            assert (await bob.expect("chat", room=code))["text"] == "gg"
            assert (await ann.request(type="join", room=code))["status"] == "over"
            reply = await bob.request(type="answer", room=code, kind="rematch", accept=True)
            assert reply["type"] == "ok", reply
            new = await ann.expect("room", status="playing")
            assert new["room"] != code and new["you"] == "second"
        finally:
            await close_all(ann, bob)


@pytest.mark.slow
async def test_a_finished_room_survives_a_crash_and_its_players_can_rematch(
    tmp_path: Path,
) -> None:
    """The game ends and the server is killed (SIGKILL): after the restart ann offers a
    rematch in the finished room and bob accepts it."""
    process = await ServerProcess.start(str(tmp_path / "hall.db"))
    try:
        ann, bob, code = await seated_pair(process.url)
        await _ended(ann, bob, code)
        tokens = ann.welcome["token"], bob.welcome["token"]
        await process.kill()
        await close_all(ann, bob)
    finally:
        await process.kill()
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens)
        try:
            assert (await ann.request(type="join", room=code))["status"] == "over"
            assert (await bob.request(type="join", room=code))["status"] == "over"
            assert (await ann.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
            reply = await bob.request(type="answer", room=code, kind="rematch", accept=True)
            assert reply["type"] == "ok", reply
            assert (await ann.expect("room", status="playing"))["room"] != code
        finally:
            await close_all(ann, bob)


async def test_the_keep_time_counts_from_the_end_across_the_downtime(tmp_path: Path) -> None:
    """A game that ended 5 minutes ago (the server was down meanwhile) is back with 60 s for
    its players to return; once one is here it closes 10 minutes after the end, not after
    the restart. One that ended 11 minutes ago is not back."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await _ended(ann, bob, code)
        old_ann, old_bob, old = await seated_pair(server.url)
        await _ended(old_ann, old_bob, old)
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob, old_ann, old_bob)
    _ended_ago(tmp_path / "hall.db", code, 300)
    _ended_ago(tmp_path / "hall.db", old, 660)
    async with serving(tmp_path) as server:
        assert old not in server.hall.rooms
        room = server.hall.rooms[code]
        assert room.status == "over" and room.expires is not None
        assert 55 <= room.expires - server.loop.time() <= 61
        ann, bob = await _back(server.url, tokens)
        try:
            assert (await ann.request(type="join", room=code))["status"] == "over"
            assert 295 <= room.expires - server.loop.time() <= 301
            refused = await bob.request(type="join", room=old)
            assert refused["code"] == "unknown_room", refused
        finally:
            await close_all(ann, bob)


async def test_a_room_everyone_left_stays_closed_after_a_restart(tmp_path: Path) -> None:
    """Both players leave the finished room, which closes; after a restart it is not back."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await _ended(ann, bob, code)
        assert (await ann.request(type="leave", room=code))["type"] == "ok"
        assert (await bob.request(type="leave", room=code))["type"] == "ok"
        assert code not in server.hall.rooms
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    async with serving(tmp_path) as server:
        assert code not in server.hall.rooms
        ann, bob = await _back(server.url, tokens)
        try:
            refused = await ann.request(type="join", room=code)
            assert refused["code"] == "unknown_room", refused
        finally:
            await close_all(ann, bob)


async def test_an_answered_or_withdrawn_rematch_offer_is_not_back_after_a_restart(
    tmp_path: Path,
) -> None:
    """A rematch accepted before the stop is not pending again (the room names its rematch);
    one withdrawn by its maker leaving the room is not either, and the one who left cannot be
    offered another."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await _ended(ann, bob, code)
        assert (await ann.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
        assert (await bob.request(type="answer", room=code, kind="rematch", accept=True))[
            "type"
        ] == "ok"
        rematch = server.hall.rooms[code].rematch_room
        assert rematch is not None
        cal, dan, other = await seated_pair(server.url)
        await _ended(cal, dan, other)
        assert (await cal.request(type="offer", room=other, kind="rematch"))["type"] == "ok"
        assert (await cal.request(type="leave", room=other))["type"] == "ok"
        tokens = ann.welcome["token"], bob.welcome["token"]
        dan_token = dan.welcome["token"]
        await close_all(ann, bob, cal, dan)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens)
        dan = await WireClient.connect(server.url, "bob", token=dan_token)
        try:
            snap = await ann.request(type="join", room=code)
            assert (snap["status"], snap["offers"]) == ("over", []), snap
            again = await ann.request(type="offer", room=code, kind="rematch")
            assert again["code"] == "not_allowed" and rematch in again["message"], again
            snap = await dan.request(type="join", room=other)
            assert (snap["status"], snap["offers"]) == ("over", []), snap
            refused = await dan.request(type="offer", room=other, kind="rematch")
            assert "left the room" in refused["message"], refused
        finally:
            await close_all(ann, bob, dan)


def test_finished_games_are_found_through_an_index_also_in_an_older_database(
    tmp_path: Path,
) -> None:
    """A database made without the index gets it when it opens, and the start's query for
    recently finished games searches it rather than scanning the games."""
    db = tmp_path / "old.db"
    Storage(db).close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP INDEX IF EXISTS games_ended")
    storage = Storage(db)
    try:
        assert storage.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'games_ended'"
        ).fetchone()
        plan = " ".join(
            str(row[3])
            for row in storage.db.execute(
                "EXPLAIN QUERY PLAN " + storage.FINISHED_SINCE, ("2026-01-01T00:00:00Z",)
            )
        )
        assert "USING INDEX games_ended" in plan or "USING COVERING INDEX games_ended" in plan
        assert storage.finished_since("2026-01-01T00:00:00Z") == []
    finally:
        storage.close()


async def test_a_stop_with_its_players_still_here_does_not_close_their_finished_room(
    tmp_path: Path,
) -> None:
    """The game ended 2 minutes before a clean stop and both players are still in the room:
    the stop closing their connections is not their going offline, so the room is back."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await _ended(ann, bob, code)
        room = server.hall.rooms[code]
        assert room.ended_at is not None
        room.ended_at -= 120
        tokens = ann.welcome["token"], bob.welcome["token"]
    await close_all(ann, bob)
    async with serving(tmp_path) as server:
        assert server.hall.rooms[code].status == "over"
        ann, bob = await _back(server.url, tokens)
        try:
            assert (await ann.request(type="join", room=code))["status"] == "over"
        finally:
            await close_all(ann, bob)
