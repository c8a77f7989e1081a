"""``bench/load.py`` says when a phase's figure is the load client's limit, not the server's."""

from __future__ import annotations

import pytest

from bench import load


def _figures(client_cpu_pct: float) -> load.PhaseFigures:
    return load.PhaseFigures(
        moves_s=17_000.0,
        frames_s=34_000.0,
        p50_ms=33.0,
        p99_ms=44.0,
        cpu_pct=63.0,
        rss_mb=71.0,
        errors=0,
        restarts=0,
        client_cpu_pct=client_cpu_pct,
    )


def test_a_client_busy_all_the_time_is_named_as_the_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    load._print("echo", "full", _figures(99.7))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "busy 99.7 %" in lines[1] and "not the echo server's" in lines[1]


def test_a_client_with_time_to_spare_is_not(capsys: pytest.CaptureFixture[str]) -> None:
    load._print("boardhall", "full", _figures(77.0))
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_the_limit_is_per_client_process() -> None:
    """Two client processes at 60 % each (120 % in all) leave the limit to the server."""
    assert not load.client_bound(_figures(120.0), procs=2)
    assert load.client_bound(_figures(192.0), procs=2)
    assert load.client_bound(_figures(96.0), procs=1)
