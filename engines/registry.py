"""Which engine plays which game: ``engines.get("hexgomoku")``.

Engines are imported lazily, so one game's import cost is paid only when it is used.
"""

from __future__ import annotations

import importlib
import os
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


VARIANT_FILE_SUFFIXES = (".toml", ".xlsx")
"""How the names of variant files end (custom variants: Boardhall's TOML, JBQ map workbooks)."""


def variant_or_file(engine: Engine, variant: str | None) -> str | None:
    """``variant``, or, when it names a variant file (an existing file, or a name ending in
    ``.toml``/``.xlsx``) and ``engine`` loads files, the id of the variant that file defines,
    loaded and registered in this process first. Raises the engine's error for a file it cannot
    use, naming the file and every problem.

    For local tools only (``python -m engines perft``, ``boardhall local`` and ``screenshot``):
    a server never reads files a client names."""
    load_file = getattr(engine, "load_file", None)
    if not variant or load_file is None:
        return variant
    if os.path.isfile(variant) or variant.lower().endswith(VARIANT_FILE_SUFFIXES):
        loaded: str = load_file(variant)
        return loaded
    return variant
