"""GET a text from the connected server's HTTP side (records, a player's games), as this
player: the token goes as a bearer token, never in the URL."""

from __future__ import annotations

import http.client
import json
import queue
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")
E = TypeVar("E", bound=Exception)

MAX_BYTES = 1024 * 1024
"""The most of an answer read (a record is at most 48 KiB of moves; a list far less)."""

HTTP_WORDS = {
    404: "no game with that id, or a private game only its players can replay",
    401: "the server no longer knows your identity: reconnect to get a new one",
}
"""What a record fetch's refusals mean, instead of a bare "HTTP Error 404"."""


class FetchFailed(ValueError):
    """The server could not be reached or refused the request (the message says which)."""


def get_text(
    url: str,
    token: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = 10.0,
    words: Mapping[int, str] = HTTP_WORDS,
) -> str:
    """The body of ``GET url``; raises :class:`FetchFailed` naming the URL and what went wrong
    (``words`` says what a refusal's status means; otherwise the server's own ``error``)."""
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=ssl_context) as response:
            body: bytes = response.read(MAX_BYTES)
    except urllib.error.HTTPError as exc:
        said = words.get(exc.code) or _server_error(exc)
        if said is None:
            raise FetchFailed(f"cannot fetch {url}: {exc}") from exc
        raise FetchFailed(f"cannot fetch {url}: {said} (HTTP {exc.code})") from exc
    except urllib.error.URLError as exc:  # no answer: why, without urllib's wrapping
        reason = exc.reason
        why = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
        raise FetchFailed(f"cannot fetch {url}: {why}") from exc
    except OSError as exc:
        raise FetchFailed(f"cannot fetch {url}: {exc}") from exc
    except http.client.HTTPException as exc:  # not HTTP, or cut short: named, not quoted
        raise FetchFailed(f"cannot fetch {url}: not an HTTP answer ({type(exc).__name__})") from exc
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FetchFailed(f"cannot fetch {url}: the answer is not UTF-8 text") from exc


def _server_error(exc: urllib.error.HTTPError) -> str | None:
    """The ``error`` of a Boardhall error answer (``{"error": "..."}``), if it has one."""
    try:
        found = json.loads(exc.read(4096).decode("utf-8"))
    except (OSError, ValueError, http.client.HTTPException):
        return None
    said = found.get("error") if isinstance(found, dict) else None
    return said if isinstance(said, str) and said else None


def json_list(text: str, field: str, what: str) -> list[dict[str, Any]]:
    """The objects in the list ``field`` of a JSON answer ``text`` (``what`` names the list in
    the error: "list of games"); raises :class:`FetchFailed` when the answer is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FetchFailed(f"the server's {what} is not JSON") from exc
    found = data.get(field) if isinstance(data, dict) else None
    if not isinstance(found, list):
        raise FetchFailed(f"the server's answer has no {what}")
    return [item for item in found if isinstance(item, dict)]


class Fetch(Generic[T, E]):
    """Runs ``read`` (a blocking HTTP read that raises ``failure``: :class:`FetchFailed`, or
    a caller's own error such as a record's) once on a thread named ``name``; poll
    :meth:`result` from a scene's ``update`` so the frame loop never waits for the network."""

    def __init__(self, read: Callable[[], T], name: str, failure: type[E]) -> None:
        self._failure = failure
        self._done: queue.Queue[T | E] = queue.Queue(maxsize=1)
        self._finished = threading.Event()
        threading.Thread(target=self._work, args=(read,), name=name, daemon=True).start()

    def _work(self, read: Callable[[], T]) -> None:
        try:
            self._done.put(read())
        except self._failure as exc:
            self._done.put(exc)
        finally:
            self._finished.set()

    def wait(self, timeout: float) -> bool:
        """Block until the read has ended (at most ``timeout`` seconds; True if it has), for
        tests and tools: the frame loop never waits, it polls :meth:`result`."""
        return self._finished.wait(timeout)

    def result(self) -> T | E | None:
        """What was read, or what went wrong; ``None`` while on its way."""
        try:
            return self._done.get_nowait()
        except queue.Empty:
            return None
