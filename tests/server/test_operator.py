"""What an operator running the server meets: the start and stop lines of the log, /healthz
while stopping, /metrics read as Prometheus reads it, hostile connections told at a bounded
rate, and a backup of the database taken while games are played."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import signal
import sqlite3
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.bot_launcher import code_first
from server.config import ServerConfig, server_version
from server.logs import JsonFormatter, Summary
from server.net import BoardhallServer, running_server
from server.testing import ServerProcess, WireClient
from tests.server.http_tools import http_get
from tests.server.storage_tools import until


def _lines(caplog: pytest.LogCaptureFixture, msg: str) -> list[dict[str, Any]]:
    return [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.getMessage() == msg]


async def _game(ann: WireClient, bob: WireClient, moves: list[str]) -> tuple[str, str]:
    """A chess room of ann (white) and bob with ``moves`` played: ``(room, game_id)``."""
    room = await ann.request(type="create", game="chess", color="first")
    code, game_id = room["room"], room["game_id"]
    await bob.request(type="join", room=code)
    for ply, move in enumerate(moves):
        mover = ann if ply % 2 == 0 else bob
        assert (await mover.request(type="move", room=code, ply=ply, move=move))["type"] == "moved"
    return code, game_id


# ---- start and stop lines -------------------------------------------------------------------


async def test_start_and_stop_lines_say_what_an_operator_needs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """ "listening" names the version, the address bound, the database's full path, the sync
    mode, the loop and the games restored; "stopped" how long the stop took and the games kept.
    A start with games to restore says how many before replaying them (silence otherwise, a
    minute with tens of thousands of games) and how long the replay took."""
    caplog.set_level(logging.INFO, logger="boardhall")
    db = tmp_path / "club.db"
    async with running_server(port=0, db=db, durable=False) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        await _game(ann, bob, ["e4", "e5"])
        await ann.close()
        await bob.close()
    (stopped,) = _lines(caplog, "stopped")
    assert stopped["games_kept"] == 1 and stopped["writes_lost"] == 0
    assert stopped["seconds"] >= 0
    caplog.clear()
    async with running_server(port=0, db=db, durable=True, sync_on_thread=True) as server:
        port = server.port
    (line,) = _lines(caplog, "listening")
    assert line["version"] == server_version() != "unknown"
    assert line["bound"] == f"127.0.0.1:{port}"
    assert line["db"] == str(db.resolve())
    assert line["sync"] == "full" and line["tls"] is False
    assert line["loop"] in ("asyncio", "uvloop")
    assert line["games_restored"] == 1
    (restoring,) = _lines(caplog, "restoring games")  # before the replay, which takes a while
    assert restoring["games"] == 1 and restoring["finished_rooms"] == 0
    (restored,) = _lines(caplog, "restored games")
    assert restored["games"] == 1 and restored["failed"] == 0 and restored["seconds"] >= 0
    messages = [r.getMessage() for r in caplog.records]
    assert messages.index("restoring games") < messages.index("restored games")


# ---- a start after a crash says so ----------------------------------------------------------


async def test_a_start_after_a_crash_says_the_last_run_did_not_stop_cleanly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server killed (SIGKILL, a crash, a power cut) comes back like one stopped cleanly, but
    its players' running turns are charged only up to the last stamp: the operator is told by
    a warning at the next start, with when the last run was last known alive. After a clean
    stop there is no such line."""
    db = tmp_path / "club.db"
    proc = await ServerProcess.start(str(db))
    ann = await WireClient.connect(proc.url, "ann")
    bob = await WireClient.connect(proc.url, "bob")
    await _game(ann, bob, ["e4"])
    await proc.kill()
    caplog.set_level(logging.INFO, logger="boardhall")
    async with running_server(port=0, db=db, durable=False):
        pass
    (crashed,) = _lines(caplog, "the last run did not stop cleanly")
    assert crashed["level"] == "warning"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", crashed["last_alive"])
    caplog.clear()
    async with running_server(port=0, db=db, durable=False):
        pass
    assert _lines(caplog, "the last run did not stop cleanly") == []
    (line,) = _lines(caplog, "listening")
    assert line["games_restored"] == 1


async def test_ctrl_c_in_the_terminal_stops_the_server_and_its_bots_at_once(
    tmp_path: Path,
) -> None:
    """Ctrl+C sends SIGINT to every process of the terminal's group. The bots were in the
    server's group: each was interrupted mid-game, its process lingered while its connection
    stayed open, and the server's stop waited 10 s for that connection's close. A bot now runs
    in a session of its own; the server ends it (SIGTERM) as part of its stop."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--no-discovery",
        "--db", str(tmp_path / "club.db"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=code_first(os.environ), start_new_session=True,  # a terminal's group of its own
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    try:
        line = (await process.stdout.readline()).decode()
        url = line.split("listening on ", 1)[1].split()[0]
        ann = await WireClient.connect(url, "ann")
        room = await ann.request(type="create", game="chess", color="first", opponent="bot:1")
        await ann.request(type="move", room=room["room"], ply=0, move="e4")
        await ann.expect("moved", ply=1)  # the bot is connected and playing
        os.killpg(process.pid, signal.SIGINT)
        _, err = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:  # failed on the way: its bots end with its connections
            process.kill()
            await process.wait()
    assert process.returncode == 0
    lines = [json.loads(text) for text in err.decode().splitlines() if text.startswith("{")]
    assert "boardhall bot: interrupted" not in err.decode()
    (stopped,) = [line for line in lines if line["msg"] == "stopped"]
    assert stopped["seconds"] < 5  # it was 10 (the close handshake's timeout)
    await ann.close()


# ---- /healthz and /metrics while stopping -----------------------------------------------------


async def test_healthz_is_503_stopping_once_a_stop_has_begun(tmp_path: Path) -> None:
    """A stop waiting for held writes to reach the disk answers /healthz 503 "stopping" (not
    "ok": a load balancer or Docker must send nobody there) and shows boardhall_stopping 1."""
    server = BoardhallServer(port=0, db=tmp_path / "s.db", durable=False)
    await server.start()
    server.storage.retry_first = server.storage.retry_most = 0.01
    ann = await WireClient.connect(server.url, "ann")
    bob = await WireClient.connect(server.url, "bob")
    code, _ = await _game(ann, bob, ["e4"])
    server.storage.writer.db.execute("PRAGMA query_only=1")
    await bob.send(id="m1", type="move", room=code, ply=1, move="e5")
    await until(lambda: server.storage.failure is not None)
    stopping = asyncio.ensure_future(server.stop(grace=30))
    await until(lambda: server._stopping)
    status, body = await http_get(server.port, "/healthz")
    assert status == 503 and json.loads(body)["status"] == "stopping"
    _, metrics = await http_get(server.port, "/metrics")
    assert "\nboardhall_stopping 1\n" in metrics
    server.storage.writer.db.execute("PRAGMA query_only=0")
    await stopping
    await ann.close()
    await bob.close()


# ---- /metrics as Prometheus reads it ----------------------------------------------------------

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


def _parse(text: str) -> tuple[dict[str, str], dict[str, float]]:
    """Checks the text exposition as Prometheus does (HELP and TYPE once per family, before its
    samples; a counter's samples end in _total; a histogram's buckets cumulative, ending with
    +Inf equal to _count; no sample twice): ``(types, samples)``."""
    assert text.endswith("\n")
    types: dict[str, str] = {}
    helps: set[str] = set()
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in helps, f"HELP twice for {name}"
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert name not in types and name in helps, line
            assert kind in ("counter", "gauge", "histogram")
            assert (kind == "counter") == name.endswith("_total"), line
            types[name] = kind
            continue
        found = _SAMPLE.match(line)
        assert found is not None, line
        name = found.group(1)
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        assert family in types, f"{name} without TYPE"
        key = name + (found.group(2) or "")
        assert key not in samples, f"{key} twice"
        samples[key] = float(found.group(3))
    for family, kind in types.items():
        if kind == "histogram":
            buckets = [v for k, v in samples.items() if k.startswith(family + "_bucket")]
            assert buckets == sorted(buckets)
            assert samples[f'{family}_bucket{{le="+Inf"}}'] == samples[f"{family}_count"]
    return types, samples


async def test_metrics_are_well_formed_and_gauges_go_back_to_zero(tmp_path: Path) -> None:
    """Every family has HELP and TYPE; the version, rooms by state, bot games, storage failing
    and commit latency are there; counters do not go down; open connections, seeks and
    playing rooms go back to 0 once the players leave."""
    async with running_server(port=0, db=tmp_path / "m.db", durable=False) as server:
        _, first = _parse((await http_get(server.port, "/metrics"))[1])
        assert first[f'boardhall_build_info{{version="{server_version()}"}}'] == 1
        assert first['boardhall_rooms{game="chess"}'] == 0  # every game, 0 included
        assert first["boardhall_storage_failing"] == 0
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        carl = await WireClient.connect(server.url, "carl")
        code, _ = await _game(ann, bob, ["e4", "e5"])
        assert (await carl.request(type="join", game="hexgomoku"))["type"] == "queued"
        types, during = _parse((await http_get(server.port, "/metrics"))[1])
        assert during["boardhall_open_connections"] == 3
        assert during["boardhall_seeks"] == 1
        assert during['boardhall_rooms_by_state{state="playing"}'] == 1
        assert during['boardhall_rooms_by_state{state="waiting"}'] == 0
        assert during["boardhall_commit_seconds_count"] >= 2  # one commit per move at least
        assert during["boardhall_bot_games"] == 0
        assert during["boardhall_bot_games_limit"] == ServerConfig().bot_games
        assert types["boardhall_commit_seconds"] == "histogram"
        assert types["boardhall_refused_total"] == "counter"
        await ann.request(type="resign", room=code)
        for wire in (ann, bob, carl):
            await wire.close()
        await until(lambda: not server.connections)
        _, after = _parse((await http_get(server.port, "/metrics"))[1])
        assert after["boardhall_open_connections"] == 0
        assert after["boardhall_seeks"] == 0
        assert after['boardhall_rooms_by_state{state="playing"}'] == 0
        for key, value in during.items():
            if key.split("{")[0].endswith(("_total", "_count", "_sum")):
                assert after[key] >= value, key


# ---- hostile connections ------------------------------------------------------------------------


async def _raw(port: int, data: bytes, read: bool = True) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
    if read:  # until the server closes it
        await asyncio.wait_for(reader.read(), 10)
    writer.close()


def _client_hello() -> bytes:
    """The first bytes a wss:// client sends: a real TLS ClientHello."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname="x")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


async def test_hostile_connections_are_counted_and_told_at_a_bounded_rate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Thousands of refused sockets, TLS greetings, garbage and floods make a handful of lines:
    the first of each kind with its reason and address, then a summary with the counts; every
    one is counted in boardhall_refused_total, and no token reaches the log."""
    caplog.set_level(logging.INFO, logger="boardhall")
    config = ServerConfig(connections_per_address=2)
    hello = _client_hello()
    async with running_server(port=0, config=config) as server:
        port = server.port
        stuck = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]
        await until(lambda: server.handshakes.get("127.0.0.1") == 2)
        for _ in range(40):  # over the limit of unfinished handshakes: refused at once
            await _raw(port, b"")
        for _, writer in stuck:
            writer.close()
        await until(lambda: not server.handshakes)
        for _ in range(20):
            await _raw(port, hello)
            await _raw(port, b"\x00garbage\r\n\r\n")
            await _raw(port, b"", read=False)  # a port scan: counted only
        for n in range(3):
            flooder = await WireClient.connect(server.url, None)
            await flooder.send(type="hello", name="f", protocol=1, token=f"SECRET-TOKEN-{n}")
            for _ in range(60):
                await flooder.send_raw("not json")
            assert await flooder.wait_closed() == 1008
        await until(lambda: not server.connections)
        await until(lambda: server.metrics.refused["no_request"] >= 20)
        _, metrics = await http_get(port, "/metrics")
    _, samples = _parse(metrics)
    assert samples['boardhall_refused_total{reason="handshake_limit"}'] == 40
    assert samples['boardhall_refused_total{reason="tls_on_plain_port"}'] == 20
    assert samples['boardhall_refused_total{reason="bad_request"}'] == 20
    assert samples['boardhall_refused_total{reason="no_request"}'] >= 20
    assert samples['boardhall_refused_total{reason="closed_1008"}'] == 3
    told = [
        json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == "boardhall.net"
    ]
    kinds = [line.get("kind") for line in told if "kind" in line]
    assert sorted(kinds) == ["bad_request", "closed_1008", "handshake_limit", "tls_on_plain_port"]
    assert len(told) <= 5, told  # the four, and one summary
    (summary,) = [line for line in told if "counts" in line]
    assert summary["counts"] == {
        "bad_request": 19,
        "closed_1008": 2,
        "handshake_limit": 39,
        "tls_on_plain_port": 19,
    }
    assert summary["top_addresses"] == {"127.0.0.1": 79}
    tls = next(line for line in told if line.get("kind") == "tls_on_plain_port")
    assert "wss://" in tls["msg"] and tls["address"] == "127.0.0.1"
    flood = next(line for line in told if line.get("kind") == "closed_1008")
    assert flood["reason"]  # why the server closed it
    assert "SECRET-TOKEN" not in caplog.text


def test_a_summary_is_one_line_per_window_whatever_the_rate() -> None:
    """With a clock that moves by hand: 10,000 events of two kinds in three windows make two
    lines per window (the first of each kind) and one summary per window after the first."""
    now = [0.0]
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("boardhall.test.summary")
    logger.addHandler(Keep())
    logger.propagate = False
    summary = Summary(logger, every=60.0, clock=lambda: now[0])
    for window in range(3):
        for n in range(10_000):
            now[0] = window * 60.0 + n * 0.005
            summary.event("a" if n % 2 else "b", f"10.0.{n % 2000}.1", "something")
    summary.flush()
    fields = [getattr(r, "fields", {}) for r in records]
    assert len(records) == 3 * 2 + 3
    summaries = [f for f in fields if "counts" in f]
    assert [s["counts"] for s in summaries] == [{"a": 4999, "b": 4999}] * 3
    # addresses past the first 1024 of a window are counted together, as "other"
    assert all(s["addresses"] == Summary.MAX_ADDRESSES for s in summaries)
    assert all("other" in s["top_addresses"] for s in summaries)


# ---- backups while the server runs -----------------------------------------------------------


def _backup_with_python(source: Path, dest: Path) -> None:
    """SQLite's online backup (what ``sqlite3 DB ".backup FILE"`` does), from another
    connection while the server writes."""
    src = sqlite3.connect(source)
    out = sqlite3.connect(dest)
    try:
        src.backup(out)
    finally:
        out.close()
        src.close()


async def test_a_backup_taken_while_games_are_played_restores_every_game(tmp_path: Path) -> None:
    """``sqlite3 boardhall.db ".backup copy.db"`` (and the same with Python's sqlite3) while the
    server runs and games go on: a new server on the copy brings back every unfinished game with
    every move made before the backup, and serves the finished one's record."""
    db = tmp_path / "live.db"
    copies = [tmp_path / "python-copy.db"]
    cli = shutil.which("sqlite3")
    if cli is not None:
        copies.append(tmp_path / "cli-copy.db")
    async with running_server(port=0, db=db, durable=True, sync_on_thread=True) as server:
        players = [await WireClient.connect(server.url, f"p{n}") for n in range(6)]
        games = [await _game(players[2 * n], players[2 * n + 1], ["e4", "e5"]) for n in range(3)]
        over_code, over_id = games[0]
        await players[0].request(type="resign", room=over_code)
        # moves on the way to the database while the copy is taken
        sends = [
            players[2 * n].send(type="move", room=games[n][0], ply=2, move="Nf3") for n in (1, 2)
        ]
        await asyncio.gather(*sends)
        await asyncio.to_thread(_backup_with_python, db, copies[0])
        if cli is not None:
            done = await asyncio.to_thread(
                subprocess.run, [cli, str(db), f".backup {copies[1]}"], capture_output=True
            )
            assert done.returncode == 0, done.stderr
        for n in (1, 2):  # the game goes on after the backup
            await players[2 * n].expect("moved", ply=2)
            await players[2 * n + 1].request(type="move", room=games[n][0], ply=3, move="Nc6")
        for wire in players:
            await wire.close()
    for copy in copies:
        check = sqlite3.connect(copy)
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        check.close()
        async with running_server(port=0, db=copy, durable=False) as restored:
            assert restored.restored == 2
            for code, game_id in games[1:]:
                status, body = await http_get(restored.port, f"/games/{game_id}?format=json")
                moves = [m["move"] for m in json.loads(body)["moves"]]
                assert status == 200 and moves[:2] == ["e2e4", "e7e5"]
                assert moves in (["e2e4", "e7e5"], ["e2e4", "e7e5", "g1f3"])
                assert code in restored.hall.rooms
            status, body = await http_get(restored.port, f"/games/{over_id}?format=json")
            assert status == 200 and json.loads(body)["result"] is not None
