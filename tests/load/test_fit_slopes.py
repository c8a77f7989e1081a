"""bench/fit_slopes.py: the maximum-likelihood slope, its bootstrap over whole games, and a tiny
run of the real bots through the analysis's evaluation."""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from bench import fit_slopes
from bench.fit_slopes import (
    GAMES,
    GameRecord,
    Settings,
    bootstrap,
    calibration_rows,
    fit_slope,
    game_tally,
    interval,
    play_game,
    tally,
)


def log_likelihood(points: list[tuple[float, float]], slope: float) -> float:
    """The binomial log-likelihood the fit maximises, written out plainly."""
    total = 0.0
    for evaluation, result in points:
        p = 1 / (1 + math.exp(-slope * evaluation))
        total += result * math.log(p) + (1 - result) * math.log(1 - p)
    return total


def given(found: tuple[float, float] | None) -> tuple[float, float]:
    """An interval that could be given."""
    assert found is not None
    return found


def synthetic_games(slope: float, games: int, seed: int, game: str = "chess") -> list[GameRecord]:
    """Games whose result is drawn from the logistic of ``slope`` at their evaluation: each
    game is a few positions of one evaluation; a share of them drawn, so the mean score is
    still the curve's."""
    rng = random.Random(seed)
    records = []
    for index in range(games):
        evaluation = rng.randint(-700, 700)
        p = 1 / (1 + math.exp(-slope * evaluation))
        draw = min(p, 1 - p)  # P(1) = p - draw/2 and P(0) = 1 - p - draw/2: the mean is p
        u = rng.random()
        result = 0.5 if u < draw else 1.0 if u < draw + p - draw / 2 else 0.0
        records.append(
            GameRecord(
                game, index, result, "synthetic", 40, [evaluation] * rng.randint(1, 4), 0, 0.0
            )
        )
    return records


def test_the_fit_solves_small_cases_exactly() -> None:
    """Three wins in four at +100 and the mirror at -100: p(100) = 3/4, slope ln 3 / 100;
    a draw counts as half a win (a win and a draw at +100 is the same 3/4)."""
    wins = [(100.0, 1.0)] * 3 + [(100.0, 0.0)] + [(-100.0, 0.0)] * 3 + [(-100.0, 1.0)]
    assert fit_slope(tally(wins)) == pytest.approx(math.log(3) / 100, rel=1e-9)
    assert fit_slope(tally([(100.0, 1.0), (100.0, 0.5)])) == pytest.approx(math.log(3) / 100)
    assert fit_slope(tally([(250.0, 0.5), (-40.0, 0.5)])) == pytest.approx(0.0, abs=1e-12)
    assert fit_slope(tally([(-100.0, 1.0), (-100.0, 1.0), (-100.0, 0.0)])) == pytest.approx(
        -math.log(2) / 100
    )
    assert fit_slope(tally([(100.0, 1.0), (-50.0, 0.0)])) == math.inf  # no finite best
    assert fit_slope(tally([(100.0, 0.0), (-50.0, 1.0)])) == -math.inf
    assert fit_slope(tally([(0.0, 1.0), (0.0, 0.0)])) == 0.0
    assert fit_slope({}) == 0.0


def test_the_fit_recovers_a_known_slope_and_its_interval_covers_it() -> None:
    true = 0.004
    records = synthetic_games(true, 3000, seed=7)
    fitted = fit_slope(game_tally(records))
    assert fitted == pytest.approx(true, rel=0.08)
    points = [(float(e), r.result) for r in records for e in r.evals if r.result is not None]
    best = log_likelihood(points, fitted)
    assert best > log_likelihood(points, fitted * 1.01)
    assert best > log_likelihood(points, fitted * 0.99)
    low, high = given(interval(bootstrap(records, 200, seed=1)))
    assert low < true < high
    assert low < fitted < high
    assert high - low < 0.4 * true  # 3000 games pin it down
    wide_low, wide_high = given(interval(bootstrap(records[:100], 200, seed=1)))
    assert wide_high - wide_low > high - low  # fewer games, a wider interval


def test_every_game_is_calibrated_by_lichess_over_chess() -> None:
    """Bots converting at half lichess's chess slope: a game fitted at 0.004 is read as 0.008,
    the interval covers it, and chess itself comes out at lichess's slope."""
    lichess = fit_slopes.LICHESS_SLOPE
    records = [
        *synthetic_games(lichess / 2, 2000, seed=1),
        *synthetic_games(0.004, 2000, seed=2, game="draughts"),
    ]
    table = fit_slopes.figures(records, ["chess", "draughts"], 200, seed=0)
    chess, draughts = table["games"]["chess"], table["games"]["draughts"]
    assert table["ratio"] == pytest.approx(lichess / chess["fitted"])
    assert table["ratio"] == pytest.approx(2, rel=0.12)
    assert chess["calibrated"] == pytest.approx(lichess)
    assert draughts["calibrated"] == pytest.approx(draughts["fitted"] * table["ratio"])
    low, high = draughts["calibrated_ci"]
    assert low < 0.008 < high
    fitted_low, fitted_high = draughts["ci"]
    relative = (fitted_high - fitted_low) / draughts["fitted"]
    assert (high - low) / draughts["calibrated"] > relative  # chess's doubt is in it too
    assert draughts["games"] == 2000 and draughts["current"] == fit_slopes.SCALES["draughts"].slope
    alone = fit_slopes.figures(records, ["draughts"], 20, seed=0)
    assert alone["ratio"] is None and alone["games"]["draughts"]["calibrated"] is None


def test_the_bootstrap_resamples_whole_games() -> None:
    """Two games, one position-heavy: each refit sees every position of a game it draws."""
    heavy = GameRecord("chess", 0, 1.0, "x", 50, [100] * 9, 0, 0.0)
    light = GameRecord("chess", 1, 0.0, "x", 50, [100], 0, 0.0)
    fits = set(bootstrap([heavy, light], 100, seed=3))
    expected = {fit_slope(tally([(100.0, 1.0)] * 9 + [(100.0, 0.0)])), math.inf, -math.inf}
    assert fits == expected


def test_the_bands_leave_out_positions_where_no_side_is_ahead() -> None:
    """A position evaluated 0 has no side ahead: it is in no band (it was counted as the second
    player ahead, so a first player's win there read as the side ahead losing). The side ahead
    is the first player at +50 and the second at -150 (a second player's loss: 0)."""
    records = [
        GameRecord("chess", 0, 1.0, "mate", 40, [0, 0, 50], 0, 0.0),
        GameRecord("chess", 1, 1.0, "mate", 40, [-150], 0, 0.0),
    ]
    rows = calibration_rows(records, 0.004, [0, 100, 200])
    assert [(band, n, seen) for band, n, seen, _ in rows] == [
        ("0-100", 1, 1.0),
        ("100-200", 1, 0.0),
    ]
    assert rows[0][3] == pytest.approx(1 / (1 + math.exp(-0.2)))


def test_a_tiny_run_plays_every_game_and_fits_what_it_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, figures = tmp_path / "games.jsonl", tmp_path / "figures.json"
    tiny = ["--games", "2", "--move-nodes", "100", "--eval-nodes", "100", "--bootstrap", "50"]
    assert fit_slopes.main([*tiny, "--out", str(out), "--json", str(figures)]) == 0
    printed = capsys.readouterr().out
    records = fit_slopes.load([str(out)])
    assert sorted((r.game, r.index) for r in records) == sorted(
        (g, i) for g in GAMES for i in range(2)
    )
    for record in records:
        assert record.result in (0.0, 0.5, 1.0), record
        sampled = len(record.evals) + record.skipped  # plies 8 on; a claim's position too
        assert record.evals and record.plies - 8 <= sampled <= record.plies - 7, record
        assert all(abs(e) < fit_slopes.SCALES[record.game].clamp for e in record.evals)
    again = play_game(("hexgomoku", 1, Settings(move_nodes=100, eval_nodes=100)))
    assert again == next(r for r in records if (r.game, r.index) == ("hexgomoku", 1))
    table = json.loads(figures.read_text())
    for game in GAMES:
        row = table["games"][game]
        mine = [r for r in records if r.game == game]
        assert row["games"] == 2
        assert row["positions"] == sum(len(r.evals) for r in mine)
        assert row["fitted"] == fit_slope(game_tally(mine))
        assert row["current"] == fit_slopes.SCALES[game].slope
        assert any(line.startswith(game) for line in printed.splitlines())
    assert fit_slopes.main(["--records", str(out), "--json", str(figures)]) == 0
    assert (
        json.loads(figures.read_text())["games"]["shuqi"]["fitted"]
        == table["games"]["shuqi"]["fitted"]
    )


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["--bootstrap", "0"], "argument --bootstrap: must be a whole number, 1 or more, not 0"),
        (["--bootstrap", "many"], "argument --bootstrap: must be a whole number, 1 or more"),
        (["--games", "0"], "argument --games: must be a whole number, 1 or more, not 0"),
        (["--processes", "0"], "argument --processes: must be a whole number, 1 or more"),
        (["--level", "9"], "argument --level: must be a bot level from 1 to 8, not 9"),
        (["--move-nodes", "0"], "argument --move-nodes: must be a whole number, 1 or more"),
        (["--eval-nodes", "0"], "argument --eval-nodes: must be a whole number, 1 or more"),
        (["--max-plies", "0"], "argument --max-plies: must be a whole number, 1 or more"),
        (["--from-ply", "-1"], "argument --from-ply: must be a whole number, 0 or more"),
        (["--opening-plies", "-1"], "argument --opening-plies: must be a whole number, 0 or"),
        (["--first-index", "-1"], "argument --first-index: must be a whole number, 0 or more"),
    ],
)  # fmt: skip
def test_a_bad_flag_is_refused_naming_it_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], wanted: str
) -> None:
    """Exit status 2 and the flag with what it takes, before a game is loaded or played, a
    refit run or a file written (each run is given saved games, so a flag let through fits
    them at once instead of playing)."""
    saved, figures = tmp_path / "games.jsonl", tmp_path / "figures.json"
    saved.write_text(
        "".join(json.dumps(asdict(r)) + "\n" for r in synthetic_games(0.004, 20, seed=3))
    )
    with pytest.raises(SystemExit) as refused:
        fit_slopes.main([*argv, "--records", str(saved), "--json", str(figures)])
    assert refused.value.code == 2
    printed = capsys.readouterr()
    assert wanted in printed.err and printed.out == ""
    assert not figures.exists()


def test_records_that_cannot_be_read_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --records file that is missing or not saved games: exit status 2 naming the file."""
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text('{"game": "chess"}\nnot json\n')
    for path in (tmp_path / "missing.jsonl", garbled):
        with pytest.raises(SystemExit) as refused:
            fit_slopes.main(["--records", str(path)])
        assert refused.value.code == 2
        printed = capsys.readouterr()
        assert f"argument --records: cannot read {path}: " in printed.err, printed.err
        assert printed.out == ""


def test_an_interval_leaves_nothing_to_the_order_of_nan() -> None:
    """Infinite refits are ends like any other; a refit with no value (NaN) or no refit at all
    gives no interval rather than whatever a sort with NaN in it happens to leave."""
    assert interval([-math.inf, 1.0, 2.0, math.inf]) == (-math.inf, math.inf)
    assert interval([1.0] * 39 + [math.inf]) == (1.0, math.inf)
    assert interval([3.0]) == (3.0, 3.0)
    assert interval([]) is None
    assert interval([1.0, math.nan, 2.0]) is None
    with pytest.raises(ValueError, match="no values"):
        fit_slopes.percentile([], 0.5)


def test_refits_without_a_calibration_are_said_not_averaged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two chess games and two draughts games, a won one heavy with positions and a lost one:
    refits that draw only the won (lost) game fit an infinite slope, and a refit whose chess
    slope is infinite has no ratio, so no calibrated value (it was inf/inf: NaN). The calibrated
    interval is then not given, the JSON says how many refits had none, and the table says
    why instead of printing numbers."""
    records = [
        GameRecord("chess", 0, 1.0, "x", 50, [100] * 9, 0, 0.0),
        GameRecord("chess", 1, 0.0, "x", 50, [100], 0, 0.0),
        GameRecord("draughts", 0, 1.0, "x", 50, [200] * 9, 0, 0.0),
        GameRecord("draughts", 1, 0.0, "x", 50, [200], 0, 0.0),
    ]
    table = fit_slopes.figures(records, ["chess", "draughts"], 200, seed=0)
    chess, draughts = table["games"]["chess"], table["games"]["draughts"]
    assert table["ratio"] is not None and math.isfinite(draughts["calibrated"])
    assert chess["ci"] == (-math.inf, math.inf)  # a refit of only one game has no finite best
    assert draughts["calibrated_ci"] is None
    assert 0 < draughts["calibrated_refits_without_value"] < 200
    fit_slopes.print_figures(table)
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.startswith("draughts "))
    assert "none" in row and "nan" not in row.lower()
    n = draughts["calibrated_refits_without_value"]
    assert (
        f"draughts: no calibrated 95% CI: {n} of 200 refits have no value (chess's refit "
        "has no finite positive slope to calibrate by)"
    ) in lines
