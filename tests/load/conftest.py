"""Fixtures of the load, fault and bad-input tests: a real server on 127.0.0.1 port 0.

``live`` runs one :class:`server.net.BoardhallServer` on its own event-loop thread for a whole
module (:class:`bench.fuzzlib.LiveServer`), so synchronous code (hypothesis tests with
``websockets.sync`` clients) can hammer it. The repository root goes on ``sys.path`` so the
tests can import ``bench.*`` (the same code the load tools run).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.fuzzlib import LENIENT, LiveServer  # noqa: E402


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    """One server per module with the flood rule opened up (:data:`bench.fuzzlib.LENIENT`)."""
    server = LiveServer(LENIENT)
    try:
        yield server
    finally:
        server.close()
