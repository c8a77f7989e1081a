"""Record export (PGN / PDN / JSON) and structured log lines."""

from __future__ import annotations

import json
import logging
from typing import Any

from protocol import GameRecord
from server.logs import JsonFormatter
from server.records import export
from server.testing import HallDriver


def _finished(game: str, moves: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    d = HallDriver()
    a, b, code = d.table(game=game, clock={"initial": 60, "increment": 1})
    for i, move in enumerate(moves):
        assert d.move(a if i % 2 == 0 else b, code, move)["type"] == "moved"
    d.request(a, type="resign", room=code)
    room = d.hall.rooms[code]
    stored = [
        {"move": w.move, "by": w.by, "clock_ms": w.clock_ms, "lag_ms": w.lag_ms, "at": w.at}
        for w in d.writes
        if type(w).__name__ == "SaveMove"
    ]
    return room.meta(), stored


def test_chess_exports_pgn_and_json() -> None:
    """Chess: PGN by default (SAN, result, time control), the JSON record on request."""
    meta, moves = _finished("chess", ["e2e4", "e7e5", "g1f3"])
    content_type, pgn = export(meta, moves, None)
    assert content_type.startswith("application/x-chess-pgn")
    assert "1. e4" in pgn and "2. Nf3" in pgn and "0-1" in pgn
    assert '[TimeControl "60+1"]' in pgn and "[%clk 0:01:01]" in pgn
    content_type, body = export(meta, moves, "json")
    record = GameRecord.model_validate_json(body)
    assert [m.move for m in record.moves] == ["e2e4", "e7e5", "g1f3"]
    assert record.reason == "resign" and record.players.first.name == "ann"
    assert record.moves[2].clock_ms is not None


def test_draughts_exports_pdn() -> None:
    """Draughts: PDN by default."""
    meta, moves = _finished("draughts", ["32-28", "19-23"])
    content_type, pdn = export(meta, moves, None)
    assert content_type.startswith("text/plain")
    assert "32-28" in pdn and "19-23" in pdn and "0-2" in pdn


def test_other_games_export_the_json_record() -> None:
    """Hexagonal five-in-a-row: the JSON record."""
    meta, moves = _finished("hexgomoku", ["0,0", "1,1"])
    content_type, body = export(meta, moves, None)
    assert content_type == "application/json"
    data = json.loads(body)
    assert [m["move"] for m in data["moves"]] == ["0,0", "1,1"] and data["result"] == "second"


def test_log_lines_are_json_with_fields() -> None:
    """Each log line is one JSON object carrying the record's extra fields."""
    record = logging.LogRecord("boardhall.room", logging.INFO, __file__, 1, "game over", (), None)
    record.fields = {"room": "ab12", "reason": "five"}
    data = json.loads(JsonFormatter().format(record))
    assert (data["msg"], data["room"], data["reason"], data["level"]) == (
        "game over",
        "ab12",
        "five",
        "info",
    )
