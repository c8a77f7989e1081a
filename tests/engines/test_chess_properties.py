"""Chess properties (hypothesis): FEN round-trips, no text crashes, every legal move is accepted,
and the short repetition history judges games exactly as a full python-chess history does."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engines.base import BadPosition, IllegalMove
from engines.chess import ENGINE, ChessState
from engines.chess.engine import REASONS, copy_board

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEN_ALPHABET = "pnbrqkPNBRQK12345678/ wb-KQkqaceh0 "
MOVE_ALPHABET = "abcdefgh12345678NBRQKOx=+#-0@qrnb "

choices = st.lists(st.integers(min_value=0, max_value=10_000), max_size=60)


def random_game(picks: list[int], fen: str | None = None) -> tuple[ChessState, chess.Board]:
    """Play the legal moves ``picks`` select; returns our state and a full-history board."""
    state = ENGINE.start(position=fen)
    board = chess.Board(ENGINE.position(state))
    for pick in picks:
        moves = ENGINE.legal_moves(state)
        if not moves:
            break
        move = moves[pick % len(moves)]
        state = ENGINE.play(state, move)
        board.push_uci(move)
    return state, board


@st.composite
def setups(draw: st.DrawFn) -> str:
    """FENs of valid set-up positions: two kings and up to ten random other pieces."""
    board = chess.Board(None)
    squares = draw(st.lists(st.sampled_from(chess.SQUARES), min_size=2, max_size=12, unique=True))
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for square in squares[2:]:
        symbol = draw(st.sampled_from("PNBRQpnbrq"))
        board.set_piece_at(square, chess.Piece.from_symbol(symbol))
    board.turn = draw(st.booleans())
    board.halfmove_clock = draw(st.integers(min_value=0, max_value=120))
    board.fullmove_number = draw(st.integers(min_value=1, max_value=300))
    assume(board.is_valid())
    return board.fen()


@SETTINGS
@given(choices)
def test_fen_of_any_game_round_trips(picks: list[int]) -> None:
    """position(start(position=fen)) == fen for every position reached in play."""
    state, board = random_game(picks)
    fen = ENGINE.position(state)
    assert fen == board.fen()
    assert ENGINE.position(ENGINE.start(position=fen)) == fen


@SETTINGS
@given(setups())
def test_fen_of_any_valid_setup_round_trips(fen: str) -> None:
    """Any position python-chess calls valid is accepted and read back unchanged."""
    state = ENGINE.start(position=fen)
    assert ENGINE.position(state) == fen
    assert state.turn == ("first" if chess.Board(fen).turn == chess.WHITE else "second")


@SETTINGS
@given(st.one_of(st.text(max_size=120), st.text(alphabet=FEN_ALPHABET, max_size=90)))
def test_no_position_text_crashes_start_or_from_record(text: str) -> None:
    """start() and from_record() either succeed or raise BadPosition."""
    for read in (lambda: ENGINE.start(position=text), lambda: ENGINE.from_record(text)):
        try:
            state = read()
        except BadPosition as exc:
            assert str(exc)
        else:
            assert chess.Board(ENGINE.position(state)).is_valid()


@SETTINGS
@given(choices, st.one_of(st.text(max_size=20), st.text(alphabet=MOVE_ALPHABET, max_size=8)))
def test_no_move_text_crashes_play(picks: list[int], text: str) -> None:
    """play() either returns a state whose last move is legal UCI, or raises IllegalMove."""
    state, _ = random_game(picks[:20])
    try:
        after = ENGINE.play(state, text)
    except IllegalMove as exc:
        assert str(exc)
    else:
        assert after.last_move in ENGINE.legal_moves(state)


@SETTINGS
@given(choices)
def test_every_legal_move_is_accepted_in_uci_and_san(picks: list[int]) -> None:
    """Each legal move plays as UCI and as its SAN, both giving the same canonical UCI."""
    state, board = random_game(picks[:30])
    moves = ENGINE.legal_moves(state)
    over = ENGINE.outcome(state) is not None
    assert over == (moves == [])
    assert set(moves) <= {m.uci() for m in board.legal_moves}
    for uci in moves:
        san = board.san(chess.Move.from_uci(uci))
        assert ENGINE.play(state, uci).last_move == uci
        assert ENGINE.play(state, san).last_move == uci


@pytest.mark.parametrize(
    "fen",
    [
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",  # few pieces: repetitions are common
        "4k3/8/8/8/8/8/3n4/R3K3 w Q - 90 70",  # near the fifty-move rule
        "r3k3/1p6/8/8/8/8/6P1/4K2R w Kq - 0 1",  # castling rights and pawn moves cut history
    ],
)
@settings(max_examples=40, deadline=None)
@given(picks=st.lists(st.integers(min_value=0, max_value=3), min_size=10, max_size=80))
def test_outcomes_equal_python_chess_with_the_whole_history(fen: str, picks: list[int]) -> None:
    """At every ply our outcome is python-chess's judgement over the whole game's moves."""
    state = ENGINE.start(position=fen)
    board = chess.Board(fen)
    for pick in picks:
        expected = board.outcome()
        if expected is None and board.halfmove_clock >= 100:
            expected = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
        if expected is None and board.is_repetition(3):
            expected = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
        outcome = ENGINE.outcome(state)
        if expected is None:
            assert outcome is None
        else:
            assert outcome is not None and outcome.reason == REASONS[expected.termination]
            break
        moves = sorted(ENGINE.legal_moves(state))
        assert moves == sorted(m.uci() for m in board.legal_moves)
        move = moves[pick % len(moves)] if pick < 3 else moves[0]  # repeat moves often
        state = ENGINE.play(state, move)
        board.push_uci(move)


shuffles = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=40)


@SETTINGS
@given(shuffles)
def test_copy_board_is_a_full_copy_that_leaves_the_original_alone(picks: list[int]) -> None:
    """copy_board gives what board.copy() gives, and moves pushed on it or popped from it leave
    the original (the previous state's board) exactly as it was. Knight moves where there are
    any, so the history is long and reversible and repetitions happen."""
    board = chess.Board()
    for pick in picks:
        moves = list(board.legal_moves)
        knights = [m for m in moves if board.piece_type_at(m.from_square) == chess.KNIGHT]
        if len(moves) < 2:
            break
        board.push((knights or moves)[pick % len(knights or moves)])
        copied, reference = copy_board(board), board.copy()
        before = (board.fen(), list(board.move_stack), board.is_repetition(2))
        assert copied.fen() == reference.fen()
        assert copied.move_stack == reference.move_stack
        assert copied.is_repetition(2) == reference.is_repetition(2)
        assert copied.is_repetition(3) == reference.is_repetition(3)
        copied.push(next(iter(copied.legal_moves)))
        copied.pop()
        copied.pop()
        copied.push(next(iter(copied.legal_moves)))  # the popped move's position has one
        assert (board.fen(), list(board.move_stack), board.is_repetition(2)) == before
