"""Per-move cost of the engines' server hot path: ``play`` + ``position`` + ``outcome``.

The server calls, for every accepted move, ``engine.play(state, text)``, then
``engine.position(new_state)``, then ``engine.outcome(new_state)`` (server/room.py). This script
plays seeded random games per game/variant (recording the moves with ``legal_moves``), then
replays the recorded moves timing exactly those three calls, and prints microseconds per move
(each call and the sum), plus ``legal_moves`` per position separately.

    python bench/engine_hotpath.py               # default, well under a minute
    python bench/engine_hotpath.py --games 40 --max-plies 300 --only chess custom/xiangqi
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Sequence
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
        t0 = time.perf_counter()
        legal = engine.legal_moves(state)
        figures.legal += time.perf_counter() - t0
        figures.legal_calls += 1
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move)
        state = engine.play(state, move)
    return moves


def replay(engine: Engine, variant: str | None, moves: Sequence[str], figures: Figures) -> None:
    """Replay ``moves`` as the server does, timing play, position and outcome per move."""
    clock = time.perf_counter
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


def measure(game: str, variant: str | None, games: int, max_plies: int, rounds: int) -> Figures:
    """Record ``games`` random games of one case, then replay them ``rounds`` times."""
    engine = engines.get(game)
    figures = Figures()
    recorded = [record_game(engine, variant, seed, max_plies, figures) for seed in range(games)]
    for _ in range(rounds):
        for moves in recorded:
            replay(engine, variant, moves, figures)
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, measure every case, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="random games per case (seeds 0..)")
    parser.add_argument("--max-plies", type=int, default=200, help="cap on a game's length")
    parser.add_argument("--rounds", type=int, default=3, help="replays of the recorded games")
    parser.add_argument("--only", nargs="*", default=None,
                        help="cases to run, as game or game/variant (e.g. custom/xiangqi)")
    args = parser.parse_args(argv)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.games} games x {args.rounds} rounds, <= {args.max_plies} plies")
    print(f"{'case':<24}{'moves':>7}{'play':>9}{'position':>10}{'outcome':>9}"
          f"{'sum us':>9}{'legal_moves':>13}")
    for game, variant in CASES:
        name = game if variant is None else f"{game}/{variant}"
        if args.only and name not in args.only and game not in args.only:
            continue
        f = measure(game, variant, args.games, args.max_plies, args.rounds)
        total = f.play + f.position + f.outcome
        print(f"{name:<24}{f.moves:>7}{f.us(f.play, f.moves):>9.1f}"
              f"{f.us(f.position, f.moves):>10.1f}{f.us(f.outcome, f.moves):>9.1f}"
              f"{f.us(total, f.moves):>9.1f}{f.us(f.legal, f.legal_calls):>13.1f}", flush=True)


if __name__ == "__main__":
    main()
