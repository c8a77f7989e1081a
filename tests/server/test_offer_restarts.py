"""Offers across a server stop and restart, as players meet them.

An offer pending when the server stops (cleanly, or killed) is still pending after the restart:
both players' snapshots show it and the opponent can answer it. An offer a move cancelled stays
cancelled. A refused player's wait goes on with what was left of it at a clean stop. Every test
runs a real server on a loopback port 0 with a SQLite file in a temporary directory and real
WebSocket clients; time is injected by moving the room's times back, never by sleeping.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from server.testing import ServerProcess, WireClient
from tests.server.tables import close_all, play, seated_pair, serving


async def _back(url: str, tokens: tuple[str, str], code: str) -> tuple[WireClient, WireClient]:
    """Both players resume with their tokens; their resumed snapshots of ``code`` are taken."""
    ann = await WireClient.connect(url, "ann", token=tokens[0])
    bob = await WireClient.connect(url, "bob", token=tokens[1])
    assert ann.welcome["resumed"] == [code] and bob.welcome["resumed"] == [code]
    return ann, bob


async def _killed_after(
    tmp_path: Path,
    moves: list[str],
    then: Callable[[WireClient, WireClient, str], Awaitable[None]],
) -> tuple[str, tuple[str, str]]:
    """A server process on tmp_path's database: ann and bob play ``moves``, ``then`` runs, and
    the process is killed (SIGKILL). Returns the room code and both tokens."""
    process = await ServerProcess.start(str(tmp_path / "hall.db"))
    try:
        ann, bob, code = await seated_pair(process.url)
        await play(ann, bob, code, moves)
        await then(ann, bob, code)
        tokens = ann.welcome["token"], bob.welcome["token"]
        await process.kill()
        await close_all(ann, bob)
    finally:
        await process.kill()
    return code, tokens


async def test_a_draw_offer_pending_at_a_clean_stop_can_be_accepted_after_it(
    tmp_path: Path,
) -> None:
    """Ann offers a draw, the server stops (SIGTERM) and starts again: both see the offer in
    their snapshots, and bob's acceptance draws the game by agreement."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        assert (await ann.request(type="offer", room=code, kind="draw"))["type"] == "ok"
        assert (await bob.expect("offer", room=code))["kind"] == "draw"
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            for wire in (ann, bob):
                snap = await wire.expect("room", room=code)
                assert snap["offers"] == [{"kind": "draw", "by": "first"}], snap
            reply = await bob.request(type="answer", room=code, kind="draw", accept=True)
            assert reply["type"] == "ok", reply
            assert (await ann.expect("answer", room=code))["accept"] is True
            over = await ann.expect("over", room=code)
            assert (over["result"], over["reason"]) == ("draw", "agreement")
        finally:
            await close_all(ann, bob)


@pytest.mark.slow
async def test_an_undo_offer_pending_at_a_crash_can_be_accepted_after_it(tmp_path: Path) -> None:
    """Bob offers to take back his move and the server is killed (SIGKILL) once he has the
    ``ok``: after the restart ann sees the offer and accepting it takes the move back."""
    async def offer_undo(ann: WireClient, bob: WireClient, code: str) -> None:
        assert (await bob.request(type="offer", room=code, kind="undo"))["type"] == "ok"

    code, tokens = await _killed_after(tmp_path, ["0,0", "0,1"], offer_undo)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            snap = await ann.expect("room", room=code)
            assert snap["offers"] == [{"kind": "undo", "by": "second"}], snap
            reply = await ann.request(type="answer", room=code, kind="undo", accept=True)
            assert reply["type"] == "ok", reply
            back = await bob.expect("room", room=code, moves=["0,0"])
            assert back["turn"] == "second" and back["offers"] == []
        finally:
            await close_all(ann, bob)


@pytest.mark.slow
async def test_an_offer_a_move_cancelled_stays_cancelled_after_a_crash(tmp_path: Path) -> None:
    """Ann offers a draw, bob moves instead (which cancels it), the server is killed: after
    the restart there is no offer, and answering it says so."""
    async def offer_then_move(ann: WireClient, bob: WireClient, code: str) -> None:
        assert (await ann.request(type="offer", room=code, kind="draw"))["type"] == "ok"
        assert (await bob.request(type="move", room=code, ply=1, move="0,1"))["type"] == "moved"

    code, tokens = await _killed_after(tmp_path, ["0,0"], offer_then_move)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            assert (await bob.expect("room", room=code))["offers"] == []
            refused = await bob.request(type="answer", room=code, kind="draw", accept=True)
            assert refused["code"] == "not_allowed", refused
        finally:
            await close_all(ann, bob)


async def test_a_swap_offer_survives_a_restart_and_swaps_the_seats(tmp_path: Path) -> None:
    """Bob offers to swap colours before the first move; after a clean restart ann accepts and
    the seats are exchanged."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        assert (await bob.request(type="offer", room=code, kind="swap"))["type"] == "ok"
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            snap = await ann.expect("room", room=code)
            assert snap["offers"] == [{"kind": "swap", "by": "second"}], snap
            assert (await ann.request(type="answer", room=code, kind="swap", accept=True))[
                "type"
            ] == "ok"
            assert (await ann.expect("room", room=code, offers=[]))["you"] == "second"
            assert (await bob.expect("room", room=code, offers=[]))["you"] == "first"
        finally:
            await close_all(ann, bob)


def _wait_in(reply: dict[str, Any]) -> int:
    assert reply["code"] == "not_allowed", reply
    found = re.search(r"wait (\d+) s", reply["message"])
    assert found is not None, reply
    return int(found.group(1))


async def test_a_refused_players_wait_goes_on_after_a_clean_restart(tmp_path: Path) -> None:
    """Ann's draw offer is refused twice (she then waits 40 s) and 10 s pass before the server
    stops: after the restart she waits what was left (30 s, less only the time the servers were
    up since), not 40 s again. The wait is long enough that no machine, however busy, lets it
    run out between the stop and her next offer."""
    loop = asyncio.get_running_loop()
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        for wait in (10, 40):  # 10 s x n^2 after the n-th refusal
            assert (await ann.request(type="offer", room=code, kind="draw"))["type"] == "ok"
            began = loop.time()  # the wait begins after this (the server runs on this loop)
            await bob.request(type="answer", room=code, kind="draw", accept=False)
            got = _wait_in(await ann.request(type="offer", room=code, kind="draw"))
            assert wait - (loop.time() - began) <= got <= wait, (got, wait)
            server.hall.rooms[code].offer_after["first"] -= 10  # 10 s have passed
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            left = _wait_in(await ann.request(type="offer", room=code, kind="draw"))
            passed = loop.time() - began  # more than the wait may have lost since it began
            assert 30 - passed <= left <= 30, (left, passed)
            assert _wait_in(await ann.request(type="offer", room=code, kind="draw")) <= left
        finally:
            await close_all(ann, bob)


@pytest.mark.slow
async def test_a_turn_kept_at_a_stop_survives_an_offer_and_a_later_crash(tmp_path: Path) -> None:
    """Bob used 20 s of his turn before a clean stop. On the restarted server ann offers a draw
    and bob refuses it (each stores the game again); then that server is killed. After the
    next restart bob still has the 20 s less, not his whole turn again."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url, {"initial": 300, "per_move": 60})
        await play(ann, bob, code, ["0,0", "0,1", "1,0"])
        room = server.hall.rooms[code]
        room.clock.turn_start -= 20
        began = server.loop.time()
        before = room.view(None, began).clocks
        assert before is not None and before.move is not None
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    process = await ServerProcess.start(str(tmp_path / "hall.db"))
    try:
        ann, bob = await _back(process.url, tokens, code)
        await ann.expect("room", room=code)
        assert (await ann.request(type="offer", room=code, kind="draw"))["type"] == "ok"
        answer = await bob.request(type="answer", room=code, kind="draw", accept=False)
        assert answer["type"] == "ok", answer
        await process.kill()
        await close_all(ann, bob)
    finally:
        await process.kill()
    async with serving(tmp_path) as server:
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        try:
            after = (await bob.expect("room", room=code))["clocks"]
            passed_ms = (server.loop.time() - began) * 1000
        finally:
            await bob.close()
    assert after["running"] == "second"
    # charged since ``before``: at most the time that passed (the servers' times are kept to
    # the millisecond), however long the stop, the child's start and the crash took
    assert before.move - passed_ms - 5 < after["move"] <= before.move, (before, after, passed_ms)


async def test_stored_offers_that_do_not_fit_the_game_are_dropped_at_restore(
    tmp_path: Path,
) -> None:
    """Offers in a stored game that do not read, or no longer fit it (a swap after a move, an
    undo by a side with no move, a rematch of a game on), are dropped: the game still resumes,
    with only the offer that fits."""
    async with serving(tmp_path) as server:
        ann, bob, code = await seated_pair(server.url)
        await play(ann, bob, code, ["0,0"])
        game_id = server.hall.rooms[code].game_id
        tokens = ann.welcome["token"], bob.welcome["token"]
        await close_all(ann, bob)
    db = sqlite3.connect(tmp_path / "hall.db")
    try:
        (text,) = db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
        meta = json.loads(text)
        meta["offers"] = [
            {"kind": "swap", "by": "first", "ply": 1},
            {"kind": "undo", "by": "second", "ply": 1},
            {"kind": "rematch", "by": "first", "ply": 1},
            {"kind": "draw", "by": "nobody", "ply": 1},
            "draw",
            {"kind": "draw", "by": "second", "ply": "1"},
            {"kind": "undo", "by": "first", "ply": 1},
        ]
        db.execute("UPDATE games SET meta = ? WHERE id = ?", (json.dumps(meta), game_id))
        db.commit()
    finally:
        db.close()
    async with serving(tmp_path) as server:
        ann, bob = await _back(server.url, tokens, code)
        try:
            snap = await bob.expect("room", room=code)
            assert snap["offers"] == [{"kind": "undo", "by": "first"}], snap
        finally:
            await close_all(ann, bob)
