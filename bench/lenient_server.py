"""A ``boardhall-server`` with the flood rule opened up, for ``bench/fuzz.py --process``.

Prints ``listening on ws://127.0.0.1:PORT`` and serves until SIGTERM (in-memory database).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fuzzlib import LENIENT
from server.cli import stop_signals
from server.net import BoardhallServer


async def run() -> None:
    """Serve until SIGTERM/SIGINT."""
    server = BoardhallServer("127.0.0.1", 0, ":memory:", LENIENT)
    await server.start()
    print(f"lenient server listening on {server.url}", flush=True)
    await stop_signals()
    await server.stop()


if __name__ == "__main__":
    asyncio.run(run())
