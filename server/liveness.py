"""When the server was last known alive, and what a restart after a crash charges for it.

A clean stop keeps each game's running turn and absences (``paused``, :meth:`Room.paused`). A
crash keeps nothing of the kind, so the server stamps the database about once a second with the
time it is alive (a :class:`~server.outputs.SaveAlive`, group-committed with the other writes,
after every write queued before it), and every game keeps, with its stored record, when its
running turn began (the stored move's ``at``, or a ``turn`` anchor when something other than a
move began it) and since when each absent player is away (``away``). A restart after a crash
charges each of them up to the stamp: what was used while the server was alive, never the
downtime.

Times are compared only within one run (one server process): each run numbers its times by its
own monotonic clock plus an offset to the wall clock taken once at its start (:class:`Run`), so
a wall clock that jumps, within a run or between runs, changes nothing. Every record carries
its run; one of another run than the stamp is charged nothing more. The records stay true:
a restart stores a ``turn`` anchor and the absences of every game it resumes, of its own run,
before its first stamp, so a later stamp is never compared with a record of an earlier run.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass
from typing import Any

MOVE_TIME = "%Y-%m-%dT%H:%M:%SZ"
"""How a stored move's ``at`` reads (to the second, rounded down: see :meth:`Hall.wall`)."""


@dataclass(frozen=True)
class Run:
    """One server process: ``id`` names it, and its times are its monotonic clock plus
    ``wall_offset`` (the wall clock at its start), so they never jump within the run."""

    id: str
    wall_offset: float

    def wall(self, now: float) -> float:
        """The run's wall time of monotonic ``now`` (to the millisecond)."""
        return round(now + self.wall_offset, 3)


@dataclass(frozen=True)
class Alive:
    """The stored stamp: the run ``run`` was alive at its wall time ``wall``."""

    run: str
    wall: float


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def _move_time(at: object) -> float | None:
    try:
        return float(calendar.timegm(time.strptime(str(at), MOVE_TIME)))
    except (TypeError, ValueError, OverflowError):
        return None


def crash_charges(
    meta: dict[str, Any], moves: list[dict[str, Any]], alive: Alive | None
) -> dict[str, Any] | None:
    """What a restart gives :meth:`Room.resume` for the stored game ``meta`` with its stored
    ``moves``, the server last stamped ``alive``: ``{ply, turn_ms, away_ms}``.

    A clean stop's record of this ply (``paused``) is what it says. Otherwise the running turn
    is charged from its anchor, or from its stored move, up to the stamp; each absence from
    its start up to the stamp. A record of another run than the stamp, a stamp older than the
    record, or no stamp at all (a database of an older server) charge nothing."""
    ply = len(moves)
    paused = meta.get("paused")
    if isinstance(paused, dict) and paused.get("ply") == ply:
        return paused  # kept by a clean stop (or, without a ``since``, by an older server)
    charged: dict[str, Any] = {"ply": ply, "turn_ms": 0, "away_ms": {}}
    turn = meta.get("turn")
    if not isinstance(turn, dict):
        turn = None
    if turn is not None and turn.get("ply") == ply:
        used = max(0, int(turn.get("turn_ms") or 0))
        since = turn.get("since")
        if alive is not None and turn.get("run") == alive.run and isinstance(since, int | float):
            used += _ms(alive.wall - since)
        charged["turn_ms"] = used
    elif (
        alive is not None
        and moves
        and paused is None
        and (turn is None or turn.get("run") == alive.run)
    ):
        # no anchor of this ply: the last move began the turn, on the stamp's run (a run
        # anchors every game it resumes); not when an anchor of another run says otherwise
        began = _move_time(moves[-1].get("at"))
        if began is not None:  # ``at`` is rounded down: the turn began before ``at + 1``
            charged["turn_ms"] = _ms(alive.wall - (began + 1))
    away = meta.get("away")
    if alive is not None and isinstance(away, dict) and away.get("run") == alive.run:
        for side, since in (away.get("since") or {}).items():
            if side in ("first", "second") and isinstance(since, int | float):
                charged["away_ms"][side] = _ms(alive.wall - since)
    return charged
