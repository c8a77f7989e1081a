"""The ``boardhall`` command: ``connect``, ``local``, ``screenshot``, ``replay`` (and ``bot``).

Subcommands live in :data:`SUBCOMMANDS` (name -> (add_arguments, run)); another module can add
its own with :func:`register` (the headless bot player adds ``bot`` from ``client/bot_cli.py``
without importing pygame).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from client import flags

# pygame's own banner on every start is noise in a user's terminal and in a bot's log
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

AddArgs = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]

SUBCOMMANDS: dict[str, tuple[str, AddArgs, Run]] = {}
"""name -> (help, add_arguments, run)."""

PLUGIN_MODULES = ("client.bot_cli",)
"""Modules that may call :func:`register` when imported (missing ones are skipped)."""


def register(name: str, help_text: str, add_arguments: AddArgs, run: Run) -> None:
    """Add a subcommand."""
    SUBCOMMANDS[name] = (help_text, add_arguments, run)


# ---- connect ------------------------------------------------------------------------------------

def _connect_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("address", nargs="?", default=None,
                   help="HOST, HOST:PORT or a ws:// / wss:// URL (default: the last server)")
    p.add_argument("--name", help="your player name (default: the last one)")
    p.add_argument("--port", type=flags.port,
                   help="port when the address names none, 1 to 65535 (default 8765)")
    p.add_argument("--size", type=flags.size, default=(1280, 800), help="window size, e.g. 900x600")
    p.add_argument("--cafile", type=Path,
                   help="certificate authority to trust for wss:// (a self-signed server)")


def _connect(args: argparse.Namespace) -> int:
    from client.address import BadAddress, to_url
    from client.app import App
    from client.config import Config
    from client.scenes.connect import ConnectScene

    config = Config.load()
    address = args.address or config.server
    if address and args.port:
        try:
            address = to_url(address, args.port)
        except BadAddress as exc:
            print(f"boardhall connect: {exc}", file=sys.stderr)
            return 2
    name = (args.name or config.name)[:32]
    ssl_context = None
    if args.cafile is not None:
        import ssl

        try:
            ssl_context = ssl.create_default_context(cafile=str(args.cafile))
        except (OSError, ssl.SSLError) as exc:
            print(f"boardhall connect: cannot use {args.cafile}: {exc}", file=sys.stderr)
            return 2
    app = App(config, window_size=args.size)
    app.ssl_context = ssl_context
    scene = ConnectScene(app, address or "", name or "")
    app.push(scene)
    if args.address and name:
        scene.submit()  # typed on the command line: connect at once (errors show in the window)
    app.run()
    return 0


VARIANT_HELP = "variant id, or for --game custom a variant file (.toml, or a JBQ .xlsx map)"
"""The ``--variant`` help of ``local`` and ``screenshot``, which both read a file too."""


# ---- local --------------------------------------------------------------------------------------

def _local_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="hexgomoku", help="game id (default hexgomoku)")
    p.add_argument("--variant", help=VARIANT_HELP)
    p.add_argument("--bot", type=flags.bot_level,
                   help="play the computer at this level (1-8) instead of hot-seat")
    p.add_argument("--size", type=flags.size, default=(1280, 800), help="window size, e.g. 900x600")


def _local(args: argparse.Namespace) -> int:
    from client.local import run_local

    level = None if args.bot is None else str(args.bot)
    return run_local(args.game, args.variant, level, args.size)


# ---- screenshot ---------------------------------------------------------------------------------

def _screenshot_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="hexgomoku", help="game id (default hexgomoku)")
    p.add_argument("--variant", help=VARIANT_HELP)
    p.add_argument("--position", help="start position string")
    p.add_argument("--scene", choices=("room", "lobby", "connect"), default="room",
                   help="what to render: a room with the board (default), the lobby or the "
                   "connect screen")
    p.add_argument("--plies", type=flags.plies, default=6,
                   help=f"legal moves to play first, 0 to {flags.PLIES_MAX} (default 6)")
    p.add_argument("--size", type=flags.size, default=(1280, 800), help="image size, e.g. 900x600")
    p.add_argument("--out", required=True, type=Path, help="PNG file to write")


def _screenshot(args: argparse.Namespace) -> int:
    import pygame

    import engines
    from client.screenshot import screenshot

    out: Path = args.out
    folder = out.parent
    if not folder.is_dir():
        why = "is not a directory" if folder.exists() else "does not exist"
        print(f"boardhall screenshot: cannot write {out}: {folder} {why}", file=sys.stderr)
        return 2
    try:
        variant = engines.variant_or_file(engines.get(args.game), args.variant)
        screenshot(args.game, out, variant, args.position, args.scene, max(0, args.plies),
                   args.size)
    except engines.EngineError as exc:
        print(f"boardhall screenshot: {exc}", file=sys.stderr)
        return 2
    except (OSError, pygame.error) as exc:
        print(f"boardhall screenshot: cannot write {out}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out}")
    return 0


# ---- replay -------------------------------------------------------------------------------------

def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="a record file (Boardhall JSON, a chess PGN or a draughts "
                   "PDN) or an http(s):// URL of GET /games/ID (any format it serves)")
    p.add_argument("--game", help="game id when the record does not say (chess: PGN, "
                   "draughts: PDN)")
    p.add_argument("--size", type=flags.size, default=(1280, 800), help="window size, e.g. 900x600")


def _unusable_source(source: str) -> str:
    """Why ``boardhall replay`` cannot read ``source`` and what to type instead ("" when it
    may be read): a game's WebSocket address, or a file that is not there (a game id alone
    names no server)."""
    for ws, http in (("ws://", "http://"), ("wss://", "https://")):
        if source.startswith(ws):
            rest = source[len(ws):]
            target = rest if "/games/" in rest else f"{rest.rstrip('/')}/games/ID"
            return f"a game record is read over {http[:-3]}, not {ws}: type {http}{target}"
    if source.startswith(("http://", "https://")) or Path(source).exists():
        return ""
    hint = source if source and "/" not in source and "." not in source else "ID"
    return (f"no file {source!r}: give a record file (JSON, PGN or PDN) or a game on its "
            f"server, http://HOST:8765/games/{hint}")


def _replay(args: argparse.Namespace) -> int:
    from client.app import App
    from client.config import Config
    from client.scenes.replay import RecordError, ReplayScene, fetch_record, parse_record

    source: str = args.record
    unusable = _unusable_source(source)
    if unusable:
        print(f"boardhall replay: {unusable}", file=sys.stderr)
        return 2
    try:
        if source.startswith(("http://", "https://")):
            record = fetch_record(source)
        else:
            record = parse_record(Path(source).read_text(encoding="utf-8"), args.game)
    except OSError as exc:
        print(f"boardhall replay: {exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"boardhall replay: {args.record} is not text (a JSON, PGN or PDN record)",
              file=sys.stderr)
        return 2
    except RecordError as exc:  # a fetch's error names its URL already
        where = "" if args.record.startswith(("http://", "https://")) else f"{args.record}: "
        print(f"boardhall replay: {where}{exc}", file=sys.stderr)
        return 2
    app = App(Config.load(), window_size=args.size)
    app.push(ReplayScene.from_record(app, record))
    app.run()
    return 0


register("connect", "connect to a server and open the window", _connect_args, _connect)
register("local", "play on this computer (hot-seat or against a bot)", _local_args, _local)
register("screenshot", "render a scene offscreen to a PNG", _screenshot_args, _screenshot)
register("replay", "step through a recorded game", _replay_args, _replay)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    for module in PLUGIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    parser = argparse.ArgumentParser(prog="boardhall", description="Boardhall board-game client")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add_arguments, _) in SUBCOMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``boardhall`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["connect", *(argv or [])])
    return SUBCOMMANDS[args.command][2](args)


if __name__ == "__main__":
    sys.exit(main())
