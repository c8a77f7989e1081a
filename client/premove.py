"""Premoves: a move entered during the opponent's turn, sent the instant the turn becomes ours if
the engine then allows it. The server stays the only referee: a premove is only a move the client
sends later, for the ply it is then, exactly like a move clicked then.

Which moves may be entered (:func:`premove_shapes`): every move that is legal after at least one of
the opponent's legal replies, i.e. every move that can still be played once the opponent has
moved. That takes in a recapture on a square our own piece holds now (Kxf2 after ...Bxf2+),
castling that a reply cannot stop, and a draughts capture path that only a reply opens; it leaves
out what no reply can make legal (a rook behind our own pawn). Lichess's board allows more (any
square a piece's pattern reaches on an empty board), but a premove outside this set would always
be dropped. A placement game (five-in-a-row: every move puts a stone) takes any point free now:
the opponent's stone will take one of them, which cannot be known. Number chess has no premoves:
its spans need an expression, asked in a dialog.

A premove is kept as the points the user entered (origin, landing squares, promotion piece), not
as a text: :func:`settle` looks for the move with those very points among the legal moves of the
new position and gives its text (a draughts capture's canonical text may differ between
positions). One exception: a draughts capture whose landing squares begin exactly one legal move
of the new position, longer than it, becomes that move. The opponent's reply can make a longer
capture compulsory (international draughts: the most pieces; Russian: the sequence completed),
and the user, who chose that piece and that way, would play it; when the path goes on in more
than one way the premove is dropped, saying so.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

from client.moves import MovePicker, MoveShape, Pick, legal_shapes

PREMOVE_GAMES = frozenset({"chess", "draughts", "hexgomoku", "custom"})
"""Games with premoves (not number chess)."""
DEFAULT_PROMOTION = "q"
"""A chess promotion premove queens unless the user picks another piece (lichess's default)."""

PREMOVE_CANCELLED = "Premove cancelled: it is not legal after that move."
"""What the room says when a premove is dropped (unless a reason of its own is known)."""

ShapeKey = tuple[str | None, tuple[str, ...], str]


class Settled(NamedTuple):
    """What becomes of a premove once the opponent has moved."""

    text: str | None
    """The move to send (``None``: the premove is dropped)."""
    note: str = ""
    """What the room says: why it was dropped, or how it grew (empty: played as entered)."""


def _key(shape: MoveShape) -> ShapeKey:
    return (shape.origin, shape.path, shape.suffix)


def premove_shapes(game: str, engine: Any, state: Any) -> list[MoveShape]:
    """The moves the side not to move in ``state`` may premove (see the module's docstring);
    empty for a game without premoves or when the engine cannot list them."""
    if game not in PREMOVE_GAMES or engine is None or state is None:
        return []
    try:
        now = legal_shapes(game, engine, state)
        if now and all(s.origin is None for s in now):
            return now  # placement: the points free now, whoever places next
        replies = list(engine.legal_moves(state))
    except Exception:
        return []
    found: dict[ShapeKey, MoveShape] = {}
    for reply in replies:
        try:
            shapes = legal_shapes(game, engine, engine.play(state, reply))
        except Exception:  # a reply the engine cannot follow adds nothing
            continue
        for s in shapes:
            found.setdefault(_key(s), s)
    return list(found.values())


def settle(game: str, engine: Any, state: Any, premove: MoveShape) -> Settled:
    """What to send for ``premove`` in ``state`` (our turn now): the legal move with its very
    points; or, for a draughts capture, the one longer legal capture its path begins (see the
    module's docstring); else nothing, with the reason to say."""
    try:
        shapes = legal_shapes(game, engine, state)
    except Exception:
        return Settled(None, PREMOVE_CANCELLED)
    for s in shapes:
        if _key(s) == _key(premove):
            return Settled(s.text)
    if game != "draughts" or "x" not in premove.text:
        return Settled(None, PREMOVE_CANCELLED)
    n = len(premove.path)
    longer = [s for s in shapes if s.origin == premove.origin and len(s.path) > n
              and s.path[:n] == premove.path]
    texts = {s.text for s in longer}  # paths taking the same pieces are one move (RULES.md)
    if len(texts) == 1:
        grown = longer[0]
        return Settled(grown.text, f"Premove played as {describe(game, grown)}: the longer "
                                   "capture is compulsory.")
    if texts:
        return Settled(None, "Premove cancelled: a longer capture is compulsory, and it goes on "
                             f"from {premove.target} in more than one way.")
    return Settled(None, PREMOVE_CANCELLED)


def resolve(game: str, engine: Any, state: Any, premove: MoveShape) -> str | None:
    """The text :func:`settle` sends for ``premove`` in ``state``, or ``None`` when it is
    dropped (the premove has become illegal, or the engine cannot say)."""
    return settle(game, engine, state, premove).text


def describe(game: str, move: MoveShape) -> str:
    """A premove as the room's status line says it: its points joined as the game writes a
    move (``e7-e5``, ``e7-e8=Q``, ``30x19x28``, ``7,2-6,2``; a placement: its point)."""
    points = ((move.origin,) if move.origin else ()) + move.path
    said = ("x" if game == "draughts" and "x" in move.text else "-").join(points)
    if move.suffix:
        said += f"={move.suffix.upper() if game == 'chess' else move.suffix}"
    return said


class Premoves:
    """One room's premove: the click-by-click picker over :func:`premove_shapes` and the premove
    entered (one at a time: a new one replaces it)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        """The user's setting: off, nothing can be premoved."""
        self.picker = MovePicker("")
        self.move: MoveShape | None = None
        """The premove entered, as points (``None``: none)."""
        self._key: Hashable = None

    def prepare(self, key: Hashable, game: str, engine: Any, state: Any) -> None:
        """List the premovable moves of ``state`` (the opponent to move) unless ``key`` (the
        position's identity) is the one already listed. A new position forgets a half-entered
        premove, not an entered one."""
        if key == self._key:
            return
        self._key = key
        self.picker = MovePicker(game)
        if self.enabled:
            self.picker.reset(premove_shapes(game, engine, state))

    def forget_position(self) -> None:
        """List the moves again at the next :meth:`prepare` (the setting changed)."""
        self._key = None
        self.picker.clear()

    @property
    def busy(self) -> bool:
        """True while a premove is entered or being entered (Esc has something to cancel)."""
        return self.move is not None or self.picker.selected is not None

    def clear(self) -> bool:
        """Cancel the premove and any half-entered one; returns whether there was anything."""
        had = self.busy
        self.move = None
        self.picker.clear()
        return had

    def click(self, point: str | None) -> Pick:
        """A click during the opponent's turn. ``send``: the premove is entered; ``choose``: a
        promotion, entered with :data:`DEFAULT_PROMOTION` (:meth:`promote` changes it);
        ``select``/``pending``: being entered. Clicking the piece picked up again puts it down;
        any other click that enters nothing (an empty square, the opponent's piece, off the
        board) cancels the premove."""
        picker = self.picker
        if point is not None and point == picker.selected and not picker.partial:
            picker.clear()
            return Pick("none")
        if point is None or not picker.shapes:
            self.clear()
            return Pick("none")
        pick = picker.click(point)
        if pick.kind == "send" and pick.shapes:
            self.move = pick.shapes[0]
        elif pick.kind == "choose" and pick.shapes:
            self.move = next((s for s in pick.shapes if s.suffix == DEFAULT_PROMOTION),
                             pick.shapes[0])
        elif pick.kind == "none" or (pick.kind == "illegal" and not picker.partial):
            self.clear()
            return Pick(pick.kind)
        return pick

    def promote(self, suffix: str) -> None:
        """Promote to ``suffix`` (a piece letter) instead: the entered premove's points with
        that piece, when such a move was offered."""
        if self.move is None:
            return
        for s in self.picker.shapes:
            if (s.origin, s.path, s.suffix) == (self.move.origin, self.move.path, suffix):
                self.move = s
                return

    def points(self) -> tuple[str, ...]:
        """The entered premove's points, origin first (for the board's marks)."""
        if self.move is None:
            return ()
        return ((self.move.origin,) if self.move.origin else ()) + self.move.path

    def take(self, game: str, engine: Any, state: Any) -> Settled:
        """Forget the premove and say what to send for it in ``state`` (our turn now), see
        :func:`settle` (nothing, silently, when there was none)."""
        move, self.move = self.move, None
        self.picker.clear()
        if move is None:
            return Settled(None)
        return settle(game, engine, state, move)
