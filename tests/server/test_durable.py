"""Durable games: a real server process killed with SIGKILL and restarted on the same database."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from bench import harness
from server.testing import ServerProcess, WireClient
from tests.server.http_tools import http_get

DOWNTIME_S = 120.0
"""How long the killed server stays down: the restarted one's wall clock is set this far ahead
(the time is not waited for; less than second's 300 s, so that a charge of it would show)."""


@pytest.mark.slow
async def test_sigkill_and_restart_resumes_every_unfinished_game(tmp_path: Path) -> None:
    """Every accepted move survives SIGKILL; seats resume by token; downtime is not charged."""
    db = str(tmp_path / "hall.db")
    proc = await ServerProcess.start(db)
    try:
        ann = await WireClient.connect(proc.url, "ann")
        bob = await WireClient.connect(proc.url, "bob")
        room = await ann.request(
            type="create", game="hexgomoku", color="first", clock={"initial": 300, "increment": 2}
        )
        code = room["room"]
        await bob.request(type="join", room=code)
        moves = ["0,0", "0,1", "1,0", "1,1", "2,0"]
        loop = asyncio.get_running_loop()
        for ply, move in enumerate(moves):
            mover = ann if ply % 2 == 0 else bob
            began = loop.time()  # the last one: second's turn begins after it
            reply = await mover.request(type="move", room=code, ply=ply, move=move)
            assert reply["type"] == "moved"
        clocks_before = reply["clocks"]
        untimed = await bob.request(type="create", game="chess", color="second")
        await ann.request(type="join", room=untimed["room"])
        assert (await ann.request(type="move", room=untimed["room"], ply=0, move="e4"))[
            "move"
        ] == "e2e4"
        done = await ann.request(type="create", game="hexgomoku")
        await bob.request(type="join", room=done["room"])
        over = await ann.request(type="resign", room=done["room"])
        assert over["type"] == "over"
        tokens = (ann.welcome["token"], bob.welcome["token"])
        await proc.kill()
        up = loop.time() - began  # what the killed server may charge of second's turn
        await asyncio.sleep(0)  # the clients see the connection drop
    finally:
        await proc.kill()

    restarted = loop.time()
    proc = await ServerProcess.start(db, clock_ahead=DOWNTIME_S)
    try:
        ann2 = await WireClient.connect(proc.url, "ann", token=tokens[0])
        assert sorted(ann2.welcome["resumed"]) == sorted([code, untimed["room"]])
        snap = await ann2.expect("room", room=code)
        up += loop.time() - restarted  # and the restarted one, up to this snapshot
        assert snap["moves"] == moves and snap["status"] == "playing"
        assert snap["you"] == "first" and snap["seats"]["second"]["connected"] is False
        # second is to move; its clock restarted on restart, the downtime not charged: at most
        # the time the servers were up is (the servers keep ms), however long that took, and
        # the downtime would show on top of it
        charged = clocks_before["second"] - snap["clocks"]["second"]
        assert 0 <= charged <= up * 1000 + 5, (charged, up)
        assert snap["clocks"]["first"] == clocks_before["first"]
        bob2 = await WireClient.connect(proc.url, "bob", token=tokens[1])
        assert (await ann2.expect("presence", room=code))["connected"] is True
        reply = await bob2.request(type="move", room=code, ply=5, move="2,1")
        assert reply["type"] == "moved"
        chess = await bob2.expect("room", room=untimed["room"])
        assert chess["moves"] == ["e2e4"] and chess["you"] == "second"
        status, body = await http_get(proc.url, f"/games/{done['game_id']}?format=json")
        assert status == 200
        record = json.loads(body)
        assert record["result"] == over["result"] and record["reason"] == "resign"
        assert record["players"]["first"]["name"] in ("ann", "bob")
        status, body = await http_get(proc.url, f"/games/{snap['game_id']}?format=json")
        assert [m["move"] for m in json.loads(body)["moves"]] == [*moves, "2,1"]
        await ann2.close()
        await bob2.close()
    finally:
        await proc.kill()


@pytest.mark.slow
async def test_bot_game_survives_a_restart(tmp_path: Path) -> None:
    """After SIGKILL and restart the server starts the bot again and it takes back its seat."""
    db = str(tmp_path / "hall.db")
    proc = await ServerProcess.start(db)
    try:
        ann = await WireClient.connect(proc.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first", opponent="bot:1")
        code = room["room"]
        assert room["status"] == "playing" and room["seats"]["second"]["bot"]
        await ann.request(type="move", room=code, ply=0, move="0,0")
        bot_move = (await ann.expect("moved", ply=1, timeout=30))["move"]
        token = ann.welcome["token"]
    finally:
        await proc.kill()
    proc = await ServerProcess.start(db)
    try:
        ann2 = await WireClient.connect(proc.url, "ann", token=token)
        assert ann2.welcome["resumed"] == [code]
        seen = await ann2.expect("room", room=code)
        assert seen["seats"]["second"]["connected"] is True  # being started again: no flapping
        free = next(cell for cell in ("1,0", "2,0") if cell != bot_move)  # the bot plays at random
        answer = await ann2.request(type="move", room=code, ply=2, move=free)
        assert answer["type"] == "moved", answer
        reply = await ann2.expect("moved", ply=3, timeout=30)
        assert reply["by"] == "second"
        assert [p for p in ann2.take_all("presence") if p.get("seat")] == []  # no "is back"
        await ann2.close()
    finally:
        await proc.kill()


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its parent is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _ended(pid: int) -> None:
    """Wait until ``pid`` ends: its pidfd becomes readable then (Linux; no polling)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # ended already
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ended
    finally:
        loop.remove_reader(fd)
        os.close(fd)


@pytest.mark.slow
async def test_the_log_sync_helper_ends_with_a_killed_server(tmp_path: Path) -> None:
    """The server's one child, its log-sync helper, is not left behind by a SIGKILL."""
    proc = await ServerProcess.start(str(tmp_path / "hall.db"))
    try:
        (helper,) = harness.descendants(proc.process.pid)
        with open(f"/proc/{helper}/cmdline") as f:
            assert "synchelper.py" in f.read()
        await proc.kill()
        async with asyncio.timeout(10):
            await _ended(helper)
        assert not _running(helper)
    finally:
        await proc.kill()
