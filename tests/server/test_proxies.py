"""Behind a reverse proxy (``--trusted-proxies``): the client address a trusted proxy forwards
(``X-Forwarded-For``, else ``Forwarded: for=``) is what every per-address limit and log uses;
the same headers from any other peer change nothing; a header that cannot be read falls back to
the proxy's own address. On real servers and sockets (the parsing on its own first)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.http11 import Request, Response

from server.config import ServerConfig
from server.logs import JsonFormatter
from server.net import BoardhallServer, running_server
from server.proxies import TrustedProxies, parse_networks
from server.pushconn import OVER_LIMIT_TEXT
from server.testing import WireClient
from tests.server.http_tools import http_request
from tests.server.storage_tools import until

LOOPBACK = parse_networks("127.0.0.1,::1")


def _proxies(text: str = "127.0.0.1,::1,10.0.0.0/8") -> TrustedProxies:
    return TrustedProxies(parse_networks(text))


# ---- the flag's value ------------------------------------------------------------------------


def test_addresses_and_networks_are_read() -> None:
    networks = parse_networks(" 127.0.0.1, ::1 ,10.0.0.0/8,[fd00::1],fd00:abcd::/32,")
    assert [str(n) for n in networks] == [
        "127.0.0.1/32",
        "::1/128",
        "10.0.0.0/8",
        "fd00::1/128",
        "fd00:abcd::/32",
    ]
    assert parse_networks("") == ()


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("localhost", "'localhost' is not an IP address or network"),
        ("127.0.0.1,proxy.lan", "'proxy.lan' is not an IP address or network"),
        ("300.1.1.1", "'300.1.1.1' is not an IP address or network"),
        ("10.0.0.1/8", "'10.0.0.1/8' has host bits set: did you mean 10.0.0.0/8?"),
        ("10.0.0.0/33", "'10.0.0.0/33' is not an IP address or network"),
        ("*", "'*' is not an IP address or network (trust every peer with 0.0.0.0/0,::/0)"),
    ],
)
def test_a_bad_entry_is_named(text: str, wanted: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_networks(text)
    assert str(refused.value).startswith(wanted), str(refused.value)


# ---- reading the headers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("forwarded_for", "forwarded", "client"),
    [
        (["203.0.113.7"], [], "203.0.113.7"),
        # the rightmost entry that is not a trusted proxy: what is left of it, its client wrote
        (["198.51.100.1, 203.0.113.7"], [], "203.0.113.7"),
        (["198.51.100.1, 203.0.113.7, 10.1.2.3"], [], "203.0.113.7"),
        (["spoofed-junk, 203.0.113.7, 10.1.2.3"], [], "203.0.113.7"),
        (["198.51.100.1", "203.0.113.7, 10.1.2.3"], [], "203.0.113.7"),  # two header lines
        # every entry a trusted proxy: the leftmost is the client (on the proxies' network)
        (["10.9.9.9, 10.1.2.3"], [], "10.9.9.9"),
        # ports and IPv6 forms, written the same way whatever their case
        (["203.0.113.7:51234"], [], "203.0.113.7"),
        (["2001:DB8::1"], [], "2001:db8::1"),
        (["[2001:db8::1]:4711"], [], "2001:db8::1"),
        (["::ffff:203.0.113.7"], [], "203.0.113.7"),
        # RFC 7239's Forwarded, when there is no X-Forwarded-For
        ([], ['for="[2001:db8::1]:4711"'], "2001:db8::1"),
        ([], ["for=192.0.2.60;proto=https;by=203.0.113.43"], "192.0.2.60"),
        ([], ['For="192.0.2.60:8080", for=10.1.2.3'], "192.0.2.60"),
        ([], ['for=192.0.2.9, for="[2001:db8:cafe::17]";proto="h,t;tp"'], "2001:db8:cafe::17"),
        ([], ["for=192.0.2.9", "for=192.0.2.60"], "192.0.2.60"),
        # X-Forwarded-For first
        (["203.0.113.7"], ["for=192.0.2.60"], "203.0.113.7"),
    ],
)
def test_the_client_is_read_from_the_right(
    forwarded_for: list[str], forwarded: list[str], client: str
) -> None:
    assert _proxies().client(forwarded_for, forwarded) == client


@pytest.mark.parametrize(
    ("forwarded_for", "forwarded"),
    [
        ([], []),
        ([""], []),
        (["garbage"], []),
        (["203.0.113.7, garbage"], []),  # the nearest proxy's own entry cannot be read
        (["203.0.113.7,"], []),
        (["unknown"], []),
        (["203.0.113.7:port"], []),
        (["2001:db8::1]:80"], []),
        (["[203.0.113.7]"], []),  # brackets are for IPv6
        (["garbage"], ["for=192.0.2.60"]),  # a bad X-Forwarded-For is not skipped
        ([], ["for=unknown"]),
        ([], ["for=_hidden"]),
        ([], ["proto=https"]),  # no for=
        ([], ['for="192.0.2.60']),  # an unclosed quote
        ([], ["for=192.0.2.60;for=192.0.2.61"]),
        ([], ["for=192.0.2.60 junk"]),
        ([], ["192.0.2.60"]),
    ],
)
def test_a_header_that_cannot_be_read_names_no_client(
    forwarded_for: list[str], forwarded: list[str]
) -> None:
    assert _proxies().client(forwarded_for, forwarded) is None


def test_which_peers_are_trusted() -> None:
    proxies = _proxies()
    assert proxies.trusts("127.0.0.1")
    assert proxies.trusts("::1")
    assert proxies.trusts("10.200.0.1")
    assert proxies.trusts("::ffff:127.0.0.1")  # a dual-stack socket's IPv4 peer
    assert not proxies.trusts("127.0.0.2")
    assert not proxies.trusts("192.0.2.1")
    assert not proxies.trusts("?")
    assert not TrustedProxies(()).trusts("127.0.0.1")


# ---- on a real server ------------------------------------------------------------------------


def _config(trusted: str | None = "127.0.0.1", per_address: int = 2) -> ServerConfig:
    networks = parse_networks(trusted) if trusted is not None else ()
    return ServerConfig(connections_per_address=per_address, trusted_proxies=networks)


async def _from(server: BoardhallServer, header: str, value: str, name: str | None = None) -> Any:
    return await WireClient.connect(server.url, name, headers={header: value})


def _addresses(server: BoardhallServer) -> list[str]:
    return sorted(session.address for session in server.hall.sessions.values())


async def test_a_trusted_proxy_s_clients_are_limited_each_by_its_own_address() -> None:
    """Through a trusted proxy (the test's loopback peer), two clients of 203.0.113.1 are the
    limit of that address, a third is closed 1008, and 203.0.113.2 still connects: before,
    every client was the proxy's 127.0.0.1 and the third connection of anyone was refused."""
    async with running_server(config=_config()) as server:
        assert server.describe()["trusted_proxies"] == ["127.0.0.1/32"]  # the "listening" line
        first = [await _from(server, "X-Forwarded-For", "203.0.113.1", f"a{i}") for i in range(2)]
        third = await _from(server, "X-Forwarded-For", "203.0.113.1")
        assert await third.wait_closed() == 1008
        other = await _from(server, "X-Forwarded-For", "198.51.100.9, 203.0.113.2", "b")
        assert other.welcome["type"] == "welcome"
        await until(lambda: len(server.hall.sessions) == 3)
        assert _addresses(server) == ["203.0.113.1", "203.0.113.1", "203.0.113.2"]
        for wire in [*first, other]:
            await wire.close()


async def test_the_headers_of_a_peer_that_is_not_trusted_change_nothing() -> None:
    """Without --trusted-proxies, or with a list the peer is not in, anyone could claim any
    address: the headers are ignored and the peer's address is limited."""
    for trusted in (None, "10.0.0.0/8,::1"):
        async with running_server(config=_config(trusted)) as server:
            first = [
                await _from(server, "X-Forwarded-For", f"203.0.113.{i}", f"p{i}") for i in range(2)
            ]
            third = await _from(server, "Forwarded", "for=203.0.113.9")
            assert await third.wait_closed() == 1008
            await until(lambda: len(server.hall.sessions) == 2)
            assert _addresses(server) == ["127.0.0.1", "127.0.0.1"]
            for wire in first:
                await wire.close()


async def test_headers_that_cannot_be_read_fall_back_to_the_proxy_s_address(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A trusted proxy's request without a usable header counts as the proxy's own address
    (never an error to the user); the log says so once, naming the proxy."""
    caplog.set_level(logging.INFO, logger="boardhall")
    async with running_server(config=_config(per_address=10)) as server:
        wires = [
            await _from(server, "X-Forwarded-For", "garbage", "a"),
            await _from(server, "X-Forwarded-For", "", "b"),
            await _from(server, "Forwarded", "for=unknown", "c"),
            await WireClient.connect(server.url, "d"),
        ]
        assert all(wire.welcome["type"] == "welcome" for wire in wires)
        assert _addresses(server) == ["127.0.0.1"] * 4
        reply = await http_request(server, "/healthz", headers="X-Forwarded-For: ???\r\n")
        assert reply.status == 200
        for wire in wires:
            await wire.close()
    told = [r for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
    assert len(told) == 1, [r.getMessage() for r in told]
    assert getattr(told[0], "fields", {})["proxy"] == "127.0.0.1"


async def test_ipv6_clients_are_one_address_whatever_the_form() -> None:
    """``Forwarded: for="[2001:db8::1]:4711"`` and ``X-Forwarded-For: 2001:DB8::1`` are the
    same client: its two connections fill a limit of two."""
    async with running_server(config=_config()) as server:
        first = await _from(server, "Forwarded", 'for="[2001:db8::1]:4711"', "a")
        second = await _from(server, "X-Forwarded-For", "2001:DB8::1", "b")
        third = await _from(server, "X-Forwarded-For", "[2001:db8::1]:80")
        assert await third.wait_closed() == 1008
        await until(lambda: len(server.hall.sessions) == 2)
        assert _addresses(server) == ["2001:db8::1", "2001:db8::1"]
        for wire in (first, second):
            await wire.close()


def _has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6(), reason="this machine has no IPv6 loopback (::1)")
async def test_a_dual_stack_server_trusts_an_ipv4_proxy_by_its_ipv4_address() -> None:
    """On ``--host ::`` an IPv4 peer is ``::ffff:127.0.0.1``: ``--trusted-proxies 127.0.0.1``
    still names it."""
    async with running_server(host="::", config=_config()) as server:
        ws = await WireClient.connect(
            f"ws://127.0.0.1:{server.port}", "a", headers={"X-Forwarded-For": "203.0.113.5"}
        )
        assert _addresses(server) == ["203.0.113.5"]
        await ws.close()


Held = tuple[BoardhallServer, asyncio.Event, list[tuple[str, str]]]


@contextlib.asynccontextmanager
async def _answers_held(config: ServerConfig) -> AsyncIterator[Held]:
    """A started server whose HTTP answers wait until the event is set (so that requests stay
    in their opening handshake), and the refusals it tells, ``(kind, address)``."""
    gate = asyncio.Event()
    server = BoardhallServer(config=config)
    answer = server._http_answer

    async def held(request: Request) -> Response:
        await gate.wait()
        return await answer(request)

    server._http_answer = held  # type: ignore[method-assign]
    refused: list[tuple[str, str]] = []
    await server.start()
    try:
        server.refusals.event = lambda kind, address, *_a, **_k: refused.append((kind, address))  # type: ignore[method-assign]
        yield server, gate, refused
    finally:
        await server.stop()


async def test_a_trusted_proxy_s_sockets_are_limited_by_the_forwarded_address() -> None:
    """The handshake count: a trusted proxy's sockets are not limited by address when they are
    accepted (its own address is every client's); once a request's headers are read, it counts
    against the forwarded address, and over the limit it is refused, told with that address.
    The refusal is an HTTP answer, 429 with a short text and ``Connection: close`` (a plain
    request and a WebSocket upgrade alike), so that the proxy passes it on and logs it: before,
    the socket was closed with no answer at all, which nginx turns into a 502 Bad Gateway."""
    async with _answers_held(_config()) as (server, gate, refused):
        hanging = []
        for _ in range(5):  # more than the limit, from the proxy, with no request yet
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
            hanging.append(writer)
        xff = "X-Forwarded-For: 203.0.113.1\r\n"
        held_requests = [
            asyncio.ensure_future(http_request(server, "/healthz", headers=xff)) for _ in range(2)
        ]
        await until(lambda: server.handshakes.get("203.0.113.1") == 2)
        over = await http_request(server, "/healthz", headers=xff)
        assert (over.status, over.headers["connection"]) == (429, "close")
        assert over.headers["content-type"] == "text/plain; charset=utf-8"
        assert over.text == OVER_LIMIT_TEXT
        assert "too many connections from your address" in over.text.lower()
        with pytest.raises(InvalidStatus) as upgrade:
            await connect(server.url, additional_headers={"X-Forwarded-For": "203.0.113.1"})
        assert upgrade.value.response.status_code == 429
        assert upgrade.value.response.body == OVER_LIMIT_TEXT.encode()
        other = asyncio.ensure_future(
            http_request(server, "/healthz", headers="X-Forwarded-For: 203.0.113.2\r\n")
        )
        await until(lambda: server.handshakes.get("203.0.113.2") == 1)
        assert "127.0.0.1" not in server.handshakes
        assert server.handshakes.get("203.0.113.1") == 2  # the refused ones never counted
        gate.set()
        assert [(await r).status for r in [*held_requests, other]] == [200, 200, 200]
        assert refused == [("handshake_limit", "203.0.113.1")] * 2
        assert server.metrics.refused["handshake_limit"] == 2
        for writer in hanging:
            writer.close()
        await until(lambda: not server.handshakes)


async def test_refusals_and_their_summary_name_the_forwarded_address(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A flood closed with 1008 through the proxy is logged with the client's address, and so
    is the summary of the next ones; the "connected" line names both addresses."""
    caplog.set_level(logging.DEBUG, logger="boardhall")
    async with running_server(config=_config(per_address=10)) as server:
        for _ in range(3):
            flooder = await _from(server, "X-Forwarded-For", "198.51.100.7", "f")
            for _ in range(60):
                await flooder.send_raw("not json")
            assert await flooder.wait_closed() == 1008
        await until(lambda: not server.connections)
    told = [json.loads(JsonFormatter().format(r)) for r in caplog.records]
    flood = next(line for line in told if line.get("kind") == "closed_1008")
    assert flood["address"] == "198.51.100.7"
    (summary,) = [line for line in told if "counts" in line]
    assert summary["top_addresses"] == {"198.51.100.7": 2}
    connected = [line for line in told if line["msg"] == "connected"]
    assert connected and all(
        line["address"] == "198.51.100.7" and line["proxy"] == "127.0.0.1" for line in connected
    )


async def test_each_forwarded_address_has_its_own_chat_budget() -> None:
    """Behind one trusted proxy, the chat guard per address counts the forwarded addresses:
    with one line per address, ann (203.0.113.1) and bob (203.0.113.2) each say theirs, the
    same words too; cat, another identity of ann's address, is refused. Before, all three were
    the proxy's 127.0.0.1, and bob's line would have been refused."""
    config = dataclasses.replace(_config(per_address=10), chat_address_lines=1)
    async with running_server(config=config) as server:
        ann = await _from(server, "X-Forwarded-For", "203.0.113.1", "ann")
        bob = await _from(server, "X-Forwarded-For", "203.0.113.2", "bob")
        cat = await _from(server, "X-Forwarded-For", "203.0.113.1", "cat")
        code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
        assert (await bob.request(type="join", room=code))["status"] == "playing"
        assert (await cat.request(type="join", room=code, role="spectator"))["room"] == code
        assert (await ann.request(type="chat", room=code, text="gl"))["type"] == "ok"
        assert (await bob.request(type="chat", room=code, text="gl"))["type"] == "ok"
        refused = await cat.request(type="chat", room=code, text="hello")
        assert (refused["type"], refused["code"]) == ("error", "rate_limited"), refused
        assert refused["message"].startswith("too many chat lines from your address"), refused
        for wire in (ann, bob, cat):
            await wire.close()


# ---- IPv6 clients: one network of --ipv6-prefix bits is one address ---------------------------


async def test_the_addresses_of_one_ipv6_network_are_one_address() -> None:
    """Behind the proxy, 2001:db8::1 and 2001:db8::2 are two addresses of one /64 (what an ISP
    gives one subscriber, who may take any address in it): they fill its limit of two, and
    2001:db8::ffff is closed 1008 as a third connection of the same address; 2001:db8:0:1::1, in
    the next /64, connects. The sessions keep the real addresses (the logs name them)."""
    async with running_server(config=_config()) as server:
        first = [await _from(server, "X-Forwarded-For", f"2001:db8::{i}", f"a{i}") for i in (1, 2)]
        third = await _from(server, "X-Forwarded-For", "2001:db8::ffff")
        assert await third.wait_closed() == 1008
        other = await _from(server, "X-Forwarded-For", "2001:db8:0:1::1", "b")
        assert other.welcome["type"] == "welcome"
        await until(lambda: server.hall.addresses == {"2001:db8::/64": 2, "2001:db8:0:1::/64": 1})
        assert _addresses(server) == ["2001:db8:0:1::1", "2001:db8::1", "2001:db8::2"]
        for wire in [*first, other]:
            await wire.close()


async def test_an_ipv6_prefix_of_128_counts_each_address_on_its_own() -> None:
    """With ``ipv6_prefix=128`` three addresses of one /64 are three addresses: each connects
    under a limit of two."""
    config = dataclasses.replace(_config(), ipv6_prefix=128)
    async with running_server(config=config) as server:
        wires = [
            await _from(server, "X-Forwarded-For", f"2001:db8::{i}", f"a{i}") for i in (1, 2, 3)
        ]
        assert all(wire.welcome["type"] == "welcome" for wire in wires)
        await until(lambda: len(server.hall.addresses) == 3)
        assert server.hall.addresses == {f"2001:db8::{i}": 1 for i in (1, 2, 3)}
        for wire in wires:
            await wire.close()


async def test_the_unfinished_handshakes_of_one_ipv6_network_are_one_address() -> None:
    """The handshake count keys an IPv6 client by its /64 too: with two requests of
    2001:db8::1 and 2001:db8::2 held unanswered, one of 2001:db8::3 is answered 429 and told
    with its own address; one of 2001:db8:0:1::1 is counted apart and answered."""
    async with _answers_held(_config()) as (server, gate, refused):

        def from_(address: str) -> asyncio.Future[Any]:
            headers = f"X-Forwarded-For: {address}\r\n"
            return asyncio.ensure_future(http_request(server, "/healthz", headers=headers))

        held_requests = [from_("2001:db8::1"), from_("2001:db8::2")]
        await until(lambda: server.handshakes.get("2001:db8::/64") == 2)
        assert (await from_("2001:db8::3")).status == 429
        assert refused == [("handshake_limit", "2001:db8::3")]
        other = from_("2001:db8:0:1::1")
        await until(lambda: server.handshakes.get("2001:db8:0:1::/64") == 1)
        gate.set()
        assert [(await r).status for r in [*held_requests, other]] == [200, 200, 200]
        await until(lambda: not server.handshakes)
