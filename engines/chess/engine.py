"""The chess engine: FIDE rules through python-chess, immutable states, PGN records.

States are frozen values. Repetition needs history, so a state keeps the FEN of the position
after the last irreversible move (``root``) and the UCI moves played since (``tail``): exactly
the part of the game python-chess walks back through to count repetitions, so it stays short
(the fifty-move rule ends the game within ~100 plies of reversible moves).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from typing import Any, ClassVar

import chess

from engines.base import (
    BadPosition,
    Engine,
    IllegalMove,
    Outcome,
    RecordInfo,
    Side,
    VariantInfo,
    other,
)
from engines.chess.notation import parse_move
from engines.chess.position import STANDARD_FEN, fen_of, read_fen
from engines.chess.records import read_pgn, write_pgn

REASONS: dict[chess.Termination, str] = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient",
    chess.Termination.SEVENTYFIVE_MOVES: "fifty_moves",
    chess.Termination.FIVEFOLD_REPETITION: "repetition",
    chess.Termination.FIFTY_MOVES: "fifty_moves",
    chess.Termination.THREEFOLD_REPETITION: "repetition",
}
"""python-chess termination -> Boardhall result reason (DESIGN.md)."""

REPETITION_MIN_PLIES = 8
"""A position cannot have occurred three times with fewer reversible plies behind it."""

FIFTY_MOVE_PLIES = 100


def side_of(color: chess.Color) -> Side:
    """``first`` for White, ``second`` for Black."""
    return "first" if color == chess.WHITE else "second"


def color_of(side: Side) -> chess.Color:
    """White for ``first``, Black for ``second``."""
    return chess.WHITE if side == "first" else chess.BLACK


@dataclass(frozen=True)
class ChessState:
    """A chess position with the history the draw rules need; an immutable, hashable value.

    Privately it also holds its python-chess board (``root`` + ``tail`` pushed) and the automatic
    end of the game on it, both worked out once when the state is made and never changed after:
    the engine only reads the board, or copies it before pushing a move.
    """

    fen: str
    """FEN of the position (python-chess's normal form: en passant square only when legal)."""
    ply: int
    """Moves made since the game's start position."""
    last_move: str | None
    """UCI of the move that led here, ``None`` at the start."""
    root: str
    """FEN after the last irreversible move (or the start)."""
    tail: tuple[str, ...] = ()
    """UCI moves from ``root`` to here, none of them irreversible."""
    cache: InitVar[tuple[chess.Board, chess.Outcome | None] | None] = None
    """The board of this state and ``game_over`` of it, when the maker has them (never shared)."""
    _board: chess.Board = field(init=False, compare=False, hash=False, repr=False)
    _ended: chess.Outcome | None = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self, cache: tuple[chess.Board, chess.Outcome | None] | None) -> None:
        if cache is None:
            board = chess.Board(self.root)
            for uci in self.tail:
                board.push(chess.Move.from_uci(uci))
            cache = (board, game_over(board))
        object.__setattr__(self, "_board", cache[0])
        object.__setattr__(self, "_ended", cache[1])

    @property
    def turn(self) -> Side:
        """The side to move: ``first`` is White."""
        return "first" if self.fen.split(" ")[1] == "w" else "second"

    def board(self) -> chess.Board:
        """A fresh python-chess board of this state with its repetition history (a copy)."""
        return self._board.copy()


def copy_board(board: chess.Board) -> chess.Board:
    """``board.copy()`` that shares the moves of its history instead of copying each.

    python-chess copies every move of the stack one by one (``copy.copy``), about 2 us each, and
    a state's stack holds every move since the last irreversible one, up to a hundred. Moves
    and the saved board states are never changed once made (python-chess itself shares the
    saved states between copies), so new lists of the same objects are enough.
    """
    copied = board.copy(stack=False)
    copied.move_stack = board.move_stack.copy()
    copied._stack = board._stack.copy()
    return copied


def game_over(board: chess.Board) -> chess.Outcome | None:
    """The automatic end of the game on ``board`` (with its move history), or ``None``.

    Checkmate, stalemate and insufficient material as python-chess judges them; threefold
    repetition once the position has actually occurred a third time, and the fifty-move rule once
    fifty moves by each side have actually been made, as lichess applies them. A mate on the
    hundredth half-move is checkmate (``outcome()`` looks at mate first).
    """
    outcome = board.outcome()
    if outcome is not None or board.halfmove_clock < REPETITION_MIN_PLIES:
        return outcome
    if board.halfmove_clock >= FIFTY_MOVE_PLIES:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    if board.is_repetition(3):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    return None


def _is_finished_fast(board: chess.Board) -> bool:
    """``game_over(board) is not None`` for a board known to have legal moves, cheaply."""
    if board.is_insufficient_material():
        return True
    return board.halfmove_clock >= REPETITION_MIN_PLIES and game_over(board) is not None


def _perft(board: chess.Board, depth: int) -> int:
    """Positions at exactly ``depth`` plies below ``board`` (depth >= 1), by push/pop."""
    if _is_finished_fast(board):
        return 0
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += _perft(board, depth - 1)
        board.pop()
    return total


class ChessEngine(Engine):
    """Standard chess under the FIDE Laws, with automatic draws (RULES.md section 1)."""

    game: ClassVar[str] = "chess"
    name: ClassVar[str] = "Chess"

    def variants(self) -> list[VariantInfo]:
        return [VariantInfo("standard", "Standard", "FIDE chess; draws by rule are automatic")]

    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChessState:
        self.resolve_variant(variant)
        self.validate_options(options)
        if position is None or (isinstance(position, str) and not position.strip()):
            fen = STANDARD_FEN
        else:
            fen = read_fen(position).fen()
        return ChessState(fen=fen, ply=0, last_move=None, root=fen)

    def legal_moves(self, state: ChessState) -> list[str]:
        if state._ended is not None:
            return []
        return [move.uci() for move in state._board.legal_moves]

    def play(self, state: ChessState, move: str) -> ChessState:
        ended = state._ended
        if ended is not None:
            raise IllegalMove(f"the game is over ({REASONS[ended.termination]})")
        board = state._board
        return self._advance(state, copy_board(board), parse_move(board, move))

    @staticmethod
    def _advance(state: ChessState, board: chess.Board, move: chess.Move) -> ChessState:
        """The state after the legal ``move``; ``board`` is a private copy of ``state``'s board:
        it gets the move and belongs to the new state from then on."""
        irreversible = board.is_irreversible(move)
        board.push(move)
        fen = fen_of(board)
        uci = move.uci()
        root = state.root
        tail: tuple[str, ...] = ()
        if irreversible:
            root = fen
            board.clear_stack()
        else:
            tail = (*state.tail, uci)
        return ChessState(
            fen=fen,
            ply=state.ply + 1,
            last_move=uci,
            root=root,
            tail=tail,
            cache=(board, game_over(board)),
        )

    def outcome(self, state: ChessState) -> Outcome | None:
        ended = state._ended
        if ended is None:
            return None
        board = state._board
        winner = None if ended.winner is None else side_of(ended.winner)
        highlight: tuple[str, ...] = ()
        if ended.termination == chess.Termination.CHECKMATE:
            king = board.king(board.turn)
            highlight = () if king is None else (chess.square_name(king),)
        return Outcome(winner=winner, reason=REASONS[ended.termination], highlight=highlight)

    def position(self, state: ChessState) -> str:
        return state.fen

    def timeout_outcome(self, state: ChessState, loser: Side) -> Outcome:
        """``loser`` loses on time, but it is a draw when the other side cannot mate (FIDE 6.9)."""
        winner = other(loser)
        if state._board.has_insufficient_material(color_of(winner)):
            return Outcome(winner=None, reason="timeout_vs_insufficient")
        return Outcome(winner=winner, reason="timeout")

    def san(self, state: ChessState, move: str) -> str:
        """The SAN of a legal ``move`` (UCI or SAN) in ``state``, e.g. for a move list."""
        board = state.board()
        return board.san(parse_move(board, move))

    def record(self, info: RecordInfo) -> str:
        """PGN: seven tag roster, Termination, TimeControl, FEN/SetUp, SAN moves, ``[%clk]``."""
        self.resolve_variant(info.variant)
        start = read_fen(info.start) if info.start.strip() else chess.Board()
        return write_pgn(info, start)

    def from_record(
        self,
        text: str,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> ChessState:
        """The final state of a PGN (its first game) or of a FEN; raises :class:`BadPosition`.

        Moves are replayed even past a draw the players could have claimed (FIDE games go on
        after an unclaimed repetition); python-chess has already checked that each is legal.
        Chess has no options of its own: ``options`` are only checked (:class:`BadOption`).
        """
        self.resolve_variant(variant)
        self.validate_options(options)
        if not isinstance(text, str):
            raise BadPosition(f"a record must be PGN or FEN text, not {type(text).__name__}")
        stripped = text.strip()
        if stripped.startswith("{"):
            state: ChessState = super().from_record(stripped, variant, options)
            return state
        words = stripped.split()
        if words and words[0].count("/") == 7:
            return self.start(variant, position=stripped)
        board, moves = read_pgn(stripped)
        # Only the final state is made: a long record (thousands of reversible moves) must not
        # copy its growing history once per move.
        root = fen_of(board)
        tail: list[str] = []
        for move in moves:
            irreversible = board.is_irreversible(move)
            board.push(move)
            if irreversible:
                root, tail = fen_of(board), []
            else:
                tail.append(move.uci())
        final = board.copy(stack=len(tail))
        return ChessState(
            fen=fen_of(final),
            ply=len(moves),
            last_move=moves[-1].uci() if moves else None,
            root=root,
            tail=tuple(tail),
            cache=(final, game_over(final)),
        )

    def perft(self, state: ChessState, depth: int) -> int:
        """Positions at exactly ``depth`` plies, by push/pop on one python-chess board."""
        if depth <= 0:
            return 1
        return _perft(state.board(), depth)


ENGINE = ChessEngine()
"""The chess engine instance the registry serves."""

__all__ = ["ENGINE", "ChessEngine", "ChessState", "game_over"]
