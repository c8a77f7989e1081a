"""The yardsticks of ``bench/load.py``: a bare ``websockets`` echo server, or a relay.

Same library, same frame limit and no compression, like ``boardhall-server``; it prints
``echo listening on ws://127.0.0.1:PORT`` (or ``relay listening on ...``) once it listens.
Run: ``python bench/echo_server.py --port 0 [--uvloop] [--relay]``.

``--relay`` serves boardhall's fan-out with no game, no clock and no storage: a connection names
its table and role in one ``{"type": "seat", "table": N, "role": "first"|"second"|"spectator"}``
frame, and each ``{"type": "move", ...}`` a player sends goes out as ``moved`` to the opponent
first, then to the mover (with ``re``: the move's ``id``), then to the table's spectators, as
boardhall sends it. Its latency is what any server with that fan-out pays on this machine and
with this load client: the floor under boardhall's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast, serve

FRAME_BYTES = 64 * 1024


async def _echo(ws: ServerConnection) -> None:
    async for frame in ws:
        await ws.send(frame)


class RelayTable:
    """The connections of one table of the relay."""

    def __init__(self) -> None:
        self.players: dict[str, ServerConnection] = {}
        self.watchers: set[ServerConnection] = set()


def relay_handler() -> Callable[[ServerConnection], Coroutine[Any, Any, None]]:
    """A connection handler relaying each table's moves to its other connections."""
    tables: dict[Any, RelayTable] = {}

    async def relay(ws: ServerConnection) -> None:
        table: RelayTable | None = None
        role = ""
        try:
            async for frame in ws:
                data = json.loads(frame)
                kind = data.get("type")
                if kind == "seat":
                    table = tables.setdefault(data["table"], RelayTable())
                    role = data["role"]
                    if role == "spectator":
                        table.watchers.add(ws)
                    else:
                        table.players[role] = ws
                elif kind == "move" and table is not None:
                    moved = {
                        "type": "moved",
                        "room": data.get("room"),
                        "ply": data.get("ply"),
                        "move": data.get("move"),
                    }
                    copy = json.dumps(moved)
                    opponent = table.players.get("second" if role == "first" else "first")
                    if opponent is not None:
                        await opponent.send(copy)
                    await ws.send(json.dumps({**moved, "re": data.get("id")}))
                    broadcast(table.watchers, copy)
        finally:
            if table is not None:
                table.watchers.discard(ws)
                if table.players.get(role) is ws:
                    del table.players[role]

    return relay


async def run(host: str, port: int, relay: bool = False) -> None:
    """Serve until SIGTERM/SIGINT."""
    handler = relay_handler() if relay else _echo
    async with serve(
        handler, host, port, max_size=FRAME_BYTES, compression=None, ping_interval=10.0
    ) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        what = "relay" if relay else "echo"
        print(f"{what} listening on ws://{host}:{bound}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


def main() -> None:
    """Parse flags and serve."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop")
    parser.add_argument("--relay", action="store_true", help="relay moves as boardhall fans out")
    args = parser.parse_args()
    if args.uvloop:
        import uvloop

        uvloop.run(run(args.host, args.port, args.relay))
    else:
        asyncio.run(run(args.host, args.port, args.relay))


if __name__ == "__main__":
    main()
