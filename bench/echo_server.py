"""A bare ``websockets`` echo server: the yardstick of ``bench/load.py``.

Same library, same frame limit and no compression, like ``boardhall-server``; it prints
``listening on ws://127.0.0.1:PORT`` once it listens. Run: ``python bench/echo_server.py --port 0``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal

from websockets.asyncio.server import ServerConnection, serve

FRAME_BYTES = 64 * 1024


async def _echo(ws: ServerConnection) -> None:
    async for frame in ws:
        await ws.send(frame)


async def run(host: str, port: int) -> None:
    """Serve until SIGTERM/SIGINT."""
    async with serve(
        _echo, host, port, max_size=FRAME_BYTES, compression=None, ping_interval=10.0
    ) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        print(f"echo listening on ws://{host}:{bound}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


def main() -> None:
    """Parse flags and serve."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop")
    args = parser.parse_args()
    if args.uvloop:
        import uvloop

        uvloop.run(run(args.host, args.port))
    else:
        asyncio.run(run(args.host, args.port))


if __name__ == "__main__":
    main()
