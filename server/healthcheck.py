"""``python -m server.healthcheck``: the Docker healthcheck. Exits 0 when the server in this
container answers ``GET /healthz`` with 200 (over TLS when it was started with a certificate),
else 1 with one line saying why (Docker keeps it in ``docker inspect``'s health log). It asks
the port ``boardhall-server`` listens on without ``--port``: ``BOARDHALL_PORT``, else 8765, so
that variable alone moves both."""

from __future__ import annotations

import argparse
import os
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping

from server.flags import default_port

TIMEOUT_S = 2.0
"""For each of the two tries (plain, then TLS): together under the compose file's and the
Dockerfile's healthcheck timeout (5 s)."""


def check(environ: Mapping[str, str]) -> str:
    """Why the server is not healthy ("" when ``/healthz`` answers 200). Plain HTTP first; a
    server started with ``--tls-cert`` refuses that, so then HTTPS, without checking the
    certificate: it names the public host, not 127.0.0.1, and the question is only whether
    this container's own server is up."""
    try:
        port = default_port(environ)
    except argparse.ArgumentTypeError as exc:
        return str(exc)
    if port == 0:
        return (
            "BOARDHALL_PORT=0 lets the server take any free port, which this check cannot know;"
            " set a fixed port"
        )
    problems = []
    for scheme, context in (("http", None), ("https", _unverified())):
        url = f"{scheme}://127.0.0.1:{port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S, context=context) as answer:
                status = answer.status
        except urllib.error.HTTPError as exc:  # a 503: the server is up and says why not
            return f"{url}: {exc}"
        except OSError as exc:  # refused, timed out, no HTTP on this side of TLS
            problems.append(f"{url}: {exc}")
            continue
        return "" if status == 200 else f"{url}: HTTP {status}"
    return "; ".join(problems)


def _unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def main() -> int:
    """0 when healthy, else 1 (the reason on stderr)."""
    problem = check(os.environ)
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
