"""Reconnection waits spread at random, so that clients dropped together (a server restart)
do not all come back in the same instant and again at every retry after it."""

from __future__ import annotations

import random
from collections.abc import Callable

SPREAD = 0.2
"""A planned wait is taken from (1 - SPREAD) to (1 + SPREAD) times itself."""

_DRAWS = random.Random()
"""The waits' own generator: drawing them leaves the ``random`` module's shared state alone
(a connection's thread retrying in the background must not move it under other code)."""


def spread(seconds: float, draw: Callable[[], float] = _DRAWS.random) -> float:
    """``seconds`` times a factor drawn evenly from 1 - :data:`SPREAD` to 1 + :data:`SPREAD`
    (``draw`` gives a number in [0, 1))."""
    return seconds * (1 - SPREAD + 2 * SPREAD * draw())
