"""argparse types that refuse a bad command-line value by name: numbers in a range, a TCP port,
comma-separated names from a fixed set, IP networks, an IPv6 prefix length, a directory. Used by
``boardhall-server`` and the ``bench/`` scripts."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from server.limitkey import MAX_IPV6_PREFIX, MIN_IPV6_PREFIX
from server.proxies import Network, parse_networks

Number = TypeVar("Number", int, float)


def bounded(
    kind: Callable[[str], Number],
    what: str,
    low: Number,
    high: Number | None = None,
    above: bool = False,
) -> Callable[[str], Number]:
    """A finite ``kind`` from ``low`` (with ``above``, more than ``low``) to ``high``; anything
    else is refused as not ``what``."""

    def parse(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}") from None
        if (
            not math.isfinite(value)
            or value < low
            or (above and value == low)
            or (high is not None and value > high)
        ):
            raise argparse.ArgumentTypeError(f"must be {what}, not {text}")
        return value

    return parse


def whole(low: int) -> Callable[[str], int]:
    """A whole number of at least ``low``."""
    return bounded(int, f"a whole number, {low} or more", low)


port_number = bounded(int, "a TCP port from 0 to 65535", 0, 65535)
"""A TCP port (0 picks a free one): the system would silently take 99999 as 34463."""


def ping_interval(text: str) -> float:
    """0 (no pings) or at least 1 second: a millisecond's interval, a slip for 1000 ms,
    pinged every connection a thousand times a second and held a whole core."""
    value = bounded(float, "0 (no pings) or 1 or more seconds", 0.0)(text)
    if 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be 0 (no pings) or 1 or more seconds, not {text}")
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
