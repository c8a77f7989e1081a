"""Turn what a user types as a server address into a WebSocket URL."""

from __future__ import annotations

import ipaddress
from urllib.parse import quote, urlsplit

DEFAULT_PORT = 8765


class BadAddress(ValueError):
    """An address that is not ``HOST``, ``HOST:PORT`` or a ``ws://`` / ``wss://`` URL."""


def to_url(address: str, port: int | None = None) -> str:
    """Return the ``ws://`` or ``wss://`` URL of ``address``.

    ``port`` is used when the address names none (default 8765). An IPv6 address may be typed
    bare (``::1``, ``fe80::1%eth0``: all of it is the address, so ``2001:db8::1:8765`` is one
    address on the default port) or in brackets, which it needs to carry a port
    (``[2001:db8::1]:8765``, ``ws://[::1]:8765/``).

    >>> to_url("example.org")
    'ws://example.org:8765/'
    >>> to_url("10.0.0.5:9000")
    'ws://10.0.0.5:9000/'
    >>> to_url("wss://play.example.org")
    'wss://play.example.org/'
    >>> to_url("[::1]:9000")
    'ws://[::1]:9000/'
    """
    if port is not None and not 0 < port < 65536:
        raise BadAddress(f"the port must be a number from 1 to 65535, not {port}")
    text = address.strip()
    if not text:
        raise BadAddress("type the server's address (for example 192.168.1.20 or host:8765)")
    if "://" not in text:
        bare = text[:-1] if text.endswith("/") else text  # host:port/ pasted from a URL
        host, port_text = _split(bare, text)
        return f"ws://{_bracket(host)}:{_port(port_text) if port_text else port or DEFAULT_PORT}/"
    scheme, rest = text.split("://", 1)
    scheme = scheme.lower()
    if scheme not in ("ws", "wss"):
        raise BadAddress(_wrong_scheme(scheme, rest))
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, path = rest[:cut].rpartition("@")[2], rest[cut:].split("?")[0].split("#")[0]
    if not netloc:
        raise BadAddress(f"no host name in {text!r}")
    if not netloc.startswith("[") and netloc.count(":") > 1:
        bare, _, tail = netloc.rpartition(":")
        raise BadAddress(
            f"an IPv6 address goes in brackets: {scheme}://[{bare}]:{tail}{path or '/'}"
        )
    host, port_text = _split(netloc, text)
    path = path if path.startswith("/") else "/"
    if port_text:
        return f"{scheme}://{_bracket(host)}:{_port(port_text)}{path}"
    if port is not None:
        return f"{scheme}://{_bracket(host)}:{port}{path}"
    return f"{scheme}://{_bracket(host)}{path}"


_IPV6_HINT = "an IPv6 address with a port goes in brackets: [2001:db8::1]:8765"


def _split(text: str, typed: str) -> tuple[str, str]:
    """``(host, port text)`` of ``HOST``, ``HOST:PORT``, ``IPv6``, ``[IPv6]`` or ``[IPv6]:PORT``
    (the port text is empty when none is given); the host is checked."""
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise BadAddress(f"unclosed [ in {typed!r}: {_IPV6_HINT}")
        host, rest = text[1:close], text[close + 1 :]
        if rest and not rest.startswith(":"):
            raise BadAddress(f"after ] comes :PORT or nothing, not {rest!r}, in {typed!r}")
        if ":" not in host:
            raise BadAddress(f"only IPv6 addresses go in brackets, not {host!r}")
        return _ipv6(host, typed), rest[1:]
    if text.count(":") > 1:  # no brackets: all of it is an IPv6 address
        return _ipv6(text, typed), ""
    typed_host, _, port_text = text.partition(":")
    host = typed_host[:-1] if typed_host.endswith(".") else typed_host  # the DNS root dot
    if (
        not host
        or ".." in host
        or host.startswith(".")
        or any(ch.isspace() or not ch.isprintable() or ch in "/?#@[]%\\" for ch in host)
    ):
        raise BadAddress(f"{typed_host!r} is not a host name or IP address")
    return host.lower(), port_text


def _ipv6(host: str, typed: str) -> str:
    """``host`` checked as an IPv6 address, with its ``%scope`` (``%25`` as in RFC 6874 URLs
    becomes ``%``: that is what the system resolver takes)."""
    address, sep, scope = host.partition("%")
    if sep and scope.startswith("25") and len(scope) > 2:
        scope = scope[2:]
    try:
        ipaddress.IPv6Address(f"{address}{sep}{scope}")
    except ValueError:
        raise BadAddress(f"{typed!r} is not a host name or IP address ({_IPV6_HINT})") from None
    return f"{address.lower()}{sep}{scope}"


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 65536:
        raise BadAddress(f"the port must be a number from 1 to 65535, not {text!r}")
    return int(text)


def _wrong_scheme(scheme: str, rest: str) -> str:
    """What to say for ``scheme://rest``: for http(s), the ws(s) URL to type instead."""
    wanted = {"http": "ws", "https": "wss"}.get(scheme)
    said = f"the address must start with ws:// or wss://, not {scheme}://"
    if wanted is None:
        return said
    try:
        return f"{said} (that is for web pages): type {to_url(f'{wanted}://{rest}')} instead"
    except BadAddress:
        return f"{said} (that is for web pages): type {wanted}://HOST:PORT instead"


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def http_url(ws_url: str, path: str) -> str:
    """The HTTP URL of ``path`` on the same server as ``ws_url`` (``ws`` -> ``http``), under
    the URL's own path: a server a reverse proxy serves at a prefix has its records there too.

    >>> http_url("wss://example.org/boardhall/", "/games/7")
    'https://example.org/boardhall/games/7'
    """
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    prefix = parts.path.rstrip("/")
    return f"{scheme}://{parts.netloc}{prefix}{path}"


def record_url(ws_url: str, game_id: str) -> str:
    """The URL of game ``game_id``'s JSON record on the server of ``ws_url``."""
    return http_url(ws_url, f"/games/{quote(game_id, safe='')}?format=json")
