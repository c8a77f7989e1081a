"""Per-move cost of the engines' server hot path: ``play`` + ``position`` + ``outcome``.

The server calls, for every accepted move, ``engine.play(state, text)``, then
``engine.position(new_state)``, then ``engine.outcome(new_state)`` (server/room.py). This script
plays seeded random games per game/variant (recording the moves with ``legal_moves``), then
replays the recorded moves (caches cold: the games are recorded in a child process) timing
exactly those three calls, and prints microseconds per move (each call and the sum), plus
``legal_moves`` per position separately (timed while recording, right after ``outcome``).

    python bench/engine_hotpath.py               # default, well under a minute
    python bench/engine_hotpath.py --games 40 --max-plies 300 --only chess custom/xiangqi
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import engines
from engines.base import Engine

CASES: tuple[tuple[str, str | None], ...] = (
    ("chess", None),
    ("draughts", "international"),
    ("shuqi", None),
    ("hexgomoku", None),
    ("custom", "xiangqi"),
    ("custom", "stones"),
)
"""(game, variant) pairs measured, in print order."""


@dataclass
class Figures:
    """Accumulated timings of one (game, variant)."""

    moves: int = 0
    play: float = 0.0
    position: float = 0.0
    outcome: float = 0.0
    legal_calls: int = 0
    legal: float = 0.0

    def us(self, seconds: float, count: int) -> float:
        """Microseconds per unit."""
        return 1e6 * seconds / count if count else 0.0


def record_game(engine: Engine, variant: str | None, seed: int, max_plies: int,
                figures: Figures) -> list[str]:
    """A seeded random game's moves; times ``legal_moves`` along the way."""
    rng = random.Random(seed)
    state = engine.start(variant)
    moves: list[str] = []
    while len(moves) < max_plies and engine.outcome(state) is None:
        t0 = time.process_time()
        legal = engine.legal_moves(state)
        figures.legal += time.process_time() - t0
        figures.legal_calls += 1
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move)
        state = engine.play(state, move)
    return moves


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
"""``cpu`` (default) is this process's CPU time: steadier on a shared, loaded machine; each
reading costs ~0.7 us, part of which lands in the figures."""


def replay(
    engine: Engine, variant: str | None, moves: Sequence[str], figures: Figures, clock_name: str
) -> None:
    """Replay ``moves`` as the server does, timing play, position and outcome per move."""
    clock = CLOCKS[clock_name]
    state: Any = engine.start(variant)
    for move in moves:
        t0 = clock()
        state = engine.play(state, move)
        t1 = clock()
        engine.position(state)
        t2 = clock()
        engine.outcome(state)
        t3 = clock()
        figures.play += t1 - t0
        figures.position += t2 - t1
        figures.outcome += t3 - t2
    figures.moves += len(moves)


def record_all(
    game: str, variant: str | None, games: int, max_plies: int
) -> tuple[list[list[str]], float, int]:
    """Moves of ``games`` seeded random games, with the ``legal_moves`` time and call count."""
    figures = Figures()
    engine = engines.get(game)
    recorded = [record_game(engine, variant, seed, max_plies, figures) for seed in range(games)]
    return recorded, figures.legal, figures.legal_calls


def measure(
    game: str, variant: str | None, games: int, max_plies: int, rounds: int, clock: str
) -> Figures:
    """Record ``games`` random games of one case, then replay them ``rounds`` times.

    The games are recorded in a child process, so the replay starts with the engine's caches as
    cold as a server's (position-keyed caches would otherwise hit on every replayed move); with
    ``rounds`` > 1 the later rounds do hit them.
    """
    engine = engines.get(game)
    figures = Figures()
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        recorded, figures.legal, figures.legal_calls = pool.submit(
            record_all, game, variant, games, max_plies
        ).result()
    for _ in range(rounds):
        for moves in recorded:
            replay(engine, variant, moves, figures, clock)
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, measure every case, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games per case (seeds 0..)")
    parser.add_argument("--max-plies", type=int, default=200, help="cap on a game's length")
    parser.add_argument("--rounds", type=int, default=1, help="replays of the recorded games")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: process CPU time (default); wall: perf_counter")
    parser.add_argument("--only", nargs="*", default=None,
                        help="cases to run, as game or game/variant (e.g. custom/xiangqi)")
    args = parser.parse_args(argv)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.games} games x {args.rounds} rounds, <= {args.max_plies} plies, "
          f"{args.clock} clock")
    print(f"{'case':<24}{'moves':>7}{'play':>9}{'position':>10}{'outcome':>9}"
          f"{'sum us':>9}{'legal_moves':>13}")
    for game, variant in CASES:
        name = game if variant is None else f"{game}/{variant}"
        if args.only and name not in args.only and game not in args.only:
            continue
        f = measure(game, variant, args.games, args.max_plies, args.rounds, args.clock)
        total = f.play + f.position + f.outcome
        print(f"{name:<24}{f.moves:>7}{f.us(f.play, f.moves):>9.1f}"
              f"{f.us(f.position, f.moves):>10.1f}{f.us(f.outcome, f.moves):>9.1f}"
              f"{f.us(total, f.moves):>9.1f}{f.us(f.legal, f.legal_calls):>13.1f}", flush=True)


if __name__ == "__main__":
    main()
