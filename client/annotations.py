"""What the board shows besides the pieces: the checked king, and the pieces each side captured.

Both are read from engine states through the renderer's ``pieces_of`` (the normative position
string), so no rule is re-implemented here:

>>> check_squares("chess", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
('e1',)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from client.boards.base import BoardView
from engines.base import SIDES, BadPosition

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


def threatened_captains(engine: Any, variant: str | None, position: str | None,
                        captains: set[str]) -> tuple[str, ...]:
    """Custom variants: which of ``captains`` (the side to move's captain squares, ``r,c``) the
    opponent could take if it were its move, as the variant's own rules say (its "check").

    The position string (``VARIANT;TURN;NEUTRALS;GRID``) is read back with the turn handed to
    the opponent, and its legal moves are asked of the engine.
    """
    parts = position.split(";") if position else []
    if len(parts) != 4 or parts[1] not in SIDES or not captains:
        return ()
    other = "second" if parts[1] == "first" else "first"
    try:
        state = engine.start(variant, position=";".join((parts[0], other, parts[2], parts[3])))
        targets = {move.rsplit("-", 1)[-1].split("=")[0] for move in engine.legal_moves(state)}
    except BadPosition as exc:
        # Variants with the xiangqi module refuse a position whose side not to move has its
        # captain attacked: handing the turn over refused for that reason is the check.
        return tuple(sorted(captains)) if "captain attacked" in str(exc) else ()
    except Exception:  # a position the engine will not take with the turn handed over
        return ()
    return tuple(sorted(captains & targets))


def position_highlight(game: str, variant: str | None, engine: Any, state: Any,
                       view: BoardView | None) -> tuple[str, ...]:
    """What to emphasise in a position of a game: its winning line (or whatever its end
    marks), else a checked chess king, else a custom game's threatened captains (which needs
    the board ``view`` to find them). Empty when nothing, or when the engine cannot judge it.

    Shared by the replay and the room's browsed positions."""
    found: tuple[str, ...] = ()
    try:
        outcome = engine.outcome(state)
        if outcome is not None:
            found = tuple(outcome.highlight)
        found = found or check_marks(game, variant, engine, state, view)
    except Exception:  # a position this client cannot judge: no marks
        return found
    return found


def check_marks(game: str, variant: str | None, engine: Any, state: Any,
                view: BoardView | None) -> tuple[str, ...]:
    """The side to move's checked chess king, or a custom game's threatened captains (found
    through the board ``view``); empty for other games. Raises what the engine raises.

    Shared by :func:`position_highlight` and the room's check sound."""
    position = engine.position(state)
    found = check_squares(game, position)
    if not found and game == "custom" and view is not None:
        found = threatened_captains(engine, variant, position, view.captains_of(state, state.turn))
    return found


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

    It reads the room's ``history`` (engine states from the start, one per move followed), so
    no move is played twice; only new states are compared unless the game changed (a snapshot,
    an undo, a rematch), when every state is compared again.
    """

    captured: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SIDES})
    pieces: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    """The latest position's pieces (point -> (owner, code))."""
    _key: tuple[Any, ...] = ()
    _seen: list[Any] = field(default_factory=list)

    def update(self, view: BoardView, game_key: tuple[Any, ...], history: list[Any]) -> None:
        """Follow ``history`` (states of the game named by ``game_key``, start first)."""
        n = len(self._seen)
        if game_key == self._key and len(history) == n and (not n or history[-1] is self._seen[-1]):
            return
        if game_key != self._key or history[:n] != self._seen or not n:
            self._key, self.captured, self._seen = game_key, {s: [] for s in SIDES}, []
            self.pieces = {}
            if not history:
                return
            try:
                self.pieces = view.pieces_of(history[0])
            except Exception:  # a position this renderer cannot read: nothing to count
                return
            self._seen = [history[0]]
        try:
            for before, after in zip(history[len(self._seen) - 1:], history[len(self._seen):],
                                     strict=False):
                now = view.pieces_of(after)
                mover = getattr(before, "turn", None)
                if mover in self.captured:
                    self.captured[mover].extend(taken(self.pieces, now, mover))
                self.pieces = now
                self._seen.append(after)
        except Exception:  # a position this client cannot read: keep what is known so far
            return
