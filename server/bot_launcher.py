"""Start a bot player for a room as a separate process (``python -m client.bot``).

The server never imports the client: the bot is another process that connects over loopback like
any player, so its thinking never blocks the server's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

TOKEN_VARIABLE = "BOARDHALL_BOT_TOKEN"
"""The environment variable that hands a bot process its seat's token (never the command line,
which other users of the machine can read)."""
NICENESS = 10
"""Added to the server's own niceness for each bot process: bots think on wall-clock budgets, so
under load they only search less deep, while the server (moves, clocks and pings of every room)
keeps its CPU. Thirty bots at the server's priority on two cores held its event loop up to 1.5 s."""


def bot_command(url: str, room: str, game: str, variant: str | None, level: int) -> list[str]:
    """The command line of a bot that plays ``room`` at ``level``."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 8:
        raise ValueError(f"bot level must be 1-8, not {level!r}")
    command = [sys.executable, "-m", "client.bot", url, "--room", room, "--game", game]
    if variant:
        command += ["--variant", variant]
    return [*command, "--level", str(level)]


async def launch_bot(
    url: str, room: str, game: str, variant: str | None, level: int, token: str | None = None
) -> asyncio.subprocess.Process:
    """Start a bot process that joins ``room`` on the server at ``url`` and plays there.

    Args:
        url: the server's WebSocket URL (``ws://127.0.0.1:PORT/``).
        room: the room code the bot sits in.
        game: the game id.
        variant: the variant id, or ``None`` for the default.
        level: 1-8.
        token: the secret token of the bot's seat (the server made that identity for the bot).

    Returns:
        The running process; it exits when the room has no more games for it.
    """
    process = await asyncio.create_subprocess_exec(
        *bot_command(url, room, game, variant, level),
        env={**os.environ, TOKEN_VARIABLE: token} if token else None,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
    )
    lower_priority(process.pid)
    return process


def lower_priority(pid: int) -> None:
    """Run process ``pid`` :data:`NICENESS` steps below the server (where the system allows)."""
    get, set_ = getattr(os, "getpriority", None), getattr(os, "setpriority", None)
    if get is None or set_ is None:  # not on this system (Windows)
        return
    with contextlib.suppress(OSError):  # gone already, or not allowed
        set_(os.PRIO_PROCESS, pid, min(19, get(os.PRIO_PROCESS, 0) + NICENESS))
