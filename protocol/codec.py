"""Text frames to messages and back.

:func:`decode_client` turns a raw frame into a :data:`~protocol.messages.ClientMessage` or raises
:class:`~protocol.errors.ProtocolError` naming exactly what was wrong; :func:`encode` writes any
message as compact JSON (``re`` left out when absent).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from protocol import limits
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    CLIENT_TYPES,
    ClientMessage,
    ServerMessage,
    client_message_adapter,
    server_message_adapter,
)

_TOO_LONG = {"string_too_long", "too_long"}


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings are skipped)."""
    if text.count("[") + text.count("{") <= limits.NESTING_DEPTH:
        return 0
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite_float)
"""Made once: ``json.loads`` with these hooks builds a new decoder on every call."""


def _message_id(data: dict[str, Any]) -> str | int | None:
    value = data.get("id")
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and len(value) <= 64):
        return value
    return None


_UNION_TAG = re.compile(r"^(int|float|str|bool|none|[a-z-]+\[.*\]|constrained-[a-z]+)$")


def _where(loc: tuple[int | str, ...]) -> str:
    # pydantic names the union member it tried (``int``, ``constrained-str``): not a field.
    parts = [str(p) for p in loc if not (isinstance(p, str) and _UNION_TAG.match(p))]
    return ".".join(parts) or "message"


def explain(error: ValidationError) -> tuple[ErrorCode, str]:
    """The error code and a human message for the first problem pydantic found."""
    problems = error.errors(include_url=False)
    # A too-long field is reported as too_large unless something worse is also wrong. The other
    # members of a union at a too-long field's place (an id's int, an option value's bool) are
    # the types the value is not, not other problems.
    too_long = {_where(tuple(p["loc"])) for p in problems if p["type"] in _TOO_LONG}
    worse = [
        p
        for p in problems
        if p["type"] not in _TOO_LONG and _where(tuple(p["loc"])) not in too_long
    ]
    first = worse[0] if worse else next(p for p in problems if p["type"] in _TOO_LONG)
    # The first element of a location is the union tag (the message type): leave it out.
    kind, where = first["type"], _where(tuple(first["loc"])[1:])
    if kind == "extra_forbidden":
        return ErrorCode.BAD_MESSAGE, f"unknown field {where!r}"
    if kind == "missing":
        return ErrorCode.BAD_MESSAGE, f"missing field {where!r}"
    if kind in _TOO_LONG:
        ctx = first.get("ctx") or {}
        unit = f" {ctx['unit']}" if ctx.get("unit") else ""
        limit = ctx.get("max_length")
        return ErrorCode.TOO_LARGE, f"field {where!r} is too long (at most {limit}{unit})"
    return ErrorCode.BAD_MESSAGE, f"field {where!r} has the wrong type or value: {first['msg']}"


def decode_client(text: str | bytes) -> ClientMessage:
    """Parse one client frame.

    Raises:
        ProtocolError: ``bad_message`` (not JSON / not an object / missing or unknown type /
            unknown field X / field X wrong type) or ``too_large`` (a field over its limit); its
            ``re`` is the message's ``id`` when one could be read.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "not UTF-8 text") from exc
    if nesting_depth(text) > limits.NESTING_DEPTH:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"not JSON: nested deeper than {limits.NESTING_DEPTH} levels"
        )
    try:
        data = _DECODER.decode(text)
    except RecursionError as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "not JSON: nested too deeply") from exc
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "not a JSON object")
    re = _message_id(data)
    kind = data.get("type")
    if kind is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "missing field 'type'", re)
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"unknown type {kind!r}", re)
    try:
        return client_message_adapter.validate_python(data)
    except ValidationError as exc:
        code, message = explain(exc)
        raise ProtocolError(code, f"{kind}: {message}", re) from exc


def decode_server(text: str | bytes) -> ServerMessage:
    """Parse one server frame (for clients); raises ``pydantic.ValidationError``."""
    return server_message_adapter.validate_json(text)


def to_data(message: BaseModel) -> dict[str, Any]:
    """The JSON object of ``message`` (``re`` left out when absent)."""
    data = message.model_dump(mode="json", by_alias=True)
    if data.get("re", 0) is None:
        del data["re"]
    return data


def encode(message: BaseModel) -> str:
    """``message`` as one compact JSON text frame: the JSON of :func:`to_data`, written by
    pydantic's own serializer (a third of the time of ``json.dumps`` over ``model_dump``)."""
    absent_re = {"re"} if getattr(message, "re", 0) is None else None
    return message.model_dump_json(by_alias=True, exclude=absent_re)
