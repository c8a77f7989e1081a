"""Draughts perft speed: our bitboard engine against pydraughts, same machine, same run.

    python bench/perft_draughts.py            # 20-40 s
    python bench/perft_draughts.py --long     # deeper on both sides (several minutes)
    python bench/perft_draughts.py --ours-depth 8 --theirs-depth 3 --variant russian

For each variant it prints our perft from the start (leaf count; seconds and leaves per second,
wall clock and CPU), the same for pydraughts (public ``Board`` API: ``legal_moves``, ``push``,
``pop``, counting the moves at depth 1 like ours), and the ratio of the two rates per CPU second.
The counts at pydraughts' depth are checked to agree. Our perft is the engine's own
``ENGINE.perft`` (bitboards, bulk counting at depth 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from engines.draughts import ENGINE

PYDRAUGHTS_VARIANT = {"international": "standard", "brazilian": "brazilian", "russian": "russian"}
DEFAULT_DEPTHS = {"international": (7, 4), "brazilian": (8, 4), "russian": (8, 4)}
LONG_DEPTHS = {"international": (8, 5), "brazilian": (9, 5), "russian": (9, 5)}


def their_perft(board: Any, depth: int) -> int:
    """pydraughts perft through its public API."""
    if depth == 0:
        return 1
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += their_perft(board, depth - 1)
        board.pop()
    return total


def timed(label: str, run: Callable[..., int], *args: Any) -> tuple[int, float]:
    """Run ``run(*args)``; print its count, wall time and rates; return (count, CPU seconds).

    The machine may be shared, so the rate is also given per CPU second of this process (the
    figure the ratio uses).
    """
    wall = time.perf_counter()
    cpu = time.process_time()
    count = run(*args)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    print(
        f"  {label:<26} {count:>10,} leaves {wall:7.2f} s wall {count / wall:>10,.0f} /s"
        f"  {cpu:7.2f} s CPU {count / cpu:>10,.0f} /s CPU"
    )
    return count, cpu


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status (1 if counts disagree)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=sorted(PYDRAUGHTS_VARIANT), action="append")
    parser.add_argument("--ours-depth", type=int, help="our perft depth (default per variant)")
    parser.add_argument("--theirs-depth", type=int, help="pydraughts perft depth")
    parser.add_argument("--long", action="store_true", help="deeper default depths")
    args = parser.parse_args(argv)
    try:
        from draughts import Board
    except ImportError:
        print("pydraughts is not installed (pip install pydraughts)", file=sys.stderr)
        return 2
    import draughts

    print(f"python {sys.version.split()[0]}, pydraughts {draughts.__version__}")
    status = 0
    for variant in args.variant or list(PYDRAUGHTS_VARIANT):
        ours_depth, theirs_depth = (LONG_DEPTHS if args.long else DEFAULT_DEPTHS)[variant]
        ours_depth = args.ours_depth or ours_depth
        theirs_depth = args.theirs_depth or theirs_depth
        start = ENGINE.start(variant)
        print(f"{variant}:")
        ours_n, ours_t = timed(f"ours perft({ours_depth})", ENGINE.perft, start, ours_depth)
        same_n, _ = timed(f"ours perft({theirs_depth})", ENGINE.perft, start, theirs_depth)
        board = Board(PYDRAUGHTS_VARIANT[variant])
        their_n, their_t = timed(
            f"pydraughts perft({theirs_depth})", their_perft, board, theirs_depth
        )
        if their_n != same_n:
            print(f"  COUNTS DISAGREE at depth {theirs_depth}: ours {same_n}, pydraughts {their_n}")
            status = 1
        ratio = (ours_n / ours_t) / (their_n / their_t)
        print(f"  ratio ours/pydraughts (leaves per CPU second): {ratio:,.0f}x")
    return status


if __name__ == "__main__":
    sys.exit(main())
