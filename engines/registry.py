"""Which engine plays which game: ``engines.get("hexgomoku")``.

Engines are imported lazily, so one game's import cost is paid only when it is used.
"""

from __future__ import annotations

import importlib
from functools import cache

from engines.base import Engine, EngineError

ENGINE_MODULES: dict[str, str] = {
    "chess": "engines.chess",
    "draughts": "engines.draughts",
    "shuqi": "engines.shuqi",
    "hexgomoku": "engines.hexgomoku",
    "custom": "engines.custom",
}
"""Game id -> module that defines ``ENGINE`` (an :class:`Engine` instance)."""


class UnknownGame(EngineError):
    """A game id Boardhall does not have."""

    code = "unknown_game"


def available() -> list[str]:
    """Ids of the games whose engine module is installed, in menu order."""
    found = []
    for game in ENGINE_MODULES:
        try:
            get(game)
        except UnknownGame:
            continue
        found.append(game)
    return found


@cache
def get(game: str) -> Engine:
    """Return the engine of ``game``; raises :class:`UnknownGame`."""
    module_name = ENGINE_MODULES.get(game)
    if module_name is None:
        raise UnknownGame(f"unknown game {game!r}; games: {', '.join(ENGINE_MODULES)}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownGame(f"the {game} engine is not installed") from exc
    engine = module.ENGINE
    assert isinstance(engine, Engine)
    return engine
