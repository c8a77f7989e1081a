"""A replayed game's record as text to take elsewhere (Ctrl+C in the replay): PDN for draughts,
PGN for chess, the JSON record for the other games, as ``GET /games/ID`` serves them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import engines
from engines.base import RecordInfo, Result

RESULTS: dict[str, Result] = {"first": "first", "second": "second", "draw": "draw"}
"""The result words a record takes."""

READERS = {
    "draughts": ("PDN", "lidraughts or any PDN reader"),
    "chess": ("PGN", "lichess or any PGN reader"),
}
"""Each game's record format and where a player pastes it; others: the JSON record."""


def record_text(
    game: str,
    variant: str | None,
    first: Any,
    moves: Sequence[str],
    names: Mapping[str, str],
    result: str | None,
    reason: str | None,
    options: Mapping[str, Any] | None = None,
) -> str:
    """The record of the game played from ``first`` (its engine's start state) by ``moves``
    (canonical), written by the game's engine. Raises what the engine raises."""
    engine = engines.get(game)
    return engine.record(
        RecordInfo(
            variant=engine.resolve_variant(variant),
            start=engine.position(first),
            moves=tuple(moves),
            first_name=names.get("first") or "?",
            second_name=names.get("second") or "?",
            result=RESULTS.get(result or ""),
            reason=reason,
            options=dict(options or {}),
        )
    )


def format_name(game: str) -> str:
    """What ``game``'s record is called (``PDN``, ``PGN``; ``record``: the JSON one)."""
    return READERS.get(game, ("record", ""))[0]


def copied_words(game: str) -> str:
    """What to say once the record is on the clipboard."""
    name, reader = READERS.get(game, ("Record", "Boardhall's replay (JSON)"))
    return f"{name} copied: paste it into {reader}."
