"""Plain HTTP requests written by hand on a server's port, so a test sees exactly what was sent
and what came back (status line, headers, body), whatever the method or the headers."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit


@dataclass
class Reply:
    """One HTTP answer."""

    status: int
    headers: dict[str, str]
    """Header names in lower case."""
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error(self) -> str:
        """The ``error`` of a JSON error body (asserted to be one)."""
        data = self.json()
        assert isinstance(data, dict) and isinstance(data.get("error"), str), data
        return str(data["error"])


class _Listening(Protocol):
    @property
    def port(self) -> int: ...


Where = int | str | _Listening
"""A server on 127.0.0.1: its port, its URL (``ws://127.0.0.1:PORT``) or the server itself."""


def port_of(where: Where) -> int:
    """The port of ``where``."""
    if isinstance(where, int):
        return where
    if not isinstance(where, str):
        return where.port
    port = urlsplit(where).port
    assert port is not None, f"no port in {where!r}"
    return port


async def http_request(where: Where, path: str, method: str = "GET", headers: str = "") -> Reply:
    """One raw HTTP/1.1 request to the server at ``where``; ``headers`` are extra CRLF-ended
    lines."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(where))
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return Reply(int(lines[0].split()[1]), fields, body)


async def http_get(where: Where, path: str, token: str | None = None) -> tuple[int, str]:
    """``GET path`` (with ``token`` as a bearer token): ``(status, body)``."""
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    reply = await http_request(where, path, headers=auth)
    return reply.status, reply.text
