"""Move text -> python-chess ``Move``: UCI (canonical) or SAN, refused with a usable reason.

Parsing never re-implements the rules: the text is turned into a candidate and matched against the
legal moves python-chess generates (``parse_uci`` / ``parse_san``). What went wrong decides the
message: text that is no move at all, a move that is not legal here (and why), or SAN that fits
several legal moves (and which).
"""

from __future__ import annotations

import re

import chess

from engines.base import IllegalMove

MAX_MOVE_TEXT = 16
"""The longest SAN is ``Qa1xb2=Q+`` style; anything much longer is refused unread."""

_UCI_RE = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
_HELP = "write UCI like e2e4 or e7e8q, or SAN like Nf3, O-O, exd8=Q+"
_NULL_MOVES = frozenset({"0000", "--", "Z0", "@@@@"})
_CASTLING_TARGETS = (chess.C1, chess.G1, chess.C8, chess.G8)


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """Return the legal move ``text`` names in ``board``; raises :class:`IllegalMove`.

    >>> parse_move(chess.Board(), "Nf3").uci()
    'g1f3'
    """
    if not isinstance(text, str):
        raise IllegalMove(f"a move must be text, not {type(text).__name__}: {_HELP}")
    move_text = text.strip()
    if len(move_text) > MAX_MOVE_TEXT:
        raise IllegalMove(f"{move_text[:MAX_MOVE_TEXT]!r}... is not a chess move: {_HELP}")
    if not move_text or move_text in _NULL_MOVES:
        raise IllegalMove(f"{move_text!r} is not a chess move: {_HELP}")
    if _UCI_RE.match(move_text):
        return _parse_uci(board, move_text)
    return _parse_san(board, move_text)


def _parse_uci(board: chess.Board, text: str) -> chess.Move:
    if text[:2] == text[2:4]:
        raise IllegalMove(f"{text} is not a chess move: a piece must leave its square")
    try:
        move = board.parse_uci(text)
    except chess.IllegalMoveError:
        raise IllegalMove(
            f"{text} is not legal here: {why_illegal(board, text)} (position {board.fen()})"
        ) from None
    except ValueError:  # chess.InvalidMoveError
        raise IllegalMove(f"{text!r} is not a chess move: {_HELP}") from None
    return move


def _parse_san(board: chess.Board, text: str) -> chess.Move:
    try:
        move = board.parse_san(text)
    except chess.AmbiguousMoveError:
        choices = ", ".join(sorted(m.uci() for m in san_candidates(board, text)))
        raise IllegalMove(
            f"{text} is ambiguous here: it fits {choices}; add the file or rank of the piece "
            f"that moves, or send the UCI move (position {board.fen()})"
        ) from None
    except chess.IllegalMoveError:
        raise IllegalMove(
            f"{text} is not legal here: no legal move fits it (position {board.fen()})"
        ) from None
    except ValueError:  # chess.InvalidMoveError and anything else the SAN parser refuses
        raise IllegalMove(f"{text!r} is not a chess move: {_HELP}") from None
    if not move:  # python-chess reads some null-move spellings as SAN
        raise IllegalMove(f"{text!r} is not a chess move: {_HELP}")
    return move


def why_illegal(board: chess.Board, uci: str) -> str:
    """The reason the well-formed UCI move ``uci`` is not legal in ``board``."""
    move = chess.Move.from_uci(uci)
    mover = "White" if board.turn == chess.WHITE else "Black"
    piece = board.piece_at(move.from_square)
    from_name = chess.square_name(move.from_square)
    if piece is None:
        return f"there is no piece on {from_name}"
    if piece.color != board.turn:
        return f"it is {mover}'s move and the piece on {from_name} is not {mover}'s"
    last_rank = chess.BB_RANK_8 if board.turn == chess.WHITE else chess.BB_RANK_1
    reaches_last_rank = bool(chess.BB_SQUARES[move.to_square] & last_rank)
    if piece.piece_type == chess.PAWN and reaches_last_rank and move.promotion is None:
        promoting = chess.Move(move.from_square, move.to_square, chess.QUEEN)
        if board.is_legal(promoting):
            return "a pawn reaching the last rank must promote: add q, r, b or n (e.g. " + (
                promoting.uci() + ")"
            )
    if move.promotion is not None and (piece.piece_type != chess.PAWN or not reaches_last_rank):
        return "only a pawn reaching the last rank promotes"
    distance = chess.square_distance(move.from_square, move.to_square)
    if piece.piece_type == chess.KING and distance > 1:
        return (
            "castling is not possible now (it needs the right to castle, empty squares between "
            "king and rook, and no check on the king's path)"
            if move.from_square in (chess.E1, chess.E8) and move.to_square in _CASTLING_TARGETS
            else "a king moves one square (castle with e1g1, e1c1, e8g8 or e8c8)"
        )
    if board.is_pseudo_legal(move):
        if board.is_check():
            return f"{mover}'s king is in check and this move does not parry it"
        return f"it would leave {mover}'s king in check"
    return f"the {chess.piece_name(piece.piece_type)} on {from_name} cannot move there"


def san_candidates(board: chess.Board, text: str) -> list[chess.Move]:
    """The legal moves an ambiguous SAN ``text`` could mean (piece, target and any hint agree)."""
    match = chess.SAN_REGEX.match(text)
    if match is None:
        return []
    piece_type = chess.PIECE_SYMBOLS.index(match.group(1).lower()) if match.group(1) else chess.PAWN
    to_square = chess.parse_square(match.group(4))
    found = []
    for move in board.legal_moves:
        if move.to_square != to_square or board.piece_type_at(move.from_square) != piece_type:
            continue
        if match.group(2) and chess.square_file(move.from_square) != "abcdefgh".index(
            match.group(2)
        ):
            continue
        if match.group(3) and chess.square_rank(move.from_square) != int(match.group(3)) - 1:
            continue
        found.append(move)
    return found
