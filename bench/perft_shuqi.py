"""Number chess figures: perft counts and speed, the span solver, and the public API per move.

Run: ``python bench/perft_shuqi.py [--depth 5] [--mid-depth 3] [--plies 2000] [--spans 300]``.
Finishes in well under a minute with the defaults on one core.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import random
import time

from bench.api_speed import play_speed
from engines.shuqi import ENGINE, ShuqiState, solve
from engines.shuqi.solver import _solve, values


def perft_rows(name: str, state: ShuqiState, depth: int) -> None:
    """Print the perft count at each depth up to ``depth`` with its time and speed."""
    print(f"# {name}: {ENGINE.position(state)}")
    for d in range(1, depth + 1):
        began = time.perf_counter()
        nodes = ENGINE.perft(state, d)
        elapsed = time.perf_counter() - began
        rate = nodes / elapsed if elapsed > 0 else float("inf")
        print(f"{name:6} depth {d}: {nodes:>10}  {elapsed:8.3f} s  {rate:>12,.0f} nodes/s")


def random_state(plies: int, seed: int) -> ShuqiState:
    """The state after ``plies`` random moves from the start."""
    rng = random.Random(seed)
    state = ENGINE.start()
    for _ in range(plies):
        moves = ENGINE.legal_moves(state)
        if not moves:
            break
        state = ENGINE.play(state, rng.choice(moves))
    return state


def solver_speed(count: int, seed: int) -> None:
    """Cold-cache solve() time by number of spanned pieces (k = 2..6), random digits."""
    rng = random.Random(seed)
    for k in range(2, 7):
        values.cache_clear()
        _solve.cache_clear()
        began = time.perf_counter()
        found = 0
        for _ in range(count):
            numbers = [rng.randrange(10) for _ in range(k)]
            found += solve(numbers, rng.randrange(10)) is not None
        elapsed = time.perf_counter() - began
        print(
            f"solve k={k}: {elapsed / count * 1e6:9.1f} us per call, cold cache "
            f"({count} random spans, {found} solvable)"
        )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=5, help="perft depth from the start")
    parser.add_argument("--mid-depth", type=int, default=3, help="perft depth mid-game")
    parser.add_argument("--plies", type=int, default=2000, help="random plies for API timing")
    parser.add_argument("--spans", type=int, default=300, help="random spans per size")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    perft_rows("start", ENGINE.start(), args.depth)
    perft_rows("mid", random_state(40, args.seed), args.mid_depth)
    solver_speed(args.spans, args.seed)
    play_speed(ENGINE, args.plies, args.seed, {"max_plies": 400})


if __name__ == "__main__":
    main()
