"""What one hostile or careless user can do to the others on a public server: names that pass for
the computer or for someone else, chat that draws over the screen, connections that never read,
and tokens in the logs."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import socket
from typing import Any

import pytest

from server import net as server_net
from server.testing import BoardhallServer, HallDriver, WireClient
from tests.server.http_tools import http_request

# ---- names --------------------------------------------------------------------------------------


def welcome_name(name: str, **hello: Any) -> str:
    d = HallDriver()
    reply = d.request(d.open(), type="hello", name=name, protocol=1, **hello)
    assert reply["type"] == "welcome", reply
    return str(reply["name"])


def refused(name: str, **hello: Any) -> str:
    d = HallDriver()
    reply = d.request(d.open(), type="hello", name=name, protocol=1, **hello)
    assert reply["type"] == "error" and reply["code"] == "bad_message", (name, reply)
    return str(reply["message"])


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("\uff21\uff4e\uff4e", "Ann"),  # full-width letters
        ("\U0001d400nn", "Ann"),  # mathematical bold A
        ("  ann  ", "ann"),
        ("a" * 28 + "\ufdfa", "a" * 28 + "\u0635\u0644\u0649"),  # NFKC made it longer: cut,
        # with no trailing space left
        ("an\u00adn", "ann"),  # soft hyphen
        ("a\u3164nn\u115f", "ann"),  # Hangul fillers: blank letters
        ("a\u034fn\u2800n", "ann"),  # combining grapheme joiner, Braille blank
        ("x" + "\u0301" * 20 + "ve", "x\u0301\u0301\u0301ve"),  # no tower of accents
        ("e\u0301ve", "\u00e9ve"),  # composed
        ("\u0301\u0301eve", "eve"),  # marks with nothing under them
        ("Zoë", "Zoë"),
        ("Иван", "Иван"),
        ("李小龍", "李小龍"),
        ("สมชาย", "สมชาย"),
    ],
)
def test_names_are_normalised(sent: str, shown: str) -> None:
    assert welcome_name(sent) == shown


@pytest.mark.parametrize("sent", ["\u3164", "\u200b\u200b", "\u202e", " \u0301 ", "\u2800\u115f"])
def test_a_name_of_only_invisible_characters_is_player(sent: str) -> None:
    assert welcome_name(sent) == "Player"


@pytest.mark.parametrize(
    "sent",
    [
        "Computer L1",
        "computer l1",
        " Computer  L8 ",
        "COMPUTER",
        "Computer",
        "\uff23\uff4f\uff4d\uff50\uff55\uff54\uff45\uff52 L1",  # full-width
        "\u0421\u043e\u043c\u0440ut\u0435r L1",  # Cyrillic C, o, m, p, e
        "C\u043emputer L1",  # one Cyrillic o
        "C0mputer L1",
        "Com\u200bputer L1",
        "Comp\u00fater L1",  # an accent is easy to miss
        "\u202eComputer L1",
    ],
)
def test_lookalikes_of_the_servers_computer_players_are_refused(sent: str) -> None:
    message = refused(sent)
    assert "computer" in message.lower()
    # a bot program may not use them either: they are the server's own players
    refused(sent, client="bot boardhall")


@pytest.mark.parametrize("sent", ["Bot L3", "bot l3", "BOT", "Bot-L1", "B0t L2", "BotL3", "Bot 7"])
def test_bot_names_are_kept_for_bot_programs(sent: str) -> None:
    assert "bot" in refused(sent).lower()
    assert welcome_name(sent, client="bot boardhall")


def test_a_bot_identity_keeps_its_bot_name_when_it_comes_back() -> None:
    """An identity that said hello as a bot program is one for good (its seat says ``bot``)."""
    d = HallDriver()
    token = d.request(d.open(), type="hello", name="Bot L1", client="bot x", protocol=1)["token"]
    assert d.request(d.open(), type="hello", name="Bot L1", token=token, protocol=1)["name"] == (
        "Bot L1"
    )


def test_a_lookalike_bot_name_is_refused() -> None:
    assert "bot" in refused("B\u043et L3").lower()  # a Cyrillic o
    assert "mixes" in refused("B\u043et L3", client="bot boardhall")


@pytest.mark.parametrize("sent", ["Bottle", "Robot", "Botanist", "Computing fan", "Abbot"])
def test_names_that_only_start_alike_are_fine(sent: str) -> None:
    assert welcome_name(sent) == sent


@pytest.mark.parametrize(
    "sent", ["\u0430nn", "Ann\u0430", "b\u03bfb", "Ivan \u0418\u0432\u0430\u043d"]
)
def test_names_mixing_latin_with_lookalike_scripts_are_refused(sent: str) -> None:
    assert "mixes" in refused(sent)


def test_a_refused_name_comes_first_and_the_connection_may_say_hello_again() -> None:
    d = HallDriver()
    conn = d.open()
    reply = d.request(conn, type="hello", name="Computer L1", protocol=9, token="nope")
    assert reply["code"] == "bad_message"
    assert d.request(conn, type="hello", name="ann", protocol=1)["type"] == "welcome"


def test_a_resuming_hello_with_a_refused_name_keeps_nothing_of_it() -> None:
    d = HallDriver()
    a = d.open()
    token = d.request(a, type="hello", name="ann", protocol=1)["token"]
    b = d.open()
    assert d.request(b, type="hello", name="Computer L2", token=token, protocol=1)["code"] == (
        "bad_message"
    )
    assert d.request(b, type="hello", name="", token=token, protocol=1)["name"] == "ann"


async def test_the_computer_seat_keeps_its_name_over_the_wire(
    server: BoardhallServer, client: Any
) -> None:
    """Over the wire: a human cannot sit as 'Computer L1' next to the real one."""
    wire = await WireClient.connect(server.url)
    reply = await wire.request(type="hello", name="Соmputer L1", protocol=1)
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    await wire.close()


# ---- chat ---------------------------------------------------------------------------------------


def chat_table() -> tuple[HallDriver, int, int, str]:
    d = HallDriver()
    a, b, code = d.table()
    return d, a, b, code


def test_a_line_of_combining_marks_is_no_tower() -> None:
    d, a, b, code = chat_table()
    assert d.request(a, type="chat", room=code, text="a" + "\u0301" * 499)["type"] == "ok"
    assert d.last(b, "chat")["text"] == "\u00e1\u0301\u0301"  # three accents in all
    reply = d.request(a, type="chat", room=code, text="\u0301" * 500)
    assert reply["code"] == "bad_message"
    reply = d.request(a, type="chat", room=code, text="\u3164\u3164 \u2800")
    assert reply["code"] == "bad_message"


def test_chat_keeps_what_people_write() -> None:
    d, a, b, code = chat_table()
    text = "ｇｇ — ça va? 好棋！ สวัสดีครับ नमस्ते 👍🏽"
    d.request(a, type="chat", room=code, text=text)
    assert d.last(b, "chat")["text"] == text
    d.request(a, type="chat", room=code, text="  x  \u202e y \u200b")
    assert d.last(b, "chat")["text"] == "x y"


def test_one_spectator_cannot_flood_the_chat() -> None:
    """The per-connection message rate (DESIGN.md) holds for chat: bursts of two seconds."""
    d, _a, _b, code = chat_table()
    sue = d.player("sue")
    d.request(sue, type="join", room=code, role="spectator")
    codes = [d.request(sue, type="chat", room=code, text="spam")["type"] for _ in range(45)]
    assert codes.count("ok") < 42 and codes[-1] == "error"


# ---- connections that never read ----------------------------------------------------------------


async def open_unread(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket connection whose socket takes almost nothing in (and is never read)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


def masked_frame(opcode: int, payload: bytes) -> bytes:
    assert len(payload) < 126
    mask = os.urandom(4)
    body = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + body


async def test_a_connection_that_never_reads_its_pongs_is_closed(server: BoardhallServer) -> None:
    """Ping frames are answered whether or not the peer reads: without a bound, every pong of a
    peer that never reads stays in the server's memory (64 MiB sent here)."""
    _reader, writer = await open_unread(server.port)
    ping = masked_frame(0x9, b"p" * 125) * 512  # 65 KiB of pings, 66 KiB of pongs
    sent = 0
    try:
        with pytest.raises(ConnectionError):
            while sent < 64 * 1024 * 1024:
                writer.write(ping)
                await writer.drain()
                sent += len(ping)
    finally:
        writer.transport.abort()
    assert sent > 1024 * 1024  # it took a while: a reading client is never cut


# ---- tokens in logs -----------------------------------------------------------------------------


async def test_tokens_never_reach_the_logs(
    server: BoardhallServer,
    client: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A token goes in hellos (good and bad) and in ?token= of HTTP reads, even one that fails
    inside the server: no log line shows it."""
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.WARNING, logger="websockets")  # as server.logs sets it up
    ann = await client("ann")
    token = ann.welcome["token"]
    code = (await ann.request(type="create", game="hexgomoku", private=True))["room"]
    game_id = server.hall.rooms[code].game_id
    again = await WireClient.connect(server.url)
    assert (await again.request(type="hello", name="ann", protocol=1, token=token))["type"] == (
        "welcome"
    )
    bad = await WireClient.connect(server.url)
    await bad.request(type="hello", name="x", protocol=1, token=token + "x")
    await bad.request(type="hello", name="x", protocol=1, token=token * 3)  # too long
    await bad.send_raw('{"type":"hello","name":"x","protocol":1,"token":"' + token + '",')
    assert (await http_request(server, f"/games/{game_id}?token={token}")).status == 200
    assert (await http_request(server, f"/games?player=p1&token={token}")).status == 200

    def broken(*_args: Any) -> Any:
        raise RuntimeError("export failed")

    monkeypatch.setattr(server_net, "export", broken)
    assert (await http_request(server, f"/games/{game_id}?token={token}")).status == 500
    await again.close()
    await bad.close()
    logged = "\n".join(
        record.getMessage() + str(getattr(record, "fields", "")) + (record.exc_text or "")
        for record in caplog.records
    )
    assert "export failed" in logged  # the failure was logged ...
    assert token not in logged  # ... without the token

