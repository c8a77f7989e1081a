"""Clocks across a server stop and restart, and the stop itself, as players under time control
meet them.

DESIGN.md: "a restarted server resumes every unfinished game with every accepted move, and time
while the server was down is charged to nobody": the turn player's time used before the stop is
still used after it (not refunded), the downtime is not charged, and an absent player's absence
before the stop still counts. Every test runs a real server on a loopback port 0 with a SQLite
file in a temporary directory and real WebSocket clients; time is injected by moving a turn's
start (or an absence's start) back, never by sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from server.config import ServerConfig
from server.testing import ServerProcess, WireClient
from tests.server.raw_ws import raw_websocket
from tests.server.storage_tools import (
    Gate,  # os.fdatasync behind a gate
    until,
)
from tests.server.tables import claim_when_absence_ends, play, seated_pair, serving

CLOCK_FORMS = {
    "per_move": {"per_move": 60},
    "fischer": {"initial": 300, "increment": 5},
    "all_three": {"initial": 300, "increment": 5, "per_move": 60},
}


@pytest.mark.parametrize("moves", [["0,0", "0,1", "1,0"], ["0,0"]], ids=["clock", "abort"])
@pytest.mark.parametrize("form", list(CLOCK_FORMS))
async def test_a_clean_restart_neither_refunds_nor_charges_the_running_turn(
    tmp_path: Path, form: str, moves: list[str]
) -> None:
    """Bob thinks 20 s, the server is stopped (SIGTERM) and started again: bob has what was left
    at the stop, not his whole turn again; ann's clock is untouched. With ``abort``, bob's first
    move is due: 10 s of the 30 s abort deadline are left, not 30."""
    clock = CLOCK_FORMS[form]
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server, clock)
        await play(ann, bob, code, moves)
        room = server.hall.rooms[code]
        assert room.clock.running == "second"
        room.clock.turn_start -= 20
        began = server.loop.time()
        before = room.view(None, began).clocks
        assert before is not None
        tokens = ann.welcome["token"], bob.welcome["token"]
        await ann.close()
        await bob.close()
    async with serving(tmp_path) as server:
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        try:
            assert bob.welcome["resumed"] == [code]
            after = (await bob.expect("room", room=code))["clocks"]
            passed = (server.loop.time() - began) * 1000 + 5  # the servers keep ms
        finally:
            await bob.close()
    assert after["running"] == "second"
    assert after["first"] == before.first
    # what was left at the stop, less at most the time that passed since ``before`` (the
    # stop, the start and the reconnect: however long they took on a busy machine)
    if before.second is not None:
        assert before.second - passed < after["second"] <= before.second, (before, after, passed)
    if before.move is not None:  # the per-move limit or the abort deadline: the same
        assert before.move - passed < after["move"] <= before.move, (before, after, passed)
    else:
        assert after["move"] is None
    assert (before.second, before.move) != (None, None)


@pytest.mark.slow
async def test_a_turn_kept_at_a_stop_is_still_charged_after_a_later_crash(tmp_path: Path) -> None:
    """Bob used 20 s before a clean stop; the restarted server is then killed (SIGKILL) before
    he moves. After that restart he still has the 20 s less (and what the killed server was
    up for, up to its last alive stamp), not his whole turn again."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server, {"initial": 300, "per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        room = server.hall.rooms[code]
        room.clock.turn_start -= 20
        began = server.loop.time()
        before = room.view(None, began).clocks
        assert before is not None and before.second is not None and before.move is not None
        token = bob.welcome["token"]
        await ann.close()
        await bob.close()
    process = await ServerProcess.start(str(tmp_path / "hall.db"))
    try:
        bob = await WireClient.connect(process.url, "bob", token=token)
        await bob.expect("room", room=code)
        await process.kill()
        await bob.wait_closed()
    finally:
        await process.kill()
    async with serving(tmp_path) as server:
        bob = await WireClient.connect(server.url, "bob", token=token)
        try:
            after = (await bob.expect("room", room=code))["clocks"]
            passed = (server.loop.time() - began) * 1000 + 5  # the servers keep ms
        finally:
            await bob.close()
    assert after["running"] == "second"
    # less at most the time that passed since ``before`` (the killed server's start included)
    assert before.second - passed < after["second"] <= before.second, (before, after, passed)
    assert before.move - passed < after["move"] <= before.move, (before, after, passed)


async def test_the_move_that_ends_the_game_stops_the_clocks_it_sends(tmp_path: Path) -> None:
    """Fool's mate under Fischer 60+2: the mating move's ``moved`` told everyone that white's
    clock was running (and a client counted it down) although the game was over; its clocks
    are the final ones, as in the ``room`` snapshot after the ``over``."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server, {"initial": 60, "increment": 2}, game="chess")
        spectator = await WireClient.connect(server.url, "sam")
        try:
            await spectator.request(type="join", room=code, role="spectator")
            await play(ann, bob, code, ["f3", "e5", "g4", "Qh4"])
            final = await ann.expect("room", room=code, status="over")
            seen = [await ann.expect("moved", ply=3), await spectator.expect("moved", ply=3)]
        finally:
            for wire in (ann, bob, spectator):
                await wire.close()
    assert final["reason"] == "checkmate" and final["clocks"]["running"] is None
    for moved in seen:
        assert moved["clocks"] == final["clocks"], (moved, final)


async def test_a_turn_whose_time_ran_out_as_the_server_stopped_is_lost_on_time_at_restart(
    tmp_path: Path,
) -> None:
    """Bob's 60 s per move ran out (65 s used) before the server stopped (SIGTERM): at the
    restart the game is over on time at once, as it was when the server went down; it does
    not go on with a fresh minute for bob."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server, {"per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        token = ann.welcome["token"]
        await ann.close()
        await bob.close()
        room = server.hall.rooms[code]
        await until(lambda: not any(s and s.connected for s in room.seats.values()))
        room.clock.turn_start -= 65  # its timer is still set for later: not due before the stop
    async with serving(tmp_path) as server:
        await until(lambda: server.hall.rooms[code].status == "over")
        ann = await WireClient.connect(server.url, "ann", token=token)
        try:
            assert ann.welcome["resumed"] == []
            seen = await ann.request(type="join", room=code)
        finally:
            await ann.close()
    assert (seen["status"], seen["result"], seen["reason"]) == ("over", "first", "timeout")
    assert seen["clocks"]["running"] is None


async def test_an_absence_before_a_clean_restart_still_counts_after_it(tmp_path: Path) -> None:
    """Untimed, 60 s absence grace: bob has been away 50 s when the server stops (SIGTERM). After
    the restart ann may claim after the 10 s that are left, not after a whole new minute."""
    code, token, _ = await _away_at_the_stop(tmp_path, 50)
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        await claim_when_absence_ends(server, token, code, away_s=50, grace_s=60)


async def _away_at_the_stop(tmp_path: Path, seconds: float) -> tuple[str, str, str]:
    """An untimed game in which bob has been away ``seconds`` when the server stops cleanly:
    ``(room code, ann's token, bob's token)``."""
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        ann, bob, code = await seated_pair(server, None)
        await play(ann, bob, code, ["0,0"])
        await bob.close()
        room = server.hall.rooms[code]
        await until(lambda: room.seats["second"] and not room.seats["second"].connected)
        seat = room.seats["second"]
        assert seat is not None and seat.away_since is not None
        seat.away_since -= seconds
        tokens = code, ann.welcome["token"], bob.welcome["token"]
        await ann.close()
    return tokens


async def _claim_after_restart(tmp_path: Path, code: str, token: str) -> dict[str, Any]:
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        ann = await WireClient.connect(server.url, "ann", token=token)
        try:
            return await ann.request(type="timeout", room=code)
        finally:
            await ann.close()


async def test_an_absence_kept_at_one_stop_is_not_counted_again_at_the_next(
    tmp_path: Path,
) -> None:
    """Bob was away 50 s at a first stop, came back, and both players were here at the second:
    after the second restart his absence starts at the restart, it is not the first stop's
    50 s again."""
    code, ann_token, bob_token = await _away_at_the_stop(tmp_path, 50)
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        both = [await WireClient.connect(server.url, n, token=t) for n, t in (
            ("ann", ann_token), ("bob", bob_token))]  # fmt: skip
        for wire in both:
            await wire.expect("room", room=code)
    for wire in both:  # both were here when the server stopped
        assert (await wire.wait_closed()) == 1001
        await wire.close()
    early = await _claim_after_restart(tmp_path, code, ann_token)
    assert (early["type"], early["code"]) == ("error", "not_allowed"), early
    assert "away 0 s" in early["message"], early


@pytest.mark.slow
async def test_an_absence_kept_at_a_stop_is_not_counted_again_after_a_crash(
    tmp_path: Path,
) -> None:
    """Bob was away 50 s at a clean stop and came back; the server then crashed (SIGKILL) with
    bob here. After that restart his absence starts at the restart: the first stop's 50 s are
    not applied again."""
    code, ann_token, bob_token = await _away_at_the_stop(tmp_path, 50)
    process = await ServerProcess.start(str(tmp_path / "hall.db"), "--absence-grace", "60")
    try:
        bob = await WireClient.connect(process.url, "bob", token=bob_token)
        await bob.expect("room", room=code)
        await process.kill()
        await bob.wait_closed()
    finally:
        await process.kill()
    early = await _claim_after_restart(tmp_path, code, ann_token)
    assert (early["type"], early["code"]) == ("error", "not_allowed"), early
    assert "away 0 s" in early["message"], early


async def test_an_absence_that_began_with_the_stop_gets_the_whole_grace(tmp_path: Path) -> None:
    """Bob was connected when the server stopped: after the restart his absence starts again
    (he could not connect while the server was down), so ann's claim waits the whole grace."""
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        ann, bob, code = await seated_pair(server, None)
        await play(ann, bob, code, ["0,0"])
        token = ann.welcome["token"]
        await ann.close()
        await bob.close()
    async with serving(tmp_path, config=ServerConfig(absence_grace_s=60)) as server:
        ann = await WireClient.connect(server.url, "ann", token=token)
        try:
            early = await ann.request(type="timeout", room=code)
        finally:
            await ann.close()
    assert (early["type"], early["code"]) == ("error", "not_allowed"), early
    assert "away 0 s" in early["message"], early


async def test_no_timer_is_left_armed_once_the_server_has_stopped(tmp_path: Path) -> None:
    """A room nobody joined closes 30 minutes after its creator leaves: the stop itself made
    the creator leave, and armed that timer again on a server whose storage is closed (when it
    fired, its write failed on the loop with a traceback)."""
    async with serving(tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann")
        await ann.request(type="create", game="hexgomoku")
        stopped = server
    await ann.close()
    assert stopped._timer is None or stopped._timer.cancelled()


async def test_a_move_accepted_as_the_server_stops_is_told_before_the_connection_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann's move is being made durable when the server is told to stop: it is on the disk after
    the stop, and ann gets its reply and bob the move before their connections close (1001,
    with a reason), rather than a close that leaves both not knowing it was accepted."""
    gate = Gate(os.fdatasync)
    monkeypatch.setattr(os, "fdatasync", gate.fdatasync)
    try:
        async with serving(tmp_path, durable=True, sync_on_thread=True) as server:
            ann, bob, code = await seated_pair(server, {"initial": 300})
            gate.hold()
            await ann.send(type="move", room=code, ply=0, move="0,0", id="m")
            await gate.started_at_least(gate.started + 1)  # committed, its sync held
            stopping = asyncio.ensure_future(server.stop())
            for _ in range(20):
                await asyncio.sleep(0)
            gate.open()
            await stopping
    finally:
        gate.open()
    await ann.wait_closed()
    await bob.wait_closed()
    assert [m["type"] for m in ann.inbox if m.get("re") == "m"] == ["moved"], ann.inbox
    assert [m["move"] for m in bob.inbox if m["type"] == "moved"] == ["0,0"], bob.inbox
    assert (ann.closed_code, bob.closed_code) == (1001, 1001)
    assert ann.ws.close_reason == bob.ws.close_reason == "the server is stopping"
    with contextlib.closing(sqlite3.connect(tmp_path / "hall.db")) as db:
        assert db.execute("SELECT move FROM moves").fetchall() == [("0,0",)]


async def test_the_running_turn_is_kept_before_a_silent_client_holds_the_stop_up(
    tmp_path: Path,
) -> None:
    """A connection that never answers the close keeps the stop waiting (up to 10 s), long
    enough for an init system to kill the server: the running turn's time is on the disk before
    the connections are closed, not only after the last one has gone."""
    db = tmp_path / "hall.db"

    def kept() -> bool:
        with contextlib.closing(sqlite3.connect(db)) as database:
            rows = database.execute("SELECT meta FROM games").fetchall()
        return any("paused" in json.loads(meta) for (meta,) in rows)

    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server, {"initial": 300})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        _, silent = await raw_websocket(server.port)
        stopping = asyncio.ensure_future(server.stop())
        try:
            await until(lambda: stopping.done() or kept())
            assert not stopping.done(), "the turn was kept only once every connection had closed"
        finally:
            silent.close()
            await stopping
        await ann.close()
        await bob.close()


@pytest.mark.slow
async def test_sigterm_keeps_the_running_turn_and_ends_cleanly(tmp_path: Path) -> None:
    """``boardhall-server`` stopped with SIGTERM: it exits 0 with no traceback, its clients are
    closed with 1001 and a reason, every accepted move is on the disk, and the running turn's
    time so far is kept with the game for the restart."""
    db = tmp_path / "hall.db"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--db", str(db),
        "--log-level", "info", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    try:
        async with asyncio.timeout(30):
            line = ""
            while "listening on " not in line:
                line = (await process.stdout.readline()).decode()
                assert line, "the server exited before listening"
        url = line.split("listening on ", 1)[1].split()[0]
        ann = await WireClient.connect(url, "ann")
        bob = await WireClient.connect(url, "bob")
        code = (
            await ann.request(
                type="create", game="chess", color="first", clock={"initial": 60, "increment": 1}
            )
        )["room"]
        await bob.request(type="join", room=code)
        await play(ann, bob, code, ["e4", "e5", "Nf3"])
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            assert await process.wait() == 0
        errors = (await process.stderr.read()).decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert "Traceback" not in errors and '"level": "error"' not in errors, errors
    for wire in (ann, bob):
        assert (await wire.wait_closed()) == 1001 and wire.ws.close_reason
    with contextlib.closing(sqlite3.connect(db)) as database:
        moves = database.execute("SELECT move FROM moves ORDER BY ply").fetchall()
        (meta,) = database.execute("SELECT meta FROM games WHERE room = ?", (code,)).fetchone()
    assert moves == [("e2e4",), ("e7e5",), ("g1f3",)]
    paused = json.loads(meta)["paused"]
    assert paused["ply"] == 3 and 0 <= paused["turn_ms"] < 30_000, paused
