"""The moved piece sliding to its square: which move, since when, and how far along it is.

A scene starts a slide when a move comes (:meth:`Slides.start`) or the user steps one move
through a game (:meth:`Slides.step`), and asks for the board's
:class:`~client.boards.base.Motion` every frame (:meth:`Slides.motion`). Time comes from the
app's injectable clock, never from the wall: tests step it. The slide is only drawing: the
position the scene plays on is the one after the move from the start, and the slide shows only
while the board shows that position (a browsed position or the next move end it at once), or the
one after our premove played on it the instant the move came (:meth:`Slides.follow`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from client.boards.base import BoardView, Marks, Motion
from client.moves import move_path

SLIDE_S = 0.18
"""How long a move's slide takes."""
HOP_S = 0.09
"""What each further landing point adds (a draughts multi-capture)."""
MOST_S = 0.5
"""No slide takes longer."""


def ease_out(t: float) -> float:
    """Fast at first, gently landing (cubic ease-out), for ``t`` in 0..1."""
    t = max(0.0, min(1.0, t))
    return 1 - (1 - t) ** 3


Pieces = dict[str, tuple[str | None, str]]


def pieces_of_both(view: BoardView, before: Any, after: Any) -> tuple[Pieces, Pieces] | None:
    """The pieces of ``before`` and of ``after``; ``None`` when the renderer cannot list them."""
    try:
        return view.pieces_of(before), view.pieces_of(after)
    except Exception:
        return None


def pieces_around(
    view: BoardView, before: Any, after: Any, path: tuple[str, ...]
) -> tuple[Pieces, Pieces, str] | None:
    """The pieces of ``before`` and ``after`` and the seat of the piece that went along
    ``path``; ``None`` when the renderer cannot tell (no pieces listed, a neutral piece)."""
    pieces = pieces_of_both(view, before, after)
    if pieces is None:
        return None
    was, now = pieces
    mover = now.get(path[-1])
    if mover is None or mover[0] is None:
        return None
    return was, now, mover[0]


def captured_points(
    view: BoardView, before: Any, after: Any, path: tuple[str, ...]
) -> tuple[str, ...]:
    """Points of the pieces a move along ``path`` from ``before`` to ``after`` took: the
    opponent's pieces (of the moving piece's owner) gone from their points, or on the one the
    mover landed on. A castling rook (the mover's own) is not one, nor an opponent's piece
    changed where it stands (promoted by a capture elsewhere: Guards and Shadows); games whose
    renderer lists no pieces have none."""
    around = pieces_around(view, before, after, path)
    if around is None:
        return ()
    was, now, seat = around
    return tuple(
        point
        for point, piece in was.items()
        if point != path[0]
        and piece[0] not in (None, seat)
        and (point not in now or point == path[-1])
    )


def mover_before(
    view: BoardView, before: Any, after: Any, path: tuple[str, ...]
) -> tuple[Any, str] | None:
    """Where the piece that went along ``path`` stood in ``before`` (``before``, ``path[0]``),
    to draw it on its way as it was (a pawn promoting where it lands); ``None`` when the
    renderer cannot tell or the mover's own piece did not stand there (a placed stone)."""
    around = pieces_around(view, before, after, path)
    if around is None:
        return None
    was, _, seat = around
    piece = was.get(path[0])
    return (before, path[0]) if piece is not None and piece[0] == seat else None


def companion_paths(
    view: BoardView, before: Any, after: Any, path: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    """Paths of the mover's other pieces a move along ``path`` carries (a castling rook, wherever
    it stands): one of the mover's pieces gone from a point besides the origin and the same
    piece new on another besides the destination. Anything less clear carries none."""
    around = pieces_around(view, before, after, path)
    if around is None:
        return ()
    was, now, seat = around
    gone = [
        p for p, piece in was.items() if piece[0] == seat and now.get(p) != piece and p != path[0]
    ]
    new = [
        p for p, piece in now.items() if piece[0] == seat and was.get(p) != piece and p != path[-1]
    ]
    if len(gone) != 1 or len(new) != 1 or was[gone[0]] != now[new[0]]:
        return ()
    return ((gone[0], new[0]),)


def changed_points(view: BoardView | None, before: Any, after: Any) -> set[str] | None:
    """The points whose piece differs between ``before`` and ``after`` (emptied, filled, or
    another piece); ``None`` when the renderer cannot list them."""
    pieces = None if view is None else pieces_of_both(view, before, after)
    if pieces is None:
        return None
    was, now = pieces
    return {p for p in was.keys() | now.keys() if was.get(p) != now.get(p)}


@dataclass(frozen=True)
class Slide:
    """One move on its way."""

    after: Any
    """The position the move led to: the slide shows only while the board shows it."""
    motion: Motion
    """The board's motion at progress 0."""
    started: float
    duration: float


class Slides:
    """The slide of the move that led to the board's position, timed by ``clock``."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.current: Slide | None = None
        self._drawn_last = False

    def start(
        self,
        view: BoardView | None,
        before: Any,
        after: Any,
        path: tuple[str, ...],
        back: bool = False,
    ) -> None:
        """Slide the piece that went along ``path`` (origin first; one point: a placed piece)
        from ``before`` to ``after``, looking as it did before (a promoting piece becomes the
        promoted one where it lands); a slide still running ends (a quick series never queues).
        ``back``: a move played backwards (``after`` is the earlier position), the piece looks
        as it does there at once (the queen is the pawn again, which slides home). Nothing
        slides without a board, a path, or a position."""
        self.current = None
        if view is None or not path or before is None or after is None:
            return
        hops = max(0, len(path) - 2)
        motion = Motion(
            path,
            0.0,
            before,
            captured_points(view, before, after, path),
            companion_paths(view, before, after, path),
            None if back else mover_before(view, before, after, path),
        )
        self.current = Slide(after, motion, self.clock(), min(MOST_S, SLIDE_S + HOP_S * hops))

    def follow(self, view: BoardView | None, played_on: Any, after: Any) -> None:
        """Our premove was played at once on ``played_on``, the position the running slide
        leads to: the slide goes on over ``after``, the position after the premove, whose own
        changes are at rest at once (its piece on its new square). A premove that takes the
        sliding piece ends the slide: that piece is simply gone. Pieces the renderer cannot
        list end it too; a renderer that lists none (placed stones) has nothing to change."""
        slide = self.current
        if slide is None or slide.after is not played_on or after is None:
            return
        changed = changed_points(view, played_on, after)
        if changed is None or slide.motion.path[-1] in changed:
            self.current = None
            return
        motion = slide.motion
        self.current = replace(
            slide,
            after=after,
            motion=replace(
                motion,
                captured=tuple(p for p in motion.captured if p not in changed),
                companions=tuple(path for path in motion.companions if path[-1] not in changed),
            ),
        )

    def carry(self, was: Any, now: Any) -> None:
        """The position the running slide leads to, ``was``, was built again as ``now``, the same
        position (a snapshot that repeats it: the one after the game's end): the slide goes on
        over ``now``."""
        slide = self.current
        if slide is not None and slide.after is was and now is not None:
            self.current = replace(slide, after=now)

    def step(
        self,
        view: BoardView | None,
        game: str,
        engine: Any,
        states: Sequence[Any],
        moves: Sequence[str],
        was: int,
        index: int,
    ) -> None:
        """Slide one step through a game whose ``moves[i]`` led from ``states[i]`` to
        ``states[i + 1]``, from the position after ``was`` moves to the one after ``index``:
        forward, the move's piece goes to its square; back, from there to where it came from
        (a placed stone just goes). A jump of several moves slides nothing."""
        self.stop()
        ply = max(was, index)
        if abs(index - was) != 1 or ply >= len(states) or ply > len(moves):
            return
        path = move_path(game, engine, states[ply - 1], moves[ply - 1])
        if index < was:
            path = path[::-1] if len(path) > 1 else ()
        self.start(view, states[was], states[index], path, back=index < was)

    def stop(self) -> None:
        """Show every piece at rest now (a jump through several moves)."""
        self.current = None

    def lift(self, point: str) -> None:
        """The user picked up the piece on ``point`` (a drag): if it is the one sliding, its
        slide ends, so it is drawn once, under the pointer."""
        slide = self.current
        if slide is not None and slide.motion.path and slide.motion.path[-1] == point:
            self.current = None

    def progress(self) -> float | None:
        """How far the slide is (eased, 0..1), or ``None`` when none runs."""
        slide = self.current
        if slide is None:
            return None
        t = (self.clock() - slide.started) / slide.duration
        if t >= 1:
            self.current = None
            return None
        return ease_out(t)

    def motion(self, shown: Any) -> Motion | None:
        """The board's motion while the board shows ``shown`` (``None``: all at rest)."""
        slide, progress = self.current, self.progress()
        if slide is None or progress is None or shown is not slide.after:
            return None
        return replace(slide.motion, progress=progress)

    def marks(self, marks: Marks, shown: Any) -> Marks:
        """``marks`` with the board's motion while it shows ``shown``: while a move is on its
        way, what it brings to the position (a checked king, a threatened captain, a winning
        line: ``highlight``) waits until it lands; its last-move marks show where it goes."""
        motion = self.motion(shown)
        return replace(marks, motion=motion, highlight=marks.highlight if motion is None else ())

    def need_frame(self) -> bool:
        """Whether the board must be drawn again: a slide runs, or just ended (its last frame
        shows the piece at rest)."""
        running = self.progress() is not None
        needed = running or self._drawn_last
        self._drawn_last = running
        return needed
