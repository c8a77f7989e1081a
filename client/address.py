"""Turn what a user types as a server address into a WebSocket URL."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_PORT = 8765


class BadAddress(ValueError):
    """An address that is not ``HOST``, ``HOST:PORT`` or a ``ws://`` / ``wss://`` URL."""


def to_url(address: str, port: int | None = None) -> str:
    """Return the ``ws://`` or ``wss://`` URL of ``address``.

    ``port`` is used when the address names none (default 8765).

    >>> to_url("example.org")
    'ws://example.org:8765/'
    >>> to_url("10.0.0.5:9000")
    'ws://10.0.0.5:9000/'
    >>> to_url("wss://play.example.org")
    'wss://play.example.org/'
    """
    if port is not None and not 0 < port < 65536:
        raise BadAddress(f"the port must be a number from 1 to 65535, not {port}")
    text = address.strip()
    if not text:
        raise BadAddress("type the server's address (for example 192.168.1.20 or host:8765)")
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in ("ws", "wss"):
            raise BadAddress(f"the address must start with ws:// or wss://, not {parts.scheme}://")
        if not parts.hostname:
            raise BadAddress(f"no host name in {text!r}")
        try:
            explicit = parts.port
        except ValueError as exc:
            raise BadAddress(f"bad port in {text!r}") from exc
        host = _bracket(parts.hostname)
        if explicit is None:
            if port is not None:
                return f"{parts.scheme}://{host}:{port}{parts.path or '/'}"
            return f"{parts.scheme}://{host}{parts.path or '/'}"
        return f"{parts.scheme}://{host}:{explicit}{parts.path or '/'}"
    host, sep, port_text = text.rpartition(":")
    if not sep or (host.count(":") and not host.startswith("[")):
        host, port_text = text, ""
    host = host.strip("[]")
    if not host or any(ch in host for ch in " /?#@"):
        raise BadAddress(f"{text!r} is not a host name or IP address")
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise BadAddress(f"the port must be a number from 1 to 65535, not {port_text!r}")
        number = int(port_text)
    else:
        number = port if port is not None else DEFAULT_PORT
    return f"ws://{_bracket(host)}:{number}/"


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def http_url(ws_url: str, path: str) -> str:
    """The HTTP URL of ``path`` on the same server as ``ws_url`` (``ws`` -> ``http``)."""
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return f"{scheme}://{parts.netloc}{path}"
