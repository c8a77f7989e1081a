"""bench/hall_hotpath.py plays every game through the hall and prints its cost per move."""

from __future__ import annotations

import pytest

from bench import hall_hotpath
from bench.scripts import GAMES


def test_every_game_is_played_through_the_hall(capsys: pytest.CaptureFixture[str]) -> None:
    assert hall_hotpath.main(["--rounds", "1"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()}
    assert list(rows) == [*GAMES, "all"]
    assert sum(int(rows[game][1]) for game in GAMES) == int(rows["all"][1]) > 0
    assert all(float(row[3]) > 0 and row[4] == "us/move" for row in rows.values())
