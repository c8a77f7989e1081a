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


@pytest.mark.parametrize(("typed", "url"), [
    ("localhost:8765/", "ws://localhost:8765/"),
    ("example.org/", "ws://example.org:8765/"),
    ("[::1]:9000/", "ws://[::1]:9000/"),
])
def test_a_trailing_slash_without_a_scheme_is_the_same_server(typed: str, url: str) -> None:
    """``host:port/`` (pasted from a URL) is not a bad port number."""
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


@pytest.mark.parametrize(("ws_url", "http"), [
    ("wss://example.org/boardhall/", "https://example.org/boardhall/games/7?format=json"),
    ("wss://example.org/boardhall", "https://example.org/boardhall/games/7?format=json"),
    ("ws://h:8765/a/b/", "http://h:8765/a/b/games/7?format=json"),
    ("ws://h:8765/", "http://h:8765/games/7?format=json"),
    ("ws://h:8765", "http://h:8765/games/7?format=json"),
    ("wss://example.org/boardhall/?x=1#y", "https://example.org/boardhall/games/7?format=json"),
])  # fmt: skip
def test_http_url_keeps_the_path_of_a_server_behind_a_proxy(ws_url: str, http: str) -> None:
    """A server under a path prefix (``wss://example.org/boardhall/``, a reverse proxy's
    location): its records are under the same prefix (they were fetched from ``/games/7``)."""
    assert http_url(ws_url, "/games/7?format=json") == http


@pytest.mark.parametrize(("typed", "url"), [
    ("[::1]", "ws://[::1]:8765/"),
    ("[::1]:8765", "ws://[::1]:8765/"),
    ("ws://[::1]:8765/", "ws://[::1]:8765/"),
    ("fe80::1%eth0", "ws://[fe80::1%eth0]:8765/"),
    ("[fe80::1%eth0]:9000", "ws://[fe80::1%eth0]:9000/"),
    ("ws://[fe80::1%25eth0]:1/", "ws://[fe80::1%eth0]:1/"),  # RFC 6874 form; websockets wants %
    ("ws://[fe80::1%ETH0]:1/", "ws://[fe80::1%ETH0]:1/"),  # interface names are case-sensitive
    ("2001:db8::1", "ws://[2001:db8::1]:8765/"),
    ("2001:db8::1:8765", "ws://[2001:db8::1:8765]:8765/"),  # no brackets: all of it is the address
    ("localhost:8765", "ws://localhost:8765/"),
    ("example.org.", "ws://example.org:8765/"),  # the root dot: /etc/hosts names never have it
    ("localhost.:9000", "ws://localhost:9000/"),  # and "localhost." resolved nowhere here
    ("ws://LocalHost.:1/x", "ws://localhost:1/x"),
    ("WS://Example.org:80", "ws://example.org:80/"),
    ("WSS://h", "wss://h/"),
])
def test_ipv6_and_odd_addresses(typed: str, url: str) -> None:
    assert to_url(typed) == url


@pytest.mark.parametrize(("typed", "words"), [
    ("http://h:8765", "type ws://h:8765/ instead"),
    ("https://h", "type wss://h/ instead"),
    ("ws://bad host", "'bad host' is not a host name or IP address"),
    ("ws://[::1", "unclosed \\["),
    ("[::1", "unclosed \\["),
    ("::1]", "'::1]' is not a host name or IP address"),
    ("[::1]x", "after \\] comes :PORT"),
    ("ws://h:0", "port must be a number from 1 to 65535, not '0'"),
    ("h:\u0663", "port must be a number from 1 to 65535"),  # an Arabic-Indic 3 is no port
    ("localhost:80:90", "IPv6 address"),
    ("fe80::1%", "IPv6 address"),
    ("ws://::1:8765/", "in brackets: ws://\\[::1\\]:8765/"),
    ("[example.org]:80", "only IPv6 addresses go in brackets"),
    (".", "'.' is not a host name or IP address"),
    ("ws://a..b", "'a..b' is not a host name or IP address"),
])
def test_odd_addresses_are_refused_saying_what_is_wrong(typed: str, words: str) -> None:
    with pytest.raises(BadAddress, match=words):
        to_url(typed)
