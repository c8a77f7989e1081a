"""The start of a new room: its options checked, and its start state read from a position or
replayed from a record.

A record is replayed under the options its game was played with (the record's own ``options``,
as ``GET /games/ID`` serves them, else the room's); the room then plays from the record's final
position under its own options, which must not find that position already over.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engines.base import BadPosition, Engine, EngineError
from protocol import ErrorCode, ProtocolError
from server.records import json_record


def checked_options(
    engine: Engine, options: Mapping[str, Any] | None
) -> tuple[dict[str, Any], int]:
    """``options`` merged over the game's defaults, and the room's move limit (0: none).

    ``max_plies`` is the engine's own option where it has one; for other games the room counts
    the plies itself and the option is kept in the result all the same. Raises
    :class:`ProtocolError` naming a bad option.
    """
    try:
        given = dict(options or {})
        max_plies = 0
        if "max_plies" in given and "max_plies" not in engine.default_options:
            value = given.pop("max_plies")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ProtocolError(
                    ErrorCode.BAD_OPTION,
                    f"option 'max_plies' must be a whole number >= 0, not {value!r}",
                )
            max_plies = value
        merged = engine.validate_options(given)
    except EngineError as exc:
        raise ProtocolError(ErrorCode(exc.code), str(exc)) from exc
    if "max_plies" in merged:
        max_plies = int(merged["max_plies"])
    elif max_plies:
        merged["max_plies"] = max_plies
    return merged, max_plies


def engine_options(engine: Engine, options: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's own options among a room's ``options`` (not the server's ``max_plies``)."""
    return {k: v for k, v in options.items() if k in engine.default_options}


def start_state(
    engine: Engine,
    variant: str,
    options: Mapping[str, Any],
    position: str | None,
    record: str | None,
) -> Any:
    """The start state of a room of ``variant`` with (checked) ``options``: the variant's own
    start, ``position``, or the final position of ``record``; raises :class:`ProtocolError`."""
    if position is not None and record is not None:
        raise ProtocolError(ErrorCode.BAD_POSITION, "give a position or a record, not both")
    own = engine_options(engine, options)
    try:
        if record is not None:
            return _record_start(engine, variant, own, record)
        state = engine.start(variant, position, own)
    except EngineError as exc:
        raise ProtocolError(ErrorCode(exc.code), str(exc)) from exc
    except RecursionError as exc:
        raise ProtocolError(ErrorCode.BAD_POSITION, "the record is nested too deeply") from exc
    if engine.outcome(state) is not None:
        raise ProtocolError(ErrorCode.BAD_POSITION, "the game is already over in this position")
    return state


def _record_start(engine: Engine, variant: str, options: dict[str, Any], record: str) -> Any:
    """The room's start state at the end of ``record``, under the room's ``options``."""
    final, played_with = replay_record(engine, variant, record, options)
    try:
        state = engine.start(variant, engine.position(final), options)
    except BadPosition as exc:
        problem = f"the record's final position cannot start a game{_under(options)}: {exc}"
    else:
        outcome = engine.outcome(state)
        if outcome is None:
            return state
        problem = (
            f"the game is already over in the record's final position{_under(options)}: "
            f"{outcome.reason}"
        )
    if played_with != options:
        problem += (
            f"; the record was played with {_describe(played_with)}: give the room those "
            "options to continue it"
        )
    raise ProtocolError(ErrorCode.BAD_POSITION, problem)


def replay_record(
    engine: Engine, variant: str, text: str, options: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The final state of a record, and the engine options it was replayed under.

    JSON records (either form) are replayed move by move here, under the record's own options
    when it has them, else ``options``; PGN, PDN and position strings are the engine's to read
    (with ``options``). Raises :class:`ProtocolError`, and the engine's errors.
    """
    try:
        data = json_record(text, engine.game)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_POSITION, str(exc)) from exc
    if data is None:
        return engine.from_record(text, variant, options), options
    if data["options"] is None:
        played_with, whose = options, "this room's"
    else:
        played_with, whose = _record_options(engine, data["options"]), "the record's"
    under = _under(played_with, whose)
    state = engine.start(data["variant"] or variant, data["start"], played_with)
    for i, move in enumerate(data["moves"]):
        try:
            state = engine.play(state, move)
        except EngineError as exc:
            raise ProtocolError(
                ErrorCode.BAD_POSITION, f"record move {i + 1} ({move!r}) is illegal{under}: {exc}"
            ) from exc
    return state, played_with


def _record_options(engine: Engine, options: Mapping[str, Any]) -> dict[str, Any]:
    """A record's own options, checked as any options are, as the engine's options."""
    try:
        merged, _ = checked_options(engine, options)
    except ProtocolError as exc:
        raise ProtocolError(exc.code, f"the record's options: {exc.message}") from exc
    return engine_options(engine, merged)


def _under(options: Mapping[str, Any], whose: str = "this room's") -> str:
    """`` under this room's options (exact5=false)``, or nothing for a game without options."""
    return f" under {whose} options ({_describe(options)})" if options else ""


def _describe(options: Mapping[str, Any]) -> str:
    """``exact5=true, max_plies=600``."""
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(options.items()))
