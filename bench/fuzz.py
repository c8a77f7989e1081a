"""Protocol fuzzer: seeded random and mutated frames against one server, a game beside it.

Each frame goes through :class:`bench.fuzzlib.Prober` (a ping barrier after every frame, every
answer checked against DESIGN.md: an error with the right code and ``re`` on a connection that
stays open, one reply per valid message with an id, 1009 only over the frame limit, 1007 for a
text frame that is not UTF-8, standard JSON in the protocol's shapes, never ``internal``). Every
``--game-every`` frames a scripted chess game on the same server makes one move and checks that
the opponent and the spectator saw it. The server runs in this process on its own thread with
the flood rule opened up (``tests/load/test_fuzz.py`` tests the flood rule itself).

Run: ``python bench/fuzz.py`` (20,000 frames); ``python bench/fuzz.py --frames 1000000`` for a
million. Exits 1 on the first violation, printing the frame and the seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.fuzzlib import Fuzzer, Generator, LiveServer, Violation
from server.flags import whole


def main(argv: list[str] | None = None) -> int:
    """Fuzz and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=whole(1), default=20_000, help="frames to send")
    parser.add_argument("--seed", type=int, default=1, help="generator seed")
    parser.add_argument("--game-every", type=whole(1), default=10, help="frames per side-game move")
    parser.add_argument(
        "--thread", action="store_true", help="run the server on a thread of this process"
    )
    args = parser.parse_args(argv)
    harness.exit_on_sigterm()
    live = LiveServer(process=not args.thread)
    fuzzer = Fuzzer(live, every=args.game_every)
    generator = Generator(args.seed, fuzzer.side.room, ("e2e4", "e4", "Nf3", "O-O", "e7e5"))
    began = time.perf_counter()
    status = 0
    try:
        for i in range(args.frames):
            frame, text = generator.frame()
            try:
                fuzzer.send(frame, text)
            except Violation as exc:
                print(f"VIOLATION at frame {i} (seed {args.seed}): {exc}")
                status = 1
                break
            if i and i % 100_000 == 0:
                print(f"  {i} frames, {i / (time.perf_counter() - began):.0f}/s", flush=True)
    finally:
        elapsed = time.perf_counter() - began
        internal = live.internal_errors()
        alive = live.alive()
        print(
            f"boardhall fuzz: {fuzzer.sent} frames in {elapsed:.1f} s "
            f"({fuzzer.sent / elapsed:.0f}/s), seed {args.seed}; closes "
            f"{dict(sorted(fuzzer.prober.closes.items()))} (1009 over the limit, 1007 bad UTF-8 "
            f"text); side game: {fuzzer.side.moves_seen} moves in {fuzzer.side.games} games, "
            f"every one seen by the opponent and the spectator; internal errors {internal}; "
            f"server alive {alive}"
        )
        fuzzer.prober.close()
        live.close()
    if internal or not alive:
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
