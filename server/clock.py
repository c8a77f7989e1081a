"""Server-side game clocks: per-move limit, Fischer, both, or none; lag compensation.

A :class:`GameClock` never reads a clock: every method takes ``now`` (monotonic seconds). Each
side's clock starts after its own first move; that first move has an abort deadline instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from engines.base import SIDES, Side
from protocol import Clock, Clocks


@dataclass(frozen=True)
class TimeControl:
    """A room's time control in milliseconds (0 = that part is off)."""

    initial_ms: int = 0
    increment_ms: int = 0
    per_move_ms: int = 0

    @property
    def timed(self) -> bool:
        """True when some limit applies (an increment alone does not make a room timed)."""
        return self.initial_ms > 0 or self.per_move_ms > 0

    @classmethod
    def from_clock(cls, clock: Clock | None) -> TimeControl:
        """The control of a wire ``clock`` (``None`` is untimed)."""
        if clock is None or not (clock.initial or clock.per_move):
            return cls()  # an increment alone is untimed: it matches untimed seeks
        return cls(
            (clock.initial or 0) * 1000, (clock.increment or 0) * 1000, (clock.per_move or 0) * 1000
        )

    def to_clock(self) -> Clock | None:
        """The wire form, ``None`` when untimed."""
        if not self.timed:
            return None
        return Clock(
            initial=self.initial_ms // 1000 or None,
            increment=self.increment_ms // 1000 or None,
            per_move=self.per_move_ms // 1000 or None,
        )

    def describe(self) -> str | None:
        """PGN TimeControl value (``300+3``), ``None`` when there is no main time."""
        if self.initial_ms:
            return f"{self.initial_ms // 1000}+{self.increment_ms // 1000}"
        if self.per_move_ms:
            return f"-/{self.per_move_ms // 1000}"
        return None


@dataclass(frozen=True)
class LagPolicy:
    """Lag compensation: each move is credited at most a bounded share of a refilling quota."""

    start_ms: int = 500
    gain_ms: int = 100
    max_ms: int = 1000
    credit_max_ms: int = 500


DeadlineKind = Literal["abort", "flag"]


@dataclass(frozen=True)
class MoveTiming:
    """What the clock decided about one move."""

    lag_ms: int
    """Lag credited to the move."""
    late: DeadlineKind | None = None
    """Set when the move came after the abort deadline or the flag."""
    clock_ms: int | None = None
    """The mover's main time left after the move."""


@dataclass
class GameClock:
    """Both sides' remaining times and the running turn."""

    control: TimeControl
    abort_ms: int = 30_000
    lag: LagPolicy = field(default_factory=LagPolicy)
    remaining: dict[Side, int] = field(default_factory=dict)
    has_moved: dict[Side, bool] = field(default_factory=lambda: dict.fromkeys(SIDES, False))
    quota: dict[Side, int] = field(default_factory=dict)
    running: Side | None = None
    turn_start: float = 0.0
    stopped_move: int | None = None
    """What was left of the per-move limit when :meth:`stop` ended the game (``None``: none
    ran)."""

    def __post_init__(self) -> None:
        for side in SIDES:
            self.remaining.setdefault(side, self.control.initial_ms)
            self.quota.setdefault(side, self.lag.start_ms)

    # ---- turns ---------------------------------------------------------------------------------

    def start_turn(self, side: Side, now: float) -> None:
        """``side`` is to move from ``now``."""
        self.running = side
        self.turn_start = now
        self.stopped_move = None

    def stop(self, now: float) -> None:
        """Freeze both clocks (game over): the running side is charged up to ``now``."""
        side = self.running
        used = int((now - self.turn_start) * 1000)
        if side is not None and self._counts(side) and self.control.initial_ms:
            self.remaining[side] = max(0, self.remaining[side] - used)
        if side is not None and self._counts(side) and self.control.per_move_ms:
            self.stopped_move = max(0, self.control.per_move_ms - used)
        self.running = None

    def _counts(self, side: Side) -> bool:
        return self.control.timed and self.has_moved[side]

    def _in_abort_phase(self, side: Side) -> bool:
        return self.control.timed and not self.has_moved[side] and self.abort_ms > 0

    def _limit_ms(self, side: Side) -> float:
        limit = math.inf
        if self.control.initial_ms:
            limit = self.remaining[side]
        if self.control.per_move_ms:
            limit = min(limit, self.control.per_move_ms)
        return limit

    def _grace_ms(self, side: Side) -> int:
        return min(self.quota[side], self.lag.credit_max_ms)

    def deadline(self) -> tuple[float, DeadlineKind] | None:
        """When the running side's time (or abort deadline) runs out, and which it is."""
        side = self.running
        if side is None or not self.control.timed:
            return None
        if self._in_abort_phase(side):
            return self.turn_start + self.abort_ms / 1000, "abort"
        if not self.has_moved[side]:
            return None
        return self.turn_start + (self._limit_ms(side) + self._grace_ms(side)) / 1000, "flag"

    def expired(self, now: float, strict: bool = False) -> DeadlineKind | None:
        """Whether the running side is out of time at ``now``.

        With ``strict`` (a claim by the opponent) the lag grace is not waited for.
        """
        side = self.running
        found = self.deadline()
        if side is None or found is None:
            return None
        when, kind = found
        if kind == "flag" and strict:
            when -= self._grace_ms(side) / 1000
        return kind if now >= when else None

    def on_move(self, side: Side, now: float, lag_ms: int = 0) -> MoveTiming:
        """Charge ``side`` for the move it made at ``now``; the caller starts the next turn."""
        elapsed = max(0, int((now - self.turn_start) * 1000))
        if not self.has_moved[side]:
            late: DeadlineKind | None = None
            if self._in_abort_phase(side) and elapsed > self.abort_ms:
                late = "abort"
            self.has_moved[side] = True
            return MoveTiming(0, late, self.main_left(side))
        if not self.control.timed:
            return MoveTiming(0)
        credit = max(0, min(lag_ms, self.quota[side], self.lag.credit_max_ms))
        self.quota[side] = min(self.lag.max_ms, self.quota[side] - credit + self.lag.gain_ms)
        used = max(0, elapsed - credit)
        if used > self._limit_ms(side):
            # not charged here: the flag ends the game, and stop() charges the running turn
            return MoveTiming(credit, "flag", self.main_left(side))
        if self.control.initial_ms:
            self.remaining[side] = self.remaining[side] - used + self.control.increment_ms
        return MoveTiming(credit, None, self.main_left(side))

    def main_left(self, side: Side) -> int | None:
        """``side``'s stored main time (``None`` without a main time)."""
        return self.remaining[side] if self.control.initial_ms else None

    def snapshot(self, now: float) -> Clocks | None:
        """The wire ``clocks`` at ``now`` (``None`` in an untimed room)."""
        if not self.control.timed:
            return None
        side = self.running
        elapsed = max(0, int((now - self.turn_start) * 1000)) if side else 0
        left: dict[Side, int | None] = {}
        for s in SIDES:
            main = self.main_left(s)
            if main is not None and s == side and self._counts(s):
                main = max(0, main - elapsed)
            left[s] = main
        move = self.stopped_move if side is None else None
        if side is not None:
            if self._in_abort_phase(side):
                move = max(0, self.abort_ms - elapsed)
            elif self.control.per_move_ms and self.has_moved[side]:
                move = max(0, self.control.per_move_ms - elapsed)
        return Clocks(first=left["first"], second=left["second"], move=move, running=side)
