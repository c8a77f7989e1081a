"""Server CPU per move without sockets: the hall, the room, the engine and the encoding.

Plays the load benchmark's scripted games (bench/scripts.py, all five games, untimed and with a
clock) through the sans-I/O :class:`server.hall.Hall` exactly as the I/O layer does for a
frame (decode, ``Hall.handle``, encode each message once) and prints microseconds per move for
each game. ``--profile`` prints the cProfile functions that take the most time.

    python bench/hall_hotpath.py                 # a few seconds
    python bench/hall_hotpath.py --rounds 20 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scripts import GAMES, Script, library
from protocol import decode_client, encode
from server.testing import HallDriver


def play(driver: HallDriver, script: Script, clock: dict[str, int] | None) -> tuple[int, float]:
    """Play ``script`` in a fresh room; returns (moves, seconds spent in the hot path)."""
    first, second, code = driver.table(script.game, clock, variant=script.variant)
    hall = driver.hall
    conns = {"first": first, "second": second}
    frames = [
        f'{{"type":"move","id":"m{ply}","room":"{code}","ply":{ply},"move":"{move}"}}'
        for ply, move in enumerate(script.moves)
    ]
    spent = 0.0
    for ply, frame in enumerate(frames):
        conn = conns[script.sides[ply]]
        began = time.perf_counter()
        message = decode_client(frame)
        out = hall.handle(conn, message, driver.now, 0)
        texts = {}
        for _, sent in out.sends:
            if id(sent) not in texts:
                texts[id(sent)] = encode(sent)
        spent += time.perf_counter() - began
        assert out.moves == 1, out.sends
        driver.now += 0.2
    return len(frames), spent


def main(argv: list[str] | None = None) -> int:
    """Print microseconds per move for each game."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="times each script is played")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    args = parser.parse_args(argv)
    scripts = library(per_game=4, seed=1)
    profiler = cProfile.Profile() if args.profile else None
    total_moves, total_time = 0, 0.0
    for game in GAMES:
        moves, spent = 0, 0.0
        for _ in range(args.rounds):
            for index, script in enumerate(scripts[game]):
                driver = HallDriver()
                clock = None if index % 2 else {"initial": 600, "increment": 5}
                if profiler is not None:
                    profiler.enable()
                n, s = play(driver, script, clock)
                if profiler is not None:
                    profiler.disable()
                moves += n
                spent += s
        total_moves += moves
        total_time += spent
        print(f"{game:10} {moves:6} moves  {1e6 * spent / moves:7.1f} us/move")
    print(f"{'all':10} {total_moves:6} moves  {1e6 * total_time / total_moves:7.1f} us/move")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
