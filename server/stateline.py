"""The engine states of one game from its start to now, without keeping every one in memory."""

from __future__ import annotations

from typing import Any

from engines.base import Engine

CHECKPOINT_EVERY = 32
"""Every state whose index is a multiple of this is kept (so a rebuild replays fewer moves)."""
RECENT = 4
"""The last states are always kept: undo, the current position and the next move read them."""


class StateLine:
    """Indexable like a list of states (``line[0]`` is the start, ``line[-1]`` the current one).

    A room used to keep every state of its game for the life of the room. States can be big
    (a chess state holds its board with the moves since the last capture or pawn move), and every
    one of them lived as long as the room, so each move added objects that every garbage
    collection had to walk. Here only the start, every ``CHECKPOINT_EVERY``-th state and the last
    ``RECENT`` ones are kept; any other is rebuilt by replaying the accepted moves from the nearest
    kept state before it (engines are deterministic, and every stored move was legal there).
    """

    def __init__(self, engine: Engine, start: Any) -> None:
        self.engine = engine
        self._moves: list[str] = []
        self._kept: dict[int, Any] = {0: start}

    def __len__(self) -> int:
        return len(self._moves) + 1

    def __getitem__(self, index: int) -> Any:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"state {index} of a line of {size}")
        found = self._kept.get(index)
        if found is not None:
            return found
        base = index - index % CHECKPOINT_EVERY
        if base not in self._kept:  # a settled line keeps no checkpoints
            base = max(i for i in self._kept if i < index)
        state = self._kept[base]
        for move in self._moves[base:index]:
            state = self.engine.play(state, move)
        return state

    def append(self, state: Any, move: str) -> None:
        """Add the state reached by ``move`` (its canonical text) from the current state."""
        self._moves.append(move)
        index = len(self._moves)
        self._kept[index] = state
        old = index - RECENT
        if old > 0 and old % CHECKPOINT_EVERY:
            self._kept.pop(old, None)

    def settle(self) -> None:
        """Keep only the start and the current state (the game is over: nothing reads the others
        but a record, which replays the moves; any state can still be rebuilt from the start)."""
        last = len(self._moves)
        self._kept = {index: self._kept[index] for index in {0, last}}

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` states (the start and ``length - 1`` moves): an undo."""
        if not 1 <= length <= len(self):
            raise IndexError(f"cannot keep {length} states of a line of {len(self)}")
        current = self[length - 1]
        del self._moves[length - 1 :]
        for index in [i for i in self._kept if i >= length]:
            del self._kept[index]
        self._kept[length - 1] = current
