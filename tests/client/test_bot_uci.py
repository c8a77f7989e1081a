"""Chess bots through a UCI engine (``--uci PATH``), here a tiny UCI engine written for the test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from client.bot import BotOptions, make_decider
from client.bot_uci import UciDecider
from engines import get

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
        assert decider.accepts_draw() is True
    finally:
        decider.close()


def test_uci_only_for_chess(tiny_engine: str) -> None:
    """``--uci`` with another game is refused; a missing engine path is a clear error."""
    with pytest.raises(ValueError, match="only with --game chess"):
        make_decider(BotOptions("ws://127.0.0.1:1/", "draughts", 3, uci=tiny_engine))
    with pytest.raises(ValueError, match="cannot start the UCI engine"):
        UciDecider("/nonexistent/engine", 3)
