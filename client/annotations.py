"""What the board shows besides the pieces: the checked king, and the pieces each side captured.

Both are read from engine states through the renderer's ``pieces_of`` (the normative position
string), so no rule is re-implemented here:

>>> check_squares("chess", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
('e1',)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client.boards.base import BoardView
from engines.base import SIDES

CHESS_ORDER = "qrbnp"
"""Captured chess pieces are listed queen first."""
CHESS_VALUES = {"q": 9, "r": 5, "b": 3, "n": 3, "p": 1}


def check_squares(game: str, position: str | None) -> tuple[str, ...]:
    """The square of the king in check in a chess position (empty when none, or not chess)."""
    if game != "chess" or not position:
        return ()
    import chess

    try:
        board = chess.Board(position)
    except ValueError:
        return ()
    king = board.king(board.turn)
    if king is None or not board.is_check():
        return ()
    return (chess.square_name(king),)


def material_edge(game: str, pieces: dict[str, tuple[str | None, str]]) -> dict[str, int]:
    """Chess material ahead (pawn = 1 ... queen = 9) per seat, only for the side ahead."""
    if game != "chess":
        return {}
    total = dict.fromkeys(SIDES, 0)
    for owner, code in pieces.values():
        if owner in total:
            total[owner] += CHESS_VALUES.get(code.lower(), 0)
    diff = total["first"] - total["second"]
    if diff > 0:
        return {"first": diff}
    if diff < 0:
        return {"second": -diff}
    return {}


def sort_key(game: str, code: str) -> tuple[int, str]:
    """Display order of captured pieces: chess by value, others by their code."""
    if game == "chess" and code.lower() in CHESS_ORDER:
        return CHESS_ORDER.index(code.lower()), code
    return 0, code


def taken(
    before: dict[str, tuple[str | None, str]],
    after: dict[str, tuple[str | None, str]],
    mover: str,
) -> list[str]:
    """Codes of the pieces not of ``mover`` present ``before`` a move and gone ``after`` it."""
    lost = Counter(code for owner, code in before.values() if owner != mover)
    lost.subtract(code for owner, code in after.values() if owner != mover)
    return sorted(code for code, n in lost.items() for _ in range(max(0, n)))


@dataclass
class CaptureTracker:
    """The pieces each seat has captured in a room's game, kept in step move by move.

    ``update`` replays the game from its start only when the moves are not the previous ones
    plus new moves (a snapshot, an undo, a new game); otherwise it plays just the new moves.
    """

    captured: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SIDES})
    pieces: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    """The current position's pieces (point -> (owner, code))."""
    _key: tuple[Any, ...] = ()
    _moves: list[str] = field(default_factory=list)
    _state: Any = None

    def update(self, view: BoardView, engine: Any, game_key: tuple[Any, ...],
               moves: list[str], start: Callable[[], Any]) -> None:
        """Follow ``moves`` played from ``start()`` (the engine's start state of ``game_key``)."""
        n = len(self._moves)
        if game_key == self._key and moves == self._moves:
            return
        if game_key == self._key and moves[:n] == self._moves and self._state is not None:
            todo, state = moves[n:], self._state
        else:
            self._key, self.captured, self.pieces = game_key, {s: [] for s in SIDES}, {}
            todo = list(moves)
            try:
                state = start()
                self.pieces = view.pieces_of(state)
            except Exception:  # no start state: nothing to count
                state = None
        self._moves, self._state = list(moves), None
        if state is None:
            return
        try:
            for move in todo:
                mover = state.turn
                after = engine.play(state, move)
                now = view.pieces_of(after)
                if mover in self.captured:
                    self.captured[mover].extend(taken(self.pieces, now, mover))
                state, self.pieces = after, now
        except Exception:  # a move this client cannot follow: keep what is known so far
            return
        self._state = state
