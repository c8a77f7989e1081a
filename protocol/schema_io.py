"""JSON Schema of both message unions (the committed copy lives in ``protocol/schema/``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocol.messages import client_message_adapter, server_message_adapter
from protocol.records import game_record_adapter

SCHEMA_DIR = Path(__file__).parent / "schema"
"""Where the committed schemas are."""


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema of the client union, the server union and the game record."""
    return {
        "client.json": client_message_adapter.json_schema(mode="validation"),
        "server.json": server_message_adapter.json_schema(mode="serialization", by_alias=True),
        "record.json": game_record_adapter.json_schema(mode="serialization"),
    }


def render(schema: dict[str, Any]) -> str:
    """The stable text form of a schema."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(out_dir: Path) -> list[Path]:
    """Write every schema into ``out_dir``; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = out_dir / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written
