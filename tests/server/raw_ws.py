"""A WebSocket client written by hand, for tests that need a peer which answers only what it is
told to: the handshake, then raw frames read off and written to the socket."""

from __future__ import annotations

import asyncio
import base64
import os
import struct


async def raw_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket client by hand that never answers anything (the handshake only)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One unmasked server frame: its opcode and payload (payloads under 64 KiB)."""
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await reader.readexactly(2))
    return first & 0x0F, await reader.readexactly(size)


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (payloads under 126 bytes), to write to the socket."""
    assert len(payload) < 126
    mask = os.urandom(4)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked
