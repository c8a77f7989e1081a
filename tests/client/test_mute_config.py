"""Muted players in the config file: kept per server by the player's id (names change), merged
with what another window saved meanwhile, and read back whatever the file holds."""

from __future__ import annotations

import json
from pathlib import Path

from client.config import MUTED_PER_SERVER, Config

URL = "ws://127.0.0.1:8765/"


def test_a_mute_is_kept_per_server_by_the_players_id(tmp_path: Path) -> None:
    """Muted on one server (any spelling of it), by id; another server knows nothing of it;
    an unmute removes it from the file."""
    path = tmp_path / "config.json"
    config = Config(path=path)
    config.set_muted(URL, "p-bob", "Bob")
    assert config.save()
    again = Config.load(path)
    assert again.muted_on("ws://localhost:8765") == {"p-bob": "Bob"}
    assert again.muted_on("ws://other.example:8765/") == {}
    again.set_muted(URL, "p-bob", None)
    assert again.save()
    assert Config.load(path).muted_on(URL) == {}
    assert json.loads(path.read_text())["muted"] == {}


def test_two_windows_muting_at_once_keep_both(tmp_path: Path) -> None:
    """Two clients on the same file, each muting someone (one unmuting another): the file has
    what both did, as it keeps both windows' tokens."""
    path = tmp_path / "config.json"
    first = Config(path=path)
    first.set_muted(URL, "p-old", "Old")
    assert first.save()
    one, two = Config.load(path), Config.load(path)
    one.set_muted(URL, "p-bob", "Bob")
    two.set_muted(URL, "p-eve", "Eve")
    two.set_muted(URL, "p-old", None)
    assert one.save() and two.save()
    assert Config.load(path).muted_on(URL) == {"p-bob": "Bob", "p-eve": "Eve"}
    assert one.muted_on(URL) == {"p-old": "Old", "p-bob": "Bob"}  # read again only on a save
    one.refresh()
    assert one.muted_on(URL) == {"p-bob": "Bob", "p-eve": "Eve"}


def test_what_the_file_holds_is_read_with_care(tmp_path: Path) -> None:
    """Entries of the wrong type are dropped, a name is cut to a name's length, and a server
    keeps at most :data:`MUTED_PER_SERVER` (the latest muted)."""
    path = tmp_path / "config.json"
    many = {f"p{n}": f"N{n}" for n in range(MUTED_PER_SERVER + 5)}
    path.write_text(json.dumps({"muted": {
        URL: {"p-bob": "B" * 80, "p-x": 5, "": "nobody", "p\x07": "bell"},
        "ws://many:1/": many,
        "ws://junk:1/": ["p-bob"],
    }}))
    config = Config.load(path)
    assert config.muted_on(URL) == {"p-bob": "B" * 32}
    assert list(config.muted_on("ws://many:1/")) == list(many)[-MUTED_PER_SERVER:]
    assert config.muted_on("ws://junk:1/") == {}
