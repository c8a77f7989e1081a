"""A stored game as a player's lists give it: an entry of ``GET /games?player=ID`` and of a
profile's ``recent`` games (:mod:`server.profiles`), both made by :func:`listed_game`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.ratings import change_of

LISTED_KEYS = (
    "id",
    "room",
    "game",
    "variant",
    "status",
    "result",
    "reason",
    "created",
    "ended",
    "seats",
    "private",
    "start",
    "plies",
    "bot_seat",
)
"""The keys of a stored game's metadata (with ``plies``, its number of stored moves) that a
listing passes on as they are."""

SIDES = ("first", "second")


def seat_of(meta: Mapping[str, Any], player: str) -> str | None:
    """The seat (``first``/``second``) ``player`` holds in the stored game ``meta``, if any."""
    seats = meta.get("seats")
    for side in SIDES:
        held = seats.get(side) if isinstance(seats, Mapping) else None
        if isinstance(held, Mapping) and held.get("player") == player:
            return side
    return None


def outcome(side: str | None, result: Any) -> str:
    """A finished game's ``result`` (``first``, ``second``, ``draw``, or None: aborted, the
    one end without a result) from seat ``side``'s view: ``win``, ``loss``, ``draw`` or
    ``aborted``.

    >>> [outcome("second", r) for r in ("second", "first", "draw", None)]
    ['win', 'loss', 'draw', 'aborted']
    """
    if result is None:
        return "aborted"
    if result == "draw":
        return "draw"
    return "win" if result == side else "loss"


def listed_game(meta: Mapping[str, Any], player: str) -> dict[str, Any]:
    """The stored game ``meta`` as a listing of ``player``'s games gives it: the keys of
    :data:`LISTED_KEYS`, what it did to their rating (``rating_change``, else None), their
    ``seat`` and, once it is over, its ``outcome`` from that seat (else None)."""
    seat = seat_of(meta, player)
    over = meta.get("status") == "over" and seat is not None
    return {key: meta.get(key) for key in LISTED_KEYS} | {
        "rating_change": change_of(meta, player),
        "seat": seat,
        "outcome": outcome(seat, meta.get("result")) if over else None,
    }
