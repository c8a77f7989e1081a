"""Every way a connection can fail is explained in words a user can act on."""

from __future__ import annotations

import socket
import ssl
from typing import Any

import pytest

from client.net import NetEvent, describe_failure
from client.scenes.connect import ConnectScene

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
