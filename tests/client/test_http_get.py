"""The client's HTTP reads (:mod:`client.http_get`) against a server that does not speak HTTP
properly: every way the answer can be broken ends the read with a :class:`FetchFailed` naming
the URL, so a fetch on its thread always ends with a result the scene can show, never with the
thread dead and the scene "reading" for ever."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from client.http_get import Fetch, FetchFailed
from client.profile import ProfileFetch
from client.scenes.replay import RecordError, RecordFetch
from tests.client.helpers import arrived

BROKEN = {
    "not HTTP": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "a header line too long": b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
    "too many headers": b"HTTP/1.1 200 OK\r\n" + b"X: a\r\n" * 200 + b"\r\n",
    "a chunk size that is no number": (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
    ),
    "an error whose body is cut": (
        b"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort"
    ),
}


@contextlib.contextmanager
def answering(reply: bytes) -> Iterator[int]:
    """A loopback TCP server that answers its one connection with ``reply`` (whatever was
    asked) and closes it; its port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        thread.join(10)


@pytest.mark.parametrize("broken", list(BROKEN))
def test_a_broken_answer_ends_a_fetch_with_a_reason(broken: str) -> None:
    """The profile's read and a game record's read each end with their failure, naming the
    URL they asked."""
    with answering(BROKEN[broken]) as port:
        found = arrived(ProfileFetch(f"ws://127.0.0.1:{port}/", "p-x", None))
    assert isinstance(found, FetchFailed), found
    assert str(found).startswith(f"cannot fetch http://127.0.0.1:{port}/players/p-x: "), found
    with answering(BROKEN[broken]) as port:
        record = arrived(RecordFetch(f"ws://127.0.0.1:{port}/", "g1"))
    assert isinstance(record, RecordError), record
    assert f"127.0.0.1:{port}/games/g1" in str(record), record


def test_a_broken_answer_is_named_not_quoted() -> None:
    """What a broken answer said is not repeated (it may be 64 KiB of anything): only what was
    wrong with it."""
    with answering(b"X" * 60000 + b"\r\n\r\n") as port:
        found = arrived(ProfileFetch(f"ws://127.0.0.1:{port}/", "p-x", None))
    assert str(found) == (
        f"cannot fetch http://127.0.0.1:{port}/players/p-x: not an HTTP answer (BadStatusLine)"
    )


def test_one_fetch_class_reads_on_its_thread_and_hands_over_the_failure_it_expects() -> None:
    """:class:`Fetch` runs a read once on a thread of the given name and hands over what it
    read, or the failure it was told to expect (a record's :class:`RecordError` as well as
    :class:`FetchFailed`); the record, profile and leaderboard reads are all of it."""
    threads: list[str] = []

    def read() -> int:
        threads.append(threading.current_thread().name)
        return 42

    assert arrived(Fetch(read, "boardhall-test", FetchFailed)) == 42
    assert threads == ["boardhall-test"]

    def refuse() -> int:
        raise RecordError("not a record")

    found = arrived(Fetch(refuse, "boardhall-test", RecordError))
    assert isinstance(found, RecordError) and str(found) == "not a record"
    assert issubclass(RecordFetch, Fetch) and issubclass(ProfileFetch, Fetch)
