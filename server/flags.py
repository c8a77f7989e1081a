"""argparse types that refuse a bad command-line value by name: numbers in a range, a TCP port
(and the environment's port, used without ``--port``), comma-separated names from a fixed set,
IP networks, an IPv6 prefix length, a directory. Used by ``boardhall-server`` and the ``bench/``
scripts."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from server.limitkey import MAX_IPV6_PREFIX, MIN_IPV6_PREFIX
from server.proxies import Network, parse_networks

Number = TypeVar("Number", int, float)

MINUTE_S = 60
HOUR_S = 3600
DAY_S = 24 * HOUR_S
WEEK_S = 7 * DAY_S

SHOWN_CHARS = 40
"""A refused value is echoed up to this many characters (a pasted page is not)."""


def bounded(
    kind: Callable[[str], Number],
    what: str,
    low: Number,
    high: Number | None = None,
    above: bool = False,
) -> Callable[[str], Number]:
    """A finite ``kind`` from ``low`` (with ``above``, more than ``low``) to ``high``; anything
    else is refused as not ``what`` (which should name the range). A negative zero (``-0``) is
    refused where ``low`` is 0 or more: the minus is a slip, not a value."""

    def parse(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, not {shown(text)!r}") from None
        signed_zero = value == 0 and text.strip().startswith("-") and low >= 0
        if (
            not math.isfinite(value)
            or signed_zero
            or value < low
            or (above and value == low)
            or (high is not None and value > high)
        ):
            raise argparse.ArgumentTypeError(f"must be {what}, not {shown(text)}")
        return value

    return parse


def shown(text: str) -> str:
    """``text`` as a refusal echoes it: cut to :data:`SHOWN_CHARS` characters."""
    return text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}..."


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number of at least ``low`` (and at most ``high``)."""
    what = (
        f"a whole number, {low} or more" if high is None else f"a whole number from {low} to {high}"
    )
    return bounded(int, what, low, high)


def seconds(low: float, high: int, above: bool = False, zero: str = "") -> Callable[[str], float]:
    """A number of seconds from ``low`` (with ``above``, more than ``low``) to ``high``, which
    the refusal names in words too (``86400 (a day)``); ``zero`` says what 0 means."""
    upto = f"{high} seconds ({in_words(high)})"
    what = f"more than {low:g} and at most {upto}" if above else f"{low:g}{zero} to {upto}"
    return bounded(float, what, float(low), float(high), above)


def in_words(span_s: int) -> str:
    """``span_s`` seconds in words: a week, a day, an hour, a minute, or so many of one."""
    units = ((WEEK_S, "a week"), (DAY_S, "a day"), (HOUR_S, "an hour"), (MINUTE_S, "a minute"))
    for unit, one in units:
        if span_s % unit == 0:
            count = span_s // unit
            return one if count == 1 else f"{count} {one.split()[1]}s"
    return f"{span_s} s"


port_number = bounded(int, "a TCP port from 0 to 65535", 0, 65535)
"""A TCP port (0 picks a free one): the system would silently take 99999 as 34463."""

PORT_VARIABLE = "BOARDHALL_PORT"
"""The environment variable of ``boardhall-server``'s port when ``--port`` is not given: the
Docker image's healthcheck asks the same port (server/healthcheck.py)."""

DEFAULT_PORT = 8765
"""The port without ``--port`` or :data:`PORT_VARIABLE`."""


def default_port(environ: Mapping[str, str]) -> int:
    """The port without ``--port``: :data:`PORT_VARIABLE`'s in ``environ`` (blank or unset:
    :data:`DEFAULT_PORT`); a value that is no port is refused naming the variable."""
    text = environ.get(PORT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_PORT
    try:
        return port_number(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{PORT_VARIABLE} {exc}") from None


PING_INTERVAL_MAX_S = HOUR_S
"""The longest ``--ping-interval``: the pings find dead connections (closed after twice the
interval) and measure the lag credited to moves; an hour apart they do neither usefully."""

PING_INTERVAL = (
    f"0 (no pings) or 1 to {PING_INTERVAL_MAX_S} seconds ({in_words(PING_INTERVAL_MAX_S)})"
)


def ping_interval(text: str) -> float:
    """0 (no pings) or 1 second to an hour: a millisecond's interval, a slip for 1000 ms,
    pinged every connection a thousand times a second and held a whole core."""
    value = bounded(float, PING_INTERVAL, 0.0, float(PING_INTERVAL_MAX_S))(text)
    if 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be {PING_INTERVAL}, not {shown(text)}")
    return value


ipv6_prefix = bounded(
    int,
    f"a prefix length from {MIN_IPV6_PREFIX} to {MAX_IPV6_PREFIX}",
    MIN_IPV6_PREFIX,
    MAX_IPV6_PREFIX,
)
"""The bits of the IPv6 network the per-address limits count as one address (see
:mod:`server.limitkey`)."""


def names(allowed: Sequence[str], what: str, empty: bool = False) -> Callable[[str], list[str]]:
    """Comma-separated names, each one of ``allowed`` (none at all only with ``empty``)."""

    def parse(text: str) -> list[str]:
        found = [name for name in text.split(",") if name]
        if (not found and not empty) or any(name not in allowed for name in found):
            raise argparse.ArgumentTypeError(
                f"must be {what} from {', '.join(allowed)}, comma-separated, not {text!r}"
            )
        return found

    return parse


def networks(text: str) -> tuple[Network, ...]:
    """Comma-separated IP addresses and networks (``127.0.0.1,::1,10.0.0.0/8``)."""
    try:
        return parse_networks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"must be IP addresses or networks, comma-separated: {exc}"
        ) from None


def variant_directory(text: str) -> Path:
    """An existing directory (of custom variant files)."""
    path = Path(text)
    if not path.is_dir():
        why = "a file" if path.exists() else "missing"
        raise argparse.ArgumentTypeError(
            f"must be a directory of variant files, not {text} ({why})"
        )
    return path
