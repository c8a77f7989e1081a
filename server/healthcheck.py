"""``python -m server.healthcheck``: the Docker healthcheck. Exits 0 when the server in this
container answers ``GET /healthz`` with 200, else 1 with one line saying why (Docker keeps it in
``docker inspect``'s health log). It asks the port ``boardhall-server`` listens on without
``--port``: ``BOARDHALL_PORT``, else 8765, so that variable alone moves both."""

from __future__ import annotations

import argparse
import os
import sys
import urllib.request
from collections.abc import Mapping

from server.flags import default_port

TIMEOUT_S = 4.0
"""Under the compose file's and the Dockerfile's healthcheck timeout (5 s)."""


def check(environ: Mapping[str, str]) -> str:
    """Why the server is not healthy ("" when ``/healthz`` answers 200)."""
    try:
        port = default_port(environ)
    except argparse.ArgumentTypeError as exc:
        return str(exc)
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
            status = answer.status
    except OSError as exc:  # refused, timed out, a 503 (HTTPError)
        return f"{url}: {exc}"
    return "" if status == 200 else f"{url}: HTTP {status}"


def main() -> int:
    """0 when healthy, else 1 (the reason on stderr)."""
    problem = check(os.environ)
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
