"""The headless bot player on a real server: launched by the server, seeking, offers, claims."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from engines import get
from server.bot_launcher import bot_command, launch_bot
from server.testing import WireClient, running_server

GUARD = 60.0
"""Upper bound on any wait (a guard against hangs, not a timing assumption)."""

STOP_WINS_FOR_SECOND = (
    "second;101;"
    "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,6 1,8;"
    "14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
)
"""Second has all ten pieces on its best points (285), first 284: stopping wins for second."""


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


def test_bot_import_has_no_pygame() -> None:
    """``client.bot`` (and the ``boardhall bot`` plugin) load without pygame."""
    code = (
        "import sys, client.bot, client.bot_cli, server.bot_launcher; "
        "assert 'pygame' not in sys.modules, 'pygame imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_bot_command_line() -> None:
    """The launcher's command runs ``python -m client.bot`` for one room; bad levels refused."""
    command = bot_command("ws://127.0.0.1:1/", "ab12", "draughts", "russian", 3)
    assert command[:3] == [sys.executable, "-m", "client.bot"]
    assert command[3:] == [
        "ws://127.0.0.1:1/", "--room", "ab12", "--game", "draughts", "--variant", "russian",
        "--level", "3",
    ]
    with pytest.raises(ValueError, match="1-8"):
        bot_command("ws://127.0.0.1:1/", "ab12", "chess", None, 9)


def test_bad_arguments_are_refused() -> None:
    """A bad level or game is refused with a message naming it and exit status 2."""
    for args, word in ((["--level", "0"], "level"), (["--game", "go"], "go")):
        argv = ["127.0.0.1:1", "--game", "chess", *args]
        done = subprocess.run(
            [sys.executable, "-m", "client.bot", *argv], capture_output=True, text=True
        )
        assert done.returncode == 2
        assert word in done.stderr


async def test_server_launches_a_bot_that_plays_to_the_end() -> None:
    """``create`` with ``opponent: bot:1``: the server starts the bot, which wins a five."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        try:
            room = await ann.request(
                type="create", game="hexgomoku", color="first", opponent="bot:1"
            )
            assert room["type"] == "room", room
            while room["status"] != "playing":
                room = await ann.expect("room", timeout=GUARD)
            assert room["seats"]["second"]["bot"] is True
            over = await asyncio.wait_for(play_out(ann, room), GUARD)
            assert over["result"] == "second"
            assert over["reason"] == "five"
        finally:
            await ann.close()


async def test_launched_bot_declines_undo_and_stops_to_win_number_chess() -> None:
    """A bot started by :func:`launch_bot` declines an undo, then calls stop when it wins."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        process = None
        try:
            room = await ann.request(type="create", game="hexgomoku", color="first")
            process = await launch_bot(server.url, room["room"], "hexgomoku", None, 2)
            room = await ann.expect("room", timeout=GUARD, status="playing")
            await ann.request(type="move", room=room["room"], ply=0, move="0,0")
            await ann.expect("moved", timeout=GUARD, ply=1)
            assert (await ann.request(type="offer", room=room["room"], kind="undo"))["type"] == "ok"
            answer = await ann.expect("answer", timeout=GUARD, kind="undo")
            assert answer["accept"] is False
            over = await ann.request(type="resign", room=room["room"])
            assert over["type"] == "over" and over["result"] == "second"
            await ann.close()
            assert await asyncio.wait_for(process.wait(), GUARD) == 0  # opponent gone: it leaves
        finally:
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
            await ann.close()

        bob = await WireClient.connect(server.url, "bob")
        try:
            room = await bob.request(
                type="create", game="shuqi", color="first", opponent="bot:1",
                position=STOP_WINS_FOR_SECOND,
            )
            over = await bob.expect("over", timeout=GUARD)
            assert over["reason"] == "stop"
            assert over["result"] == "second"
            assert over["scores"] == {"first": 284, "second": 285}
        finally:
            await bob.close()


async def test_seeking_bot_plays_game_after_game() -> None:
    """``python -m client.bot URL --games 2`` seeks, plays two games and exits cleanly."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.bot", server.url, "--game", "hexgomoku",
            "--level", "1", "--games", "2", "--seed", "5",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        cid = await WireClient.connect(server.url, "cid")
        try:
            results = []
            for _ in range(2):
                reply = await cid.request(type="join", game="hexgomoku")
                room = reply if reply["type"] == "room" else await cid.expect("room", GUARD)
                while room["status"] != "playing":
                    room = await cid.expect("room", timeout=GUARD)
                over = await asyncio.wait_for(play_out(cid, room, picker="last"), GUARD)
                results.append(over["result"])
            out, err = await asyncio.wait_for(process.communicate(), GUARD)
            assert process.returncode == 0, err.decode()
            assert "games 2" in out.decode()
            assert len(results) == 2
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            await cid.close()


def test_bot_learns_a_custom_variant_from_the_room() -> None:
    """A room of an unknown custom variant carries ``variant_info``; the bot registers it."""
    from client.bot import BotClient, BotOptions

    engine = get("custom")
    info = dict(engine.variant_info("guards") or {})
    info["id"] = "guards-bot-test"
    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "custom", 1))
    assert "guards-bot-test" not in {v.id for v in engine.variants()}
    bot._learn_variant({"variant": "guards-bot-test", "variant_info": info})
    state = engine.start("guards-bot-test")
    assert engine.legal_moves(state) == engine.legal_moves(engine.start("guards"))
