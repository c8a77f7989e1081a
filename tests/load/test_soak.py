"""Soak under faults (a short run of ``bench/soak.py``): drops, SIGKILL + restart, slow readers.

One run per module against a real ``boardhall-server`` process; each test checks one property
of its report, so a failure names what broke.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import harness
from bench.soak import Soak, SoakConfig, SoakReport, soak

pytestmark = pytest.mark.slow

CONFIG = SoakConfig(
    tables=8, rounds=1, spectators=1, plies=30, drop_every=0.05, restarts=1, slow_readers=4, seed=3
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoakReport]:
    """The report of one short soak."""
    db = tmp_path_factory.mktemp("soak") / "soak.db"
    yield asyncio.run(soak(CONFIG, db))


def test_the_faults_really_happened(report: SoakReport) -> None:
    """Connections were dropped and came back, the server was killed once, readers stalled."""
    assert report.games == CONFIG.tables and report.of("stalled") == []
    assert report.drops > 0 and report.reconnects >= report.drops
    assert report.restarts == 1
    assert report.slow_readers > 0
    assert report.moves > CONFIG.tables * 5


def test_sessions_resume_with_their_token(report: SoakReport) -> None:
    """Every hello with a token resumed its seat; no move was refused except as stale."""
    assert report.of("session") == []


def test_no_accepted_move_is_lost_or_duplicated(report: SoakReport) -> None:
    """Stored moves are exactly the moves the clients saw; every accepted move is stored."""
    assert report.of("seen") == []
    assert report.of("stored") == []


def test_every_game_replays_to_the_position_the_clients_saw(report: SoakReport) -> None:
    """Each stored game replays through its engine to the clients' last position."""
    assert report.of("replay") == []


def test_clocks_match_the_move_timestamps(report: SoakReport) -> None:
    """Every checked clock charge is within 100 ms of the clients' timestamps."""
    assert report.clock_checked > CONFIG.tables * 5
    assert report.of("clock") == []
    assert report.clock_max_dev_ms <= 100


def test_the_restart_downtime_is_charged_to_nobody(report: SoakReport) -> None:
    """A move right after the restart is charged at most the time since the server was back."""
    assert report.restart_moves > 0
    assert report.of("restart_clock") == []


def test_memory_returns_to_baseline_after_the_clients_leave(report: SoakReport) -> None:
    """The server empties and its memory after a gc is within 10 % of the warmed baseline."""
    assert report.of("settle") == []
    assert report.baseline_mb > 0
    assert report.after_mb <= report.baseline_mb * 1.10, report.lines()


def test_a_soak_that_fails_stops_its_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A soak ended by an exception still stops its server (they used to be left running)."""
    started: list[harness.Subprocess] = []
    start_server = Soak.start_server

    async def start_and_note(self: Soak, port: int = 0) -> None:
        await start_server(self, port)
        assert self.server is not None
        started.append(self.server)

    async def broken(self: Soak) -> None:
        raise RuntimeError("a broken step")

    monkeypatch.setattr(Soak, "start_server", start_and_note)
    monkeypatch.setattr(Soak, "measure_baseline", broken)
    with pytest.raises(RuntimeError, match="a broken step"):
        asyncio.run(soak(SoakConfig(tables=1, restarts=0, slow_readers=0), tmp_path / "s.db"))
    assert len(started) == 1
    process = started[0].process
    assert process is not None and process.poll() is not None


def test_a_table_still_playing_at_the_timeout_is_reported_with_both_sides_views(
    tmp_path: Path,
) -> None:
    """The run is cut short: the stalled table is a violation naming its room, what its clients
    saw, and what the server's record of the game says."""
    config = SoakConfig(
        tables=1, plies=60, spectators=0, drop_every=0, restarts=0, slow_readers=0, timeout=0.5
    )
    found = asyncio.run(soak(config, tmp_path / "s.db"))
    [stalled] = found.of("stalled")
    assert "table 0 still playing after 0.5 s: room " in stalled
    assert "clients saw " in stalled and "(over False)" in stalled
    assert "server: result None, reason None, " in stalled and " stored moves" in stalled
    assert found.of("settle") == []  # the stalled game's room is the one left, as it should be
