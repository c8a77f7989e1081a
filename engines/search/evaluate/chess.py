"""Chess for the searcher: a python-chess board walked with push/pop, an incremental Zobrist key,
and an evaluation of material, piece-square tables and mobility (centipawns)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator

import chess

from engines.base import Engine
from engines.search.adapter import MATE, ZobristTable

PIECE_VALUE = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

# Piece-square tables from White's view, a8 first (the usual printed layout); mirrored for Black.
_PST_TEXT = {
    chess.PAWN: """
         0   0   0   0   0   0   0   0
        50  50  50  50  50  50  50  50
        10  10  20  30  30  20  10  10
         5   5  10  25  25  10   5   5
         0   0   0  20  20   0   0   0
         5  -5 -10   0   0 -10  -5   5
         5  10  10 -20 -20  10  10   5
         0   0   0   0   0   0   0   0""",
    chess.KNIGHT: """
       -50 -40 -30 -30 -30 -30 -40 -50
       -40 -20   0   0   0   0 -20 -40
       -30   0  10  15  15  10   0 -30
       -30   5  15  20  20  15   5 -30
       -30   0  15  20  20  15   0 -30
       -30   5  10  15  15  10   5 -30
       -40 -20   0   5   5   0 -20 -40
       -50 -40 -30 -30 -30 -30 -40 -50""",
    chess.BISHOP: """
       -20 -10 -10 -10 -10 -10 -10 -20
       -10   0   0   0   0   0   0 -10
       -10   0   5  10  10   5   0 -10
       -10   5   5  10  10   5   5 -10
       -10   0  10  10  10  10   0 -10
       -10  10  10  10  10  10  10 -10
       -10   5   0   0   0   0   5 -10
       -20 -10 -10 -10 -10 -10 -10 -20""",
    chess.ROOK: """
         0   0   0   0   0   0   0   0
         5  10  10  10  10  10  10   5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
        -5   0   0   0   0   0   0  -5
         0   0   0   5   5   0   0   0""",
    chess.QUEEN: """
       -20 -10 -10  -5  -5 -10 -10 -20
       -10   0   0   0   0   0   0 -10
       -10   0   5   5   5   5   0 -10
        -5   0   5   5   5   5   0  -5
         0   0   5   5   5   5   0  -5
       -10   5   5   5   5   5   0 -10
       -10   0   5   0   0   0   0 -10
       -20 -10 -10  -5  -5 -10 -10 -20""",
    chess.KING: """
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -30 -40 -40 -50 -50 -40 -40 -30
       -20 -30 -30 -40 -40 -30 -30 -20
       -10 -20 -20 -20 -20 -20 -20 -10
        20  20   0   0   0   0  20  20
        20  30  10   0   0  10  30  20""",
}
_KING_ENDGAME = """
       -50 -40 -30 -20 -20 -30 -40 -50
       -30 -20 -10   0   0 -10 -20 -30
       -30 -10  20  30  30  20 -10 -30
       -30 -10  30  40  40  30 -10 -30
       -30 -10  30  40  40  30 -10 -30
       -30 -10  20  30  30  20 -10 -30
       -30 -30   0   0   0   0 -30 -30
       -50 -30 -30 -30 -30 -30 -30 -50"""


def _table(text: str) -> tuple[int, ...]:
    rows = [[int(v) for v in line.split()] for line in text.strip().splitlines()]
    # rows[0] is rank 8; python-chess squares run a1=0 .. h8=63.
    return tuple(rows[7 - chess.square_rank(sq)][chess.square_file(sq)] for sq in chess.SQUARES)


PST: dict[chess.PieceType, tuple[int, ...]] = {p: _table(t) for p, t in _PST_TEXT.items()}
KING_ENDGAME_PST = _table(_KING_ENDGAME)
MOBILITY_WEIGHT = {chess.KNIGHT: 4, chess.BISHOP: 4, chess.ROOK: 2, chess.QUEEN: 1}
ENDGAME_MATERIAL = 1300
"""Non-pawn material per side at or below which the king heads for the centre."""

_Z = ZobristTable(seed=64)
_PIECE_KEYS = {
    (piece_type, colour): tuple(_Z[("piece", piece_type, colour, sq)] for sq in chess.SQUARES)
    for piece_type in chess.PIECE_TYPES
    for colour in chess.COLORS
}
_TURN_KEY = _Z["turn"]


def _rights_key(board: chess.Board) -> int:
    return _Z[("castling", board.castling_rights)] ^ (
        _Z[("ep", board.ep_square)] if board.ep_square is not None else 0
    )


def zobrist(board: chess.Board) -> int:
    """The full Zobrist key of ``board`` (the adapter updates it incrementally)."""
    key = _rights_key(board) ^ (_TURN_KEY if board.turn == chess.BLACK else 0)
    for sq, piece in board.piece_map().items():
        key ^= _PIECE_KEYS[(piece.piece_type, piece.color)][sq]
    return key


def evaluate_board(board: chess.Board) -> int:
    """Material, piece-square tables and mobility, in centipawns from White's view."""
    score = 0
    non_pawn = {chess.WHITE: 0, chess.BLACK: 0}
    kings: dict[chess.Color, int] = {}
    occupied_by = board.occupied_co
    for colour in chess.COLORS:
        sign = 1 if colour == chess.WHITE else -1
        own = occupied_by[colour]
        for piece_type in chess.PIECE_TYPES:
            mask = board.pieces_mask(piece_type, colour)
            if not mask:
                continue
            table = PST[piece_type]
            value = PIECE_VALUE[piece_type]
            mobility = MOBILITY_WEIGHT.get(piece_type, 0)
            for sq in chess.scan_forward(mask):
                if piece_type == chess.KING:
                    kings[colour] = sq
                    continue
                index = sq if colour == chess.WHITE else chess.square_mirror(sq)
                score += sign * (value + table[index])
                if piece_type != chess.PAWN:
                    non_pawn[colour] += value
                if mobility:
                    score += sign * mobility * (board.attacks_mask(sq) & ~own).bit_count()
    endgame = max(non_pawn.values()) <= ENDGAME_MATERIAL
    for colour, sq in kings.items():
        index = sq if colour == chess.WHITE else chess.square_mirror(sq)
        table = KING_ENDGAME_PST if endgame else PST[chess.KING]
        score += table[index] if colour == chess.WHITE else -table[index]
    if endgame and len(kings) == 2:
        score += _mop_up(score, kings)
    return score


def _mop_up(score: int, kings: dict[chess.Color, int]) -> int:
    """When one side is well ahead in the endgame: drive the other king to the edge and close in
    with the own king, so won endgames are actually mated."""
    if abs(score) < 300:
        return 0
    winner = chess.WHITE if score > 0 else chess.BLACK
    loser_king, winner_king = kings[not winner], kings[winner]
    file, rank = chess.square_file(loser_king), chess.square_rank(loser_king)
    centre = max(3 - file, file - 4) + max(3 - rank, rank - 4)
    closeness = 14 - chess.square_manhattan_distance(loser_king, winner_king)
    bonus = 10 * centre + 4 * closeness
    return bonus if winner == chess.WHITE else -bonus


LEGAL_CACHE_POSITIONS = 100_000
"""Positions whose legal moves one search keeps (cleared when full)."""
_MOVES: dict[int, chess.Move] = {}
"""One shared :class:`chess.Move` per (from, to, promotion): the legal-move cache and the
transposition table hold references to these, not a fresh object per generated move (at about
200 bytes each, those kept a level-8 bot at 230 MB after its first move, never given back)."""


def _shared(moves: Iterator[chess.Move]) -> list[chess.Move]:
    """``moves`` as the shared :data:`_MOVES` objects (equal moves, in the same order)."""
    shared = _MOVES
    found = []
    for move in moves:
        key = (
            move.from_square | move.to_square << 6 | (move.promotion or 0) << 12
        ) | (move.drop or 0) << 15
        one = shared.get(key)
        if one is None:
            one = shared.setdefault(key, move)
        found.append(one)
    return found


class ChessAdapter:
    """A mutable chess position for the searcher; moves are :class:`chess.Move` objects."""

    has_captures = True

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        self.keys = [zobrist(board)]
        self._legal: dict[int, list[chess.Move]] = {}

    def key(self) -> int:
        """Incremental Zobrist key."""
        return self.keys[-1]

    def _legal_moves(self) -> list[chess.Move]:
        key = self.keys[-1]
        found = self._legal.get(key)
        if found is None:
            if len(self._legal) > LEGAL_CACHE_POSITIONS:
                self._legal.clear()
            found = self._legal[key] = _shared(self.board.generate_legal_moves())
        return found

    def moves(self) -> list[Hashable]:
        """All legal moves."""
        return list(self._legal_moves())

    def noisy_moves(self) -> list[Hashable]:
        """Legal captures and promotions."""
        board = self.board
        return [m for m in self._legal_moves() if m.promotion or board.is_capture(m)]

    def is_noisy(self, move: Hashable) -> bool:
        """Captures and promotions."""
        assert isinstance(move, chess.Move)
        return bool(move.promotion) or self.board.is_capture(move)

    def order_hint(self, move: Hashable) -> int:
        """MVV-LVA: the most valuable victim by the least valuable attacker first."""
        assert isinstance(move, chess.Move)
        board = self.board
        victim = board.piece_type_at(move.to_square)
        if victim is None:
            victim = chess.PAWN if board.is_en_passant(move) else None
        attacker = board.piece_type_at(move.from_square) or chess.PAWN
        hint = 0
        if victim is not None:
            hint = 10 * PIECE_VALUE[victim] - PIECE_VALUE[attacker] // 10 + 1000
        if move.promotion:
            hint += PIECE_VALUE[move.promotion]
        return hint

    def push(self, move: Hashable) -> None:
        """Make ``move`` and update the key."""
        assert isinstance(move, chess.Move)
        board = self.board
        key = self.keys[-1] ^ _rights_key(board) ^ _TURN_KEY
        mover = board.turn
        piece_type = board.piece_type_at(move.from_square) or chess.PAWN
        key ^= _PIECE_KEYS[(piece_type, mover)][move.from_square]
        if board.is_en_passant(move):
            captured_sq = move.to_square + (-8 if mover == chess.WHITE else 8)
            key ^= _PIECE_KEYS[(chess.PAWN, not mover)][captured_sq]
        else:
            captured = board.piece_type_at(move.to_square)
            if captured is not None:
                key ^= _PIECE_KEYS[(captured, not mover)][move.to_square]
        if piece_type == chess.KING and board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
            rook_from = chess.square(7 if kingside else 0, rank)
            rook_to = chess.square(5 if kingside else 3, rank)
            rook_keys = _PIECE_KEYS[(chess.ROOK, mover)]
            key ^= rook_keys[rook_from] ^ rook_keys[rook_to]
        key ^= _PIECE_KEYS[(move.promotion or piece_type, mover)][move.to_square]
        board.push(move)
        self.keys.append(key ^ _rights_key(board))

    def pop(self) -> None:
        """Take back the last move."""
        self.board.pop()
        self.keys.pop()

    def terminal(self, ply: int) -> int | None:
        """Mate, stalemate, insufficient material, a repetition or the fifty-move rule."""
        board = self.board
        if not self._legal_moves():
            return -(MATE - ply) if board.is_check() else 0
        if board.is_insufficient_material():
            return 0
        if board.halfmove_clock >= 100:
            return 0
        if ply > 0 and board.halfmove_clock >= 4 and board.is_repetition(2):
            return 0
        return None

    def evaluate(self) -> int:
        """Centipawns from the side to move's view."""
        score = evaluate_board(self.board)
        return score if self.board.turn == chess.WHITE else -score

    def notation(self, move: Hashable) -> str:
        """UCI."""
        assert isinstance(move, chess.Move)
        return move.uci()


def make_adapter(engine: Engine, state: object) -> ChessAdapter:
    """The searcher's view of a chess state (with its repetition history when it has one)."""
    board_of = getattr(state, "board", None)
    board = board_of() if callable(board_of) else chess.Board(engine.position(state))
    assert isinstance(board, chess.Board)
    return ChessAdapter(board)


def evaluate(engine: Engine, state: object, side: str) -> int:
    """Centipawns from ``side``'s view."""
    board = chess.Board(engine.position(state))
    score = evaluate_board(board)
    return score if side == "first" else -score
