"""Saving a game's record as a file (the replay's *Save*): what is written, under which name, and
that the lobby's Replay reads it back."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

import engines
from client.record_file import (
    as_typed,
    copied_words,
    downloads_folder,
    file_name,
    record_kind,
    save_record,
)
from client.scenes.replay import parse_record
from engines.base import RecordInfo

WHEN = datetime(2026, 11, 28, 0, 40, 55)


def test_a_saved_record_is_read_back_and_never_overwrites_one(tmp_path: Path) -> None:
    """A hexgomoku game saved twice at the same second: two JSON files, the second ``-2``; the
    replay's reader gives back its game, players, moves and result."""
    engine = engines.get("hexgomoku")
    info = RecordInfo(
        variant="standard",
        start="first;;",
        moves=("0,0", "1,0"),
        first_name="Wei",
        second_name="Ana",
        result="second",
        reason="resign",
        options={"exact5": True},
    )
    first = save_record(engine, info, tmp_path, WHEN)
    second = save_record(engine, info, tmp_path, WHEN)
    assert first.name == "boardhall-hexgomoku-Wei-vs-Ana-20261128-004055.json"
    assert second.name == "boardhall-hexgomoku-Wei-vs-Ana-20261128-004055-2.json"
    read = parse_record(second.read_text(encoding="utf-8"))
    assert (read["game"], read["moves"], read["result"]) == ("hexgomoku", ["0,0", "1,0"], "second")
    assert read["names"] == {"first": "Wei", "second": "Ana"}
    assert read["options"] == {"exact5": True}


def test_names_kinds_and_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name keeps letters (any script), digits, ``-`` and ``_``; chess saves PGN, draughts
    PDN, others JSON; ~/Downloads when there is one, else home, shown with ``~``."""
    assert file_name("chess", ("Al/ice ../x", "王 伟"), WHEN) == (
        "boardhall-chess-Al_ice_x-vs-王_伟-20261128-004055.pgn"
    )
    assert file_name("draughts", ("", "?"), WHEN).startswith("boardhall-draughts-player-vs-player")
    assert [record_kind(g) for g in ("chess", "draughts", "shuqi")] == ["PGN", "PDN", "JSON"]
    assert [copied_words(g) for g in ("chess", "draughts", "shuqi")] == [
        "PGN copied: paste it into lichess or any PGN reader.",
        "PDN copied: paste it into lidraughts or any PDN reader.",
        "JSON copied: paste it into a Boardhall replay.",
    ]
    monkeypatch.setenv("HOME", str(tmp_path))
    assert downloads_folder() == tmp_path
    (tmp_path / "Downloads").mkdir()
    assert downloads_folder() == tmp_path / "Downloads"
    assert as_typed(tmp_path / "Downloads" / "a.pgn") == "~/Downloads/a.pgn"
    assert as_typed(Path("/srv/a.pgn")) == "/srv/a.pgn"
