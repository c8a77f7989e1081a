"""Server addresses typed by users become WebSocket URLs, or a clear error."""

from __future__ import annotations

import pytest

from client.address import BadAddress, http_url, to_url


@pytest.mark.parametrize(("typed", "url"), [
    ("example.org", "ws://example.org:8765/"),
    ("  10.0.0.5:9000 ", "ws://10.0.0.5:9000/"),
    ("localhost", "ws://localhost:8765/"),
    ("ws://h:1/x", "ws://h:1/x"),
    ("wss://play.example.org", "wss://play.example.org/"),
    ("::1", "ws://[::1]:8765/"),
    ("[::1]:80", "ws://[::1]:80/"),
])
def test_addresses(typed: str, url: str) -> None:
    """Host, host:port, IPv6 and ws/wss URLs."""
    assert to_url(typed) == url


def test_port_argument_applies_only_without_a_port() -> None:
    """--port fills a missing port and never overrides a typed one."""
    assert to_url("h", 9001) == "ws://h:9001/"
    assert to_url("h:7", 9001) == "ws://h:7/"


@pytest.mark.parametrize(("typed", "words"), [
    ("", "type the server"), ("http://x", "ws://"), ("h:0", "port"), ("h:99999", "port"),
    ("h:abc", "port"), ("a b", "not a host"), ("ws://", "no host"),
])
def test_bad_addresses_say_why(typed: str, words: str) -> None:
    """Each refusal names what is wrong."""
    with pytest.raises(BadAddress, match=words):
        to_url(typed)


@pytest.mark.parametrize("port", [0, 65536, 99999, -1])
def test_a_port_argument_out_of_range_is_refused_even_with_a_typed_port(port: int) -> None:
    """``--port 99999`` is a mistake whatever the address says (the system would dial 34463)."""
    for typed in ("h", "h:7", "ws://h"):
        with pytest.raises(BadAddress, match=f"port must be a number from 1 to 65535, not {port}"):
            to_url(typed, port)


def test_http_url() -> None:
    """The HTTP side of the same server."""
    assert http_url("wss://h:1/", "/games/7") == "https://h:1/games/7"
    assert http_url("ws://h:8765/", "/healthz") == "http://h:8765/healthz"
