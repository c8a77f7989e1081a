"""Start a bot player for a room as a separate process (``python -m client.bot``).

The server never imports the client: the bot is another process that connects over loopback like
any player, so its thinking never blocks the server's event loop. The bot runs the code of the
tree the server itself was loaded from (:func:`bot_environment`), whatever directory the server
was started in and whatever else the interpreter's path holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import site
import sys
from collections.abc import Mapping
from pathlib import Path

TOKEN_VARIABLE = "BOARDHALL_BOT_TOKEN"
"""The environment variable that hands a bot process its seat's token (never the command line,
which other users of the machine can read)."""
NICENESS = 10
"""Added to the server's own niceness for each bot process: bots think on wall-clock budgets, so
under load they only search less deep, while the server (moves, clocks and pings of every room)
keeps its CPU. Thirty bots at the server's priority on two cores held its event loop up to 1.5 s."""
CODE_ROOT = str(Path(__file__).resolve().parent.parent)
"""The directory holding the ``server`` package this module was loaded from, and its ``client``."""


def bot_command(url: str, room: str, game: str, variant: str | None, level: int) -> list[str]:
    """The command line of a bot that plays ``room`` at ``level``."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 8:
        raise ValueError(f"bot level must be 1-8, not {level!r}")
    # -P: not the working directory first on the module path (see bot_environment)
    command = [sys.executable, "-P", "-m", "client.bot", url, "--room", room, "--game", game]
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
        env=bot_environment(token),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        # out of the server's process group: Ctrl+C in the server's terminal interrupts every
        # process of the group, and a bot interrupted mid-game lingered with its connection
        # open (the stop waited 10 s for it); the server's stop ends its bots itself
        start_new_session=True,
    )
    lower_priority(process.pid)
    return process


def bot_environment(token: str | None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a bot process: ``base`` (the server's own by default) with
    :data:`CODE_ROOT` first on ``PYTHONPATH`` and the seat's token, if any, in
    :data:`TOKEN_VARIABLE`.

    With ``-P`` (:func:`bot_command`) the working directory is not put first on the module
    path, which ``python -m`` would otherwise do: a server started in a directory holding some
    other ``client`` package (another checkout, an unrelated project) would start that one's
    bot, or fail to start any. And an interpreter whose path holds another tree (an editable
    install of another checkout) finds this tree first.
    """
    env = code_first(os.environ if base is None else base)
    if token:
        env[TOKEN_VARIABLE] = token
    else:
        env.pop(TOKEN_VARIABLE, None)
    return env


def code_first(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with :data:`CODE_ROOT` first on ``PYTHONPATH``, for a child process that is to
    run this tree's code. Empty entries are dropped: Python reads one as the working
    directory, which would come back ahead of the standard library and the installed
    packages."""
    rest = [entry for entry in base.get("PYTHONPATH", "").split(os.pathsep) if entry]
    first = [] if _is_site_directory(CODE_ROOT) else [CODE_ROOT]
    joined = os.pathsep.join([*first, *rest])
    if joined:
        return {**base, "PYTHONPATH": joined}
    return {key: value for key, value in base.items() if key != "PYTHONPATH"}


def _is_site_directory(path: str) -> bool:
    """Whether ``path`` is one of this interpreter's site-packages directories: an installed
    server's code is found there in the interpreter's own order, after the standard library,
    which a ``PYTHONPATH`` entry would come before (an old backport installed there, such as
    ``typing`` or ``enum34``, would then hide the standard library's module)."""
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    return any(os.path.realpath(path) == os.path.realpath(found) for found in sites)


def lower_priority(pid: int) -> None:
    """Run process ``pid`` :data:`NICENESS` steps below the server (where the system allows)."""
    get, set_ = getattr(os, "getpriority", None), getattr(os, "setpriority", None)
    if get is None or set_ is None:  # not on this system (Windows)
        return
    with contextlib.suppress(OSError):  # gone already, or not allowed
        set_(os.PRIO_PROCESS, pid, min(19, get(os.PRIO_PROCESS, 0) + NICENESS))
