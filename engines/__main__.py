"""Command line of the engines: ``python -m engines perft GAME DEPTH [--variant V] [--position P]``.

The node count is always the last line printed.
"""

from __future__ import annotations

import argparse
import sys
import time

from engines.base import EngineError
from engines.registry import ENGINE_MODULES, get, variant_or_file


def main(argv: list[str] | None = None) -> int:
    """Run the engines command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m engines", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    perft = sub.add_parser("perft", help="count positions at exactly DEPTH plies")
    perft.add_argument("game", choices=sorted(ENGINE_MODULES))
    perft.add_argument("depth", type=int)
    perft.add_argument("--variant", default=None, help="variant id (or a variant file for custom)")
    perft.add_argument("--position", default=None, help="start from this position string")
    perft.add_argument("--divide", action="store_true", help="print the count below each move")
    args = parser.parse_args(argv)

    try:
        engine = get(args.game)
        variant = variant_or_file(engine, args.variant)
        state = engine.start(variant, position=args.position)
        if args.depth < 0:
            raise EngineError("depth must be 0 or more")
        began = time.perf_counter()
        if args.divide and args.depth > 0:
            total = 0
            for move in engine.legal_moves(state):
                count = engine.perft(engine.play(state, move), args.depth - 1)
                print(f"{move}: {count}")
                total += count
        else:
            total = engine.perft(state, args.depth)
        elapsed = time.perf_counter() - began
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rate = total / elapsed if elapsed > 0 else float("inf")
    summary = f"# {args.game} depth {args.depth}: {elapsed:.3f} s, {rate:,.0f} nodes/s"
    print(summary)
    print(total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
