"""The client's config file: defaults, round trip, 0600, and garbage tolerance."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from client.config import Config, config_path


def test_missing_file_gives_empty_config(tmp_path: Path) -> None:
    """No file: empty values, nothing raised."""
    config = Config.load(tmp_path / "nope.json")
    assert (config.server, config.name, config.tokens) == ("", "", {})


def test_round_trip_and_mode_0600(tmp_path: Path) -> None:
    """What is saved loads back, and the file is readable by its owner only."""
    path = tmp_path / "sub" / "config.json"
    config = Config(server="host:9000", name="Alice", tokens={"ws://host:9000/": "t0k"}, path=path)
    config.save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = Config.load(path)
    assert (again.server, again.name) == ("host:9000", "Alice")
    assert again.token_for("ws://host:9000/") == "t0k"
    assert again.token_for("ws://other:1/") is None


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"server": 5, "tokens": [1]}',
                                  '{"tokens": {"a": 5, "b": "ok"}}'])
def test_garbage_is_ignored(tmp_path: Path, text: str) -> None:
    """A damaged file never stops the client; only well-typed values are kept."""
    path = tmp_path / "config.json"
    path.write_text(text)
    config = Config.load(path)
    assert config.server == ""
    assert all(isinstance(v, str) for v in config.tokens.values())
    assert config.tokens in ({}, {"b": "ok"})


@pytest.mark.parametrize("damaged", [b"{\"tokens\": {\"ws://h:1/\": \"t0k\"", b"\xff\xfe{}", b"[]"])
def test_a_damaged_file_is_kept_aside_not_overwritten(tmp_path: Path, damaged: bytes) -> None:
    """The first save after reading a damaged file keeps it as config.json.unreadable, so the
    tokens in it can still be recovered by hand; a later save does not touch that copy."""
    path = tmp_path / "config.json"
    path.write_bytes(damaged)
    config = Config.load(path)
    assert config.unreadable
    config.name = "Alice"
    config.save()
    kept = tmp_path / "config.json.unreadable"
    assert kept.read_bytes() == damaged
    assert Config.load(path).name == "Alice"
    config.name = "Bob"
    config.save()
    assert kept.read_bytes() == damaged and Config.load(path).name == "Bob"


def test_a_missing_file_is_not_taken_for_a_damaged_one(tmp_path: Path) -> None:
    config = Config.load(tmp_path / "config.json")
    assert not config.unreadable
    config.save()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "config.json"]


def test_env_overrides_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """BOARDHALL_CONFIG names the file."""
    monkeypatch.setenv("BOARDHALL_CONFIG", str(tmp_path / "x.json"))
    assert config_path() == tmp_path / "x.json"
    monkeypatch.delenv("BOARDHALL_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == tmp_path / "boardhall" / "config.json"
