"""How long a bot process the server started lives, on a real server with real bot processes.

It waited up to 600 s after its game for a rematch, even when its human had left the finished
room or the room had closed (32 finished chess bots held about 7 GB), and the server kept every
bot process object it ever started. Now the server lets a bot go once no room needs it, the
bot's process ends, and the server forgets it."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from server.config import ServerConfig
from server.testing import WireClient, running_server
from tests.client.bot_tools import GUARD


async def _until(condition: Any, what: str) -> None:
    """Wait until ``what`` holds of the server's bot list (polled, bounded: the server drops an
    ended bot in its own task, after the same process wait as the test's, with no event)."""
    async with asyncio.timeout(GUARD):
        while not condition():
            await asyncio.sleep(0.02)
    assert condition(), what


async def _game_against_a_bot(server: Any, ann: WireClient) -> tuple[str, Any]:
    """Ann (first) plays one stone against a level-1 server bot, which answers: the room code
    and the bot's process."""
    room = await ann.request(type="create", game="hexgomoku", color="first", opponent="bot:1")
    code = room["room"]
    await ann.request(type="move", room=code, ply=0, move="0,0")
    await ann.expect("moved", timeout=GUARD, room=code, ply=1)
    (process,) = [p for p in server._bots if p.returncode is None][-1:]
    return code, process


async def test_a_bot_ends_when_its_human_leaves_the_finished_room() -> None:
    """A spectator keeps the finished room open; the human leaving it is enough. The ended
    process is no longer kept by the server."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        carol = await WireClient.connect(server.url, "carol")
        try:
            code, process = await _game_against_a_bot(server, ann)
            await carol.request(type="join", room=code, role="spectator")
            await ann.request(type="resign", room=code)
            assert (await ann.request(type="leave", room=code))["type"] == "ok"
            assert await asyncio.wait_for(process.wait(), GUARD) == 0
            await _until(lambda: process not in server._bots, "the ended bot is forgotten")
        finally:
            await ann.close()
            await carol.close()


async def test_a_bot_ends_when_its_human_does_not_come_back_to_the_finished_room() -> None:
    """The human drops after the end and is not back within the room's keep time (here 0.3 s,
    a server flag): the room closes and the bot's process ends."""
    config = dataclasses.replace(ServerConfig(), finished_room_return_s=0.3)
    async with running_server(host="127.0.0.1", port=0, db=":memory:", config=config) as server:
        ann = await WireClient.connect(server.url, "ann")
        code, process = await _game_against_a_bot(server, ann)
        await ann.request(type="resign", room=code)
        await ann.close()
        assert await asyncio.wait_for(process.wait(), GUARD) == 0
        await _until(lambda: process not in server._bots, "the ended bot is forgotten")


async def test_a_human_who_drops_after_the_end_and_comes_back_gets_a_rematch() -> None:
    """The bot does not leave the moment its human's connection drops (it did: a blip after
    the game lost the rematch); the same bot process plays the rematch, and ends once the
    human leaves both rooms."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        token = ann.welcome["token"]
        code, process = await _game_against_a_bot(server, ann)
        await ann.request(type="resign", room=code)
        await ann.close()
        ann = await WireClient.connect(server.url, "ann", token=token)
        try:
            assert (await ann.request(type="join", room=code))["status"] == "over"
            assert (await ann.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
            new = await ann.expect("room", timeout=GUARD, status="playing")
            assert new["room"] != code and process.returncode is None
            me = new["you"]
            if me == "first":
                await ann.request(type="move", room=new["room"], ply=0, move="0,0")
            moved = await ann.expect("moved", timeout=GUARD, room=new["room"])
            assert moved["by"] != me
            assert process.returncode is None and len(server._bots) == 1
            await ann.request(type="resign", room=new["room"])
            await ann.request(type="leave", room=code)
            assert process.returncode is None  # the rematch's room is still its human's
            await ann.request(type="leave", room=new["room"])
            assert await asyncio.wait_for(process.wait(), GUARD) == 0
        finally:
            await ann.close()


async def test_the_server_stop_ends_every_running_bot_and_keeps_no_ended_one() -> None:
    """Two games against bots: the first's bot ends (its human left) and is dropped; the
    server's stop ends the other, still playing."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        code, gone = await _game_against_a_bot(server, ann)
        _, playing = await _game_against_a_bot(server, bob)
        await ann.request(type="resign", room=code)
        await ann.request(type="leave", room=code)
        await asyncio.wait_for(gone.wait(), GUARD)
        await _until(lambda: server._bots == [playing], "only the running bot is kept")
        await ann.close()
    assert playing.returncode is not None
    await bob.close()
