"""FEN reading for Boardhall chess: a position is accepted only when python-chess finds it valid.

``Board.status()`` lists *every* problem of a set-up position at once (as an ``IntFlag``), so the
error names them all instead of the first one found.
"""

from __future__ import annotations

import chess

from engines.base import BadPosition

MAX_FEN_TEXT = 200
"""A FEN is at most ~90 characters; longer text is refused before parsing."""

STANDARD_FEN = chess.STARTING_FEN

_STATUS_TEXT: dict[chess.Status, str] = {
    chess.STATUS_NO_WHITE_KING: "White has no king",
    chess.STATUS_NO_BLACK_KING: "Black has no king",
    chess.STATUS_TOO_MANY_KINGS: "a side has more than one king",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "White has more than 8 pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "Black has more than 8 pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "pawns stand on the first or eighth rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "White has more than 16 pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "Black has more than 16 pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: (
        "castling rights name a king or rook that is not on its home square"
    ),
    chess.STATUS_INVALID_EP_SQUARE: (
        "the en passant square is not behind a pawn that just moved two squares"
    ),
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_TOO_MANY_CHECKERS: "the king is checked by more than two pieces",
    chess.STATUS_IMPOSSIBLE_CHECK: "the check on the king cannot arise from any legal last move",
}


def status_problems(status: chess.Status) -> list[str]:
    """Human descriptions of every problem flagged in ``status`` (empty when valid)."""
    problems = [text for flag, text in _STATUS_TEXT.items() if status & flag]
    known = 0
    for flag in _STATUS_TEXT:
        known |= flag
    if status & ~known:
        problems.append(f"python-chess status flags {int(status & ~known)}")
    return problems


def read_fen(fen: str) -> chess.Board:
    """Return the standard-chess board of ``fen``; raises :class:`BadPosition` naming each problem.

    >>> read_fen("8/8/8/8/8/8/8/K6k w - - 0 1").fen()
    '8/8/8/8/8/8/8/K6k w - - 0 1'
    """
    if not isinstance(fen, str):
        raise BadPosition(f"a FEN must be text, not {type(fen).__name__}")
    text = fen.strip()
    if len(text) > MAX_FEN_TEXT:
        raise BadPosition(f"a FEN has at most {MAX_FEN_TEXT} characters, got {len(text)}")
    if not text:
        raise BadPosition("empty FEN: give a position like " + STANDARD_FEN)
    fields = text.split()
    if len(fields) < 4:
        # python-chess fills in White to move, no castling rights and no en passant square:
        # a guess. Only the two counters may be left out (EPD style: 0 and 1).
        missing = ", ".join(("side to move", "castling", "en passant")[len(fields) - 1 :])
        raise BadPosition(
            f"bad FEN {text!r}: missing: {missing} (a FEN is placement, side to move, castling,"
            f" en passant and optionally the two move counters, e.g. {STANDARD_FEN})"
        )
    try:
        board = chess.Board(text, chess960=False)
    except ValueError as exc:
        raise BadPosition(f"bad FEN {text!r}: {exc}") from exc
    problems = status_problems(board.status())
    if problems:
        raise BadPosition(f"impossible chess position {text!r}: {'; '.join(problems)}")
    return board


_PIECE_BITBOARDS = (
    ("pawns", "P", "p"),
    ("knights", "N", "n"),
    ("bishops", "B", "b"),
    ("rooks", "R", "r"),
    ("queens", "Q", "q"),
    ("kings", "K", "k"),
)
_RUNS = tuple(("1" * n, str(n)) for n in range(8, 1, -1))


def fen_of(board: chess.Board) -> str:
    """``board.fen()`` of a standard-chess board, several times faster.

    python-chess builds the placement square by square (``piece_at`` 64 times); this reads the
    twelve piece bitboards instead. Castling, en passant (only when legal) and the counters are
    exactly python-chess's.

    >>> fen_of(chess.Board()) == chess.STARTING_FEN
    True
    """
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    for name, upper, lower in _PIECE_BITBOARDS:
        pieces: int = getattr(board, name)
        for square in chess.scan_forward(pieces & white):
            cells[square ^ 56] = upper
        for square in chess.scan_forward(pieces & black):
            cells[square ^ 56] = lower
    placement = "/".join("".join(cells[start : start + 8]) for start in range(0, 64, 8))
    for run, count in _RUNS:
        placement = placement.replace(run, count)
    castling = board.castling_xfen() if board.castling_rights else "-"
    ep = board.ep_square if board.ep_square is not None and board.has_legal_en_passant() else None
    return (
        f"{placement} {'w' if board.turn == chess.WHITE else 'b'} {castling} "
        f"{'-' if ep is None else chess.SQUARE_NAMES[ep]} "
        f"{board.halfmove_clock} {board.fullmove_number}"
    )
