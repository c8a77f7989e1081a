"""Chess engine figures: perft counts and speed, and the cost of one move through immutable states.

Run: ``python bench/perft_chess.py [--depth-start 5] [--depth-kiwipete 4] [--plies 2000]``.
Finishes in well under a minute with the defaults on one core.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import time

from bench.api_speed import play_speed
from engines.chess import ENGINE

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PUBLISHED = {
    "start": [1, 20, 400, 8902, 197281, 4865609],
    "kiwipete": [1, 48, 2039, 97862, 4085603],
}


def perft_row(name: str, fen: str | None, depth: int) -> None:
    """Print the perft count at each depth up to ``depth``, its speed and the published count."""
    state = ENGINE.start(position=fen)
    for d in range(1, depth + 1):
        began = time.perf_counter()
        nodes = ENGINE.perft(state, d)
        elapsed = time.perf_counter() - began
        expected = PUBLISHED[name][d]
        mark = "ok" if nodes == expected else f"MISMATCH (published {expected})"
        rate = nodes / elapsed if elapsed > 0 else float("inf")
        print(f"{name:9} depth {d}: {nodes:>9} {mark:3}  {elapsed:7.3f} s  {rate:>10,.0f} nodes/s")


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth-start", type=int, default=5)
    parser.add_argument("--depth-kiwipete", type=int, default=4)
    parser.add_argument("--plies", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    perft_row("start", None, args.depth_start)
    perft_row("kiwipete", KIWIPETE, args.depth_kiwipete)
    play_speed(ENGINE, args.plies, args.seed, None)


if __name__ == "__main__":
    main()
