"""argparse types of the ``boardhall`` command's numbers: a value out of range is refused with
the range, and argparse names the flag and exits 2 before anything starts. (The server's flags
have their own, server/flags.py: the client imports the server only to embed one.)"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from client.ui.theme import MIN_WINDOW
from engines.search.levels import LEVELS

SHOWN_CHARS = 40
"""A refused value is echoed up to this many characters (a pasted page is not)."""


def whole(low: int, high: int, what: str = "a whole number") -> Callable[[str], int]:
    """A whole number from ``low`` to ``high`` (``-0`` is refused where ``low`` is 0: the minus
    is a slip); the refusal reads "must be WHAT from LOW to HIGH"."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # "1.5", "inf", "nan", "1e308", more than 4300 digits
            value = None
        signed_zero = value == 0 and text.strip().startswith("-") and low >= 0
        if value is None or signed_zero or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be {what} from {low} to {high}, not {shown(text)!r}"
            )
        return value

    return parse


def shown(text: str) -> str:
    """``text`` as a refusal echoes it: cut to :data:`SHOWN_CHARS` characters."""
    return text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}..."


port = whole(1, 65535, "a TCP port")
"""The server's port when the address names none (a client cannot reach port 0)."""

bot_level = whole(min(LEVELS), max(LEVELS), "a bot level")
"""A level the server's bots play."""

PLIES_MAX = 1000
"""The most moves a screenshot plays first: longer than any game it shows (a billion was taken,
and client.demo.pick_moves then plays on until the game has no legal move left)."""

plies = whole(0, PLIES_MAX)
"""``boardhall screenshot --plies``."""

GAMES_MAX = 1_000_000
"""The most games a bot is told to play; more is a slip for 0 (no limit)."""

games = whole(0, GAMES_MAX, "a number of games (0: no limit)")
"""``boardhall bot --games``."""

SEED_MAX = 2**32 - 1
"""Seeds are 32-bit: a negative one plays as its positive (Python's random takes its absolute
value), and a thousand-digit one is no more random."""

seed = whole(0, SEED_MAX, "a seed")
"""``boardhall bot --seed``."""

MAX_WINDOW = (7680, 4320)
"""The largest window or image (8K): pygame would try to allocate any size asked for."""

SIZES = f"WIDTHxHEIGHT from {MIN_WINDOW[0]}x{MIN_WINDOW[1]} to {MAX_WINDOW[0]}x{MAX_WINDOW[1]}"


def size(text: str) -> tuple[int, int]:
    """``--size`` (``1280x800``): a window or image from :data:`MIN_WINDOW` to
    :data:`MAX_WINDOW`."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        width = height = -1
    if not (MIN_WINDOW[0] <= width <= MAX_WINDOW[0] and MIN_WINDOW[1] <= height <= MAX_WINDOW[1]):
        raise argparse.ArgumentTypeError(f"must be {SIZES}, not {shown(text)!r}")
    return width, height
