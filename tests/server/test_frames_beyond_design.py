"""Frames DESIGN.md does not speak of, as docs/protocol-additions.md says the server treats
them (a real server, a client written by hand that sends exactly these bytes): a frame against
RFC 6455 is closed with 1002 by ``websockets``, and a binary frame is read as a text frame's
JSON."""

from __future__ import annotations

import asyncio
import json
import struct

import pytest

from server.net import running_server
from tests.server.raw_ws import client_frame, raw_websocket, read_frame

CLOSE = 0x8
TEXT = 0x1
BINARY = 0x2


async def _closed_with(reader: asyncio.StreamReader) -> tuple[int, str]:
    """The code and reason of the server's close frame (the next frame, asserted to be one)."""
    opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
    assert opcode == CLOSE, (opcode, payload)
    return struct.unpack("!H", payload[:2])[0], payload[2:].decode()


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (bytes([0x80 | TEXT, 2]) + b"{}", "incorrect masking"),  # a client frame unmasked
        (client_frame(0x3, b"x"), "invalid opcode"),
        (bytes([0xC0 | TEXT]) + client_frame(TEXT, b"{}")[1:], "reserved bits must be 0"),
    ],
)
async def test_a_frame_against_rfc_6455_is_closed_with_1002(frame: bytes, why: str) -> None:
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        reader, writer = await raw_websocket(server.port)
        writer.write(frame)
        await writer.drain()
        assert await _closed_with(reader) == (1002, why)
        writer.close()


async def test_a_binary_frame_is_read_as_json_text() -> None:
    """A binary frame of UTF-8 JSON is a message like a text frame; one that is not UTF-8 is
    ``bad_message`` and the connection stays open (a text frame like it is closed 1007)."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        reader, writer = await raw_websocket(server.port)
        writer.write(client_frame(BINARY, b"\xff\xfe"))
        await writer.drain()
        opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
        assert opcode == TEXT
        assert json.loads(payload) == {
            "type": "error", "code": "bad_message", "message": "not UTF-8 text", "room": None
        }  # fmt: skip
        hello = b'{"type":"hello","id":1,"name":"ann","protocol":1}'
        writer.write(client_frame(BINARY, hello))
        await writer.drain()
        opcode, payload = await asyncio.wait_for(read_frame(reader), 10)
        welcome = json.loads(payload)
        assert (opcode, welcome["type"], welcome["re"], welcome["name"]) == (
            TEXT,
            "welcome",
            1,
            "ann",
        )
        writer.write(client_frame(TEXT, b"\xff\xfe"))
        await writer.drain()
        assert (await _closed_with(reader))[0] == 1007
        writer.close()
