"""LAN discovery wire format: the UDP probe a client broadcasts and the answer a server sends.

Probe (client to server, to UDP port :data:`DISCOVERY_PORT` by default, usually to a
broadcast address, or over IPv6 to the link's all-nodes group ``ff02::1``): exactly
:data:`PROBE_BYTES` bytes: :data:`PROBE_MAGIC`, one byte of discovery version
(:data:`DISCOVERY_VERSION`), then zero bytes up to the size. Anything else (another size,
magic, version, non-zero padding) is not a probe and gets no answer.

Answer (server to the probe's source address and port): one UTF-8 JSON object, at most as
large as the probe (QUIC's anti-amplification rule, RFC 9000 section 8: a spoofed source cannot
make the server send more than it received), for example::

    {"product": "boardhall", "discovery": 1, "protocol": 1, "id": "9f2c4e01a7b3d5c6",
     "name": "Alice's laptop", "version": "0.1.0", "port": 8765, "scheme": "ws",
     "players": 3, "rooms": 1}

``id`` is random for each run of a server (one server heard on two addresses is listed once),
``port`` and ``scheme`` say where its WebSocket protocol listens (on the answer's source
address, or on ``host`` when the answer names one: a server bound to one address), ``players``
counts the players online and ``rooms`` the games being played. Fields a reader does not know
are ignored (a newer server may add some).
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PROBE_MAGIC = b"BOARDHALL?"
"""The first bytes of a probe."""
DISCOVERY_VERSION: Final = 1
"""The version of this format (the byte after the magic; ``discovery`` in the answer)."""
PROBE_BYTES = 512
"""The size of every probe, padding included, and so the most an answer may take."""
DISCOVERY_PORT = 8765
"""The UDP port servers answer on by default (the number of the default TCP port)."""
PRODUCT: Final = "boardhall"
"""``product`` of every answer."""
NAME_CHARS = 40
"""Longest server name in an answer."""
VERSION_CHARS = 32
"""Longest software version in an answer."""
HOST_CHARS = 64
"""Longest ``host`` (an IP address, an IPv6 one perhaps with its ``%interface``)."""
ID_CHARS = 16
"""Longest ``id``."""


class BadDatagram(ValueError):
    """A datagram that is not a well-formed probe or answer; the message says why."""


class Answer(BaseModel):
    """A server's answer to a probe."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    product: Literal["boardhall"] = PRODUCT
    """Always ``boardhall``: what kind of server answered."""
    discovery: Literal[1] = DISCOVERY_VERSION
    """The discovery format's version."""
    protocol: int = Field(ge=1)
    """The WebSocket protocol version the server prefers (DESIGN.md)."""
    id: str = Field(min_length=1, max_length=ID_CHARS)
    """Random for each run of the server."""
    name: str = Field(min_length=1, max_length=NAME_CHARS)
    """What the operator calls the server (``--name``, by default the host name)."""
    version: str = Field(max_length=VERSION_CHARS)
    """The server's software version."""
    port: int = Field(ge=1, le=65535)
    """The TCP port of its WebSocket protocol."""
    scheme: Literal["ws", "wss"]
    """``wss`` when it speaks TLS."""
    players: int = Field(ge=0)
    """Players online."""
    rooms: int = Field(ge=0)
    """Games being played."""
    host: str | None = Field(default=None, max_length=HOST_CHARS)
    """The address it listens on, when it listens on one address only (else the answer's
    source address is the one to connect to)."""


def probe() -> bytes:
    """The probe datagram of this version."""
    head = PROBE_MAGIC + bytes([DISCOVERY_VERSION])
    return head + bytes(PROBE_BYTES - len(head))


def is_probe(data: bytes) -> bool:
    """Whether ``data`` is a well-formed probe of a version this code answers."""
    return data == probe()


def encode_answer(answer: Answer) -> bytes:
    """``answer`` as its datagram.

    Raises:
        BadDatagram: it would be larger than a probe.
    """
    data = json.dumps(
        answer.model_dump(exclude_none=True), ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    if len(data) > PROBE_BYTES:
        raise BadDatagram(f"an answer of {len(data)} bytes is larger than a probe ({PROBE_BYTES})")
    return data


def decode_answer(data: bytes) -> Answer:
    """The answer in ``data``.

    Raises:
        BadDatagram: ``data`` is too large, not JSON, or not a Boardhall answer of a known
            discovery version.
    """
    if len(data) > PROBE_BYTES:
        raise BadDatagram(f"{len(data)} bytes: larger than any answer ({PROBE_BYTES})")
    try:
        raw: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadDatagram(f"not UTF-8 JSON: {exc}") from None
    if not isinstance(raw, dict) or raw.get("product") != PRODUCT:
        raise BadDatagram("not a Boardhall answer (no product 'boardhall')")
    if raw.get("discovery") != DISCOVERY_VERSION:
        raise BadDatagram(f"discovery version {raw.get('discovery')!r}, not {DISCOVERY_VERSION}")
    try:
        return Answer.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise BadDatagram(f"a bad answer: {problems}") from None


__all__ = [
    "DISCOVERY_PORT",
    "DISCOVERY_VERSION",
    "NAME_CHARS",
    "PROBE_BYTES",
    "PROBE_MAGIC",
    "Answer",
    "BadDatagram",
    "decode_answer",
    "encode_answer",
    "is_probe",
    "probe",
]
