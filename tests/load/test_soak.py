"""Soak under faults (a short run of ``bench/soak.py``): drops, SIGKILL + restart, slow readers,
a disk that refuses writes.

One run per module against a real ``boardhall-server`` process; each test checks one property
of its report, so a failure names what broke.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import harness
from bench.scripts import playout
from bench.soak import Fault, GameSeen, Soak, SoakConfig, SoakReport, Table, soak

pytestmark = pytest.mark.slow

CONFIG = SoakConfig(
    tables=8,
    rounds=1,
    spectators=1,
    plies=30,
    drop_every=0.05,
    restarts=2,
    slow_readers=4,
    seed=3,
    disk_faults=2,
    disk_fault_seconds=0.3,
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoakReport]:
    """The report of one short soak."""
    db = tmp_path_factory.mktemp("soak") / "soak.db"
    yield asyncio.run(soak(CONFIG, db))


def test_the_faults_really_happened(report: SoakReport) -> None:
    """Connections were dropped and came back, the server was killed twice (once during the
    second disk fault), readers stalled."""
    assert report.games == CONFIG.tables and report.of("stalled") == []
    assert report.drops > 0 and report.reconnects >= report.drops
    assert report.restarts == CONFIG.restarts
    assert report.slow_readers > 0
    assert report.moves > CONFIG.tables * 5


def test_the_disk_faults_made_the_storage_fail_and_writes_resumed(report: SoakReport) -> None:
    """The first disk fault made the server say ``storage_failing`` (``/healthz`` 503,
    ``boardhall_storage_failing 1``) with writes held, and once the disk was back it wrote them
    and said so; its log told both; the turns after the held moves were checked from their
    delivery. The second was cut short by a SIGKILL + restart (the restarted server writes
    freely): its held moves, never told, were sent again (the other tests check none is lost)."""
    assert report.disk_faults == CONFIG.disk_faults
    assert report.disk_faults_cut == 1
    hit = report.disk_faults - report.disk_faults_cut
    assert report.disk_faults_failing >= hit
    assert report.disk_faults_resumed == hit
    assert report.of("disk_fault") == []
    assert report.held_writes_most > 0
    assert report.storage_log.get("failed", 0) >= hit
    assert report.storage_log.get("written again", 0) >= hit
    assert report.held_turns > 0


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


def test_the_turn_after_a_held_move_is_timed_from_when_the_held_moves_went_out(
    tmp_path: Path,
) -> None:
    """A move sent before the disk was back and first heard of after it was held: the next turn
    starts when the fault's held moves went out (the first of them any client heard of), not
    at each client's own hearing of it; a move heard of before the fault was not held; one that
    no client heard of cannot be told; a fault a restart cut short is left to the restart's
    check."""
    run = Soak(SoakConfig(disk_faults=1), tmp_path / "s.db")
    table = Table(run, 0, [playout("chess", 1, 4)])
    game = GameSeen("g1", "chess", "")
    game.sends = {0: [9.0], 1: [10.2], 2: [10.4, 11.0], 3: [11.9]}
    game.delivered = {0: 9.01, 1: 11.62, 2: 11.61, 3: 11.91}
    table.games.append(game)
    run.tables = [table]
    run.faults = [Fault(began=10.0, restored=11.5, ended=11.7)]
    run.check_faults()
    assert run.report.violations == []
    assert run.faults[0].release == 11.62  # ply 2 was sent twice: it may have gone out earlier
    assert run.turn_start(10.2, 11.62) == (True, 11.62)
    assert run.turn_start(9.95, 11.65) == (True, 11.62)  # sent before the fault, committed in it
    assert run.turn_start(9.0, 9.01) == (False, 9.0)
    assert run.turn_start(9.99, 10.01) == (False, 9.99)  # on its way, delivered before the fault
    assert run.turn_start(11.9, 11.91) == (False, 11.9)  # sent after the disk was back
    assert run.turn_start(10.3, None) == (True, None)
    assert run.turn_start(5.0, None) == (False, 5.0)
    run.faults[0].cut = True
    assert run.turn_start(10.2, 11.62) == (False, 10.2)


def test_a_move_sent_while_the_disk_refused_writes_and_seen_before_it_was_back_is_a_violation(
    tmp_path: Path,
) -> None:
    run = Soak(SoakConfig(disk_faults=1), tmp_path / "s.db")
    table = Table(run, 0, [playout("chess", 1, 4)])
    game = GameSeen("g1", "chess", "")
    game.sends = {0: [10.2], 1: [10.3]}
    game.delivered = {0: 10.21, 1: 11.6}
    table.games.append(game)
    run.tables = [table]
    run.faults = [Fault(began=10.0, restored=11.5, ended=11.7)]
    run.check_faults()
    [violation] = run.report.of("disk_fault")
    assert violation.startswith(
        "disk_fault: fault 1: g1 ply 0, sent 0.200 s into it, reached a client 0.210 s"
    )
    run.report.violations.clear()
    run.faults[0].cut = True  # the restarted server wrote it
    run.check_faults()
    assert run.report.violations == []
