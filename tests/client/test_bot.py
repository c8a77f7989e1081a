"""The headless bot player on a real server: launched by the server, seeking, offers, claims."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engines import get
from server.bot_launcher import CODE_ROOT, bot_command, bot_environment, launch_bot
from server.testing import WireClient, running_server
from tests.client.bot_tools import GUARD, finish, play_out, reap, start_bot, until_seek_listed

STOP_WINS_FOR_SECOND = (
    "second;101;"
    "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,6 1,8;"
    "14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
)
"""Second has all ten pieces on its best points (285), first 284: stopping wins for second."""


def test_bot_import_has_no_pygame() -> None:
    """``client.bot`` (and the ``boardhall bot`` plugin) load without pygame."""
    code = (
        "import sys, client.bot, client.bot_cli, server.bot_launcher; "
        "assert 'pygame' not in sys.modules, 'pygame imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_bot_command_line() -> None:
    """The launcher's command runs ``python -P -m client.bot`` for one room; bad levels
    refused."""
    command = bot_command("ws://127.0.0.1:1/", "ab12", "draughts", "russian", 3)
    assert command[:4] == [sys.executable, "-P", "-m", "client.bot"]
    assert command[4:] == [
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
    """``python -m client.bot URL --games 2 -v`` seeks, plays two games and exits cleanly. It
    says at once that it is connected and what it seeks (before, a user saw nothing until a
    game ended), and ``-v`` names each game's id (what ``boardhall replay`` and ``/games/ID``
    take) and its outcome from the bot's side."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client.bot", server.url, "--game", "hexgomoku",
            "--level", "1", "--games", "2", "--seed", "5", "--clock", "untimed", "-v",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        assert process.stdout is not None
        first = await asyncio.wait_for(process.stdout.readline(), GUARD)
        url = server.url.rstrip("/") + "/"
        assert first.decode() == (f"boardhall bot: connected to {url} as Bot L1: seeking "
                                  "hexgomoku, untimed (Ctrl+C stops)\n")
        cid = await WireClient.connect(server.url, "cid")
        try:
            results = []
            overs: list[dict[str, Any]] = []
            for _ in range(2):
                reply = await cid.request(type="join", game="hexgomoku")
                room = reply if reply["type"] == "room" else await cid.expect("room", GUARD)
                while room["status"] != "playing":
                    room = await cid.expect("room", timeout=GUARD)
                over = await asyncio.wait_for(play_out(cid, room, picker="last"), GUARD)
                results.append(over["result"])
                overs.append({**over, "seat": room["you"]})
            out, err = await asyncio.wait_for(process.communicate(), GUARD)
            assert process.returncode == 0, err.decode()
            assert "games 2" in out.decode()
            assert len(results) == 2
            bot_side = {"first": "second", "second": "first"}
            for over in overs:
                outcome = ("drawn" if over["result"] == "draw" else
                           "won" if over["result"] == bot_side[over["seat"]] else "lost")
                assert (f"game {over['game_id']} over in room {over['room']}: {outcome} "
                        f"({over['reason']})") in err.decode()
        finally:
            await reap(process)
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


# ---- what a user of ``boardhall bot`` runs into (audit) ------------------------------------------


async def seat_for_bot(
    url: str, game: str = "hexgomoku", **create: Any
) -> tuple[WireClient, str, str]:
    """Ann creates a room as first; returns her, the room code and a fresh token for the bot."""
    ann = await WireClient.connect(url, "ann")
    room = await ann.request(type="create", game=game, color="first", **create)
    assert room["type"] == "room", room
    ghost = await WireClient.connect(url, "Bot L1", client="bot boardhall")
    token = ghost.welcome["token"]
    # an identity is kept (and its token good after it goes) once it has sat, sought or chatted
    assert (await ghost.request(type="join", game="draughts"))["type"] == "queued"
    assert (await ghost.request(type="leave"))["type"] == "ok"
    await ghost.close()
    return ann, room["room"], token


async def test_bad_room_codes_and_variants_end_with_a_named_reason() -> None:
    """A room that does not exist, is full or is finished, or a variant the server does not
    know: the bot says so and exits 1 (it used to exit 0 with "games 0", or hang seeking)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        try:
            full = (await ann.request(type="create", game="shuqi", color="first"))["room"]
            await bob.request(type="join", room=full)
            done = (await ann.request(type="create", game="shuqi", color="first"))["room"]
            await bob.request(type="join", room=done)
            await ann.request(type="resign", room=done)
            cases = [
                (["--game", "chess", "--room", "zzzzz"], "zzzzz"),
                (["--game", "shuqi", "--room", full], full),
                (["--game", "shuqi", "--room", done], done),
                (["--game", "chess", "--variant", "nope"], "nope"),
            ]
            for args, word in cases:
                process = await start_bot(server.url, "--level", "1", *args)
                out, err = await finish(process, 20)
                assert process.returncode == 1, (args, out, err)
                assert word in err and "Traceback" not in err, err
        finally:
            await ann.close()
            await bob.close()


async def test_a_server_that_is_no_websocket_server_is_refused_by_name() -> None:
    """An HTTP server answering 404 to the upgrade: one line naming it, no traceback."""

    async def http_404(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(http_404, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        process = await start_bot(f"ws://127.0.0.1:{port}/", "--game", "chess")
        _, err = await finish(process, 20)
        assert process.returncode == 1, err
        assert "cannot reach" in err and "404" in err and "Traceback" not in err, err
    finally:
        server.close()


async def test_replaced_by_its_own_token_elsewhere_the_bot_stops() -> None:
    """The same token connecting elsewhere closes the bot with 4001: it stops, saying why,
    and does not fight for the seat by reconnecting."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann, code, token = await seat_for_bot(server.url)
        process = await start_bot(
            server.url, "--room", code, "--game", "hexgomoku", "--level", "1",
            BOARDHALL_BOT_TOKEN=token,
        )
        other = None
        try:
            await ann.expect("room", timeout=GUARD, status="playing")
            other = await WireClient.connect(server.url, "Bot L1", token=token)
            out, err = await finish(process, 20)
            assert process.returncode == 1, (out, err)
            assert "4001" in err and "Traceback" not in err, err
        finally:
            await reap(process)
            await ann.close()
            if other is not None:
                await other.close()


async def test_bot_resumes_its_seat_after_the_server_restarts(tmp_path: Any) -> None:
    """A bot a user started in a room: the server stops and comes back on the same port; the bot
    reconnects with the token of its first welcome, resumes its seat and plays the game out."""
    db = str(tmp_path / "hall.db")
    async with running_server(host="127.0.0.1", port=0, db=db) as server:
        url, port = server.url, server.port
        ann, code, _ = await seat_for_bot(url)
        ann_token = ann.welcome["token"]
        process = await start_bot(
            url, "--room", code, "--game", "hexgomoku", "--level", "1", "--games", "1", "-v"
        )
        room = await ann.expect("room", timeout=GUARD, status="playing")
        await ann.request(type="move", room=code, ply=0, move="0,0")
        await ann.expect("moved", timeout=GUARD, ply=1)
        await ann.close()
    try:
        async with running_server(host="127.0.0.1", port=port, db=db) as server:
            ann = await WireClient.connect(server.url, "ann", token=ann_token)
            assert code in ann.welcome["resumed"]
            room = await ann.request(type="join", room=code)
            while not room["seats"]["second"]["connected"]:
                room = await ann.expect("presence", timeout=GUARD, seat="second")
                room = await ann.request(type="join", room=code)
            over = await asyncio.wait_for(play_out(ann, room), GUARD)
            assert over["result"] in ("first", "second")
            out, err = await finish(process)
            assert process.returncode == 0, err
            assert "games 1" in out and "Traceback" not in err, err
            assert "reconnected" in err
            await ann.close()
    finally:
        await reap(process)


async def test_a_bot_the_server_started_ends_with_its_server() -> None:
    """A bot with its seat's token from the server (BOARDHALL_BOT_TOKEN) does not reconnect: the
    server, started again, starts a bot of its own for the room, and two would fight over the
    seat (4001)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann, code, token = await seat_for_bot(server.url)
        process = await start_bot(
            server.url, "--room", code, "--game", "hexgomoku", "--level", "1", "-v",
            BOARDHALL_BOT_TOKEN=token,
        )
        await ann.expect("room", timeout=GUARD, status="playing")
        await ann.close()
    _, err = await finish(process)
    assert process.returncode == 0, err
    assert "the server that started this bot is gone" in err
    assert "reconnecting" not in err and "Traceback" not in err, err


async def test_bot_claims_an_untimed_game_its_opponent_abandoned() -> None:
    """In an untimed game whose opponent has gone for good, the bot claims the game once the
    server's absence grace has run out (it used to wait for ever)."""
    from client.bot import BotClient, BotOptions
    from server.config import ServerConfig

    config = ServerConfig(absence_grace_s=0.5)
    async with running_server(host="127.0.0.1", port=0, db=":memory:", config=config) as server:
        ann, code, _ = await seat_for_bot(server.url)
        options = BotOptions(
            server.url, "hexgomoku", 1, room=code, games=1, absence_claim_every=0.1
        )
        bot = BotClient(options)
        playing = asyncio.ensure_future(bot.run())
        try:
            await ann.expect("room", timeout=GUARD, status="playing")
            await ann.request(type="move", room=code, ply=0, move="0,0")
            await ann.expect("moved", timeout=GUARD, ply=1)
            await ann.close()
            summary = await asyncio.wait_for(playing, 20)
            assert summary.results == ["second"] and summary.wins == 1
        finally:
            playing.cancel()
            await ann.close()


async def test_a_seeking_bot_in_another_game_declines_a_rematch_and_plays_on() -> None:
    """A seeking bot already playing a new game declines the last opponent's rematch offer and
    goes on with the new game (it used to accept and drop the new game unfinished)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        process = await start_bot(
            server.url, "--game", "hexgomoku", "--level", "1", "--games", "2", "--seed", "3",
            "--clock", "untimed",
        )
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        try:
            reply = await ann.request(type="join", game="hexgomoku")
            room = reply if reply["type"] == "room" else await ann.expect("room", GUARD)
            await asyncio.wait_for(play_out(ann, room), GUARD)
            reply = await bob.request(type="join", game="hexgomoku")
            second = reply if reply["type"] == "room" else await bob.expect("room", GUARD)
            offer = await ann.request(type="offer", room=room["room"], kind="rematch")
            assert offer["type"] == "ok", offer
            answer = await ann.expect("answer", timeout=GUARD, kind="rematch")
            assert answer["accept"] is False
            over = await asyncio.wait_for(play_out(bob, second), GUARD)
            assert over["reason"] in ("five", "board_full")
            out, err = await finish(process)
            assert process.returncode == 0 and "games 2" in out, err
        finally:
            await reap(process)
            await ann.close()
            await bob.close()


async def test_ctrl_c_exits_without_a_traceback() -> None:
    """SIGINT while seeking: exit status 130 and one line, no traceback."""
    import signal

    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        watcher = await WireClient.connect(server.url, "watcher")
        process = await start_bot(server.url, "--game", "chess", "--level", "8")
        try:
            await until_seek_listed(watcher, "chess")
            process.send_signal(signal.SIGINT)
            _, err = await finish(process, 20)
            assert process.returncode == 130
            assert "Traceback" not in err, err
        finally:
            await reap(process)
            await watcher.close()


async def test_a_seeking_bot_outlives_a_server_that_lost_its_database() -> None:
    """The server comes back with an empty database, so it no longer knows the bot's token:
    the seeking bot says hello as a new player and seeks again (it used to stop)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        url, port = server.url, server.port
        process = await start_bot(
            url, "--game", "hexgomoku", "--level", "1", "--games", "1", "--clock", "untimed"
        )
        watcher = await WireClient.connect(url, "watcher")
        await until_seek_listed(watcher, "hexgomoku")  # the bot has said hello and seeks
        await watcher.close()
    try:
        async with running_server(host="127.0.0.1", port=port, db=":memory:") as server:
            ann = await WireClient.connect(server.url, "ann")
            reply = await ann.request(type="join", game="hexgomoku", timeout=GUARD)
            room = reply if reply["type"] == "room" else await ann.expect("room", GUARD)
            await asyncio.wait_for(play_out(ann, room), GUARD)
            out, err = await finish(process)
            assert process.returncode == 0 and "games 1" in out, err
            await ann.close()
    finally:
        await reap(process)


async def test_a_seeking_bot_takes_a_rematch_instead_of_its_new_seek() -> None:
    """After a game, a seeking bot seeks again; a rematch offer from its opponent cancels that
    seek and is accepted, so nobody else is matched with a bot that is busy elsewhere."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        process = await start_bot(
            server.url, "--game", "hexgomoku", "--level", "1", "--games", "2", "--seed", "4",
            "--clock", "untimed",
        )
        ann = await WireClient.connect(server.url, "ann")
        try:
            reply = await ann.request(type="join", game="hexgomoku")
            room = reply if reply["type"] == "room" else await ann.expect("room", GUARD)
            await asyncio.wait_for(play_out(ann, room), GUARD)
            await until_seek_listed(ann, "hexgomoku")  # the bot seeks again after the game
            offer = await ann.request(type="offer", room=room["room"], kind="rematch")
            assert offer["type"] == "ok", offer
            answer = await ann.expect("answer", timeout=GUARD, kind="rematch")
            assert answer["accept"] is True
            again = await ann.expect("room", timeout=GUARD, status="playing")
            rooms = (await ann.request(type="list", game="hexgomoku"))["rooms"]
            assert not any(r.get("seek") for r in rooms), rooms
            await asyncio.wait_for(play_out(ann, again), GUARD)
            out, err = await finish(process)
            assert process.returncode == 0 and "games 2" in out, err
        finally:
            await reap(process)
            await ann.close()


# ---- clocks: seeking with a quick-game clock, and how long the bot thinks ------------------------


def test_clock_option_reads_what_the_lobby_shows() -> None:
    """``--clock`` reads every quick-game preset as the lobby names it (and the usual spellings);
    without ``--clock`` a seeking bot seeks its game's first preset, the lobby's first button."""
    from client.clocks import clock_presets, parse_clock
    from engines import available

    for game in available():
        for name, clock in clock_presets(game):
            assert parse_clock(name) == clock, name
    assert parse_clock("5+3") == {"initial": 300, "increment": 3}
    assert parse_clock("20s") == parse_clock("20s/move") == parse_clock("20 s/move")
    assert parse_clock("20s") == {"per_move": 20}
    assert parse_clock("30s+2") == {"initial": 30, "increment": 2}
    assert parse_clock("untimed") is None
    for bad in ("5min", "5", "+3", "5+", "0s", "0+3", "20m/move", "5+3+1", ""):
        with pytest.raises(ValueError, match="--clock"):
            parse_clock(bad)


def test_a_bad_clock_is_refused_by_name_before_connecting() -> None:
    """``--clock 5min`` (or a clock with ``--room``, whose room has its own clock): exit 2 with
    a message naming it; the address is never tried (port 1 would say "cannot reach")."""
    cases = (
        (["--clock", "5min"], "5min"),
        (["--clock", "20x"], "20x"),
        (["--clock", "5+3", "--room", "ab12"], "--room"),
    )
    for args, word in cases:
        argv = ["127.0.0.1:1", "--game", "chess", *args]
        done = subprocess.run(
            [sys.executable, "-m", "client.bot", *argv], capture_output=True, text=True
        )
        assert done.returncode == 2, (args, done.stderr)
        assert word in done.stderr and "cannot reach" not in done.stderr, done.stderr
    for good in ("5+3", "20 s/move", "20s", "untimed"):  # read, so the bot tries the address
        argv = ["127.0.0.1:1", "--game", "chess", "--clock", good]
        done = subprocess.run(
            [sys.executable, "-m", "client.bot", *argv], capture_output=True, text=True
        )
        assert done.returncode == 1 and "cannot reach" in done.stderr, (good, done.stderr)


async def test_a_quick_game_meets_a_bot_seeking_the_same_clock() -> None:
    """A human pressing a quick game (a timed seek) is matched with a bot started with the same
    ``--clock``, and with a bot started without one when it is the game's first preset (a bot
    used to seek only untimed games, which no quick game ever meets)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        cases: tuple[tuple[str, list[str], dict[str, int]], ...] = (
            ("chess", ["--clock", "5+3"], {"initial": 300, "increment": 3}),
            ("chess", ["--clock", "20 s/move"], {"per_move": 20}),
            ("shuqi", [], {"per_move": 30}),  # number chess: its first preset, 30 s a move
            ("hexgomoku", [], {"initial": 180, "increment": 2}),
        )
        for game, args, clock in cases:
            process = await start_bot(
                server.url, "--game", game, "--level", "1", "--games", "1", *args
            )
            human = await WireClient.connect(server.url, "human")
            try:
                await until_seek_listed(human, game)
                reply = await human.request(type="join", game=game, clock=clock)
                assert reply["type"] == "room", (game, args, reply)  # matched at once
                room = reply
                while room["status"] != "playing":
                    room = await human.expect("room", timeout=GUARD)
                wire_clock = {k: v for k, v in room["clock"].items() if v is not None}
                assert wire_clock == clock, room["clock"]
                over = await human.request(type="resign", room=room["room"])
                assert over["type"] == "over", over
                out, err = await finish(process)
                assert process.returncode == 0 and "games 1" in out, (game, args, err)
            finally:
                await reap(process)
                await human.close()


def _budget_view(clock: dict[str, int], clocks: dict[str, Any], you: str = "first") -> Any:
    from client.bot import GameView

    return GameView(
        room="r1", game_id="g1", you=you, state=get("chess").start(None), ply=0,
        status="playing", clock=clock, clocks=clocks, received=100.0,
    )


def test_a_first_move_is_held_to_the_per_move_limit() -> None:
    """A side's first move runs under the server's abort deadline (30 s, ``clocks.move``), not
    the per-move limit; the bot still keeps to the per-move limit (level 8 thought 6.4 s on the
    first move of a 1 s-a-move game)."""
    from client.bot import BotClient, BotOptions

    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "chess", 8))
    first = _budget_view({"per_move": 1}, {"first": None, "second": None, "move": 30000,
                                           "running": "first"})
    assert bot.budget(first, now=first.received) < 1.0
    later = _budget_view({"per_move": 1}, {"first": None, "second": None, "move": 1000,
                                           "running": "first"})
    assert bot.budget(first, now=first.received) == bot.budget(later, now=later.received)
    # the abort deadline still bounds a first move when it is the tighter limit
    short = _budget_view({"per_move": 20}, {"first": None, "second": None, "move": 3000,
                                            "running": "first"})
    assert bot.budget(short, now=short.received) < 3.0
    # a Fischer first move: the main time (not yet running) and the abort deadline both bound it
    fischer = _budget_view({"initial": 2, "increment": 0},
                           {"first": 2000, "second": 2000, "move": 30000, "running": "first"})
    assert bot.budget(fischer, now=fischer.received) < 2.0


async def test_the_first_move_of_a_per_move_game_is_thought_within_the_limit() -> None:
    """On a real server, the seconds the bot gives its decider for its first move in a 1 s a
    move room stay within 1 s (observed through a recording decider, not by timing)."""
    from client.bot import BotClient, BotOptions
    from engines.search import Decision

    engine = get("chess")
    asked: list[float | None] = []

    class Recording:
        def decide(self, state: Any, seconds: float | None = None) -> Decision:
            asked.append(seconds)
            return Decision("move", engine.legal_moves(state)[0], 0, 0, 0, 0.0)

        def accepts_draw(self, state: Any, side: str) -> bool:
            return False

    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="chess", color="second",
                                 clock={"per_move": 1})
        bot = BotClient(BotOptions(server.url, "chess", 8, room=room["room"], games=1),
                        decider=Recording())
        playing = asyncio.ensure_future(bot.run())
        try:
            await ann.expect("moved", timeout=GUARD, ply=0)
            await ann.request(type="resign", room=room["room"])
            summary = await asyncio.wait_for(playing, GUARD)
            assert summary.moves == 1
            assert asked and asked[0] is not None and asked[0] < 1.0, asked
        finally:
            playing.cancel()
            await ann.close()


def test_the_reserve_grows_with_the_limit_and_the_round_trip() -> None:
    """On a 1 s per-move clock a good share of the second stays unused (0.25 s was kept, and a
    reply took 0.86 s); the measured round trip is kept back too; the level's own time is not
    cut where the clock leaves plenty."""
    from client.bot import BotClient, BotOptions

    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "chess", 8))
    one = _budget_view({"per_move": 1}, {"first": None, "second": None, "move": 1000,
                                         "running": "first"})
    quick = bot.budget(one, now=one.received)
    assert quick <= 0.65
    assert bot.budget(one, now=one.received + 0.1) == pytest.approx(quick - 0.1)
    bot.round_trip = 0.2
    assert bot.budget(one, now=one.received) == pytest.approx(quick - 0.2)
    bot.round_trip = 0.0
    ten = _budget_view({"per_move": 10}, {"first": None, "second": None, "move": 10000,
                                          "running": "first"})
    assert 5.0 <= bot.budget(ten, now=ten.received) <= 8.5
    level5 = BotClient(BotOptions("ws://127.0.0.1:1/", "chess", 5))
    assert level5.budget(ten, now=ten.received) == pytest.approx(0.8)  # the level's time
    low = _budget_view({"initial": 180, "increment": 2},
                       {"first": 2000, "second": 90000, "move": None, "running": "first"})
    assert bot.budget(low, now=low.received) <= 2.0 - 0.25 - 0.2 * 2.0 + 1e-9


async def test_an_offer_in_a_snapshot_is_answered_once() -> None:
    """An offer pending across a server restart comes back only in the room snapshot (no
    ``offer`` message): the bot never answered it, and the opponent waited until a move
    cancelled it. Each such offer is now answered once, however often the snapshot comes."""
    from client.bot import BotClient, BotOptions

    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "hexgomoku", 1))
    sent: list[dict[str, Any]] = []

    async def send(**fields: Any) -> None:
        sent.append(fields)

    bot.send = send  # type: ignore[method-assign]
    snapshot = {
        "type": "room", "room": "K7QD", "game_id": "g1", "game": "hexgomoku", "variant": None,
        "status": "playing", "you": "second", "start": None, "moves": ["0,0"],
        "seats": {"first": {"player": "p1", "name": "ann", "connected": True, "bot": False},
                  "second": {"player": "p2", "name": "Bot L1", "connected": True, "bot": True}},
        "clock": None, "clocks": None, "offers": [{"kind": "undo", "by": "first"},
                                                  {"kind": "draw", "by": "second"}],
    }
    await bot.handle(snapshot)
    await bot.handle(snapshot)
    answers = [m for m in sent if m.get("type") == "answer"]
    assert answers == [{"type": "answer", "room": "K7QD", "kind": "undo", "accept": False}]


async def test_a_draw_offer_is_judged_on_the_position_it_is_made_in() -> None:
    """The bot's decider judges a draw offer on the room's current position and the bot's side
    (it read the score of its own last move: at level 1 a randomly chosen one, so a level-1
    hexgomoku bot accepted a draw after four stones); an offer after the end is declined."""
    from client.bot import BotClient, BotOptions
    from engines.search import Decision

    engine = get("hexgomoku")
    judged: list[tuple[str, str]] = []

    class Judging:
        def decide(self, state: Any, seconds: float | None = None) -> Decision:
            return Decision("move", engine.legal_moves(state)[0], 0, 0, 0, 0.0)

        def accepts_draw(self, state: Any, side: str) -> bool:
            judged.append((engine.position(state), side))
            return True

    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "hexgomoku", 1, room="K7QD"),
                    decider=Judging())
    sent: list[dict[str, Any]] = []

    async def send(**fields: Any) -> None:
        sent.append(fields)

    bot.send = send  # type: ignore[method-assign]
    snapshot = {
        "type": "room", "room": "K7QD", "game_id": "g1", "game": "hexgomoku", "variant": None,
        "status": "playing", "you": "second", "start": None, "moves": ["0,0", "1,0", "2,0"],
        "seats": {"first": {"player": "p1", "name": "ann", "connected": True, "bot": False},
                  "second": {"player": "p2", "name": "Bot L1", "connected": True, "bot": True}},
        "clock": None, "clocks": None, "offers": [],
    }
    await bot.handle(snapshot)
    await bot.handle({"type": "offer", "room": "K7QD", "kind": "draw", "by": "first"})
    assert bot.view is not None
    assert judged == [(engine.position(bot.view.state), "second")]
    assert sent[-1] == {"type": "answer", "room": "K7QD", "kind": "draw", "accept": True}
    await bot.handle({"type": "over", "room": "K7QD", "game_id": "g1", "result": "first",
                      "reason": "resign"})
    await bot.handle({"type": "offer", "room": "K7QD", "kind": "draw", "by": "first"})
    assert sent[-1] == {"type": "answer", "room": "K7QD", "kind": "draw", "accept": False}
    assert len(judged) == 1
    bot._stop_tasks()
    bot._executor.shutdown()


# ---- thinking under the clock: one search per position, ended when no longer wanted -----------


async def _until(condition: Any, what: str) -> None:
    """Wait until ``condition()`` holds, for state another thread changes (polled, bounded: a
    guard against hangs, not a timing bet)."""
    async with asyncio.timeout(GUARD):
        while not condition():
            await asyncio.sleep(0.01)
    assert condition(), what


class HandledLog:
    """The messages ``bot`` has handled, in order (wraps its ``handle``); :meth:`until` waits
    until a condition holds, checked after each one is handled (woken by them: no polling)."""

    def __init__(self, bot: Any) -> None:
        self.messages: list[dict[str, Any]] = []
        self._handled = asyncio.Event()
        handle = bot.handle

        async def recording(message: dict[str, Any]) -> None:
            self.messages.append(message)
            await handle(message)
            self._handled.set()

        bot.handle = recording

    async def until(self, condition: Callable[[], object], what: str) -> None:
        """Return once ``condition()`` holds after a handled message (or already)."""
        async with asyncio.timeout(GUARD):
            while not condition():
                self._handled.clear()
                await self._handled.wait()
        assert condition(), what


async def test_a_repeated_snapshot_does_not_start_the_search_again() -> None:
    """A bot gets its room's snapshot twice when it sits down (the seat's arrival, then the
    reply to its join), and again after any join. Each one cancelled the thinking task and
    queued a new search behind the old one, still running on the thinking thread: the move came
    after both searches, and 32 level-8 bots on two cores lost 3 s-a-move games on time. Now
    the search of a position runs once, whatever snapshots of it come meanwhile."""
    import threading

    from client.bot import BotClient, BotOptions
    from engines.search import Decision

    engine = get("chess")
    calls: list[float | None] = []
    started, release = threading.Event(), threading.Event()

    class Blocking:
        def decide(self, state: Any, seconds: float | None = None) -> Decision:
            calls.append(seconds)
            started.set()
            release.wait(GUARD)
            return Decision("move", engine.legal_moves(state)[0], 0, 0, 0, 0.0)

        def accepts_draw(self, state: Any, side: str) -> bool:
            return False

    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="chess", color="second",
                                 clock={"per_move": 20})
        code = room["room"]
        bot = BotClient(BotOptions(server.url, "chess", 8, room=code, games=1),
                        decider=Blocking())
        log = HandledLog(bot)
        handled = log.messages
        playing = asyncio.ensure_future(bot.run())
        try:
            await asyncio.get_running_loop().run_in_executor(None, started.wait, GUARD)
            await bot.send(type="join", room=code)  # one more snapshot of the same position
            await log.until(lambda: sum(m.get("type") == "room" for m in handled) >= 2, "snapshot")
            release.set()
            moved = await ann.expect("moved", timeout=GUARD, ply=0)
            assert moved["by"] == "first"
            await ann.request(type="resign", room=code)
            summary = await asyncio.wait_for(playing, GUARD)
            assert summary.moves == 1
            assert len(calls) == 1, calls
            assert not [m for m in handled if m.get("type") == "error"], handled
        finally:
            release.set()
            playing.cancel()
            await ann.close()


async def test_a_snapshot_of_a_position_already_answered_sends_no_second_move() -> None:
    """A snapshot that comes after the bot sent its move but before the ``moved`` (a seat's
    arrival, a join) showed the same position: the bot moved again, the server answered
    ``stale`` and the bot asked for yet another snapshot; three such refusals resign."""
    from client.bot import BotClient, BotOptions
    from engines.search import Decision

    engine = get("hexgomoku")

    class Instant:
        def decide(self, state: Any, seconds: float | None = None) -> Decision:
            return Decision("move", engine.legal_moves(state)[0], 0, 0, 0, 0.0)

        def accepts_draw(self, state: Any, side: str) -> bool:
            return False

    bot = BotClient(BotOptions("ws://127.0.0.1:1/", "hexgomoku", 1, room="K7QD"),
                    decider=Instant())
    sent: list[dict[str, Any]] = []

    async def send(**fields: Any) -> None:
        sent.append(fields)

    bot.send = send  # type: ignore[method-assign]
    snapshot: dict[str, Any] = {
        "type": "room", "room": "K7QD", "game_id": "g1", "game": "hexgomoku", "variant": None,
        "status": "playing", "you": "first", "start": None, "moves": [],
        "seats": {"first": {"player": "p2", "name": "Bot L1", "connected": True, "bot": True},
                  "second": {"player": "p1", "name": "ann", "connected": True, "bot": False}},
        "clock": {"per_move": 20}, "clocks": None, "offers": [],
    }
    await bot.handle(snapshot)
    assert bot._thinking is not None
    await bot._thinking
    await bot.handle(snapshot)
    if bot._thinking is not None:
        await bot._thinking
    assert [m["type"] for m in sent] == ["move"], sent
    # a refused move (stale) and the snapshot it asks for: the bot moves again
    await bot.handle({"type": "error", "re": None, "code": "stale", "message": "stale"})
    await bot.handle(snapshot)
    if bot._thinking is not None:
        await bot._thinking
    assert [m["type"] for m in sent] == ["move", "join", "move"], sent
    bot._executor.shutdown()


async def test_a_game_that_ends_mid_search_frees_the_thinking_thread() -> None:
    """The opponent aborts (or resigns) while the bot thinks: the search itself ends, so the
    next game's search does not wait behind it, and the search tables kept between moves are
    dropped while the bot waits for a rematch. The bot's search clock is
    frozen (injected): without being told to stop, its search would never end."""
    from client.bot import BotClient, BotOptions
    from engines.search import BotPlayer

    thawed = False

    def frozen() -> float:
        return 1e9 if thawed else 0.0

    player = BotPlayer("chess", 8, clock=frozen)
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="chess", color="second")
        code = room["room"]
        bot = BotClient(BotOptions(server.url, "chess", 8, room=code), decider=player)
        log = HandledLog(bot)
        playing = asyncio.ensure_future(bot.run())
        loop = asyncio.get_running_loop()
        try:
            await _until(lambda: bot._thinking is not None and player.searcher.tt, "searching")
            over = await ann.request(type="abort", room=code)
            assert over["type"] == "over", over
            await log.until(lambda: bot.view is not None and bot.view.status == "over", "over")
            await asyncio.wait_for(loop.run_in_executor(bot._executor, lambda: None), 20)
            assert player.searcher.tt == {}
        finally:
            thawed = True
            playing.cancel()
            await ann.close()


async def test_a_launched_bot_runs_below_the_server_priority() -> None:
    """Bots think on wall-clock budgets; at the server's own priority thirty of them on two
    cores held the server's event loop (every room's moves, clocks and pings) up to 1.5 s."""
    import os

    from server.bot_launcher import NICENESS

    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        process = await launch_bot(server.url, room["room"], "hexgomoku", None, 1)
        try:
            own = os.getpriority(os.PRIO_PROCESS, 0)
            assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(19, own + NICENESS)
        finally:
            await reap(process)
            await ann.close()


async def test_the_bot_runs_the_servers_own_code_whatever_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started in a directory holding another ``client`` package, with yet another on
    ``PYTHONPATH``, still starts its own bot: neither decoy runs and the bot takes its seat."""
    decoys = []
    for place in (tmp_path / "cwd", tmp_path / "path"):
        (place / "client").mkdir(parents=True)
        (place / "client" / "__init__.py").write_text("")
        marker = place / "ran"
        (place / "client" / "bot.py").write_text(
            f"open({str(marker)!r}, 'w').close()\nraise SystemExit(3)\n"
        )
        decoys.append(marker)
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "path"))
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        process = await launch_bot(server.url, room["room"], "hexgomoku", None, 1)
        try:
            playing = await ann.expect("room", timeout=GUARD, status="playing")
            assert playing["seats"]["second"]["name"]
        finally:
            await reap(process)
            await ann.close()
    assert not [marker for marker in decoys if marker.exists()], "a decoy bot ran"


def test_an_empty_pythonpath_entry_does_not_bring_the_working_directory_back() -> None:
    """A ``PYTHONPATH`` with an empty entry (``:/x``, as ``PYTHONPATH=$PYTHONPATH:/x`` makes
    when it was unset) would put the working directory ahead of the standard library and the
    installed packages, which ``-P`` keeps out: the bot's own path has the server's tree first
    and no empty entry; the token is set or removed."""
    import os

    env = bot_environment("t0k", {"PYTHONPATH": f"{os.pathsep}/x{os.pathsep}", "HOME": "/h"})
    assert env["PYTHONPATH"].split(os.pathsep) == [CODE_ROOT, "/x"]
    assert env["BOARDHALL_BOT_TOKEN"] == "t0k" and env["HOME"] == "/h"
    env = bot_environment(None, {"PYTHONPATH": "", "BOARDHALL_BOT_TOKEN": "old"})
    assert env == {"PYTHONPATH": CODE_ROOT}


def test_an_installed_server_adds_nothing_before_the_standard_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server installed in site-packages (as in the Docker image) is found there by the bot
    in the interpreter's own order: its directory is not put on ``PYTHONPATH``, where it would
    come before the standard library; other entries are kept, and no empty variable is left."""
    import os
    import site

    import server.bot_launcher as launcher

    monkeypatch.setattr(launcher, "CODE_ROOT", site.getsitepackages()[0])
    assert bot_environment(None, {"PYTHONPATH": "/x", "HOME": "/h"}) == {
        "PYTHONPATH": "/x",
        "HOME": "/h",
    }
    assert "PYTHONPATH" not in bot_environment(None, {"PYTHONPATH": os.pathsep})
    monkeypatch.setattr(launcher, "CODE_ROOT", "/src/boardhall")
    assert bot_environment(None, {})["PYTHONPATH"] == "/src/boardhall"


async def test_a_bot_process_that_dies_leaves_no_game_hanging() -> None:
    """The bot's process is killed mid-game: its seat is shown away at once; in a timed game its
    clock runs out and the human wins on time; in an untimed one the human's ``timeout`` claim
    is refused while the absence grace (a server flag, here 30 s) lasts and wins (``abandoned``)
    once it has passed. Time is injected by moving the bot's turn or absence back, never waited
    for: the human's own turn is 60 s, which no machine, however busy, runs out."""
    import dataclasses

    from server.config import ServerConfig

    config = dataclasses.replace(ServerConfig(), absence_grace_s=30)
    async with running_server(host="127.0.0.1", port=0, db=":memory:", config=config) as server:
        ann = await WireClient.connect(server.url, "ann")
        try:
            for clock in ({"per_move": 60}, None):
                extra: dict[str, Any] = {"clock": clock} if clock else {}
                room = await ann.request(type="create", game="hexgomoku", color="first",
                                         opponent="bot:1", **extra)
                code = room["room"]
                await ann.request(type="move", room=code, ply=0, move="0,0")
                bot_move = (await ann.expect("moved", timeout=GUARD, room=code, ply=1))["move"]
                process = server._bots[-1]
                process.kill()
                await process.wait()
                away = await ann.expect("presence", timeout=GUARD, room=code, connected=False)
                assert away["seat"] == "second"
                free = next(cell for cell in ("1,0", "2,0") if cell != bot_move)
                moved = await ann.request(type="move", room=code, ply=2, move=free)
                assert moved["type"] == "moved", moved
                hall_room = server.hall.rooms[code]
                if clock:
                    assert hall_room.clock.running == "second"
                    hall_room.clock.turn_start -= 61  # the bot's 60 s (and the lag grace) ran out
                    server.hall._schedule(hall_room)
                    server._arm()
                    over = await ann.expect("over", timeout=GUARD, room=code)
                else:
                    early = await ann.request(type="timeout", room=code)
                    assert (early["type"], early["code"]) == ("error", "not_allowed"), early
                    assert "after 30 s" in early["message"], early
                    seat = hall_room.seats["second"]
                    assert seat is not None and seat.away_since is not None
                    seat.away_since -= 30  # the grace has passed
                    over = await ann.request(type="timeout", room=code)
                reason = "timeout" if clock else "abandoned"
                assert (over["type"], over["result"], over["reason"]) == ("over", "first", reason)
        finally:
            await ann.close()


async def test_a_launched_bot_plays_on_after_a_clean_stop_and_a_reconnect(tmp_path: Any) -> None:
    """The server stops cleanly (SIGTERM path) in a timed game against its own bot: the bot's
    process ends with it, the restarted server starts a new one, and the human, reconnecting
    with their token, plays on against it (the crash case is in tests/server/test_durable)."""
    db = str(tmp_path / "hall.db")
    async with running_server(host="127.0.0.1", port=0, db=db) as server:
        port = server.port
        ann = await WireClient.connect(server.url, "ann")
        token = ann.welcome["token"]
        room = await ann.request(type="create", game="hexgomoku", color="first",
                                 opponent="bot:1", clock={"per_move": 20})
        code = room["room"]
        await ann.request(type="move", room=code, ply=0, move="0,0")
        bot_move = (await ann.expect("moved", timeout=GUARD, ply=1))["move"]
        first_bot = server._bots[-1]
    await asyncio.wait_for(first_bot.wait(), GUARD)  # ended with its server (or stopped by it)
    await ann.close()
    async with running_server(host="127.0.0.1", port=port, db=db) as server:
        ann = await WireClient.connect(server.url, "ann", token=token)
        try:
            assert ann.welcome["resumed"] == [code]
            room = await ann.request(type="join", room=code)
            assert room["moves"] == ["0,0", bot_move]
            free = next(cell for cell in ("1,0", "2,0") if cell != bot_move)
            assert (await ann.request(type="move", room=code, ply=2, move=free))["type"] == "moved"
            reply = await ann.expect("moved", timeout=GUARD, ply=3)
            assert reply["by"] == "second"
            assert (await ann.request(type="offer", room=code, kind="draw"))["type"] == "ok"
            answer = await ann.expect("answer", timeout=GUARD, kind="draw")  # answered at all
            if not answer["accept"]:  # (accepted only when its search sees itself losing)
                over = await ann.request(type="resign", room=code)
                assert over["type"] == "over" and over["result"] == "second"
        finally:
            await ann.close()
