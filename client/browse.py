"""Move browsing in the room: the board shows an earlier position of the game while the clocks,
players and chat stay live (lichess's way). Left/Right step one ply, Home goes to the start, End
back to the live position; a click in the move list shows the position after that move.

This keeps only which ply is shown: the states are the room model's ``history`` (one per ply
from the start), so nothing is played again here.
"""

from __future__ import annotations

from typing import Any

import pygame

from client.annotations import position_highlight
from client.boards.base import BoardView, Marks
from client.moves import MoveCell, PathMemo, position_name
from client.room_model import RoomModel

STEPS = {pygame.K_LEFT: -1, pygame.K_RIGHT: 1}
"""Keys that step through the game (Home and End go to its ends)."""
BROWSE_KEYS = frozenset({*STEPS, pygame.K_HOME, pygame.K_END})


def plies(model: RoomModel) -> int:
    """How many plies the room can show: its moves, as far as the model could follow them."""
    return max(0, min(len(model.moves), len(model.history) - 1))


def game_of(model: RoomModel) -> tuple[Any, ...]:
    """What names the room's game: another one (a new game in the room) is shown live."""
    return (model.game, model.variant, model.game_id, model.start)


class Browse:
    """Which position of a room's game the board shows: the live one, or an earlier one."""

    def __init__(self) -> None:
        self.shown: int | None = None
        """Plies played in the shown position (0: the start); ``None``: the live position, which
        follows the game as it goes on."""
        self.seen = 0
        """The game's plies when the user last moved the view: more now means the game went on
        meanwhile (said in the line, the view stays)."""
        self._game: tuple[Any, ...] = ()
        self._highlight: tuple[Any, tuple[str, ...]] = (None, ())
        """The last state judged for its marks, and what they were."""
        self._paths = PathMemo()

    @property
    def active(self) -> bool:
        """True while an earlier position is shown."""
        return self.shown is not None

    def index(self, model: RoomModel) -> int:
        """The plies of the position shown (the live one: all of them)."""
        total = plies(model)
        return total if self.shown is None else min(self.shown, total)

    def go(self, model: RoomModel, index: int) -> None:
        """Show the position after ``index`` plies (clamped to the game); the last one is the
        live position, which then follows the game again."""
        total = plies(model)
        index = max(0, min(index, total))
        self._game = game_of(model)
        self.shown = None if index >= total else index
        self.seen = total

    def end(self) -> None:
        """Back to the live position."""
        self.shown = None

    def key(self, model: RoomModel, key: int) -> bool:
        """Left/Right/Home/End; returns whether ``key`` was one of them."""
        if key in STEPS:
            self.go(model, self.index(model) + STEPS[key])
        elif key == pygame.K_HOME:
            self.go(model, 0)
        elif key == pygame.K_END:
            self.end()
        else:
            return False
        return True

    def follow(self, model: RoomModel) -> None:
        """Keep the view sound after the room changed: another game shows live; a snapshot that
        shortened the game (a takeback) clamps a view past its end, which is then live."""
        game = game_of(model)
        if game != self._game:
            self._game, self.shown, self.seen = game, None, plies(model)
            return
        total = plies(model)
        if self.shown is not None and self.shown >= total:
            self.shown = None
        self.seen = min(self.seen, total)

    def state(self, model: RoomModel) -> Any:
        """The engine state to draw: the shown one, or the live one."""
        if self.shown is None:
            return model.state
        return model.history[self.index(model)]

    def marks(self, model: RoomModel, view: BoardView | None, coordinates: bool) -> Marks:
        """The marks of a browsed position: the move that led to it, and a checked king, a
        threatened captain or a winning line there. Nothing to select, no premove: the board
        takes no move until it is back at the live position."""
        index = self.index(model)
        last = (self._paths.path(model.game, model.engine, model.history[index - 1],
                                 model.moves[index - 1]) if index else ())
        state = model.history[index]
        if state is not self._highlight[0]:  # a snapshot rebuilds the states: judged again
            self._highlight = (state, position_highlight(model.game, model.variant,
                                                         model.engine, state, view))
        return Marks(last_move=last, highlight=self._highlight[1],
                     before=model.history[index - 1] if index else None,
                     extra={"coordinates": coordinates})

    def lines(self, model: RoomModel, rows: list[tuple[int, list[MoveCell]]]) -> list[str]:
        """What the room's status line says while browsing, longest first (the room shows the
        first that fits): ``Move 12 of 41 · new move · End: back to the game`` down to
        ``12/41 · End``; in chess and draughts the move as the list ``rows`` writes it
        (``After 6… Nc6 · new move · End: back to the game``), as their players count."""
        total, index = plies(model), self.index(model)
        news = total - self.seen
        named = position_name(model.game, rows, index)
        head = named or f"Move {index} of {total}"
        if news > 0:
            head += " · new move" if news == 1 else f" · {news} new moves"
        short = (named.removeprefix("After ").removesuffix(" position") if named
                 else f"{index}/{total}")
        return [f"{head} · End: back to the game", f"{head} · End: live", f"{head} · End",
                f"{short}{' +' if news > 0 else ''} · End"]
