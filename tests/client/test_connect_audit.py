"""Every way a connection can fail is explained in words a user can act on."""

from __future__ import annotations

import socket
import ssl
from http import HTTPStatus
from typing import Any

import pytest
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.http11 import Response

from client.net import NetEvent, describe_failure
from client.scenes.connect import ConnectScene
from server.pushconn import OVER_LIMIT_TEXT

URL = "ws://example.invalid:8765/"


@pytest.mark.parametrize(("exc", "words"), [
    (ConnectionRefusedError(111, "Connection refused"), "nothing is listening"),
    (socket.gaierror(-2, "Name or service not known"), "Unknown host"),
    (TimeoutError(), "timed out"),
    (OSError(113, "No route to host"), "No route to host"),
    (ssl.SSLError(1, "wrong version number"), "Secure connection"),
    (RuntimeError("odd"), "Cannot connect"),
])
def test_failures_are_described(exc: BaseException, words: str) -> None:
    """Refused, unknown host, timeout, unreachable network, TLS trouble, anything else."""
    text = describe_failure(exc, URL)
    assert words in text and URL in text


def test_the_connect_scene_shows_the_reason(ui: Any) -> None:
    """A failed connection puts the reason under the form, address in its own case."""
    scene = ConnectScene(ui.app, "example.invalid", "Alice")
    ui.app.push(scene)
    failure = describe_failure(socket.gaierror(-2, "Name or service not known"), URL)
    ui.app.dispatch_net(NetEvent("failed", text=failure))
    assert scene.message == failure
    ui.shoot("connect-unknown-host")


def _refusal(status: int, body: bytes, content_type: str) -> InvalidStatus:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body)))])
    return InvalidStatus(Response(status, HTTPStatus(status).phrase, headers, body))


def test_a_server_s_refusal_is_shown_with_its_reason() -> None:
    """A 429 or 503 in answer to the upgrade (the server behind a proxy, over the player's
    handshake limit; a server stopping) is a refusal, shown with the server's one-line text:
    before, it read "answered, but not as a Boardhall server (wrong protocol or port)"."""
    over = describe_failure(_refusal(429, OVER_LIMIT_TEXT.encode(), "text/plain; charset=utf-8"),
                            URL)
    assert over == (f"{URL} refused the connection (HTTP 429 Too Many Requests): "
                    f"{OVER_LIMIT_TEXT.strip()}")
    assert "not as a Boardhall server" not in over
    stopping = describe_failure(_refusal(503, b"Server is shutting down.\n", "text/plain"), URL)
    assert stopping == (
        f"{URL} refused the connection (HTTP 503 Service Unavailable): Server is shutting down.")
    # a proxy's own page (HTML) is not shown as it is
    page = b"<html><head><title>503 Service Temporarily Unavailable</title></head></html>"
    assert describe_failure(_refusal(503, page, "text/html"), URL) == (
        f"{URL} refused the connection (HTTP 503 Service Unavailable)")
