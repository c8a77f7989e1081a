"""The I/O layer: close codes, reconnects, records over HTTP, metrics and TLS, on real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
from pathlib import Path

import trustme

from server.config import ServerConfig
from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.helpers import Factory
from tests.server.http_tools import http_get
from tests.server.storage_tools import until


async def test_frame_over_the_limit_closes_1009(client: Factory) -> None:
    """A frame over 64 KiB closes the connection with 1009; a big field under it is an error."""
    ann = await client("ann")
    await ann.send(type="chat", room="x", text="y" * 600)
    assert (await ann.expect("error"))["code"] == "too_large"
    await ann.send_raw(json.dumps({"type": "chat", "room": "x", "text": "y" * 70_000}))
    assert await ann.wait_closed() == 1009


async def test_flood_of_errors_closes_1008(client: Factory) -> None:
    """More than 50 errors within 10 s: close 1008."""
    ann = await client("ann")
    for _ in range(60):
        await ann.send_raw("{")
    assert await ann.wait_closed() == 1008
    assert len(ann.take_all("error")) >= 50


async def test_a_game_that_ended_while_both_were_away_is_there_when_they_come_back(
    client: Factory,
) -> None:
    """Bob drops, Ann resigns and drops too: Bob comes back to the result, not ``unknown_room``
    (the soak found a client stuck on a game the server had ended while it was away)."""
    ann, bob = await client("ann"), await client("bob")
    code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
    await bob.request(type="join", room=code)
    await ann.request(type="move", room=code, ply=0, move="0,0")
    await bob.close()
    await ann.expect("presence", seat="second")
    assert (await ann.request(type="resign", room=code))["type"] == "over"
    await ann.close()
    bob2 = await client("bob", token=bob.welcome["token"])
    assert bob2.welcome["resumed"] == []
    room = await bob2.request(type="join", room=code)
    assert (room["type"], room["status"], room["result"], room["moves"]) == (
        "room",
        "over",
        "second",
        ["0,0"],
    )


async def test_reconnect_keeps_the_seat_and_closes_the_older_connection(client: Factory) -> None:
    """Presence on drop and return; hello with token resumes with a snapshot; old one gets 4001."""
    ann, bob = await client("ann"), await client("bob")
    code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
    await bob.request(type="join", room=code)
    await ann.request(type="move", room=code, ply=0, move="0,0")
    await bob.close()
    gone = await ann.expect("presence", seat="second")
    assert gone["connected"] is False
    bob2 = await client("bob", token=bob.welcome["token"])
    assert bob2.welcome["resumed"] == [code] and bob2.welcome["player"] == bob.welcome["player"]
    snap = await bob2.expect("room", room=code)
    assert snap["moves"] == ["0,0"] and snap["you"] == "second"
    assert (await ann.expect("presence", seat="second"))["connected"] is True
    bob3 = await client("bob", token=bob.welcome["token"])
    assert await bob2.wait_closed() == 4001
    assert (await bob3.request(type="move", room=code, ply=1, move="0,1"))["type"] == "moved"
    assert (await ann.expect("moved", ply=1))["move"] == "0,1"


async def test_records_over_http(client: Factory, server: BoardhallServer) -> None:
    """GET /games/ID: PGN for chess, JSON on request; private games only for their players."""
    ann, bob = await client("ann"), await client("bob")
    room = await ann.request(type="create", game="chess", color="first", private=True)
    await bob.request(type="join", room=room["room"])
    for ply, (wire, move) in enumerate([(ann, "f3"), (bob, "e5"), (ann, "g4"), (bob, "Qh4#")]):
        assert (await wire.request(type="move", room=room["room"], ply=ply, move=move))[
            "type"
        ] == "moved"
    over = await ann.expect("over")
    assert (over["result"], over["reason"]) == ("second", "checkmate")
    game = room["game_id"]
    assert (await http_get(server.port, f"/games/{game}"))[0] == 404
    status, pgn = await http_get(server.port, f"/games/{game}", ann.welcome["token"])
    assert status == 200 and "Qh4#" in pgn and "0-1" in pgn
    status, body = await http_get(server.port, f"/games/{game}?format=json", bob.welcome["token"])
    record = json.loads(body)
    assert [m["move"] for m in record["moves"]] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert record["players"]["second"]["name"] == "bob" and record["reason"] == "checkmate"
    player = ann.welcome["player"]
    status, body = await http_get(server.port, f"/games?player={player}")
    assert status == 200 and json.loads(body)["games"] == []
    mine = f"/games?player={player}&token={ann.welcome['token']}"
    status, body = await http_get(server.port, mine)
    assert [g["id"] for g in json.loads(body)["games"]] == [game]
    status, metrics = await http_get(server.port, "/metrics")
    assert status == 200 and "boardhall_moves_total 4" in metrics
    assert 'boardhall_rooms{game="chess"} 1' in metrics
    assert "boardhall_move_seconds_count 4" in metrics
    assert (await http_get(server.port, "/variants/nope"))[0] == 404
    status, body = await http_get(server.port, "/")
    assert status == 200 and json.loads(body)["protocol"] == [1]


async def test_connections_per_address_limit() -> None:
    """Over the per-address limit a connection is closed with 1008."""
    async with running_server(config=ServerConfig(connections_per_address=2)) as server:
        first = [await WireClient.connect(server.url, f"p{i}") for i in range(2)]
        extra = await WireClient.connect(server.url)
        assert await extra.wait_closed() == 1008
        for wire in first:
            await wire.close()


async def test_unfinished_handshakes_count_towards_the_address_limit() -> None:
    """Sockets that never finish their request were not counted: one address could hold any
    number of them, each for the 10 s the handshake may take. Beyond the limit of unfinished
    ones a new socket is closed at once; a finished handshake makes room again."""
    async with running_server(config=ServerConfig(connections_per_address=2)) as server:
        hanging = []
        for _ in range(2):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never the blank line
            await writer.drain()
            hanging.append((reader, writer))
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed, no answer
        writer.close()
        for _, held in hanging:
            held.close()
        await until(lambda: not server.handshakes)
        status, _ = await http_get(server.port, "/healthz")
        assert status == 200


async def test_tls(tmp_path: Path) -> None:
    """With a certificate the server speaks wss:// (self-signed, from trustme)."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    async with running_server(ssl_context=server_context) as server:
        assert server.url.startswith("wss://")
        ann = await WireClient.connect(server.url, "ann", ssl_context=client_context)
        assert ann.welcome["type"] == "welcome"
        assert (await ann.request(type="ping"))["type"] == "pong"
        await ann.close()


async def test_cli_serves_wss_with_tls_flags(tmp_path: Path) -> None:
    """boardhall-server --tls-cert/--tls-key serves wss:// (a real child process)."""
    from server.testing import ServerProcess

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    proc = await ServerProcess.start(
        str(tmp_path / "db.sqlite"),
        "--tls-cert",
        str(tmp_path / "cert.pem"),
        "--tls-key",
        str(tmp_path / "key.pem"),
    )
    try:
        assert proc.url.startswith("wss://127.0.0.1:")
        ann = await WireClient.connect(proc.url, "ann", ssl_context=client_context)
        assert ann.welcome["protocol"] == 1
        await ann.close()
    finally:
        await proc.stop()


def test_help_explains_every_flag() -> None:
    """--help lists every flag with a help text, and every HTTP request the port answers."""
    from server.cli import build_parser

    parser = build_parser()
    for action in parser._actions:
        assert action.help, action.option_strings
    text = parser.format_help()
    for flag in ("--host", "--port", "--db", "--tls-cert", "--log-level", "--absence-grace"):
        assert flag in text
    description = " ".join(parser.description.split()) if parser.description else ""
    for route in ("/healthz", "/metrics", "/games/ID", "/games?player=ID", "/variants/ID",
                  "/ratings?game=G", "/players/ID"):  # /ratings and /players were left out
        assert route in description


async def test_play_the_computer(client: Factory) -> None:
    """create with opponent bot:1 starts a bot process that takes the other seat and replies."""
    ann = await client("ann")
    room = await ann.request(type="create", game="hexgomoku", color="first", opponent="bot:1")
    assert room["type"] == "room", room
    assert room["status"] == "playing" and room["seats"]["second"]["bot"] is True
    assert room["seats"]["second"]["connected"] is True  # on its way: no "is back" when it comes
    await ann.request(type="move", room=room["room"], ply=0, move="0,0")
    reply = await ann.expect("moved", ply=1, timeout=30)
    assert reply["by"] == "second"
    assert (await ann.request(type="resign", room=room["room"]))["type"] == "over"


async def test_variants_directory_is_offered_and_served(tmp_path: Path) -> None:
    """--variants DIR: its variants are in welcome.games, playable, and at GET /variants/ID."""
    import shutil

    source = Path(os.environ["BOARDHALL_SHARED"], "jbq-maps", "example(5x6).xlsx")
    if not source.exists():
        import pytest

        pytest.skip("the JBQ example map is not available")
    shutil.copy(source, tmp_path / source.name)
    async with running_server(variants=tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann")
        custom = next(g for g in ann.welcome["games"] if g["game"] == "custom")
        assert "example-5x6" in [v["id"] for v in custom["variants"]]
        room = await ann.request(type="create", game="custom", variant="example-5x6")
        assert room["variant_info"]["id"] == "example-5x6"
        status, body = await http_get(server.port, "/variants/example-5x6")
        assert status == 200 and json.loads(body)["id"] == "example-5x6"
        await ann.close()


async def test_every_move_is_committed_before_it_is_broadcast(tmp_path: Path) -> None:
    """When a player receives ``moved``, another reader of the database already sees the move."""
    import sqlite3

    db = tmp_path / "hall.db"
    async with running_server(db=db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        room = await ann.request(type="create", game="hexgomoku", color="first")
        await bob.request(type="join", room=room["room"])
        reader = sqlite3.connect(db)
        try:
            for ply, move in enumerate(["0,0", "0,1", "1,0", "1,1"]):
                mover, other = (ann, bob) if ply % 2 == 0 else (bob, ann)
                await mover.send(type="move", room=room["room"], ply=ply, move=move)
                seen = await other.expect("moved", ply=ply)
                rows = reader.execute(
                    "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (room["game_id"],)
                ).fetchall()
                assert [r[0] for r in rows][-1] == seen["move"] and len(rows) == ply + 1
            token_hashes = [r[0] for r in reader.execute("SELECT token_hash FROM identities")]
            assert ann.welcome["token"] not in token_hashes and len(token_hashes) == 2
        finally:
            reader.close()
        await ann.close()
        await bob.close()
