"""A process that syncs one file on request, so the server's own threads never wait for it.

Run as ``python synchelper.py PATH`` (it imports nothing of ours): it reads request numbers
(8 bytes each, little endian) on stdin, ``fdatasync``s PATH once for all the requests that have
arrived, and writes back the last number with 0, or with the errno of a failed sync (12 bytes).
It exits at the end of stdin, and only then: a signal meant for the server leaves it be (Ctrl-C in
its terminal, or a SIGTERM or SIGHUP sent to the server's whole process group, as a service
manager or a closed terminal does). The server then closes its stdin when it has stopped, or the
system does when it dies.
"""

from __future__ import annotations

import os
import signal
import struct
import sys

REQUEST = struct.Struct("<q")
REPLY = struct.Struct("<qi")


def _open(path: str) -> int:
    return os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))


def serve(path: str, requests: int, replies: int) -> None:
    """Answer requests read from fd ``requests`` on fd ``replies`` until end of input.

    PATH is opened at once; if it cannot be (a server that failed to start has already closed
    its database, and SQLite removed the log), it is opened again at each request, and a request
    it still cannot be opened for is answered with that errno, never with a traceback."""
    fd: int | None
    try:
        fd = _open(path)
    except OSError:
        fd = None
    sync = getattr(os, "fdatasync", None) or os.fsync
    pending = b""
    while True:
        chunk = os.read(requests, 65536)
        if not chunk:
            return
        pending += chunk
        whole = len(pending) - len(pending) % REQUEST.size
        if not whole:
            continue
        (number,) = REQUEST.unpack_from(pending, whole - REQUEST.size)
        pending = pending[whole:]
        error = 0
        try:
            if fd is None:
                fd = _open(path)
            sync(fd)
        except OSError as exc:
            error = exc.errno or -1
        os.write(replies, REPLY.pack(number, error))


if __name__ == "__main__":
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):  # Windows has no SIGHUP
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    serve(sys.argv[1], sys.stdin.fileno(), sys.stdout.fileno())
