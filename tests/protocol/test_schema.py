"""The committed JSON Schema matches the models.

Regenerate with ``python -m protocol schema protocol/schema``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.schema_io import SCHEMA_DIR, render, schemas


@pytest.mark.parametrize("name", sorted(schemas()))
def test_committed_schema_matches_models(name: str) -> None:
    """A model change without regenerating the committed schema fails here."""
    committed = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert committed == render(schemas()[name]), (
        f"protocol/schema/{name} is out of date: run `python -m protocol schema protocol/schema`"
    )


def test_schema_command_writes_both_unions(tmp_path: Path) -> None:
    """``python -m protocol schema OUT_DIR`` writes client.json and server.json."""
    subprocess.run([sys.executable, "-m", "protocol", "schema", str(tmp_path)], check=True)
    client = json.loads((tmp_path / "client.json").read_text(encoding="utf-8"))
    server = json.loads((tmp_path / "server.json").read_text(encoding="utf-8"))
    assert client["discriminator"]["propertyName"] == "type"
    assert "hello" in client["discriminator"]["mapping"]
    assert "welcome" in server["discriminator"]["mapping"]
