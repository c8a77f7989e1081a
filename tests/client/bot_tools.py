"""Helpers for the bot tests: bot processes as a user runs them, and a scripted opponent that
plays a game out over the wire (shared by test_bot.py and test_bot_uci.py)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from engines import get
from server.testing import WireClient

GUARD = 60.0
"""Upper bound on any wait (a guard against hangs, not a timing assumption)."""


async def play_out(wire: WireClient, room: dict[str, Any], picker: str = "first") -> dict[str, Any]:
    """Play legal moves for the scripted side until ``over``; return the ``over`` message.

    Every move the other side makes is checked against the engine before it is applied.
    """
    engine = get(room["game"])
    state = engine.start(room["variant"], position=room["start"], options=room["options"] or None)
    for move in room["moves"]:
        state = engine.play(state, move)
    me = room["you"]
    ply = len(room["moves"])
    while True:
        if state.turn == me and engine.outcome(state) is None:
            moves = engine.legal_moves(state)
            move = moves[0] if picker == "first" else moves[-1]
            reply = await wire.request(type="move", room=room["room"], ply=ply, move=move)
            if reply["type"] == "over":
                return reply
            assert reply["type"] == "moved", reply
            state = engine.play(state, move)
            ply += 1
            continue
        message = await wire.expect(None, timeout=GUARD)
        if message["type"] == "over":
            return message
        if message["type"] == "moved":
            assert message["ply"] == ply
            assert message["move"] in engine.legal_moves(state), message
            state = engine.play(state, message["move"])
            ply += 1



async def until_seek_listed(wire: WireClient, game: str) -> None:
    """Return once ``game``'s lobby lists an open seek. ``wire`` watches the lobby meanwhile
    (the server pushes each change: no polling) and stops watching before this returns."""
    rooms = (await wire.request(type="list", game=game, watch=True))["rooms"]
    try:
        async with asyncio.timeout(GUARD):
            while not any(r.get("seek") for r in rooms):
                rooms = (await wire.expect("rooms"))["rooms"]
    finally:
        await wire.request(type="list", game=game, watch=False)
        wire.take_all("rooms")


async def start_bot(url: str, *args: str, **env: str) -> asyncio.subprocess.Process:
    """``python -m client.bot URL ARGS`` as a user runs it (SIGINT not ignored)."""
    import os
    import signal

    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client.bot", url, *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


async def reap(process: asyncio.subprocess.Process) -> None:
    """Kill the bot if it still runs (its test failed before the bot exited)."""
    if process.returncode is None:
        process.kill()
        await process.wait()


async def finish(process: asyncio.subprocess.Process, timeout: float = GUARD) -> tuple[str, str]:
    """Wait for the bot to exit (killing it if it hangs); returns its stdout and stderr."""
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        raise AssertionError(f"the bot did not exit: {err.decode()[-2000:]}") from None
    return out.decode(), err.decode()
