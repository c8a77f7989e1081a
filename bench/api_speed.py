"""Time per call of an engine's public API over seeded random games (shared by perft_*.py)."""

from __future__ import annotations

import random
import time
from typing import Any

from engines.base import Engine


def play_speed(
    engine: Engine, plies: int, seed: int, options: dict[str, Any] | None = None
) -> None:
    """Play ``plies`` random plies (restarting finished games) and print us per call of
    ``legal_moves()``, ``play()`` and ``outcome()``."""
    rng = random.Random(seed)
    spent = {"legal_moves": 0.0, "play": 0.0, "outcome": 0.0}
    state = engine.start(options=options)
    played = 0
    while played < plies:
        began = time.perf_counter()
        moves = engine.legal_moves(state)
        spent["legal_moves"] += time.perf_counter() - began
        if not moves:
            state = engine.start(options=options)
            continue
        began = time.perf_counter()
        state = engine.play(state, rng.choice(moves))
        spent["play"] += time.perf_counter() - began
        began = time.perf_counter()
        engine.outcome(state)
        spent["outcome"] += time.perf_counter() - began
        played += 1
    for name, seconds in spent.items():
        print(f"{name:12} {seconds / plies * 1e6:8.1f} us per call ({plies} random plies)")
