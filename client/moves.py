"""Turning clicks on board points into moves, from the engine's list of legal moves.

The engine decides what is legal; this module only reads the canonical move strings, so the client
never re-implements a rule. Every game's notation is split into an origin, the points it passes
and a suffix (chess promotion piece, number chess expression):

>>> shape("chess", "e7e8q")
MoveShape(text='e7e8q', origin='e7', path=('e8',), suffix='q')
>>> shape("draughts", "28x19x10").path
('19', '10')
>>> shape("shuqi", "13,8-10,5=6+3").suffix
'6+3'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

_UCI = re.compile(r"^([a-h][1-8])([a-h][1-8])([qrbn]?)$")


@dataclass(frozen=True)
class MoveShape:
    """A move split into points: placement games have no ``origin``."""

    text: str
    origin: str | None
    path: tuple[str, ...]
    """Every point the piece lands on, in order; the last is the target."""
    suffix: str = ""

    @property
    def target(self) -> str:
        """The final point."""
        return self.path[-1] if self.path else ""


def shape(game: str, move: str) -> MoveShape:
    """Split a canonical move of ``game`` into points."""
    if game == "hexgomoku":
        return MoveShape(move, None, (move,))
    if game == "chess":
        m = _UCI.match(move)
        if m:
            return MoveShape(move, m.group(1), (m.group(2),), m.group(3))
        return MoveShape(move, None, (move,))
    if game == "draughts":
        squares = [s for s in re.split(r"[-x]", move) if s]
        if len(squares) >= 2:
            return MoveShape(move, squares[0], tuple(squares[1:]))
        return MoveShape(move, None, (move,))
    body, _, suffix = move.partition("=")
    if "-" in body:
        origin, _, target = body.partition("-")
        return MoveShape(move, origin, (target,), suffix)
    return MoveShape(move, None, (body,), suffix)


def points_of(game: str, move: str | None) -> tuple[str, ...]:
    """The points a move touches (origin first), for the last-move marks."""
    if not move:
        return ()
    s = shape(game, move)
    return ((s.origin,) if s.origin else ()) + s.path


def move_path(game: str, engine: Any, before: Any, move: str | None) -> tuple[str, ...]:
    """The points a move's piece passes through, origin first: :func:`points_of`, except that
    a draughts capture written start-and-end (``28x10``) gets its landing squares from the
    engine's legal moves of ``before`` (the first path, when two take the same pieces)."""
    points = points_of(game, move)
    if game != "draughts" or len(points) != 2 or engine is None or before is None:
        return points
    try:
        shapes = legal_shapes(game, engine, before)
    except Exception:
        return points
    for found in shapes:
        if found.text == move and found.origin == points[0] and found.target == points[-1]:
            return (found.origin, *found.path)
    return points


class PathMemo:
    """:func:`move_path` of the move asked for last, kept while it is asked again (a board
    draws a move's marks every frame; a draughts capture's landings ask the engine)."""

    def __init__(self) -> None:
        self._asked: tuple[str, Any, str | None] | None = None
        self._path: tuple[str, ...] = ()

    def path(self, game: str, engine: Any, before: Any, move: str | None) -> tuple[str, ...]:
        """:func:`move_path` of ``move`` played on ``before``."""
        asked = self._asked
        if asked is None or asked[0] != game or asked[1] is not before or asked[2] != move:
            self._path = move_path(game, engine, before, move)
            self._asked = (game, before, move)
        return self._path


def legal_shapes(game: str, engine: Any, state: Any) -> list[MoveShape]:
    """The legal moves of ``state`` as shapes.

    For draughts every capture path the engine knows becomes its own shape (same text), so the
    user may click the landing squares in order even when the canonical text is the short form.
    """
    texts = list(engine.legal_moves(state))
    if game == "chess":
        return [shape(game, t) for t in texts] + castling_onto_rooks(engine.position(state), texts)
    moves_of = getattr(engine, "moves", None) if game == "draughts" else None
    if moves_of is None:
        return [shape(game, t) for t in texts]
    allowed = set(texts)
    shapes: list[MoveShape] = []
    for move in moves_of(state):
        text = getattr(move, "text", None)
        if not isinstance(text, str) or text not in allowed:
            continue
        for path in getattr(move, "paths", ()) or ():
            if len(path) >= 2:
                shapes.append(MoveShape(text, str(path[0]), tuple(str(p) for p in path[1:])))
    return shapes or [shape(game, t) for t in texts]


def castling_onto_rooks(fen: str, texts: Iterable[str]) -> list[MoveShape]:
    """Each castling among the legal moves ``texts`` of the chess position ``fen`` once more,
    entered as the king taken onto its rook (``e1`` then ``h1`` is ``e1g1``), as lichess
    allows by default."""
    import chess

    board = chess.Board(fen)
    found = []
    for text in texts:
        move = chess.Move.from_uci(text)
        if board.is_castling(move):
            rook = ("h" if board.is_kingside_castling(move) else "a") + text[3]
            found.append(MoveShape(text, text[:2], (rook,)))
    return found


def shorter_captures(engine: Any, state: Any) -> list[MoveShape]:
    """Draughts: every path of the captures the majority rule forbids in ``state``, from the
    engine's ``shorter_captures``; empty for an engine without them or one that cannot tell."""
    listed = getattr(engine, "shorter_captures", None)
    if listed is None:
        return []
    try:
        return [
            MoveShape(move.text, str(path[0]), tuple(str(p) for p in path[1:]))
            for move in listed(state)
            for path in move.paths
        ]
    except Exception:  # a position this engine cannot judge: no reason to give
        return []


PickKind = Literal["none", "select", "pending", "send", "choose", "expression", "illegal"]


@dataclass
class Pick:
    """What a click meant.

    ``send``: send ``moves[0]``. ``choose``: ask which of ``moves`` (promotion piece).
    ``expression``: a number chess span: ask for the expression (``moves[0]`` holds a valid one,
    the hint). ``select``/``pending``: a piece or part of a capture path is chosen, wait for more.
    ``illegal``: ``message`` says why nothing happened.
    """

    kind: PickKind
    moves: list[str] = field(default_factory=list)
    message: str = ""
    shapes: list[MoveShape] = field(default_factory=list)
    """For ``send`` and ``choose``: the shapes of ``moves`` (the points the user entered)."""


class MovePicker:
    """Click-by-click move selection for one position."""

    def __init__(self, game: str, legal: Iterable[str | MoveShape] = ()) -> None:
        self.game = game
        self.shapes: list[MoveShape] = []
        self.selected: str | None = None
        self.partial: list[str] = []
        self.own: frozenset[str] = frozenset()
        """Points holding the mover's pieces: a click there keeps the selection and says why
        that piece cannot move (the room sets it from the board)."""
        self.shorter: list[MoveShape] = []
        """Draughts: the captures the majority rule forbids (the room sets them from the
        engine), to say why a click that would play one does not."""
        self.reset(legal)

    def reset(self, legal: Iterable[str | MoveShape]) -> None:
        """Use a new list of legal moves (a new position) and clear the selection."""
        self.shapes = [m if isinstance(m, MoveShape) else shape(self.game, m) for m in legal]
        self.clear()

    def clear(self) -> None:
        """Forget the selection."""
        self.selected = None
        self.partial = []

    @property
    def at(self) -> str | None:
        """Where the selected piece stands while its move is entered: its origin, or the last
        landing square of a capture being entered (a press there drags it on)."""
        return self.partial[-1] if self.partial else self.selected

    @property
    def placement(self) -> bool:
        """True when moves put a stone on a point (no origin)."""
        return bool(self.shapes) and all(s.origin is None for s in self.shapes)

    def origins(self) -> set[str]:
        """Points that have a piece with a legal move."""
        return {s.origin for s in self.shapes if s.origin is not None}

    def _candidates(self) -> list[MoveShape]:
        n = len(self.partial)
        return [
            s for s in self.shapes
            if s.origin == self.selected and s.path[:n] == tuple(self.partial)
        ]

    def targets(self) -> frozenset[str]:
        """Where a click continues the current selection (for the board's marks)."""
        if self.placement:
            return frozenset(s.target for s in self.shapes)
        if self.selected is None:
            return frozenset()
        n = len(self.partial)
        found: set[str] = set()
        for s in self._candidates():
            found.add(s.target)
            if len(s.path) > n:
                found.add(s.path[n])
        return frozenset(found)

    def click(self, point: str | None) -> Pick:
        """Handle a click on ``point`` (``None``: outside the board)."""
        if point is None:
            self.clear()
            return Pick("none")
        if not self.shapes:
            return Pick("illegal", message="No move is possible here now.")
        if self.placement:
            for s in self.shapes:
                if s.target == point:
                    return Pick("send", [s.text], shapes=[s])
            return Pick("illegal", message=f"{point} is not a legal point to play.")
        if self.selected is None or (point == self.selected and not self.partial):
            return self._select(point)
        ends = [s for s in self._candidates() if s.target == point]
        n = len(self.partial)
        continuing = [s for s in self._candidates() if len(s.path) > n + 1 and s.path[n] == point]
        ending = {s.text for s in ends}
        if not ends and self.partial and point == self.partial[-1]:  # the piece stands there
            return Pick("pending", message="Click the next landing square.")
        if ends and any(s.text not in ending for s in continuing):
            # A capture ends here and another only passes (37x28 in a circle, 37x26 through
            # 28): playing the first would take the choice away. Wait for the next square.
            self.partial.append(point)
            return Pick("pending",
                        message=f"Click {point} again to end there, or the next square.")
        if ends:
            result = self._finish(ends)
            if result is not None:
                return result
        if continuing:
            self.partial.append(point)
            return Pick("pending", message="Click the next landing square.")
        if ends:
            return Pick("illegal", message="Several captures end there: click the landing "
                        "squares in order.")
        if point in self.origins():
            return self._select(point)
        if self.partial:  # halfway through a capture: keep the path, say what is expected
            return Pick("illegal", message="Not a landing square of this capture: click one of "
                        f"{', '.join(sorted(self.targets(), key=_point_order))}.")
        if point in self.own:
            return Pick("illegal", message=self._no_move_from(point))
        short = [s for s in self.shorter if s.origin == self.selected and s.target == point]
        if short:  # the selection stays: the longer capture is still to be entered
            return Pick("illegal", message=self._too_few(f"{self.selected}x{point}", short))
        self.clear()
        return Pick("none")

    def _no_move_from(self, point: str) -> str:
        """Why the player's own piece on ``point`` cannot move: in draughts, which piece must
        capture, and when ``point`` could capture fewer pieces, that the most must be taken."""
        if self.game == "draughts" and self.shapes and all("x" in s.text for s in self.shapes):
            short = [s for s in self.shorter if s.origin == point]
            if short:
                return self._too_few(point, short)
            origins = ", ".join(sorted(self.origins(), key=_point_order))
            if self.own and point not in self.own:  # an empty square or an opponent's piece
                return f"A capture is compulsory (from {origins})."
            return f"{point} cannot move: a capture is compulsory (from {origins})."
        return f"No legal move starts at {point}."

    def _too_few(self, what: str, short: list[MoveShape]) -> str:
        """Why ``what`` (a piece, or a capture written start x end) does not play: the captures
        ``short`` it would make take fewer pieces than the majority rule demands."""
        taken = max(len(s.path) for s in short)  # a jump per piece taken
        most = max(len(s.path) for s in self.shapes)
        origins = ", ".join(sorted(self.origins(), key=_point_order))
        pieces = "piece" if taken == 1 else "pieces"
        return f"{what} takes only {taken} {pieces}: take the most pieces ({most}, from {origins})."

    def _select(self, point: str) -> Pick:
        if self.selected == point:
            self.clear()
            return Pick("none")
        if point in self.origins():
            self.selected = point
            self.partial = []
            return Pick("select")
        self.clear()
        return Pick("illegal", message=self._no_move_from(point))

    def _finish(self, ends: list[MoveShape]) -> Pick | None:
        if len({s.text for s in ends}) == 1:
            only = ends[0]
            self.clear()
            if self.game == "shuqi" and only.suffix:
                return Pick("expression", [only.text])
            return Pick("send", [only.text], shapes=[only])
        suffixes = {s.suffix for s in ends}
        if len(suffixes) == len(ends):
            self.clear()
            return Pick("choose", [s.text for s in ends], shapes=list(ends))
        # Same end square reached by different paths: the user must click the landing squares.
        return None


def _point_order(point: str) -> tuple[int, int, str]:
    """Numbers sort as numbers (draughts squares), anything else as text after them."""
    return (0, int(point), "") if point.isdigit() else (1, 0, point)


MoveCell = tuple[int | None, str]
"""A move in a move list: its ply index (``None`` for the "…" before a first move played by the
second side) and its text."""


def shortened_path(move: str, fits: Callable[[str], bool]) -> str:
    """A draughts capture path too long for its place with landings left out of its middle:
    the start, then as many of the last squares as ``fits`` allows (the end square always).
    Anything that fits, or is not a path of three squares or more, is given back as it is.

    >>> shortened_path("16x49x40x12x21", lambda text: len(text) <= 10)
    '16x…x12x21'
    """
    squares = move.split("x")
    if len(squares) < 3 or fits(move):
        return move
    for kept in range(len(squares) - 2, 1, -1):
        shorter = "x".join([squares[0], "…", *squares[-kept:]])
        if fits(shorter):
            return shorter
    return "x".join([squares[0], "…", squares[-1]])


def first_move_number(game: str, start: str | None) -> int:
    """The number of the first line of a move list: a chess FEN's full-move number, else 1."""
    if game == "chess" and start:
        fields = start.split()
        if len(fields) >= 6 and fields[5].isdigit() and int(fields[5]) > 0:
            return int(fields[5])
    return 1


def move_rows(game: str, start: str | None, shown: list[str],
              second_first: bool) -> list[tuple[int, list[MoveCell]]]:
    """The move list as numbered lines of two moves (first's, second's). A start with the second
    side to move opens with "…" in the first column (``40. … h1=Q+``).

    >>> move_rows("chess", None, ["e4", "e5", "Nf3"], False)
    [(1, [(0, 'e4'), (1, 'e5')]), (2, [(2, 'Nf3')])]
    >>> move_rows("draughts", "B:W28:B19", ["19-23"], True)
    [(1, [(None, '…'), (0, '19-23')])]
    """
    cells: list[MoveCell] = [(None, "…")] if second_first and shown else []
    cells += list(enumerate(shown))
    number = first_move_number(game, start)
    return [(number + k // 2, cells[k:k + 2]) for k in range(0, len(cells), 2)]


PAIRED_GAMES = ("chess", "draughts")
"""Games whose players count a move of each side as one move (``2. Nf3 Nc6``)."""


def ply_name(rows: list[tuple[int, list[MoveCell]]], ply: int) -> str | None:
    """Ply ``ply`` (from 0) as the numbered move list ``rows`` writes it: ``2. Nf3`` for the
    first side's move, ``2… Nc6`` for the second's; None when the list does not hold it.

    >>> ply_name(move_rows("chess", None, ["e4", "e5", "Nf3"], False), 1)
    '1… e5'
    """
    for number, cells in rows:
        for column, (at, text) in enumerate(cells):
            if at == ply:
                return f"{number}{'.' if column == 0 else '…'} {text}"
    return None


def position_name(game: str, rows: list[tuple[int, list[MoveCell]]], index: int) -> str | None:
    """The position after ``index`` plies as players of a game counting moves in pairs name
    it (``After 2… Nc6``, ``Start position``); None for the other games, which count plies."""
    if game not in PAIRED_GAMES:
        return None
    if index <= 0:
        return "Start position"
    name = ply_name(rows, index - 1)
    return f"After {name}" if name else None


def display_moves(game: str, start: str | None, moves: list[str]) -> list[str]:
    """Moves as players read them: SAN for chess (``Nf3``), the canonical text otherwise."""
    if game != "chess":
        return list(moves)
    try:
        import chess

        board = chess.Board(start) if start else chess.Board()
        out = []
        for move in moves:
            uci = chess.Move.from_uci(move)
            out.append(board.san(uci))
            board.push(uci)
        return out
    except Exception:  # an odd start or move: show the raw notation rather than nothing
        return list(moves)
