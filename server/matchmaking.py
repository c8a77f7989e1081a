"""Rating-aware pairing of seeks, as lichess pools do it (pure arithmetic, no I/O, no clock).

A seek in a rated pool (a game that would be rated: :func:`server.ratings.unrated_because`) by a
player who is not a bot has a rating *window* that widens with its waiting time: it starts at
:data:`WINDOW_START` either side of its rating (:data:`WINDOW_START_PROVISIONAL` while the rating
is provisional, deviation above :data:`PROVISIONAL_RD`), grows by :data:`WINDOW_STEP` every
:data:`WINDOW_STEP_S` seconds of waiting, and after :data:`WINDOW_OPEN_AFTER_S` seconds takes
anyone. Two such seeks may play each other when the rating difference is within the window of
*both*; among those, a new seek takes the closest rating (the longest waiting on a tie).

A bot's seek, and every seek of an unrated pool (untimed, options other than the defaults), has
no window: it pairs first come, first served, as before ratings counted in pairing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from protocol import PROVISIONAL_RD

WINDOW_START = 150.0
"""A settled player's window at first: rating points either side of its own rating."""
WINDOW_START_PROVISIONAL = 300.0
"""A provisional player's window at first (its rating says less about its strength)."""
WINDOW_STEP = 50.0
"""What the window grows by at each step of waiting."""
WINDOW_STEP_S = 5.0
"""Seconds of waiting per step."""
WINDOW_OPEN_AFTER_S = 30.0
"""After this long a seek takes anyone in its pool, whatever the ratings."""

_EPSILON = 1e-9
"""Slack for float time: a seek that has waited 4.9999999999 s has waited its 5 s."""

__all__ = [
    "PROVISIONAL_RD",
    "WINDOW_OPEN_AFTER_S",
    "WINDOW_START",
    "WINDOW_START_PROVISIONAL",
    "WINDOW_STEP",
    "WINDOW_STEP_S",
    "Seeker",
    "acceptable",
    "best",
    "ready_at",
    "window",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Seeker:
    """What pairing needs to know of a seek."""

    rating: float
    deviation: float
    since: float
    """When it began to wait (the server's monotonic clock)."""
    windowed: bool
    """It pairs within a rating window (a rated pool and no bot); else first come."""

    @property
    def start(self) -> float:
        """Its window before any waiting."""
        return WINDOW_START_PROVISIONAL if self.deviation > PROVISIONAL_RD else WINDOW_START


def window(seeker: Seeker, now: float) -> float:
    """How far from its rating ``seeker`` takes an opponent at ``now`` (``math.inf``: anyone).

    >>> s = Seeker(1500, 60, since=0.0, windowed=True)
    >>> window(s, 0.0), window(s, 4.9), window(s, 5.0), window(s, 29.9), window(s, 30.0)
    (150.0, 150.0, 200.0, 400.0, inf)
    """
    if not seeker.windowed:
        return math.inf
    waited = max(0.0, now - seeker.since) + _EPSILON
    if waited >= WINDOW_OPEN_AFTER_S:
        return math.inf
    return seeker.start + WINDOW_STEP * math.floor(waited / WINDOW_STEP_S)


def acceptable(a: Seeker, b: Seeker, now: float) -> bool:
    """Whether ``a`` and ``b`` (of the same pool) may play each other at ``now``: either has
    no window, or their ratings are within both windows."""
    if not (a.windowed and b.windowed):
        return True
    return abs(a.rating - b.rating) <= min(window(a, now), window(b, now))


def _waited_for(distance: float, seeker: Seeker) -> float:
    """How long ``seeker`` waits until its window reaches ``distance``."""
    if distance <= seeker.start:
        return 0.0
    steps = math.ceil((distance - seeker.start) / WINDOW_STEP)
    return min(steps * WINDOW_STEP_S, WINDOW_OPEN_AFTER_S)


def ready_at(a: Seeker, b: Seeker) -> float:
    """The earliest time at which ``a`` and ``b`` are :func:`acceptable` to each other."""
    if not (a.windowed and b.windowed):
        return max(a.since, b.since)
    distance = abs(a.rating - b.rating)
    return max(a.since + _waited_for(distance, a), b.since + _waited_for(distance, b))


def best(seeker: Seeker, candidates: Iterable[tuple[T, Seeker]], now: float) -> T | None:
    """The candidate ``seeker`` pairs with at ``now``, or None.

    ``candidates`` come oldest first. Of those :func:`acceptable`, a pairing of two windowed
    seeks (a rated game between two people) comes first, the closest rating first; then the
    others (a bot, an unrated pool) first come, first served."""
    chosen: T | None = None
    chosen_rank: tuple[int, float] | None = None
    for item, other in candidates:
        if not acceptable(seeker, other, now):
            continue
        rated = seeker.windowed and other.windowed
        rank = (0, abs(seeker.rating - other.rating)) if rated else (1, 0.0)
        if chosen_rank is None or rank < chosen_rank:  # strict: the older wins a tie
            chosen, chosen_rank = item, rank
    return chosen
