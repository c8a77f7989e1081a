"""``boardhall-server`` with two bench hooks: SIGUSR1 runs ``gc.collect()``; optional uvloop.

Run exactly like ``boardhall-server`` (same flags). With ``BENCH_UVLOOP=1`` in the environment
the server runs on uvloop (the ``speed`` extra), so its effect can be measured without editing
the server. The soak compares the server's memory before and after the clients come and go.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.cli import main


def _collect(signum: int, frame: FrameType | None) -> None:
    gc.collect()


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, _collect)
    if os.environ.get("BENCH_UVLOOP") == "1":
        import asyncio

        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    sys.exit(main())
