"""Game records for ``GET /games/ID``: the JSON record model, and PGN/PDN through the engine."""

from __future__ import annotations

import json
from typing import Any

import engines
from engines.base import RecordInfo
from protocol import (
    Clock,
    GameRecord,
    RatingChanges,
    RecordMove,
    RecordPlayer,
    RecordPlayers,
    Side,
)
from server.clock import TimeControl

NATIVE_FORMATS = {"chess": ("pgn", "application/x-chess-pgn"), "draughts": ("pdn", "text/plain")}
"""Games whose default export is the engine's own record format."""


def formats(game: str) -> tuple[str, ...]:
    """The ``format`` values ``GET /games/ID`` serves for ``game`` (its default first)."""
    native = NATIVE_FORMATS.get(game)
    return (native[0], "json") if native else ("json",)


def json_record(text: str, game: str) -> dict[str, Any] | None:
    """The JSON record in ``text`` sent on ``create``, or ``None`` when ``text`` is not a JSON
    object (PGN, PDN or a position: the engine reads those).

    Both JSON forms are read: the record model of ``protocol`` (what ``GET /games/ID`` serves,
    moves as objects) and the engines' (moves as strings); the result lists moves as strings,
    and has the record's ``options`` (the options its game was played with, not yet checked),
    or ``None`` when it gives none.

    Raises:
        ValueError: a JSON object that is not a record of ``game``.
    """
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("game"), str) and data["game"] != game:
        raise ValueError(f"this is a record of {data['game']!r}, not {game!r}")
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise ValueError("a JSON record is an object with a 'moves' list")
    plain = [m.get("move") if isinstance(m, dict) else m for m in moves]
    if not all(isinstance(m, str) for m in plain):
        raise ValueError("each move of a JSON record is a string or an object with a 'move'")
    start, variant = data.get("start"), data.get("variant")
    if not isinstance(start, str | None) or not isinstance(variant, str | None):
        raise ValueError("a JSON record's 'start' and 'variant' are strings")
    options = data.get("options")
    if not isinstance(options, dict | None):
        raise ValueError("a JSON record's 'options' is an object of game options")
    return {"start": start or None, "variant": variant or None, "moves": plain, "options": options}


def build_record(meta: dict[str, Any], moves: list[dict[str, Any]]) -> GameRecord:
    """The JSON record of a stored game."""
    seats = meta.get("seats") or {}
    ratings = RatingChanges.model_validate(meta["ratings"]) if meta.get("ratings") else None

    def player(side: Side) -> RecordPlayer:
        seat = seats.get(side)
        if not seat:
            return RecordPlayer()
        return RecordPlayer(
            player=seat["player"],
            name=seat["name"],
            bot=bool(seat.get("bot")),
            rating=getattr(ratings, side).before if ratings else None,
        )

    return GameRecord(
        id=meta["id"],
        room=meta.get("room"),
        game=meta["game"],
        variant=meta["variant"],
        start=meta["start"],
        moves=[
            RecordMove(
                move=m["move"],
                by=m["by"],
                clock_ms=m.get("clock_ms"),
                lag_ms=m.get("lag_ms", 0),
                at=m.get("at"),
            )
            for m in moves
        ],
        players=RecordPlayers(first=player("first"), second=player("second")),
        result=meta.get("result"),
        reason=meta.get("reason"),
        scores=meta.get("scores"),
        created=meta.get("created"),
        ended=meta.get("ended"),
        options=meta.get("options") or {},
        clock=Clock.model_validate(meta["clock"]) if meta.get("clock") else None,
        private=bool(meta.get("private")),
        variant_info=meta.get("variant_info"),
        ratings=ratings,
    )


def export(meta: dict[str, Any], moves: list[dict[str, Any]], fmt: str | None) -> tuple[str, str]:
    """``(content type, body)`` of a game in ``fmt`` (``json``, or the game's native default)."""
    record = build_record(meta, moves)
    native = NATIVE_FORMATS.get(record.game)
    if fmt == "json" or (fmt is None and native is None):
        return "application/json", record.model_dump_json(indent=2)
    engine = engines.get(record.game)
    clock = TimeControl.from_clock(record.clock)
    info = RecordInfo(
        variant=record.variant,
        start=record.start,
        moves=tuple(m.move for m in record.moves),
        first_name=record.players.first.name,
        second_name=record.players.second.name,
        first_rating=record.players.first.rating,
        second_rating=record.players.second.rating,
        result=record.result,
        reason=record.reason,
        date=(record.created or "")[:10].replace("-", ".") or None,
        time_control=clock.describe(),
        clocks_ms=(
            tuple(m.clock_ms for m in record.moves if m.clock_ms is not None)
            if record.moves and all(m.clock_ms is not None for m in record.moves)
            else None
        ),
        options=record.options,
    )
    body = engine.record(info)
    if native is None:
        try:
            json.loads(body)
            return "application/json", body
        except ValueError:
            return "text/plain; charset=utf-8", body
    return native[1] + "; charset=utf-8", body
