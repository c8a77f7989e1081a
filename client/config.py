"""The client's config file: last server, name, and one secret token per server.

The file is ``~/.config/boardhall/config.json`` (``$XDG_CONFIG_HOME`` respected), or the path in
``BOARDHALL_CONFIG``. It holds secrets, so it is written with mode 0600, atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def config_path() -> Path:
    """Where the config file lives (``BOARDHALL_CONFIG`` overrides)."""
    override = os.environ.get("BOARDHALL_CONFIG")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "boardhall" / "config.json"


@dataclass
class Config:
    """What the client remembers between runs."""

    server: str = ""
    """The last server address typed (``host:port`` or a ``ws://`` URL)."""
    name: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    """Server URL -> the identity token that server gave us."""
    path: Path | None = None
    unreadable: bool = False
    """The file was there but not a JSON object: :meth:`save` keeps it as ``NAME.unreadable``
    before writing, so the tokens in it are not lost to a damaged byte."""

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """Read the config; a missing or unreadable file gives an empty config (never raises)."""
        path = path or config_path()
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except OSError:
            return cls(path=path)
        except ValueError:  # not JSON, or not UTF-8
            return cls(path=path, unreadable=True)
        if not isinstance(data, dict):
            return cls(path=path, unreadable=True)
        tokens = data.get("tokens")
        return cls(
            server=data["server"] if isinstance(data.get("server"), str) else "",
            name=data["name"] if isinstance(data.get("name"), str) else "",
            tokens={
                str(k): v for k, v in tokens.items() if isinstance(v, str)
            } if isinstance(tokens, dict) else {},
            path=path,
        )

    def token_for(self, url: str) -> str | None:
        """The saved token for the server at ``url``."""
        return self.tokens.get(url)

    def save(self) -> None:
        """Write the file atomically with mode 0600 (its directory 0700 when created)."""
        path = self.path or config_path()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        payload = json.dumps(
            {"server": self.server, "name": self.name, "tokens": self.tokens}, indent=2
        )
        if self.unreadable and path.exists():
            os.replace(path, path.with_name(path.name + ".unreadable"))
            self.unreadable = False
        fd, tmp = tempfile.mkstemp(prefix=".config-", dir=path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        os.chmod(path, 0o600)
