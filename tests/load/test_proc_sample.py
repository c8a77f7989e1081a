"""``harness.sample`` counts a process's children with it (the server's log-sync helper)."""

from __future__ import annotations

import subprocess
import sys

from bench import harness

CHILD = (
    "import sys; x = bytearray(50_000_000); x[::4096] = b'1' * len(x[::4096]); "
    "print('ready', flush=True); sys.stdin.read()"
)
HOLD_50_MB_IN_A_CHILD = f"""
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", {CHILD!r}],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
print(child.pid, child.stdout.readline().strip(), flush=True)
sys.stdin.read()
child.stdin.close()
child.wait()
"""


def test_a_child_s_memory_counts_as_its_parent_s() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", HOLD_50_MB_IN_A_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        child, ready = parent.stdout.readline().split()
        assert ready == "ready"
        assert harness.descendants(parent.pid) == [int(child)]
        together = harness.sample(parent.pid)
        alone = harness.sample(int(child))
        assert alone.rss_bytes > 50_000_000
        assert together.rss_bytes > alone.rss_bytes and together.hwm_bytes > alone.hwm_bytes
        assert together.cpu_s >= alone.cpu_s
    finally:
        assert parent.stdin is not None
        parent.stdin.close()
        parent.wait(30)
