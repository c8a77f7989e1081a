"""Chess bots through a UCI engine (``--uci PATH``), here a tiny UCI engine written for the test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from client.bot import BotOptions, make_decider
from client.bot_uci import UciDecider
from engines import get
from tests.client.bot_tools import GUARD, finish, play_out, reap, start_bot

TINY_UCI = """\
import sys
import chess
board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name tiny", "uciok", sep="\\n", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        if "moves" in words:
            for uci in words[words.index("moves") + 1:]:
                board.push_uci(uci)
    elif words[0] == "go":
        move = sorted(board.legal_moves, key=lambda m: m.uci())[-1]
        print("info depth 1 score cp -300", flush=True)
        print(f"bestmove {move.uci()}", flush=True)
    elif words[0] == "quit":
        break
"""


@pytest.fixture
def tiny_engine(tmp_path: Path) -> str:
    """An executable UCI engine that plays the last legal move in UCI order."""
    script = tmp_path / "tiny_uci.py"
    script.write_text(TINY_UCI)
    launcher = tmp_path / "tiny_uci"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)
    return str(launcher)


def test_uci_decider_plays_the_engines_move(tiny_engine: str) -> None:
    """The UCI engine's move is the bot's move; its losing score makes the bot accept draws."""
    engine = get("chess")
    state = engine.play(engine.start(), "e2e4")
    decider = UciDecider(tiny_engine, 1)
    try:
        decision = decider.decide(state, seconds=0.05)
        assert decision.move == sorted(engine.legal_moves(state))[-1]
        assert decider.accepts_draw(state, "second") is True
    finally:
        decider.close()


def test_uci_only_for_chess(tiny_engine: str) -> None:
    """``--uci`` with another game is refused; a missing engine path is a clear error."""
    with pytest.raises(ValueError, match="only with --game chess"):
        make_decider(BotOptions("ws://127.0.0.1:1/", "draughts", 3, uci=tiny_engine))
    with pytest.raises(ValueError, match="cannot start the UCI engine"):
        UciDecider("/nonexistent/engine", 3)


NOT_UCI = """\
import sys
for line in sys.stdin:
    print("hello, I am a chat bot", flush=True)
"""


def test_a_program_that_is_no_uci_engine_is_refused_by_name(tmp_path: Path) -> None:
    """A program that never answers ``uciok``: the error names it and says why (it used to be
    an empty reason after a silent 10 s wait)."""
    script = tmp_path / "not_uci.py"
    script.write_text(NOT_UCI)
    launcher = tmp_path / "not_uci"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)
    with pytest.raises(ValueError, match=r"not_uci.*did not answer 'uci'.*UCI engine"):
        UciDecider(str(launcher), 1, start_timeout=0.5)


async def test_uci_bot_plays_a_whole_game_on_a_server(tiny_engine: str) -> None:
    """``boardhall bot URL --game chess --uci PATH --games 1`` seeks, plays a game with the
    engine's moves and exits 0."""
    import asyncio

    from server.testing import WireClient, running_server

    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        process = await start_bot(
            server.url, "--game", "chess", "--level", "1", "--uci", tiny_engine, "--games", "1",
            "--clock", "untimed",
        )
        ann = await WireClient.connect(server.url, "ann")
        try:
            reply = await ann.request(type="join", game="chess")
            room = reply if reply["type"] == "room" else await ann.expect("room", GUARD)
            over = await asyncio.wait_for(play_out(ann, room), GUARD)
            assert over["result"] in ("first", "second", "draw")
            out, err = await finish(process)
            assert process.returncode == 0 and "games 1" in out, err
            assert "Traceback" not in err, err
        finally:
            await reap(process)
            await ann.close()


def test_uci_engine_that_dies_mid_game_ends_the_bot_with_a_reason(tmp_path: Path) -> None:
    """The engine crashes when asked for a move: the bot resigns that game and exits 1 naming
    the engine's failure (it used to sit in the game for ever, its thinking task dead)."""
    import asyncio

    from server.testing import WireClient, running_server

    script = tmp_path / "dying_uci.py"
    go = 'elif words[0] == "go":'
    script.write_text(TINY_UCI.replace(go, go + "\n        sys.exit(3)"))
    launcher = tmp_path / "dying_uci"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(0o755)

    async def scenario() -> None:
        async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
            ann = await WireClient.connect(server.url, "ann")
            room = await ann.request(type="create", game="chess", color="second")
            process = await start_bot(
                server.url, "--game", "chess", "--room", room["room"], "--uci", str(launcher)
            )
            try:
                over = await ann.expect("over", timeout=GUARD)
                assert over["reason"] == "resign" and over["result"] == "second"
                _, err = await finish(process, 20)
                assert process.returncode == 1, err
                assert "UCI engine failed" in err and "Traceback" not in err, err
            finally:
                await reap(process)
                await ann.close()

    asyncio.run(scenario())
