"""``boardhall-server``: run the Boardhall game server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import signal
import socket
import sqlite3
import ssl
import sys
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from protocol import limits
from server import discovery, gcpolicy, lan
from server.config import ServerConfig, server_version
from server.dbcheck import SCHEMA_VERSION
from server.flags import (
    DAY_S,
    DEFAULT_PORT,
    PORT_VARIABLE,
    WEEK_S,
    bounded,
    default_port,
    ipv6_prefix,
    networks,
    ping_interval,
    port_number,
    seconds,
    variant_directory,
    whole,
)
from server.logs import setup_logging
from server.net import HTTP_ROUTES, BoardhallServer, CannotListen

log = logging.getLogger("boardhall.cli")

DEFAULTS = ServerConfig()

COUNT_MAX = 1_000_000
"""The most any count flag takes (connections, rooms, spectators, messages and chat lines):
a million is more than one server process can hold or handle, so a limit raised that far is
already off (the load benchmarks open --connections-per-address this far); a larger number
is a slip of the keyboard."""

BOT_GAMES_MAX = 1000
"""The most ``--bot-games``: each game against the computer runs a bot process of its own."""

LAG_CREDIT_MAX_MS = 60_000
"""The most ``--lag-credit-max``: a minute; a side's lag quota holds only a second anyway."""


def database_problem(path: str, error: sqlite3.Error) -> str:
    """Why ``--db`` cannot be used: SQLite's reason, and what is wrong with the path when that
    can be told."""
    parent = Path(path).resolve().parent
    code = getattr(error, "sqlite_errorcode", -1) & 0xFF  # the primary code of an extended one
    if Path(path).is_dir():
        hint = " (it is a directory)"
    elif not parent.is_dir():
        hint = f" (its directory {parent} does not exist: create it, or give another --db)"
    elif code == sqlite3.SQLITE_CANTOPEN:
        hint = (f" (may this user write in {parent}? the database keeps its -wal and -shm "
                "files beside it)")  # fmt: skip
    elif code == sqlite3.SQLITE_READONLY:
        hint = f" (may this user write to it and in {parent}?)"
    elif code == sqlite3.SQLITE_NOTADB:
        hint = " (not a SQLite file: is --db the right file?)"
    elif code == sqlite3.SQLITE_CORRUPT:
        hint = " (the file is damaged: start the server on your last backup, --db BACKUP)"
    else:
        hint = ""
    return f"cannot use the database {path}: {error}{hint}"


def tls_problem(cert: Path, key: Path, error: OSError) -> str:
    """Why ``--tls-cert`` and ``--tls-key`` cannot serve ``wss://``, naming the file at fault
    where that can be told (OpenSSL says only "PEM lib" for most of it)."""
    if isinstance(error, ssl.SSLError) and error.reason == "KEY_VALUES_MISMATCH":
        return f"--tls-key {key} is not the key of --tls-cert {cert}"
    if isinstance(error, ssl.SSLError):
        cert_text = cert.read_text(errors="replace")
        key_text = key.read_text(errors="replace")
        if "-----BEGIN CERTIFICATE-----" not in cert_text:
            return f"--tls-cert {cert} holds no PEM certificate"
        if (
            "-----BEGIN ENCRYPTED PRIVATE KEY-----" in key_text
            or "Proc-Type: 4,ENCRYPTED" in key_text
        ):
            return (f"--tls-key {key} is encrypted and the server cannot ask for its passphrase: "
                    f"decrypt it (openssl pkey -in {key} -out KEY.pem)")  # fmt: skip
        if "PRIVATE KEY-----" not in key_text:
            return f"--tls-key {key} holds no PEM private key"
    return f"cannot load --tls-cert {cert} with --tls-key {key}: {error.strerror or error}"


def listen_host(text: str) -> str:
    """``--host`` as typed, without surrounding spaces or the brackets of an IPv6 address as
    written in URLs (``[::1]``)."""
    host = text.strip()
    if host.startswith("[") and host.endswith("]") and ":" in host:
        host = host[1:-1]
    return host


def listen_problem(host: str, port: int, error: OSError) -> str:
    """Why the server cannot listen on ``--host`` and ``--port``, in words that name which."""
    where = f"cannot listen on --host {host}"
    if error.errno == errno.EADDRINUSE:
        return (f"{where} --port {port}: the port is in use (by another server?); pick another "
                "with --port (--port 0 takes any free one)")  # fmt: skip
    if error.errno == errno.EADDRNOTAVAIL:
        return (f"{where}: it is not an address of this machine (0.0.0.0 is every IPv4 address, "
                ":: every address)")  # fmt: skip
    if error.errno == errno.EINVAL and host.lower().startswith("fe80:") and "%" not in host:
        return f"{where}: a link-local address needs its interface, as in fe80::1%eth0"
    if error.errno == errno.EACCES:
        return f"{where} --port {port}: permission denied (ports below 1024 need privileges)"
    reason = os.strerror(error.errno) if error.errno else str(error)
    return f"{where} --port {port}: {reason}"


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser (every flag has a help text)."""
    parser = argparse.ArgumentParser(
        prog="boardhall-server",
        description="Boardhall game server: WebSocket protocol v1 on / and plain HTTP "
        f"({', '.join(HTTP_ROUTES)}) on the same port.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add(
        "--version",
        action="version",
        version=f"%(prog)s {server_version()} (database schema {SCHEMA_VERSION})",
        help="print the server's version and the database schema it writes, and exit",
    )
    add(
        "--host",
        type=listen_host,
        default="0.0.0.0",
        help="address to listen on: 0.0.0.0 is every IPv4 address, :: every IPv6 and IPv4 one, "
        "::1 or 127.0.0.1 this machine only; a link-local IPv6 address names its interface "
        "(fe80::1%%eth0)",
    )
    add(
        "--port",
        type=port_number,
        default=None,
        # "%(default).0s" prints nothing and keeps the formatter from adding "(default: None)"
        help=f"TCP port (0 picks a free one; default: ${PORT_VARIABLE} when set, else "
        f"{DEFAULT_PORT})"
        "%(default).0s",
    )
    add("--db", default="./boardhall.db", help="SQLite database file (created if missing)")
    add(
        "--variants",
        type=variant_directory,
        default=None,
        help="directory of custom variant files (.toml, .xlsx) to offer besides the built-in ones",
    )
    add(
        "--sync",
        default="full",
        choices=["full", "normal"],
        help="SQLite durability: full survives power loss; normal survives a killed process "
        "and commits faster",
    )
    add(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="least severe log level printed (JSON lines on stderr)",
    )
    add("--tls-cert", type=Path, default=None, help="PEM certificate chain: serve wss://")
    add("--tls-key", type=Path, default=None, help="PEM private key of --tls-cert")
    discovery.add_flags(parser)
    add(
        "--abort-after",
        type=seconds(0, DAY_S, above=True),  # a day: the protocol's longest clock too
        default=DEFAULTS.abort_after_s,
        help="seconds for each side's first move in a timed room before the game is aborted",
    )
    add(
        "--absence-grace",
        type=seconds(0, WEEK_S),  # a week: an untimed game may go at a letter's pace
        default=DEFAULTS.absence_grace_s,
        help="seconds a player may be away in an untimed game before the opponent may claim it",
    )
    add(
        "--rooms-per-identity",
        type=whole(1, COUNT_MAX),
        default=DEFAULTS.rooms_per_identity,
        help="unfinished rooms one identity may sit in",
    )
    add(
        "--spectators-per-room",
        type=whole(0, COUNT_MAX),
        default=DEFAULTS.spectators_per_room,
        help="spectators one room accepts",
    )
    add(
        "--connections-per-address",
        type=whole(1, COUNT_MAX),
        default=DEFAULTS.connections_per_address,
        help="open connections one IP address may have (and as many again still in their "
        "opening handshake); an IPv6 client counts with its whole network of --ipv6-prefix bits",
    )
    add(
        "--ipv6-prefix",
        type=ipv6_prefix,
        default=DEFAULTS.ipv6_prefix,
        metavar="BITS",
        help="the IPv6 network the per-address limits (--connections-per-address, "
        "--chat-address-lines) count as one address: a subscriber normally gets a whole /64 "
        "and may use any address in it; 128 counts each address on its own. IPv4 and "
        "loopback addresses count on their own, and so do link-local and unique-local ones (a "
        "LAN's machines); logs still name the real address",
    )
    add(
        "--trusted-proxies",
        type=networks,
        default="",
        metavar="ADDRESSES",
        # "%(default)s" (empty) keeps the formatter from adding "(default: )"
        help="reverse proxies (IP addresses and networks, comma-separated, as in "
        "127.0.0.1,::1,10.0.0.0/8) whose X-Forwarded-For header (or, without one, Forwarded: "
        "for=) names the client: --connections-per-address and the logs then use the client's "
        "address. From other peers these headers are ignored; a trusted proxy's request "
        "without a readable one counts as the proxy's address. A trusted proxy's sockets are "
        "counted against their client's address once their request is read, not when they "
        "connect (default: none)%(default)s",
    )
    add(
        "--rate",
        type=whole(1, COUNT_MAX),
        default=DEFAULTS.messages_per_second,
        help="messages per second per connection before rate_limited errors",
    )
    add(
        "--chat-lines",
        type=whole(1, COUNT_MAX),
        default=DEFAULTS.chat_lines,
        help="chat lines one player may say within --chat-window seconds (in all rooms "
        "together) before rate_limited errors",
    )
    add(
        "--chat-window",
        type=seconds(0, DAY_S, above=True),  # a day: the lines said are kept that long
        default=DEFAULTS.chat_window_s,
        help="the chat rate's window in seconds",
    )
    add(
        "--chat-repeat",
        type=seconds(0, DAY_S, zero=" (off)"),
        default=DEFAULTS.chat_repeat_s,
        help="seconds within which a player's same chat line again (whatever its case and "
        "spacing) is refused with rate_limited; 0 allows repeats",
    )
    add(
        "--chat-address-lines",
        type=whole(0, COUNT_MAX),
        default=None,
        # "%(default).0s" prints nothing and keeps the formatter from adding "(default: None)"
        help="chat lines one client address (as --connections-per-address counts it) may say "
        "within --chat-window seconds, all its players and connections together, before "
        "rate_limited errors; the --chat-repeat rule then holds across its players too. "
        f"0 turns the address limit off (default: {limits.CHAT_ADDRESS_PLAYERS} times "
        "--chat-lines)%(default).0s",
    )
    add(
        "--lag-credit-max",
        type=bounded(
            int,
            f"a whole number of milliseconds from 0 to {LAG_CREDIT_MAX_MS} (a minute)",
            0,
            LAG_CREDIT_MAX_MS,
        ),
        default=DEFAULTS.lag_credit_max_ms,
        help="most lag compensation (ms) credited to a single move",
    )
    add(
        "--bot-games",
        type=whole(0, BOT_GAMES_MAX),
        default=DEFAULTS.bot_games,
        help="unfinished games against the computer at once (each bot is a separate process)",
    )
    add(
        "--ping-interval",
        type=ping_interval,
        default=10.0,
        help="seconds between server pings (they measure lag; a connection silent for twice "
        "this, at least 20 s, is closed); 0 sends none",
    )
    add(
        "--loop",
        default="auto",
        choices=["auto", "uvloop", "asyncio"],
        help="event loop: uvloop is faster (the 'speed' extra: pip install '.[speed]' in the "
        "checkout); auto uses it when it is installed",
    )
    return parser


def config_from(args: argparse.Namespace) -> ServerConfig:
    """The server settings of parsed arguments."""
    return ServerConfig(
        abort_after_s=args.abort_after,
        absence_grace_s=args.absence_grace,
        rooms_per_identity=args.rooms_per_identity,
        spectators_per_room=args.spectators_per_room,
        connections_per_address=args.connections_per_address,
        ipv6_prefix=args.ipv6_prefix,
        trusted_proxies=args.trusted_proxies,
        messages_per_second=args.rate,
        chat_lines=args.chat_lines,
        chat_window_s=args.chat_window,
        chat_repeat_s=args.chat_repeat,
        chat_address_lines=args.chat_address_lines,
        lag_credit_max_ms=args.lag_credit_max,
        bot_games=args.bot_games,
    )


def stop_signals() -> asyncio.Future[str]:
    """A future of the name of the first SIGINT or SIGTERM from now on (where the loop supports
    signal handlers). Taken before the start, so a stop asked for while games are restored is
    a clean stop once the server has started, not a kill."""
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[str] = loop.create_future()

    def got(name: str) -> None:
        if not stop.done():
            stop.set_result(name)

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, got, sig.name)
    return stop


async def run(args: argparse.Namespace) -> None:
    """Start the server and run until SIGINT/SIGTERM."""
    context = None
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        try:
            # a passphrase callback, so OpenSSL never prompts (a service has no terminal)
            context.load_cert_chain(args.tls_cert, args.tls_key, password=lambda: b"")
        except OSError as exc:  # ssl.SSLError is one too
            raise ValueError(tls_problem(args.tls_cert, args.tls_key, exc)) from exc
    server = BoardhallServer(
        args.host,
        args.port,
        args.db,
        config_from(args),
        context,
        args.ping_interval,
        args.variants,
        args.sync == "full",
        discovery=discovery.settings_from(args),
    )
    stopped = stop_signals()
    try:
        await server.start()
    except sqlite3.Error as exc:
        raise ValueError(database_problem(args.db, exc)) from exc
    except socket.gaierror as exc:  # the system's own words do not say which name
        raise ValueError(f"cannot listen on --host {args.host}: {exc.strerror}") from exc
    except CannotListen as exc:  # the system's words name neither the flag nor the cause
        raise ValueError(listen_problem(args.host, args.port, exc)) from exc
    collector = asyncio.ensure_future(gcpolicy.run_collector())
    print(
        f"boardhall-server listening on {server.url} (bound to {server.bound}, "
        f"db {args.db}, loop {loop_name()})",
        flush=True,
    )
    wildcard = lan.is_wildcard(server.host)
    found = lan.lan_addresses(ipv6=server.host.strip() in ("", "::")) if wildcard else []
    scheme = "wss" if context else "ws"
    hint = lan.connect_hint(server.host, server.port, scheme, found, lan.in_container())
    print(hint, flush=True)
    found_by = discovery.start_line(
        server.discovery_settings, server.discovery, args.host, lan.in_container()
    )
    print(found_by, flush=True)
    name = await stopped
    log.info("stopping", extra={"fields": {"signal": name}})
    collector.cancel()
    await server.stop()


def loop_name() -> str:
    """``uvloop`` or ``asyncio``: the event loop this server runs on."""
    module = type(asyncio.get_running_loop()).__module__
    return "uvloop" if module.startswith("uvloop") else "asyncio"


def loop_runner(choice: str) -> Callable[[Coroutine[Any, Any, None]], None] | None:
    """``asyncio.run`` or ``uvloop.run`` for ``--loop`` (``None``: uvloop asked for, missing)."""
    if choice == "asyncio":
        return asyncio.run
    try:
        import uvloop
    except ImportError:
        return None if choice == "uvloop" else asyncio.run
    return uvloop.run


def settle_port(
    parser: argparse.ArgumentParser, args: argparse.Namespace, environ: Mapping[str, str]
) -> int | None:
    """Set ``args.port`` from :data:`PORT_VARIABLE` when ``--port`` was not given (a value
    that is no port stops here, as a flag would). Returns the variable's port when ``--port``
    overrides it with another: a healthcheck that asks the variable's finds no server there."""
    try:
        from_environment = default_port(environ)
    except argparse.ArgumentTypeError as exc:
        parser.error(str(exc))
    if args.port is None:
        args.port = from_environment
    elif environ.get(PORT_VARIABLE, "").strip() and args.port != from_environment:
        return from_environment
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``boardhall-server``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    overridden = settle_port(parser, args, os.environ)
    if bool(args.tls_cert) != bool(args.tls_key):
        print("boardhall-server: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    setup_logging(args.log_level)
    if overridden is not None:
        why = f"a healthcheck asks {PORT_VARIABLE} (the Docker image's does): set it instead"
        fields = {"port": args.port, PORT_VARIABLE: overridden, "why": why}
        log.warning(f"--port is not {PORT_VARIABLE}", extra={"fields": fields})
    runner = loop_runner(args.loop)
    if runner is None:
        print("boardhall-server: --loop uvloop needs uvloop (the 'speed' extra)", file=sys.stderr)
        return 2
    gcpolicy.tune()
    try:
        runner(run(args))
    except KeyboardInterrupt:
        pass
    except (OSError, ValueError) as exc:
        print(f"boardhall-server: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
