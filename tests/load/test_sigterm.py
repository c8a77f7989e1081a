"""A load tool ended by SIGTERM (``kill``, ``timeout``) stops the servers it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from bench import harness
harness.exit_on_sigterm()
server = harness.echo().start()
try:
    print(server.pid, flush=True)
    sys.stdin.read()
finally:
    server.stop()
"""


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("handled", [True, False])
def test_sigterm_goes_through_finally_and_stops_the_server(handled: bool) -> None:
    """With ``exit_on_sigterm`` the script exits 143 and its echo server is gone; without it
    (the check that this test can fail) the server outlives the script."""
    script = SCRIPT if handled else SCRIPT.replace("harness.exit_on_sigterm()", "")
    tool = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert tool.stdout is not None
    server_pid = int(tool.stdout.readline())
    try:
        assert _running(server_pid)
        tool.send_signal(signal.SIGTERM)
        assert tool.wait(30) == (143 if handled else -signal.SIGTERM)
        assert _running(server_pid) is not handled
    finally:
        if _running(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        if tool.stdin is not None:
            tool.stdin.close()
