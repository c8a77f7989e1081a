"""How long one SQLite commit of a few moves takes on this machine's disk, per durability mode.

The server commits every accepted move before it broadcasts it, so the tail of this figure is a
floor under the tail of move latency. Each mode writes batches of three ``SaveMove`` rows (about
what the server's group commit gathers at 1,000 moves/s) every ``--gap`` seconds for
``--seconds``, in a fresh database in ``--dir``, and prints p50/p99/p99.9/max:

* ``full``: what the server does by default: ``synchronous=FULL`` (every commit syncs the log)
  with its background :class:`Checkpointer`.
* ``full-inline``: ``synchronous=FULL`` with SQLite checkpointing inside commits (its default).
* ``full-sync-only``: ``synchronous=FULL`` with no checkpoints at all: the syncs alone.
* ``normal-inline``: ``synchronous=NORMAL``, SQLite checkpointing inside commits.
* ``normal``: ``synchronous=NORMAL`` with the background :class:`Checkpointer` (``--sync normal``).

Run: ``python bench/commit_latency.py`` (about 50 s; ``--seconds 30`` for longer).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from server.outputs import SaveMove
from server.storage import Checkpointer, Storage

MODES = ("full", "full-inline", "full-sync-only", "normal-inline", "normal")


def measure(
    mode: str, directory: str, seconds: float, gap: float, checkpoint_every: float = 0.25
) -> list[float]:
    """Commit latencies (seconds) of one mode."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        path = Path(tmp) / "bench.db"
        inline = mode.endswith("-inline")
        storage = Storage(path, durable=mode.startswith("full"), checkpoints=inline)
        checkpointer = None
        if mode in ("full", "normal"):
            checkpointer = Checkpointer(str(path), every=checkpoint_every)
            checkpointer.start()
        rng = random.Random(1)
        plies: dict[str, int] = {}
        took: list[float] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            batch = []
            for _ in range(3):
                game = f"g{rng.randrange(1000)}"
                ply = plies.get(game, 0)
                plies[game] = ply + 1
                batch.append(
                    SaveMove(game, ply, "e2e4", "first", 1000, 0, "2026-11-22T10:00:00.000Z", {})
                )
            began = time.perf_counter()
            storage.apply(batch)
            took.append(time.perf_counter() - began)
            time.sleep(gap)
        if checkpointer is not None:
            checkpointer.stop()
        storage.close()
        return took


def main(argv: list[str] | None = None) -> int:
    """Measure each mode and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per mode")
    parser.add_argument("--gap", type=float, default=0.002, help="seconds between commits")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the databases go")
    parser.add_argument("--modes", default=",".join(MODES), help="modes to run, in order")
    parser.add_argument(
        "--checkpoint-every",
        type=float,
        default=0.25,
        help="seconds between the background checkpointer's runs (full, normal)",
    )
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    unknown = set(modes) - set(MODES)
    if unknown:
        print(f"commit_latency: modes are {', '.join(MODES)}, not {', '.join(sorted(unknown))}")
        return 2
    print(f"SQLite {sqlite3.sqlite_version}, databases in {args.dir}, {args.seconds:g} s per mode")
    for mode in modes:
        took = measure(mode, args.dir, args.seconds, args.gap, args.checkpoint_every)
        p = [harness.percentile(took, q) * 1000 for q in (50, 99, 99.9, 100)]
        print(
            f"  {mode:15} commits {len(took):6}  p50 {p[0]:6.2f} ms  p99 {p[1]:6.2f} ms  "
            f"p99.9 {p[2]:7.1f} ms  max {p[3]:7.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
