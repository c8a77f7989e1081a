"""``boardhall-server`` flags: ``--loop`` (uvloop when installed, else the standard loop) and
the checks on the others."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trustme

from server.cli import build_parser, config_from, loop_name, loop_runner, main
from server.config import server_version
from server.dbcheck import SCHEMA_VERSION
from server.storage import SCHEMA, Storage


def test_auto_is_the_default_and_uses_uvloop_when_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    assert build_parser().parse_args([]).loop == "auto"
    assert loop_runner("auto") is uvloop.run
    assert loop_runner("uvloop") is uvloop.run
    assert loop_runner("asyncio") is asyncio.run


def test_without_uvloop_auto_falls_back_and_uvloop_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # makes "import uvloop" fail
    assert loop_runner("auto") is asyncio.run
    assert loop_runner("uvloop") is None
    assert main(["--loop", "uvloop", "--port", "0"]) == 2
    assert "--loop uvloop needs uvloop" in capsys.readouterr().err


def test_an_unknown_loop_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--loop", "trio"])
    assert exited.value.code == 2
    assert "invalid choice: 'trio'" in capsys.readouterr().err


def test_the_loop_in_use_is_named() -> None:
    assert asyncio.run(_name()) == "asyncio"
    uvloop = pytest.importorskip("uvloop")
    assert uvloop.run(_name()) == "uvloop"


async def _name() -> str:
    return loop_name()


@pytest.mark.parametrize(
    ("flag", "value", "wanted"),
    [
        ("--port", "99999", "a TCP port from 0 to 65535, not 99999"),  # not taken as 34463
        ("--port", "-1", "a TCP port from 0 to 65535, not -1"),
        ("--port", "http", "a TCP port from 0 to 65535, not 'http'"),
        ("--ping-interval", "-5", "0 (no pings) or 1 to 3600 seconds (an hour), not -5"),
        ("--ping-interval", "0.001", "0 (no pings) or 1 to 3600 seconds (an hour), not 0.001"),
        ("--abort-after", "0", "more than 0 and at most 86400 seconds (a day), not 0"),
        ("--abort-after", "nan", "more than 0 and at most 86400 seconds (a day), not nan"),
        ("--absence-grace", "-1", "0 to 604800 seconds (a week), not -1"),
        ("--absence-grace", "inf", "0 to 604800 seconds (a week), not inf"),
        ("--rate", "0", "a whole number from 1 to 1000000, not 0"),
        ("--rooms-per-identity", "0", "a whole number from 1 to 1000000, not 0"),
        ("--connections-per-address", "-3", "a whole number from 1 to 1000000, not -3"),
        ("--spectators-per-room", "-1", "a whole number from 0 to 1000000, not -1"),
        ("--bot-games", "1.5", "a whole number from 0 to 1000, not '1.5'"),
        (
            "--lag-credit-max",
            "-100",
            "a whole number of milliseconds from 0 to 60000 (a minute), not -100",
        ),
        ("--chat-lines", "0", "a whole number from 1 to 1000000, not 0"),
        ("--chat-window", "0", "more than 0 and at most 86400 seconds (a day), not 0"),
        ("--chat-repeat", "-1", "0 (off) to 86400 seconds (a day), not -1"),
        ("--chat-address-lines", "-1", "a whole number from 0 to 1000000, not -1"),
        ("--chat-address-lines", "lots", "a whole number from 0 to 1000000, not 'lots'"),
        ("--ipv6-prefix", "31", "a prefix length from 32 to 128, not 31"),
        ("--ipv6-prefix", "129", "a prefix length from 32 to 128, not 129"),
        ("--ipv6-prefix", "/64", "a prefix length from 32 to 128, not '/64'"),
        ("--variants", "/no/such/dir", "a directory of variant files, not /no/such/dir (missing)"),
        ("--variants", "/dev/null", "a directory of variant files, not /dev/null (a file)"),
        (
            "--trusted-proxies",
            "localhost",
            "IP addresses or networks, comma-separated: "
            "'localhost' is not an IP address or network",
        ),
        (
            "--trusted-proxies",
            "10.0.0.1/8",
            "IP addresses or networks, comma-separated: "
            "'10.0.0.1/8' has host bits set: did you mean 10.0.0.0/8?",
        ),
    ],
)
def test_a_value_out_of_range_is_refused_naming_the_flag(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, wanted: str
) -> None:
    """Refused before anything starts, with the flag, what it takes and what was given."""
    with pytest.raises(SystemExit) as exited:
        main([flag, value, "--port", "0"] if flag != "--port" else [flag, value])
    assert exited.value.code == 2
    assert f"argument {flag}: must be {wanted}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--port", "0"), ("--port", "65535"), ("--ping-interval", "0"), ("--ping-interval", "1"),
     ("--spectators-per-room", "0"), ("--bot-games", "0"), ("--lag-credit-max", "0"),
     ("--abort-after", "0.5"),
     ("--chat-lines", "1"), ("--chat-window", "0.5"), ("--chat-repeat", "0"),
     ("--chat-address-lines", "0"), ("--ipv6-prefix", "32"), ("--ipv6-prefix", "128")],
)  # fmt: skip
def test_the_edges_of_each_range_are_taken(flag: str, value: str) -> None:
    args = build_parser().parse_args([flag, value])
    assert getattr(args, flag[2:].replace("-", "_")) == float(value)


def _server(*argv: str) -> subprocess.CompletedProcess[str]:
    """``boardhall-server`` run as a user runs it (a process of its own)."""
    return subprocess.run(
        [sys.executable, "-m", "server", *argv], capture_output=True, text=True, timeout=60
    )


def test_a_database_that_cannot_be_used_is_named_with_why(tmp_path: Path) -> None:
    """No traceback: the file, SQLite's reason and, where it helps, what is wrong with the path."""
    garbage = tmp_path / "notes.db"
    garbage.write_bytes(b"my shopping list\n" * 100)
    torn = tmp_path / "torn.db"
    storage = Storage(torn)
    storage.db.execute("CREATE TABLE filler (x TEXT)")
    storage.db.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,)] * 200)
    storage.close()
    torn.write_bytes(torn.read_bytes()[: 40 * 1024])  # a copy cut short
    cases = {
        str(tmp_path / "missing" / "hall.db"): "unable to open database file (its directory "
        f"{tmp_path / 'missing'} does not exist: create it, or give another --db)",
        str(tmp_path): "unable to open database file (it is a directory)",
        str(garbage): "file is not a database (not a SQLite file: is --db the right file?)",
        str(torn): "database disk image is malformed (the file is damaged: start the server on "
        "your last backup, --db BACKUP)",
    }
    for db, why in cases.items():
        done = _server("--port", "0", "--db", db)
        assert done.returncode == 1, done.stderr
        assert f"boardhall-server: cannot use the database {db}: {why}" in done.stderr
        assert "Traceback" not in done.stderr
    assert garbage.read_bytes() == b"my shopping list\n" * 100  # left as it was


def test_a_database_of_another_program_or_a_newer_server_is_refused_untouched(
    tmp_path: Path,
) -> None:
    """A SQLite file of another program, or one stamped by a newer server's schema, stops the
    start with what it is and what to do, and is left byte for byte as it was (not turned into
    a write-ahead-log database, no Boardhall tables added)."""
    other = tmp_path / "photos.db"
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE albums (name TEXT)")
        db.commit()
    foreign_games = tmp_path / "scores.db"
    with contextlib.closing(sqlite3.connect(foreign_games)) as db:
        db.execute("CREATE TABLE games (game_id TEXT, score INTEGER)")
        db.commit()
    newer = tmp_path / "newer.db"
    with contextlib.closing(sqlite3.connect(newer)) as db:
        db.executescript(SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.commit()
    cases = {
        other: "it is not a Boardhall database (its tables are albums): is --db the right file?",
        foreign_games: "it is not a Boardhall database (its games table has no game, id, meta, "
        "room, status): is --db the right file?",
        newer: f"it was written by a newer Boardhall server (database schema {SCHEMA_VERSION + 1}"
        f", this server knows up to {SCHEMA_VERSION}): run that server's version, or start this "
        "one on a backup made before the upgrade",
    }
    for db_path, why in cases.items():
        before = db_path.read_bytes()
        done = _server("--port", "0", "--db", str(db_path))
        assert done.returncode == 1, done.stderr
        assert done.stderr == f"boardhall-server: cannot use the database {db_path}: {why}\n"
        assert db_path.read_bytes() == before
        assert not Path(f"{db_path}-wal").exists()


@pytest.mark.skipif(
    shutil.which("setpriv") is None or os.geteuid() != 0,
    reason="needs setpriv (util-linux) and root, to run a server without the power to write",
)
def test_a_database_this_user_may_not_write_stops_the_start(tmp_path: Path) -> None:
    """A database file the server may read but not write, or a directory it may not write in
    (the -wal and -shm files live there): SQLite opened the file read-only without a word and
    the server started, holding every move and answering /healthz 503 until it was stopped
    (its held moves lost). Now the start stops with one line naming the file and what to
    check. The server runs without any capability (so root's mode bits count)."""
    read_only = tmp_path / "read-only.db"
    Storage(read_only).close()
    read_only.chmod(0o444)
    locked_dir = tmp_path / "locked"
    locked_dir.mkdir()
    in_locked = locked_dir / "hall.db"
    Storage(in_locked).close()
    locked_dir.chmod(0o555)
    cases = {
        read_only: f"attempt to write a readonly database (may this user write to it and in "
        f"{tmp_path}?)",
        in_locked: f"attempt to write a readonly database (may this user write to it and in "
        f"{locked_dir}?)",
        locked_dir / "new.db": f"unable to open database file (may this user write in "
        f"{locked_dir}? the database keeps its -wal and -shm files beside it)",
    }
    for db_path, why in cases.items():
        done = subprocess.run(
            ["setpriv", "--bounding-set=-all", "--inh-caps=-all", sys.executable, "-m",
             "server", "--port", "0", "--db", str(db_path)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        assert done.stderr == f"boardhall-server: cannot use the database {db_path}: {why}\n"


def test_a_new_database_is_stamped_with_the_schema_version(tmp_path: Path) -> None:
    """So that a later server whose schema this one cannot write refuses it (and the other way)."""
    db_path = tmp_path / "hall.db"
    Storage(db_path).close()
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 1


def test_a_host_that_names_no_address_is_named(tmp_path: Path) -> None:
    done = _server("--host", "no-such-host.invalid", "--port", "0", "--db", str(tmp_path / "h.db"))
    assert done.returncode == 1
    assert "boardhall-server: cannot listen on --host no-such-host.invalid: " in done.stderr
    assert "Traceback" not in done.stderr


def test_a_certificate_that_cannot_be_loaded_is_named(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    done = _server("--port", "0", "--db", str(tmp_path / "hall.db"), "--tls-cert", str(cert),
                   "--tls-key", str(key))  # fmt: skip
    assert done.returncode == 1
    assert f"cannot load --tls-cert {cert} with --tls-key {key}: No such file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_certificate_and_key_that_do_not_fit_are_named_with_what_to_do(
    tmp_path: Path,
) -> None:
    """A key of another certificate, the files swapped, a key kept encrypted (the server never
    asks for a passphrase, which would hang a service with no terminal): one line naming the
    file and what is wrong with it."""
    ca = trustme.CA()
    ours, theirs = ca.issue_cert("play.example.org"), ca.issue_cert("other.example.org")
    cert, key, other_key = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "other.pem"
    ours.cert_chain_pems[0].write_to_path(str(cert))
    ours.private_key_pem.write_to_path(str(key))
    theirs.private_key_pem.write_to_path(str(other_key))
    locked = tmp_path / "locked.pem"
    encrypt = ["openssl", "pkey", "-in", str(key), "-aes256", "-passout", "pass:secret"]
    made = subprocess.run([*encrypt, "-out", str(locked)], capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    cases = {
        (cert, other_key): f"--tls-key {other_key} is not the key of --tls-cert {cert}",
        (key, cert): f"--tls-cert {key} holds no PEM certificate",
        (cert, cert): f"--tls-key {cert} holds no PEM private key",
        (cert, locked): f"--tls-key {locked} is encrypted and the server cannot ask for its "
        f"passphrase: decrypt it (openssl pkey -in {locked} -out KEY.pem)",
    }
    for (cert_path, key_path), why in cases.items():
        done = subprocess.run(
            [sys.executable, "-m", "server", "--port", "0", "--db", str(tmp_path / "hall.db"),
             "--tls-cert", str(cert_path), "--tls-key", str(key_path)],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 1
        assert done.stderr == f"boardhall-server: {why}\n"


def test_trusted_proxies_reach_the_config_and_the_help() -> None:
    """``--trusted-proxies`` (none by default: the headers of every peer are ignored)."""
    assert config_from(build_parser().parse_args([])).trusted_proxies == ()
    args = build_parser().parse_args(["--trusted-proxies", "127.0.0.1,::1,10.0.0.0/8"])
    assert [str(n) for n in config_from(args).trusted_proxies] == [
        "127.0.0.1/32",
        "::1/128",
        "10.0.0.0/8",
    ]
    text = " ".join(build_parser().format_help().split())
    assert "--trusted-proxies" in text and "X-Forwarded-For" in text and "Forwarded" in text


def test_the_chat_flags_set_the_chat_guard() -> None:
    """``--chat-lines``, ``--chat-window``, ``--chat-repeat`` and ``--chat-address-lines``
    reach the server's settings; by default they are the protocol's limits."""
    from protocol import limits

    default = config_from(build_parser().parse_args([]))
    assert (
        default.chat_lines,
        default.chat_window_s,
        default.chat_repeat_s,
        default.chat_address_lines_in_force,
    ) == (limits.CHAT_LINES, limits.CHAT_WINDOW_S, limits.CHAT_REPEAT_S, limits.CHAT_ADDRESS_LINES)
    args = ["--chat-lines", "3", "--chat-window", "20", "--chat-repeat", "0"]
    config = config_from(build_parser().parse_args(args))
    assert (config.chat_lines, config.chat_window_s, config.chat_repeat_s) == (3, 20.0, 0.0)
    # the address's number follows --chat-lines
    assert config.chat_address_lines_in_force == 3 * limits.CHAT_ADDRESS_PLAYERS
    for lines in (7, 0):
        args = ["--chat-lines", "30", "--chat-address-lines", str(lines)]
        assert config_from(build_parser().parse_args(args)).chat_address_lines_in_force == lines
    text = " ".join(build_parser().format_help().split())
    told = text[text.rindex("--chat-address-lines CHAT") : text.rindex("--lag-credit-max LAG")]
    assert told.endswith(f"(default: {limits.CHAT_ADDRESS_PLAYERS} times --chat-lines) "), told


def test_the_ipv6_prefix_reaches_the_config_and_the_help() -> None:
    """``--ipv6-prefix`` (64 by default: an IPv6 subscriber's whole network is one address)
    reaches the server's settings and is explained beside ``--connections-per-address``."""
    assert config_from(build_parser().parse_args([])).ipv6_prefix == 64
    assert config_from(build_parser().parse_args(["--ipv6-prefix", "56"])).ipv6_prefix == 56
    text = " ".join(build_parser().format_help().split())
    told = text[text.rindex("--ipv6-prefix BITS") : text.rindex("--trusted-proxies ADDRESSES")]
    for words in (
        "--connections-per-address",
        "--chat-address-lines",
        "/64",
        "128 counts",
        "link-local",
    ):
        assert words in told, told
    assert told.endswith("(default: 64) "), told


SIGNALLED_WHILE_STARTING = """\
import os, signal, sys
from server import net
start = net.BoardhallServer.start
async def signalled_start(self):
    os.kill(os.getpid(), signal.{name})  # as if the operator stopped it while games are restored
    await start(self)
net.BoardhallServer.start = signalled_start
from server.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_stop_asked_for_while_starting_is_a_clean_stop_once_started(
    tmp_path: Path, name: str
) -> None:
    """A start with many games to restore takes seconds; ``docker stop`` or Ctrl+C then came
    before the server's own handlers: SIGTERM killed it at once (exit -15, no log line) and
    Ctrl+C left it silently with 0. Either now stops it as it would once listening: the
    "stopping" and "stopped" lines, exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED_WHILE_STARTING.format(name=name), "--port", "0",
         "--host", "127.0.0.1", "--no-discovery", "--db", str(tmp_path / "hall.db")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line)["msg"] for line in done.stderr.splitlines()]
    assert messages[-2:] == ["stopping", "stopped"], messages
    assert json.loads(done.stderr.splitlines()[-2])["signal"] == name


def test_version_names_the_server_and_its_database_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What an operator checks after an upgrade (and what a refused newer database is compared
    with), without starting anything."""
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    version = server_version()
    assert version != "unknown"
    assert capsys.readouterr().out == (
        f"boardhall-server {version} (database schema {SCHEMA_VERSION})\n"
    )


def test_boardhall_port_sets_the_port_without_the_flag(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``BOARDHALL_PORT`` (what the Docker healthcheck asks) is the port when ``--port`` is not
    given; blank or unset, 8765; a value that is no port is refused naming the variable."""
    from server.cli import settle_port

    parser = build_parser()
    for environ, given, port in (
        ({}, [], 8765),
        ({"BOARDHALL_PORT": " "}, [], 8765),
        ({"BOARDHALL_PORT": "9000"}, [], 9000),
        ({"BOARDHALL_PORT": "9000"}, ["--port", "9000"], 9000),
        ({}, ["--port", "9001"], 9001),
    ):
        args = parser.parse_args(given)
        assert settle_port(parser, args, environ) is None
        assert args.port == port
    args = parser.parse_args(["--port", "9001"])
    assert settle_port(parser, args, {"BOARDHALL_PORT": "9000"}) == 9000  # overridden: told
    assert args.port == 9001
    for bad in ("99999", "http", "-0", "inf"):
        monkeypatch.setenv("BOARDHALL_PORT", bad)
        with pytest.raises(SystemExit) as exited:
            main(["--db", ":memory:"])
        assert exited.value.code == 2
        wanted = f"BOARDHALL_PORT must be a TCP port from 0 to 65535, not {bad}"
        if bad in ("http", "inf"):
            wanted = f"BOARDHALL_PORT must be a TCP port from 0 to 65535, not '{bad}'"
        assert capsys.readouterr().err.endswith(f"boardhall-server: error: {wanted}\n")


def test_a_port_flag_that_overrides_boardhall_port_is_warned_of(tmp_path: Path) -> None:
    """``--port 9001`` with ``BOARDHALL_PORT=9000`` (the image sets it): the server listens on
    9001 but a healthcheck asks 9000, so the log says so (the start then stops on the missing
    certificate, so nothing listens)."""
    missing = str(tmp_path / "missing.pem")
    done = subprocess.run(
        [sys.executable, "-m", "server", "--port", "9001", "--db", str(tmp_path / "h.db"),
         "--tls-cert", missing, "--tls-key", missing],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "BOARDHALL_PORT": "9000"},
    )  # fmt: skip
    assert done.returncode == 1
    warning = json.loads(done.stderr.splitlines()[0])
    assert warning["msg"] == "--port is not BOARDHALL_PORT"
    assert (warning["port"], warning["BOARDHALL_PORT"]) == (9001, 9000)
    assert "healthcheck" in warning["why"]


def test_a_port_in_use_says_how_to_take_another(tmp_path: Path) -> None:
    """A second server on the default port (a first-time user's usual trip) is told which flag
    picks another port, as the README says, with no traceback."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _server("--host", "127.0.0.1", "--port", str(port), "--no-discovery",
                       "--db", str(tmp_path / "p.db"))  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        f"boardhall-server: cannot listen on --host 127.0.0.1 --port {port}: the port is in use "
        f"(by another server?); pick another with --port (--port 0 takes any free one)\n"
    )


def _start_on_a_taken_port(db: Path) -> subprocess.CompletedProcess[str]:
    """``boardhall-server`` on ``db`` and a port another socket holds: it cannot start."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        return _server("--host", "127.0.0.1", "--port", str(port), "--no-discovery",
                       "--db", str(db))  # fmt: skip


def test_a_start_that_fails_leaves_no_new_database_behind(tmp_path: Path) -> None:
    """Where there was no database, a start that cannot listen leaves none (nor its -wal and
    -shm): the next start, on a free port, is not on an empty file made by the failed one."""
    done = _start_on_a_taken_port(tmp_path / "boardhall.db")
    assert done.returncode == 1 and "the port is in use" in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_start_that_fails_leaves_an_existing_database_as_it_was(tmp_path: Path) -> None:
    """An existing database is kept, byte for byte, with no -wal or -shm beside it."""
    db = tmp_path / "boardhall.db"
    storage = Storage(db)
    storage.close()
    before = db.read_bytes()
    done = _start_on_a_taken_port(db)
    assert done.returncode == 1 and "the port is in use" in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boardhall.db"]
    assert db.read_bytes() == before
