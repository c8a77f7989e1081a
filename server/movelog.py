"""What a room records with each accepted move, in flat arrays instead of objects per move.

A room used to keep, for every move, a ``MoveNote`` (an object, its timestamp string and an int)
and a clock point (a tuple of two new dicts): about 650 of the ~950 bytes a hexgomoku move cost
a room, in five small allocations per move. A finished room stays open for ten minutes while its
players are still in it (rematch offers, chat), so at a steady rate of moves these blocks were the
bulk of the server's live memory, and being small, young and freed only when the room closed,
they spread over allocator arenas that a few longer-lived blocks then kept from going back to
the system (bench/soak.py: RSS +1 KB per accepted move after the clients left). Here each move
adds a few machine integers to arrays (whose buffers are not per-move allocations at all).
"""

from __future__ import annotations

import calendar
import re
import time
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from engines.base import SIDES, Side

WALL_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""How move times are written (``Hall.wall``)."""
_WALL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_NONE = -(2**63)
"""Stands for ``None`` in an array of ints."""


@dataclass(frozen=True, slots=True)
class MoveNote:
    """What is recorded with each accepted move."""

    by: Side
    clock_ms: int | None
    lag_ms: int
    at: str


@lru_cache(maxsize=64)
def _stamp(at: str) -> int | None:
    """Seconds since the epoch of a ``WALL_FORMAT`` time, if it is exactly one (it reads back
    the same). Cached: every room's moves within one second share the text."""
    if not _WALL.fullmatch(at):
        return None
    fields = (int(at[0:4]), int(at[5:7]), int(at[8:10]), int(at[11:13]), int(at[14:16]))
    try:
        seconds = calendar.timegm((*fields, int(at[17:19]), 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return seconds if time.strftime(WALL_FORMAT, time.gmtime(seconds)) == at else None


class MoveNotes:
    """The notes of a game's moves: a read-only sequence of :class:`MoveNote`, appended to and
    truncated (undo); each note is built when read."""

    __slots__ = ("_at", "_by", "_clock", "_lag", "_odd_at", "_text")

    def __init__(self) -> None:
        self._by = bytearray()
        self._clock = array("q")
        self._lag = array("q")
        self._at = array("q")
        self._odd_at: dict[int, str] = {}
        """Times that are not in ``WALL_FORMAT`` (kept as given)."""
        self._text: tuple[int, str] | None = None
        """The last time read back (moves in the same second share one string)."""

    def __len__(self) -> int:
        return len(self._by)

    def __getitem__(self, index: int) -> MoveNote:
        size = len(self._by)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"note {index} of {size}")
        clock = self._clock[index]
        return MoveNote(
            SIDES[self._by[index]],
            None if clock == _NONE else clock,
            self._lag[index],
            self._at_text(index),
        )

    def __iter__(self) -> Iterator[MoveNote]:
        for index in range(len(self._by)):
            yield self[index]

    def sides(self) -> set[Side]:
        """The sides that made at least one of these moves."""
        return {SIDES[b] for b in set(self._by)}

    def last_by(self, side: Side) -> int | None:
        """Index of the last move ``side`` made, if any."""
        found = self._by.rfind(SIDES.index(side))
        return None if found < 0 else found

    def append(self, note: MoveNote) -> None:
        """Record ``note`` for the next move."""
        index = len(self._by)
        stamp = _stamp(note.at)
        if stamp is None:
            self._odd_at[index] = note.at
            stamp = _NONE
        self._by.append(SIDES.index(note.by))
        self._clock.append(_NONE if note.clock_ms is None else note.clock_ms)
        self._lag.append(note.lag_ms)
        self._at.append(stamp)

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` notes."""
        del self._by[length:]
        del self._clock[length:]
        del self._lag[length:]
        del self._at[length:]
        for index in [i for i in self._odd_at if i >= length]:
            del self._odd_at[index]

    def _at_text(self, index: int) -> str:
        stamp = self._at[index]
        if stamp == _NONE:
            return self._odd_at[index]
        if self._text is None or self._text[0] != stamp:
            self._text = (stamp, time.strftime(WALL_FORMAT, time.gmtime(stamp)))
        return self._text[1]


class ClockHistory:
    """Both sides' remaining time and whether each has moved, at the start and after each move
    (what an undo restores). Reads as a sequence of ``(remaining, has_moved)`` dict pairs."""

    __slots__ = ("_values",)

    WIDTH = 2 * len(SIDES)

    def __init__(self, remaining: Mapping[Side, int], has_moved: Mapping[Side, bool]) -> None:
        self._values = array("q")
        self.append(remaining, has_moved)

    def __len__(self) -> int:
        return len(self._values) // self.WIDTH

    def __getitem__(self, index: int) -> tuple[dict[Side, int], dict[Side, bool]]:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(f"clock point {index} of {size}")
        row = self._values[index * self.WIDTH : (index + 1) * self.WIDTH]
        count = len(SIDES)
        remaining = {side: row[i] for i, side in enumerate(SIDES)}
        has_moved = {side: bool(row[count + i]) for i, side in enumerate(SIDES)}
        return remaining, has_moved

    def append(self, remaining: Mapping[Side, int], has_moved: Mapping[Side, bool]) -> None:
        """Record the clocks as they are now."""
        self._values.extend([remaining[side] for side in SIDES])
        self._values.extend([int(has_moved[side]) for side in SIDES])

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` points."""
        del self._values[length * self.WIDTH :]
