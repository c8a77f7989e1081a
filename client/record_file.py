"""A game's record saved as a file (or copied) for the player to take elsewhere: PGN for chess
(lichess and every chess program read it), PDN for draughts, Boardhall's JSON record for the
other games. Each is written by the game's engine, so the lobby's *Replay* reads the file back."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from engines.base import Engine, RecordInfo

EXTENSIONS = {"chess": "pgn", "draughts": "pdn"}
"""The file type of a game's record (any other game: ``json``)."""


READERS = {"chess": "lichess or any PGN reader", "draughts": "lidraughts or any PDN reader"}
"""Where a player pastes a copied record (any other game: Boardhall's own replay)."""


def record_kind(game: str) -> str:
    """``PGN``, ``PDN`` or ``JSON``: what a saved record of ``game`` is, as a button names it."""
    return EXTENSIONS.get(game, "json").upper()


def copied_words(game: str) -> str:
    """What to say once the record of ``game`` is on the clipboard."""
    return f"{record_kind(game)} copied: paste it into {READERS.get(game, 'a Boardhall replay')}."


def downloads_folder() -> Path:
    """Where records go: the home folder's ``Downloads`` when it has one, else the home
    folder itself."""
    home = Path.home()
    downloads = home / "Downloads"
    return downloads if downloads.is_dir() else home


def as_typed(path: Path) -> str:
    """``path`` as a player would type it: ``~/Downloads/...`` under the home folder."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def file_name(game: str, names: tuple[str, str], when: datetime) -> str:
    """``boardhall-chess-Alice-vs-Bob-20261128-0040.pgn``: the game, its players (letters,
    digits, ``-`` and ``_`` only) and when it was saved."""
    first, second = (re.sub(r"[^\w-]+", "_", name).strip("_") or "player" for name in names)
    return (
        f"boardhall-{game}-{first[:24]}-vs-{second[:24]}-{when:%Y%m%d-%H%M%S}."
        f"{EXTENSIONS.get(game, 'json')}"
    )


def save_record(engine: Engine, info: RecordInfo, folder: Path, when: datetime) -> Path:
    """Write ``info``'s record as ``engine`` writes it into ``folder`` under a new name and
    return its path (a name already taken gets ``-2``, ``-3``…).

    Raises:
        OSError: the folder cannot be written.
        engines.base.EngineError: the engine cannot write the record.
    """
    text = engine.record(info)
    name = Path(file_name(engine.game, (info.first_name, info.second_name), when))
    path, count = folder / name, 1
    while True:
        try:
            with path.open("x", encoding="utf-8") as out:  # never over another file
                out.write(text if text.endswith("\n") else text + "\n")
            return path
        except FileExistsError:
            count += 1
            path = folder / f"{name.stem}-{count}{name.suffix}"
