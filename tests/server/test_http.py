"""The plain HTTP side of the port, as an operator's script meets it: methods, paths, ids,
queries, tokens, content types, caching and the Prometheus text, on a real server (loopback,
port 0) over raw sockets. Every bad request gets a JSON error naming what was wrong, and none
logs a traceback."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.metrics import Metrics
from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.http_tools import http_request as http


@dataclass
class Games:
    server: BoardhallServer
    ann: WireClient  # named 安娜
    bob: WireClient
    eve: WireClient  # plays in neither game
    finished: str  # a private chess game, over (ann is mated)
    live: str  # a public chess game, one move in

    @property
    def token(self) -> str:
        return str(self.ann.welcome["token"])


@pytest.fixture
async def games() -> AsyncIterator[Games]:
    async with running_server(host="127.0.0.1", port=0, db=":memory:", ping_interval=None) as s:
        ann = await WireClient.connect(s.url, "安娜")
        bob = await WireClient.connect(s.url, "bob")
        eve = await WireClient.connect(s.url, "eve")
        try:
            room = await ann.request(type="create", game="chess", color="first", private=True)
            await bob.request(type="join", room=room["room"])
            moves = [(ann, "f3"), (bob, "e5"), (ann, "g4"), (bob, "Qh4#")]
            for ply, (wire, move) in enumerate(moves):
                reply = await wire.request(type="move", room=room["room"], ply=ply, move=move)
                assert reply["type"] == "moved", reply
            await ann.expect("over")
            live = await ann.request(type="create", game="chess", color="first")
            await bob.request(type="join", room=live["room"])
            await ann.request(type="move", room=live["room"], ply=0, move="e4")  # on disk
            yield Games(s, ann, bob, eve, room["game_id"], live["game_id"])
        finally:
            for wire in (ann, bob, eve):
                await wire.close()


@pytest.fixture(autouse=True)
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Any:
    """No client's request makes the server log an error (or a traceback)."""
    caplog.set_level(logging.INFO)
    yield
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


def paths(g: Games) -> list[str]:
    return [
        "/",
        "/healthz",
        "/metrics",
        f"/games/{g.live}",
        "/games?player=x",
        "/variants/xiangqi",
        "/ratings?game=chess",
        f"/players/{g.ann.welcome['player']}",
    ]


# ---- methods ------------------------------------------------------------------------------------


async def test_other_methods_get_405_with_allow(games: Games) -> None:
    """POST, PUT, DELETE, PATCH (and made-up methods) on a served path: 405 naming the method,
    with ``Allow``; they used to be answered as if they were GET."""
    for path in paths(games):
        for method in ("POST", "PUT", "DELETE", "PATCH", "BREW"):
            reply = await http(games.server, path, method, "Content-Length: 0\r\n")
            assert reply.status == 405, (method, path, reply)
            assert reply.headers["allow"] == "GET, HEAD, OPTIONS"
            assert method in reply.error and "GET" in reply.error
    assert (await http(games.server, "/nope", "POST")).status == 404


async def test_head_sends_the_headers_of_get_and_no_body(games: Games) -> None:
    for path in paths(games):
        got, head = await http(games.server, path), await http(games.server, path, "HEAD")
        assert head.status == got.status, path
        assert head.body == b"", (path, head.body[:80])
        assert head.headers["content-type"] == got.headers["content-type"]
        if path != "/healthz":  # its uptime and counts may change between the two
            assert head.headers["content-length"] == got.headers["content-length"]


async def test_options_lists_the_methods(games: Games) -> None:
    for path in [*paths(games), "*"]:
        reply = await http(games.server, path, "OPTIONS")
        assert (reply.status, reply.headers["allow"], reply.body) == (
            204,
            "GET, HEAD, OPTIONS",
            b"",
        ), path


# ---- paths and ids ------------------------------------------------------------------------------


async def test_unknown_paths_and_trailing_slashes_are_404_naming_the_path(games: Games) -> None:
    """``/healthz/`` used to be /healthz, ``/games/`` the list and ``//healthz`` the index (read
    as a host name); now each is a 404 naming the path asked for."""
    server = games.server
    reply = await http(server, "/nope")
    assert reply.status == 404 and "'/nope'" in reply.error
    assert reply.headers["content-type"] == "application/json; charset=utf-8"
    for path in (
        "/healthz/",
        "/metrics/",
        f"/games/{games.live}/",
        "/games/",
        "/variants/",
        "/ratings/",
        "/ratings/chess",
        "/players/",
        "/players",
        f"/players/{games.ann.welcome['player']}/",
    ):
        reply = await http(server, path)
        assert reply.status == 404, path
        assert repr(path) in reply.error, reply.error
    assert "without the trailing slash: '/healthz'" in (await http(server, "/healthz/")).error
    reply = await http(server, "//healthz")
    assert reply.status == 404 and "'//healthz'" in reply.error
    assert (await http(server, "/GAMES/" + games.live)).status == 404
    assert (await http(server, "http://x/healthz")).json()["status"] == "ok"  # absolute form


async def test_percent_encoded_ids_are_decoded(games: Games) -> None:
    """``/games/%67...`` is the game ``g...`` (clients quote ids); errors name the id decoded."""
    server = games.server
    encoded = "".join(f"%{ord(c):02X}" for c in games.live)
    reply = await http(server, f"/games/{encoded}?format=json")
    assert reply.status == 200 and reply.json()["id"] == games.live
    reply = await http(server, "/games/%E4%B8%AD")
    assert reply.status == 404 and "'中'" in reply.error
    reply = await http(server, "/games/a%ffb")
    assert reply.status == 400 and "UTF-8" in reply.error


async def test_path_traversal_finds_nothing(games: Games) -> None:
    server = games.server
    for path, shown in [
        ("/variants/..%2F..%2Fetc%2Fpasswd", "'../../etc/passwd'"),
        ("/variants/%2e%2e%2f%2e%2e%2fserver%2fnet.py", "'../../server/net.py'"),
        ("/games/..%2Fmetrics", "'../metrics'"),
    ]:
        reply = await http(server, path)
        assert reply.status == 404 and shown in reply.error, (path, reply)
    reply = await http(server, "/variants/../../etc/passwd")
    assert reply.status == 404 and "passwd" in reply.error
    assert (await http(server, "/variants/xiangqi")).status == 200


async def test_very_long_urls_are_refused_without_harm(games: Games) -> None:
    server = games.server
    assert (await http(server, "/games/" + "a" * 9000)).status == 414
    assert (await http(server, "/games?player=x&" + "q=1&" * 3000)).status == 414
    assert (await http(server, "/healthz")).status == 200


# ---- queries ------------------------------------------------------------------------------------


async def test_repeated_and_unknown_query_parameters_are_400(games: Games) -> None:
    """``format=json&format=pgn`` used to serve PGN (the last one won), ``player=a&player=b``
    the games of b, and ``fromat=json`` PGN as if nothing were asked."""
    server, game = games.server, games.live
    reply = await http(server, f"/games/{game}?format=json&format=pgn")
    assert reply.status == 400 and "'format'" in reply.error and "more than once" in reply.error
    reply = await http(server, "/games?player=a&player=b")
    assert reply.status == 400 and "'player'" in reply.error
    reply = await http(server, f"/games/{game}?fromat=json")
    assert reply.status == 400 and "'fromat'" in reply.error
    reply = await http(server, f"/games/{game}?token={games.token}&token=x")
    assert reply.status == 400 and "'token'" in reply.error
    reply = await http(server, f"/games/{game}?format=xml")
    assert reply.status == 400 and "'xml'" in reply.error
    assert (await http(server, "/games?player=")).status == 400
    assert (await http(server, "/games")).status == 400


async def test_bad_leaderboard_requests_name_what_was_wrong(games: Games) -> None:
    """``/ratings`` without a game, of a game or variant the server does not have, with a limit
    that is not a whole number from 1 to 100, or with parameters unknown or repeated: a 400 or
    404 whose message names the parameter or value (and what would do)."""
    server = games.server
    for path, status, words in [
        ("/ratings", 400, ["?game="]),
        ("/ratings?game=", 400, ["?game="]),
        ("/ratings?game=go", 404, ["'go'", "chess"]),
        ("/ratings?game=Chess", 404, ["'Chess'"]),
        ("/ratings?game=chess&variant=blitz", 404, ["'blitz'", "standard"]),
        ("/ratings?game=draughts&variant=", 400, ["?variant=", "russian"]),
        ("/ratings?game=custom&variant=..%2Fetc", 404, ["'../etc'", "xiangqi"]),
        ("/ratings?game=chess&limit=0", 400, ["'limit'", "1 to 100"]),
        ("/ratings?game=chess&limit=101", 400, ["'limit'", "'101'"]),
        ("/ratings?game=chess&limit=-5", 400, ["'limit'"]),
        ("/ratings?game=chess&limit=ten", 400, ["'limit'", "'ten'"]),
        ("/ratings?game=chess&limit=", 400, ["'limit'"]),
        ("/ratings?game=chess&limit=%EF%BC%95", 400, ["'limit'"]),  # a full-width 5
        ("/ratings?game=chess&limit=1e2", 400, ["'limit'"]),
        ("/ratings?game=chess&player=x", 400, ["'player'", "game, limit, variant"]),
        ("/ratings?game=chess&game=shuqi", 400, ["'game'", "more than once"]),
        ("/ratings?game=%ff", 400, ["UTF-8"]),
    ]:
        reply = await http(server, path)
        assert reply.status == status, (path, reply.status, reply.body)
        assert all(word in reply.error for word in words), (path, reply.error)
        assert reply.headers["cache-control"] == "no-store", path
    assert (await http(server, "/ratings?game=chess&limit=100")).status == 200
    assert (await http(server, "/ratings?game=chess&limit=1&variant=standard")).status == 200
    custom = await http(server, "/ratings?game=custom&variant=xiangqi")
    assert custom.status == 200 and custom.json()["key"] == "custom/xiangqi"


async def test_the_index_lists_the_leaderboard(games: Games) -> None:
    """``/`` names every HTTP path, ``/ratings?game=G`` and ``/players/ID`` too."""
    listed = (await http(games.server, "/")).json()["http"]
    assert "/ratings?game=G" in listed and "/games?player=ID" in listed
    assert "/players/ID" in listed


# ---- tokens -------------------------------------------------------------------------------------


async def test_tokens(games: Games) -> None:
    """A wrong or empty token is an error saying so (it used to read as no token, a 404); a
    player of another game still sees a private game as missing."""
    server, game, token = games.server, games.finished, games.token
    assert (await http(server, f"/games/{game}?token={token}")).status == 200
    assert (
        await http(server, f"/games/{game}", headers=f"Authorization: Bearer {token}\r\n")
    ).status == 200
    assert (
        await http(server, f"/games/{game}", headers=f"Authorization: bearer  {token}\r\n")
    ).status == 200
    assert (await http(server, f"/games/{game}")).status == 404

    reply = await http(server, f"/games/{game}?token=wrong")
    assert reply.status == 401 and reply.error == "unknown token"
    assert "invalid_token" in reply.headers["www-authenticate"]
    reply = await http(server, f"/games/{game}", headers="Authorization: Bearer wrong\r\n")
    assert reply.status == 401 and reply.error == "unknown token"
    reply = await http(server, f"/games/{game}?token=")
    assert reply.status == 400 and "empty" in reply.error
    for header in ("Bearer", "Bearer ", "Bearer   "):
        reply = await http(server, f"/games/{game}", headers=f"Authorization: {header}\r\n")
        assert reply.status == 401 and "empty" in reply.error, header
    reply = await http(server, f"/games/{game}", headers=f"Authorization: Basic {token}\r\n")
    assert reply.status == 401 and "'Basic'" in reply.error and "Bearer" in reply.error
    reply = await http(
        server, f"/games/{game}?token=x", headers=f"Authorization: Bearer {token}\r\n"
    )
    assert reply.status == 400 and "two different tokens" in reply.error

    public = await http(server, f"/games/{games.live}?token=wrong")
    assert public.status == 200, public.error  # a stale token still reads a public game

    eve = games.eve.welcome["token"]
    reply = await http(server, f"/games/{game}?token={eve}")
    assert reply.status == 404 and game in reply.error  # not a player of it: as if it were not
    reply = await http(server, f"/games?player={games.ann.welcome['player']}&token=wrong")
    assert reply.status == 401


async def test_two_authorization_headers_are_400_not_a_500(games: Games) -> None:
    """Two ``Authorization`` headers made ``headers.get`` raise: a 500 and a traceback."""
    reply = await http(
        games.server,
        f"/games/{games.finished}",
        headers=f"Authorization: Bearer wrong\r\nAuthorization: Bearer {games.token}\r\n",
    )
    assert reply.status == 400 and "more than one Authorization" in reply.error


async def test_a_doubled_upgrade_header_is_served_not_a_500(games: Games) -> None:
    reply = await http(games.server, "/healthz", headers="Upgrade: h2c\r\nUpgrade: foo\r\n")
    assert reply.status == 200 and reply.json()["status"] == "ok"


# ---- bodies and caching -------------------------------------------------------------------------


async def test_bodies_declare_utf8(games: Games) -> None:
    """安娜 travels as UTF-8 and every body says so (/metrics and JSON said nothing)."""
    server, game, token = games.server, games.finished, games.token
    pgn = await http(server, f"/games/{game}?token={token}")
    assert pgn.headers["content-type"] == "application/x-chess-pgn; charset=utf-8"
    assert '[White "安娜"]' in pgn.body.decode("utf-8")
    record = await http(server, f"/games/{game}?format=json&token={token}")
    assert record.headers["content-type"] == "application/json; charset=utf-8"
    assert record.json()["players"]["first"]["name"] == "安娜"
    for path in (
        "/",
        "/healthz",
        "/games?player=x",
        "/variants/xiangqi",
        "/ratings?game=chess",
        "/nope",
    ):
        reply = await http(server, path)
        assert reply.headers["content-type"] == "application/json; charset=utf-8", path
    metrics = await http(server, "/metrics")
    assert metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    profile = await http(server, f"/players/{games.ann.welcome['player']}")
    assert profile.headers["content-type"] == "application/json; charset=utf-8"
    assert profile.json()["name"] == "安娜" and "安娜" in profile.body.decode("utf-8")


async def test_caching_headers(games: Games) -> None:
    """A finished game's record may be kept (privately when the game is private), a live one's
    must be checked again, and health, metrics, lists and errors are never stored."""
    server, token = games.server, games.token
    finished = await http(server, f"/games/{games.finished}?token={token}")
    assert finished.headers["cache-control"] == "private, max-age=86400"
    assert finished.headers["vary"] == "Authorization"
    live = await http(server, f"/games/{games.live}")
    assert live.headers["cache-control"] == "no-cache"
    for path in (
        "/",
        "/healthz",
        "/metrics",
        "/games?player=x",
        "/ratings?game=chess",
        f"/players/{games.ann.welcome['player']}",
        "/players/nobody",
        "/nope",
        f"/games/{games.finished}",
    ):
        assert (await http(server, path)).headers["cache-control"] == "no-store", path


# ---- /metrics -----------------------------------------------------------------------------------

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
_SAMPLE = re.compile(
    rf"(?P<name>{_NAME.pattern})"
    rf"(?:\{{(?P<labels>(?:[a-zA-Z_][a-zA-Z0-9_]*={_LABEL_VALUE})(?:,[a-zA-Z_][a-zA-Z0-9_]*={_LABEL_VALUE})*)?\}})?"
    r" (?P<value>[-+]?(?:[0-9.]+(?:[eE][-+]?[0-9]+)?|Inf|NaN))$"
)


def check_exposition(text: str) -> dict[str, str]:
    """Check ``text`` as Prometheus text format 0.0.4; returns the type of each family."""
    assert text.endswith("\n")
    types: dict[str, str] = {}
    helps: set[str] = set()
    series: set[tuple[str, str]] = set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in helps, f"two HELP lines for {name}"
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert name not in types, f"two TYPE lines for {name}"
            assert name in helps, f"TYPE before HELP for {name}"
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped")
            types[name] = kind
            continue
        match = _SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name = match["name"]
        family = next(
            (
                f
                for f in types
                if name == f or name in (f + s for s in ("_bucket", "_sum", "_count"))
            ),
            None,
        )
        assert family is not None, f"sample {name} before its TYPE line"
        key = (name, match["labels"] or "")
        assert key not in series, f"duplicate series {key}"
        series.add(key)
    for name, kind in types.items():
        if kind == "counter":
            assert name.endswith("_total"), f"counter {name} does not end in _total"
    # a counter's family is its name without _total (OpenMetrics, prometheus_client): no other
    # family may be called that
    bases = [
        name.removesuffix("_total") if kind == "counter" else name for name, kind in types.items()
    ]
    assert len(bases) == len(set(bases)), f"two families of one name: {sorted(bases)}"
    return types


async def test_metrics_are_valid_exposition_text(games: Games) -> None:
    """Every family has HELP and TYPE, names and labels are well formed, counters end in
    _total, no series is there twice, and the open-connections gauge is no longer called
    ``boardhall_connections`` (the family name of ``boardhall_connections_total``)."""
    await games.eve.send_raw("{")  # one error reply, so boardhall_errors_total has a sample
    await games.eve.expect("error")
    text = (await http(games.server, "/metrics")).body.decode("utf-8")
    types = check_exposition(text)
    assert types["boardhall_open_connections"] == "gauge"
    assert "boardhall_open_connections 3\n" in text
    assert types["boardhall_connections_total"] == "counter"
    assert 'boardhall_errors_total{code="bad_message"} 1' in text


def test_label_values_are_escaped() -> None:
    metrics = Metrics()
    metrics.errors['we"ird\\code\n'] += 1
    text = metrics.render(0, {'a"b': 1}, 0)
    check_exposition(text)
    assert 'boardhall_rooms{game="a\\"b"} 1' in text
    assert 'boardhall_errors_total{code="we\\"ird\\\\code\\n"} 1' in text


# ---- bytes after the request ------------------------------------------------------------------


async def _raw(server: BoardhallServer, data: bytes) -> bytes:
    """Send ``data`` as it is and read the whole answer (the server closes after it)."""
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


@pytest.mark.parametrize("body_headers", [
    b"Content-Length: 11\r\n\r\n{\"a\": true}",
    b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
])
async def test_a_request_with_a_body_gets_its_answer(games: Games, body_headers: bytes) -> None:
    """A POST with a body got no answer at all (websockets refuses request bodies while parsing,
    before any of our code runs): it now gets the 405 every other POST gets."""
    answer = await _raw(games.server, b"POST /healthz HTTP/1.1\r\nHost: x\r\n" + body_headers)
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    assert head.startswith("HTTP/1.1 405"), answer
    assert "Allow: GET, HEAD, OPTIONS" in head


async def test_pipelined_requests_get_the_first_answer_and_no_error(games: Games) -> None:
    """Two requests in one write: the bytes after the first were read as WebSocket frames, so
    nothing was answered and websockets logged an error with a traceback (anyone could fill the
    log). The first is answered; the connection then closes as every HTTP answer does."""
    one = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = await _raw(games.server, one + one)
    assert answer.startswith(b"HTTP/1.1 200"), answer
    assert answer.count(b"HTTP/1.1 ") == 1


async def test_a_frame_sent_with_the_upgrade_request_is_read_after_the_handshake(
    games: Games,
) -> None:
    """A client that does not wait for the 101 (its hello in the same write as the upgrade
    request): the frame is held while the handshake runs, then read as the first message."""
    import asyncio
    import base64
    import json
    import os

    from tests.server.raw_ws import read_frame

    hello = json.dumps({"type": "hello", "name": "eager", "protocol": 1}).encode()
    mask = os.urandom(4)
    frame = bytes([0x81, 0x80 | len(hello)]) + mask
    frame += bytes(b ^ mask[i % 4] for i, b in enumerate(hello))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    assert len(hello) < 126  # one length byte
    reader, writer = await asyncio.open_connection("127.0.0.1", games.server.port)
    writer.write(request + frame)
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 101")
    opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
    assert opcode == 1 and json.loads(payload)["type"] == "welcome"
    writer.close()


@pytest.mark.parametrize("opening", [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)),  # a TLS greeting
    b"hello there\r\n",  # a garbage first line
])
async def test_what_is_no_request_is_refused_at_once(games: Games, opening: bytes) -> None:
    """Bytes that cannot start a request are not held for the rest of a head that will never
    come: the connection ends at once (a TLS client learns at once that this is no TLS port),
    not when the handshake times out 10 s later."""
    import asyncio

    reader, writer = await asyncio.open_connection("127.0.0.1", games.server.port)
    writer.write(opening)
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed without an answer
    writer.close()
