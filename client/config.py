"""The client's config file: last server, name, the premove, slide and sound settings, and the
secret tokens of our identities per server.

The file is ``~/.config/boardhall/config.json`` (``$XDG_CONFIG_HOME`` respected), or the path in
``BOARDHALL_CONFIG``. It holds secrets, so it is written with mode 0600, atomically (a temporary
file renamed over it), and merged with what is on disk under a lock, so two clients saving at
once never lose each other's entries.

Identities. ``tokens`` maps a server key (:func:`server_key`) to the token of our main identity
there, and ``KEY#N`` (N = 1, 2, …) to the tokens of further ones: a second window running at the
same time cannot use the main identity (the server would close the first window with 4001), so
:meth:`Config.claim` gives each running window a *slot*, held by a lock file for as long as the
window is connected. ``names`` maps the same keys to the name each identity last had, so the
name typed picks its own identity again after a restart. An older client reads only the main
tokens and ignores the ``#N`` entries.

Muted players. ``muted`` maps a server key to the players muted there: their public id (what
the server's chat lines name them by: a name can change and be taken by another) to the name
they had when muted, for the room to say whom it hides.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking; one window per identity then
    fcntl = None  # type: ignore[assignment]

MAX_BYTES = 1 << 20
"""A bigger file is not a config this client wrote: it is kept aside, not read."""
NAME_CHARS = 32
SERVER_CHARS = 200
SLOTS = 8
"""Identities per server a config keeps (windows open at once on one server)."""
MUTED_PER_SERVER = 500
"""Muted players a config keeps per server (the latest muted; an older one is heard again)."""
PLAYER_CHARS = 64
"""Longest player id kept (the protocol's id length)."""
DEFAULT_VOLUME = 80
"""The sounds' volume (0 to 100) unless the file says another."""
LOCK_WAIT_S = 5.0
"""How long :meth:`Config.save` waits for another client's save to finish."""
_TMP_PREFIX = ".boardhall-"
_TMP_SUFFIX = ".tmp"


def config_path() -> Path:
    """Where the config file lives (``BOARDHALL_CONFIG`` overrides)."""
    override = os.environ.get("BOARDHALL_CONFIG")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "boardhall" / "config.json"


def server_key(url: str) -> str:
    """The key a server's tokens are kept under: its URL with the port always written and every
    loopback spelling (``127.0.0.1``, ``::1``, ``localhost``) made one, so the same server
    typed another way finds the same identity.

    >>> server_key("ws://127.0.0.1:8765/")
    'ws://localhost:8765/'
    >>> server_key("wss://example.org/")
    'wss://example.org:443/'
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    host = parts.hostname
    if parts.scheme not in ("ws", "wss") or not host:
        return url
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host.split("%")[0]).is_loopback:
            host = "localhost"
    host = host.rstrip(".").lower()
    if port is None:
        port = 443 if parts.scheme == "wss" else 80
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}:{port}{parts.path or '/'}"


def slot_key(url: str, slot: int) -> str:
    """The ``tokens``/``names`` key of identity ``slot`` on the server at ``url``."""
    key = server_key(url)
    return key if slot == 0 else f"{key}#{slot}"


def _clean(value: Any, limit: int) -> str:
    """A string value read from the file, or "" (wrong type, control characters)."""
    if not isinstance(value, str) or any(not ch.isprintable() for ch in value):
        return ""
    return value[:limit]


def _strings(value: Any) -> dict[str, str]:
    """A ``{str: str}`` object read from the file (other entries dropped), keys normalised."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for k, v in value.items():
        if isinstance(v, str) and v:
            base, sep, slot = str(k).partition("#")
            out[server_key(base) + sep + slot] = v
    return out


def _merge(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Three-way merge of flat dicts: what we changed since ``base`` wins, the rest is
    ``theirs`` (a removal of ours stands only if they left the entry as it was)."""
    out = dict(theirs)
    for k in set(base) | set(ours):
        if ours.get(k) == base.get(k):
            continue
        if k in ours:
            out[k] = ours[k]
        elif theirs.get(k) == base.get(k):
            out.pop(k, None)
    return out


@contextlib.contextmanager
def _locked(lock: Path, wait: float) -> Iterator[None]:
    """Hold an exclusive lock on the file ``lock`` (waits up to ``wait`` seconds; without
    locking support, or when the lock file cannot be made, goes on unlocked)."""
    fd = -1
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fd >= 0:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break  # a stuck client: better an unmerged save than none
                    time.sleep(0.01)
                except OSError:
                    break
        yield
    finally:
        if fd >= 0:
            os.close(fd)


@dataclass
class Claim:
    """Identity slot ``slot`` on a server, held by this window until :meth:`release`.

    ``slot`` is -1 when every slot is in use (the identity is then not saved)."""

    key: str
    slot: int
    others_busy: bool = False
    """A slot the name would have picked was in use by another running client."""
    fd: int = -1

    @property
    def token_key(self) -> str | None:
        """The ``tokens`` key of this identity (None: not saved)."""
        if self.slot < 0:
            return None
        return self.key if self.slot == 0 else f"{self.key}#{self.slot}"

    def release(self) -> None:
        """Let another window use this identity."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1


@dataclass
class Config:
    """What the client remembers between runs."""

    server: str = ""
    """The last server address typed (``host:port`` or a ``ws://`` URL)."""
    name: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    """Server key (``KEY`` or ``KEY#N``, see :func:`slot_key`) -> an identity token there."""
    names: dict[str, str] = field(default_factory=dict)
    """The same keys -> the name that identity had when last welcomed."""
    premoves: bool = True
    """Whether moves may be entered during the opponent's turn (the room's Premoves toggle)."""
    slides: bool = True
    """Whether a move's piece slides to its square (the room's Slides toggle); off: it jumps."""
    sound: bool = True
    """Whether the client plays sounds (the room's Sound toggle and the lobby's)."""
    volume: int = DEFAULT_VOLUME
    """How loud the sounds are, 0 to 100 (a room's ``-`` and ``+``)."""
    muted: dict[str, dict[str, str]] = field(default_factory=dict)
    """Server key (:func:`server_key`) -> {player id: name when muted}: whose chat lines (and
    offer sounds) the room hides there (see :meth:`set_muted`)."""
    path: Path | None = None
    persist: bool = True
    """False: an in-memory config (screenshots): nothing is read, written or locked."""
    unreadable: bool = False
    """The file was there but not a config: :meth:`save` keeps it as ``NAME.unreadable``
    before writing, so the tokens in it are not lost to a damaged byte."""
    problem: str = ""
    """What went wrong reading or writing the file, in words for the user ("" when fine)."""
    _base: dict[str, Any] = field(default_factory=dict, repr=False)
    """The file's content as last read or written (what our changes are measured against)."""

    def __post_init__(self) -> None:
        self.tokens = _strings(self.tokens)
        self.names = _strings(self.names)
        if not self._base:
            self._base = _parse({})

    @property
    def where(self) -> Path:
        return self.path or config_path()

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """Read the config; a missing or unreadable file gives an empty config (never raises).

        A file that is there but cannot be used sets :attr:`problem`."""
        path = path or config_path()
        config = cls(path=path)
        data, problem = _read(path)
        if problem:
            config.unreadable = path.is_file()
            config.problem = (f"The settings file {path} could not be read ({problem}), so "
                              "saved identities are not resumed. "
                              + (f"A new one is started; the old one will be kept as "
                                 f"{path.name}.unreadable." if config.unreadable else ""))
            config.problem = config.problem.strip()
        config._adopt(data)
        return config

    def _adopt(self, data: dict[str, Any]) -> None:
        content = _parse(data)
        self._set(content)
        self._base = content

    def _set(self, content: dict[str, Any]) -> None:
        self.server, self.name = content["server"], content["name"]
        self.tokens, self.names = dict(content["tokens"]), dict(content["names"])
        self.premoves, self.slides = content["premoves"], content["slides"]
        self.sound, self.volume = content["sound"], content["volume"]
        self.muted = {k: dict(v) for k, v in content["muted"].items()}

    def _content(self) -> dict[str, Any]:
        return {"server": self.server, "name": self.name, "tokens": dict(self.tokens),
                "names": dict(self.names), "premoves": self.premoves, "slides": self.slides,
                "sound": self.sound, "volume": self.volume,
                "muted": {k: dict(v) for k, v in self.muted.items() if v}}

    def token_for(self, url: str, slot: int = 0) -> str | None:
        """The saved token of identity ``slot`` for the server at ``url``."""
        return self.tokens.get(slot_key(url, slot))

    # ---- muted players -----------------------------------------------------------------------

    def muted_on(self, url: str) -> dict[str, str]:
        """The players muted on the server at ``url``: id -> the name they had when muted."""
        return dict(self.muted.get(server_key(url), {}))

    def set_muted(self, url: str, player: str, name: str | None) -> None:
        """Mute ``player`` (an id) on the server at ``url``, remembering ``name``; ``None``:
        hear them again. Not saved yet (:meth:`save`)."""
        key = server_key(url)
        players = dict(self.muted.get(key, {}))
        players.pop(player, None)
        if name is not None:
            players[player] = name[:NAME_CHARS]  # the latest last (kept when over the cap)
        players = dict(list(players.items())[-MUTED_PER_SERVER:])
        if players:
            self.muted[key] = players
        else:
            self.muted.pop(key, None)

    # ---- identities in use -------------------------------------------------------------------

    def claim(self, url: str, name: str) -> Claim:
        """Take an identity slot on the server at ``url`` for this window.

        The slot whose saved name is ``name`` comes first, then the main one (a new name
        renames it), then an empty one, then any free one; a slot another running client holds
        is skipped (its lock file is held while that client is connected)."""
        key = server_key(url)
        if self.persist:
            self.refresh()
        folded = name.strip().casefold()
        slots = range(SLOTS)
        keyed = [(s, key if s == 0 else f"{key}#{s}") for s in slots]
        order = [s for s, k in keyed if k in self.tokens
                 and self.names.get(k, "").casefold() == folded]
        order += [0]
        order += [s for s, k in keyed if k not in self.tokens]
        order += list(slots)
        seen: set[int] = set()
        busy = False
        for slot in order:
            if slot in seen:
                continue
            seen.add(slot)
            fd = self._lock_slot(key, slot)
            if fd is None:
                busy = True
                continue
            return Claim(key, slot, busy, fd)
        return Claim(key, -1, True)

    def _lock_slot(self, key: str, slot: int) -> int | None:
        """A held lock on ``key``'s ``slot`` (-1: no locking here), or None when it is busy."""
        if not self.persist or fcntl is None:
            return -1
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]
        try:
            fd = os.open(self._locks(create=True) / f"{digest}-{slot}.lock",
                         os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return -1  # cannot coordinate: behave as a lone client
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return fd

    def _locks(self, create: bool = False) -> Path:
        """The hidden folder of lock files next to the config file."""
        folder = self.where.with_name(f".{self.where.name}.locks")
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder

    def remember(self, claim: Claim, token: str, name: str) -> None:
        """Keep ``token`` (and its ``name``) as ``claim``'s identity (not saved yet)."""
        if claim.token_key is not None:
            self.tokens[claim.token_key] = token
            self.names[claim.token_key] = name[:NAME_CHARS]

    def forget(self, claim: Claim) -> None:
        """Drop ``claim``'s token (the server refused it; not saved yet)."""
        if claim.token_key is not None:
            self.tokens.pop(claim.token_key, None)
            self.names.pop(claim.token_key, None)

    # ---- the file ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Take in what other clients saved since we read the file (our unsaved changes stay)."""
        if not self.persist:
            return
        data, problem = _read(self.where)
        if problem:
            return
        theirs, mine, base = _parse(data), self._content(), self._base or _parse({})
        merged: dict[str, Any] = {}
        for k, value in mine.items():
            if k == "muted":  # merged entry by entry, as the tokens are
                merged[k] = _nest(_merge(_flat(base[k]), _flat(value), _flat(theirs[k])))
            elif isinstance(value, dict):
                merged[k] = _merge(base[k], value, theirs[k])
            else:
                merged[k] = value if value != base[k] else theirs[k]
        self._set(merged)
        self._base = theirs

    def save(self) -> bool:
        """Merge our changes into the file and write it atomically with mode 0600 (its folder
        0700 when created). Returns whether it was written; when not, :attr:`problem` says why
        (never raises ``OSError``)."""
        if not self.persist:
            return True
        path = self.where
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with _locked(self._locks(create=True) / "save.lock", LOCK_WAIT_S):
                self._save_locked(path)
        except OSError as exc:
            self.problem = (f"Could not save your settings ({_why(exc, path)}), so a "
                            f"restart will not resume your games: {path}")
            return False
        self.problem = ""
        return True

    def _save_locked(self, path: Path) -> None:
        if self.unreadable and path.is_file():
            os.replace(path, path.with_name(path.name + ".unreadable"))
        else:
            self.refresh()
        self.unreadable = False
        for stale in path.parent.glob(f"{_TMP_PREFIX}*{_TMP_SUFFIX}"):
            with contextlib.suppress(OSError):  # left by a client killed while saving
                stale.unlink()
        content = self._content()
        payload = json.dumps(content, indent=2, ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=_TMP_SUFFIX, dir=path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(payload)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
            dir_fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        self._base = content


def _why(exc: OSError, path: Path) -> str:
    """Why ``path`` could not be written, in plain words."""
    if path.is_dir():
        return "that name is a folder"
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return "a file is where its folder should be"
    return str(exc.strerror or exc)


def _parse(data: dict[str, Any]) -> dict[str, Any]:
    """The usable content of a config file's JSON object (wrong types dropped)."""
    return {
        "server": _clean(data.get("server"), SERVER_CHARS),
        "name": _clean(data.get("name"), NAME_CHARS),
        "tokens": _strings(data.get("tokens")),
        "names": {k: v for k, v in ((k, _clean(v, NAME_CHARS))
                                    for k, v in _strings(data.get("names")).items()) if v},
        "premoves": data.get("premoves") is not False,  # on unless switched off (not a bool: on)
        "slides": data.get("slides") is not False,
        "sound": data.get("sound") is not False,
        "volume": _volume(data.get("volume")),
        "muted": _muted(data.get("muted")),
    }


def _muted(value: Any) -> dict[str, dict[str, str]]:
    """The ``muted`` object read from the file: per server key, ``{player id: name}`` with ids
    and names that are printable strings (names cut to :data:`NAME_CHARS`), at most
    :data:`MUTED_PER_SERVER` per server (the last ones)."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, dict[str, str]] = {}
    for key, players in value.items():
        if not isinstance(players, dict):
            continue
        kept = {p: _clean(n, NAME_CHARS) for p, n in players.items()
                if _clean(p, PLAYER_CHARS) == p and p and isinstance(n, str)}
        kept = dict(list(kept.items())[-MUTED_PER_SERVER:])
        if kept:
            out.setdefault(server_key(str(key)), {}).update(kept)
    return out


_SEP = "\n"
"""Between a server key and a player id in :func:`_flat`'s keys (neither can hold it)."""


def _flat(muted: dict[str, dict[str, str]]) -> dict[str, str]:
    """``muted`` as one flat dict (``KEY\\nPLAYER`` -> name), for :func:`_merge`."""
    return {f"{key}{_SEP}{player}": name for key, players in muted.items()
            for player, name in players.items()}


def _nest(flat: dict[str, str]) -> dict[str, dict[str, str]]:
    """The inverse of :func:`_flat`."""
    out: dict[str, dict[str, str]] = {}
    for joined, name in flat.items():
        key, _, player = joined.rpartition(_SEP)
        out.setdefault(key, {})[player] = name
    return out


def _volume(value: Any) -> int:
    """The volume read from the file: a whole number 0 to 100, else the default."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100:
        return value
    return DEFAULT_VOLUME


def _read(path: Path) -> tuple[dict[str, Any], str]:
    """The file's JSON object and "", or ``{}`` and why it cannot be used ("" when missing)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return {}, ""
    except IsADirectoryError:
        return {}, "it is a folder"
    except OSError as exc:
        return {}, str(exc.strerror or exc)
    if len(raw) > MAX_BYTES:
        return {}, f"it is bigger than {MAX_BYTES // 1024} KB"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return {}, "it is not text"
    except ValueError:
        return {}, "it is damaged: not complete JSON" if raw.strip() else "it is empty"
    if not isinstance(data, dict):
        return {}, "it is not a settings object"
    return data, ""
