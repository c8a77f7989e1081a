"""Chess perft against published node counts and against a plain python-chess push/pop count.

Published counts: https://www.chessprogramming.org/Perft_Results (positions 1-6).
"""

from __future__ import annotations

import subprocess
import sys

import chess
import pytest

from engines.base import Engine
from engines.chess import ENGINE

START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"

PUBLISHED: list[tuple[str, list[int]]] = [
    (START, [20, 400, 8902, 197281]),
    (KIWIPETE, [48, 2039, 97862]),
    (POSITION_3, [14, 191, 2812, 43238]),
    (POSITION_4, [6, 264, 9467]),
    (POSITION_5, [44, 1486, 62379]),
    (POSITION_6, [46, 2079, 89890]),
]


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """The textbook perft on a python-chess board (no draw rules), for differential checks."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize(
    ("fen", "depth", "nodes"),
    [(fen, depth + 1, n) for fen, counts in PUBLISHED for depth, n in enumerate(counts)],
)
def test_perft_matches_published_counts(fen: str, depth: int, nodes: int) -> None:
    """ENGINE.perft equals the published node count at each small depth."""
    assert ENGINE.perft(ENGINE.start(position=fen), depth) == nodes


def test_perft_depth_zero_is_one() -> None:
    """Depth 0 counts the position itself."""
    assert ENGINE.perft(ENGINE.start(), 0) == 1


@pytest.mark.parametrize(
    "fen",
    [
        # The FEN given in the issue as "Kiwipete": a mangled copy (black pawn g2, white h3).
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1P/PPPBBPpP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/pp1ppppp/8/2pP4/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 2",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    ],
)
def test_perft_equals_python_chess_perft(fen: str) -> None:
    """The fast path counts what a plain python-chess push/pop perft counts."""
    state = ENGINE.start(position=fen)
    for depth in (1, 2, 3):
        assert ENGINE.perft(state, depth) == python_chess_perft(chess.Board(fen), depth)


@pytest.mark.parametrize(("fen", "depth"), [(KIWIPETE, 2), (POSITION_3, 3), (POSITION_5, 2)])
def test_fast_perft_equals_the_generic_play_based_perft(fen: str, depth: int) -> None:
    """The push/pop fast path agrees with Engine.perft over legal_moves/play states."""
    state = ENGINE.start(position=fen)
    assert ENGINE.perft(state, depth) == Engine.perft(ENGINE, state, depth)


def test_perft_stops_at_draws_by_rule() -> None:
    """Finished positions have no moves: Kxb2, the only move, leaves K v K and ends the game."""
    fen = "8/8/8/8/8/8/1r6/K6k w - - 0 1"
    board = chess.Board(fen)
    state = ENGINE.start(position=fen)
    assert ENGINE.perft(state, 1) == python_chess_perft(board, 1) == 1
    assert ENGINE.perft(state, 2) == Engine.perft(ENGINE, state, 2) == 0
    assert python_chess_perft(board, 2) == 3


def test_perft_of_a_state_with_history_counts_repetition_draws() -> None:
    """After Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 the line Ng1 Ng8 repeats the start a third time: it ends."""
    state = ENGINE.start()
    for move in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6"]:
        state = ENGINE.play(state, move)
    assert ENGINE.perft(state, 3) == Engine.perft(ENGINE, state, 3)
    assert ENGINE.perft(state, 3) < python_chess_perft(chess.Board(state.fen), 3)


def test_perft_command_line() -> None:
    """`python -m engines perft chess D --position FEN` prints the count as its last line."""
    run = subprocess.run(
        [sys.executable, "-m", "engines", "perft", "chess", "3", "--position", KIWIPETE],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert run.stdout.strip().splitlines()[-1] == "97862"
    bad = subprocess.run(
        [sys.executable, "-m", "engines", "perft", "chess", "1", "--position", "nonsense"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "bad FEN" in bad.stderr
