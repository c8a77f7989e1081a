"""Small helpers shared by the validators of variant data: safe renderings of bad values and the
unknown-key check, so every problem message reads alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING = "a missing key"
"""How a problem message names the value of a key that is not there."""


def show(value: object) -> str:
    """A short, safe rendering of a bad value for a problem message (``None``, which TOML
    cannot write, is a key left out)."""
    if value is None:
        return MISSING
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        return "a huge number"
    return text if len(text) <= 40 else text[:37] + "..."


def kind(value: object) -> str:
    """The type name of ``value`` (``int``, ``str``, ...) for a problem message."""
    return MISSING if value is None else type(value).__name__


def unknown_keys(
    data: Mapping[str, Any], known: set[str], where: str, problems: list[str]
) -> None:
    """Add a problem for each key of ``data`` not in ``known`` (``where`` is the place prefix,
    e.g. ``"board."``)."""
    for key in data:
        if key not in known:
            place = f"{where.rstrip('.')}: " if where else ""
            problems.append(f"{place}unknown key {str(key)[:40]!r}")
