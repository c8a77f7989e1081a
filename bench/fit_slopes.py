"""Fit each game's winning-chances slope (engines/search/analysis.py's SCALES) to bot games.

The replay analysis reads an evaluation ``e`` (the first player's view) as an expected score of
``1 / (1 + exp(-slope * e))`` for the first player (lichess's curve). This script plays seeded
games between the project's own bots, evaluates sampled positions with the analysis's own
:func:`~engines.search.analysis.evaluate_position`, and fits ``slope`` to the games' results by
maximum likelihood.

- **Games.** Both sides are :class:`~engines.search.BotPlayer` with a fixed node budget per move
  (``--move-nodes``, 3000 by default; no clock, so the games are the same on any machine). The
  first ``--opening-plies`` plies (6) are played at level 1 (random among moves within 150 units
  of the best, seeded by the game's index), the rest at ``--level`` (3: the best move found), so
  every game differs and is then played as well as the budget allows. Default variants, each
  game's own end (no cap unless ``--max-plies``; a capped game has no result and is left out).
- **Positions.** Every ply from ``--from-ply`` (8) on, until the game ends: the analysis's
  evaluation at ``--eval-nodes`` (default: each game's own analysis budget), skipped when it is
  at the clamp or a forced win was found (the analysis reads those as certain, not by the curve).
- **Fit.** One parameter, no intercept: the slope maximising the binomial likelihood
  ``sum y*log(p) + (1-y)*log(1-p)``, ``p = 1/(1+exp(-slope*e))``, with ``y`` the game's result
  for the first player (1, 0.5 for a draw, 0), by Newton's method on the concave log-likelihood.
  The confidence interval is the 2.5-97.5 percentile of ``--bootstrap`` refits, each on games
  drawn with replacement (whole games: the positions of one game share its result).
- **Calibration.** The bots do not convert an advantage as lichess's players do (more surely, it
  turned out: they see what the evaluation sees), so chess's own fit is not lichess's 0.00368208.
  The ratio lichess / fitted chess is applied to every game: calibrated = fitted x ratio (its
  interval bootstraps chess and the game together; a refit whose chess slope is not finite and
  positive has no ratio, and with any such refit the calibrated interval reads ``none``, the
  count said under the table). Under the table, the side ahead's mean score
  by size of advantage against the fitted curve shows whether one curve describes the game.

The default run (about two minutes of one core) plays 1 game per game, too few for a useful
interval; the run behind the slopes in SCALES (about 35 minutes of one core), keeping every game
in a file so it can be refitted or extended::

    nice -n 19 python bench/fit_slopes.py --games 28 --processes 2 --bootstrap 2000 --out g.jsonl
    python bench/fit_slopes.py --records g.jsonl --bootstrap 2000        # refit, no play
    nice -n 19 python bench/fit_slopes.py --games 10 --first-index 28 --out more.jsonl

Games run in ``--processes`` worker processes (1 by default: the machine is shared).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TextIO

from engines import get
from engines.search import BotPlayer
from engines.search.analysis import SCALES, evaluate_position
from engines.search.levels import LEVELS
from server.flags import bounded, whole

GAMES = ("chess", "draughts", "shuqi", "hexgomoku")
LICHESS_SLOPE = 0.00368208
"""Lichess's slope per centipawn, fitted to its players' games."""
RESULT_OF = {"first": 1.0, "second": 0.0, None: 0.5}
"""The first player's score by the winner."""
LEVEL = bounded(int, f"a bot level from {min(LEVELS)} to {max(LEVELS)}", min(LEVELS), max(LEVELS))
"""``--level``: one the bots have."""


# ---- playing and sampling -----------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """How the games are played and sampled (the same for every game)."""

    level: int = 3
    opening_plies: int = 6
    move_nodes: int = 3000
    eval_nodes: int | None = None
    """``None``: each game's own analysis budget (``SCALES[game].nodes``)."""
    from_ply: int = 8
    max_plies: int | None = None


@dataclass(frozen=True)
class GameRecord:
    """One game played: its result and the evaluations of its sampled positions."""

    game: str
    index: int
    result: float | None
    """The first player's score (1, 0.5, 0); ``None`` when the game was capped."""
    reason: str
    plies: int
    evals: list[int]
    """The analysis's evaluation (first player's view) of each sampled position."""
    skipped: int
    """Sampled positions left out: at the clamp or with a forced win found."""
    cpu_seconds: float


def play_game(job: tuple[str, int, Settings]) -> GameRecord:
    """Play game ``index`` of ``game`` between two bots and evaluate its positions."""
    game, index, settings = job
    started = time.process_time()
    engine = get(game)
    scale = SCALES[game]
    seed = 1000 * index
    opening = BotPlayer(game, 1, seed=seed)
    bots = {
        side: BotPlayer(game, settings.level, seed=seed + n)
        for n, side in enumerate(("first", "second"), 1)
    }
    state = engine.start(None)
    evals: list[int] = []
    skipped = 0
    outcome = engine.outcome(state)
    while outcome is None:
        if settings.max_plies is not None and state.ply >= settings.max_plies:
            break
        if state.ply >= settings.from_ply:
            found = evaluate_position(engine, state, settings.eval_nodes)
            if found.mate is None and abs(found.score) < scale.clamp:
                evals.append(found.score)
            else:
                skipped += 1
        bot = opening if state.ply < settings.opening_plies else bots[state.turn]
        decision = bot.decide(state, nodes=settings.move_nodes)
        if decision.move is not None:
            state = engine.play(state, decision.move)
            outcome = engine.outcome(state)
        else:
            outcome = engine.claim(state, decision.action, state.turn)
    cpu = round(time.process_time() - started, 2)
    if outcome is None:
        return GameRecord(game, index, None, "capped", state.ply, evals, skipped, cpu)
    result = RESULT_OF[outcome.winner]
    return GameRecord(game, index, result, outcome.reason, state.ply, evals, skipped, cpu)


# ---- the fit ------------------------------------------------------------------------------------

Tally = Mapping[float, tuple[float, float]]
"""Evaluation -> (weight of the positions with it, their summed results)."""


def tally(points: Iterable[tuple[float, float]]) -> dict[float, tuple[float, float]]:
    """The :data:`Tally` of ``(evaluation, result)`` points, one weight each."""
    table: dict[float, tuple[float, float]] = {}
    for evaluation, result in points:
        weight, total = table.get(evaluation, (0.0, 0.0))
        table[evaluation] = (weight + 1, total + result)
    return table


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    z = math.exp(x)
    return z / (1 + z)


def _gradient(table: Tally, slope: float) -> tuple[float, float]:
    """The log-likelihood's first and second derivatives in ``slope``."""
    first = second = 0.0
    for evaluation, (weight, total) in table.items():
        p = _sigmoid(slope * evaluation)
        first += evaluation * (total - weight * p)
        second -= weight * evaluation * evaluation * p * (1 - p)
    return first, second


def fit_slope(table: Tally, tolerance: float = 1e-12) -> float:
    """The maximum-likelihood slope of ``table`` (no intercept; results in 0..1).

    The log-likelihood is concave in the slope, so its derivative falls: Newton steps kept
    inside a bracket where the derivative changes sign (halving it when a step leaves it).
    Returns ``inf`` (``-inf``) when the results only rise (fall) with the evaluation, so no
    finite slope is best; 0 without any position off 0.
    """
    sided = [(e, weight, total) for e, (weight, total) in table.items() if e and weight]
    if not sided:
        return 0.0
    if all(total == (weight if e > 0 else 0) for e, weight, total in sided):
        return math.inf
    if all(total == (0 if e > 0 else weight) for e, weight, total in sided):
        return -math.inf
    low, high = -1e-3, 1e-3
    while _gradient(table, high)[0] > 0:
        low, high = high, high * 4
    while _gradient(table, low)[0] < 0:
        low, high = low * 4, low
    slope = (low + high) / 2
    for _ in range(200):
        first, second = _gradient(table, slope)
        if first > 0:
            low = slope
        else:
            high = slope
        if first == 0:
            return slope
        step = slope - first / second if second < 0 else math.nan
        done = abs(step - slope) <= tolerance * abs(slope)
        slope = step if low < step < high else (low + high) / 2
        if done or high - low <= tolerance * abs(slope):
            return slope
    return slope


def game_tally(records: Sequence[GameRecord]) -> dict[float, tuple[float, float]]:
    """The :data:`Tally` of every sampled position of ``records`` with a result."""
    return tally((float(e), r.result) for r in records if r.result is not None for e in r.evals)


def bootstrap(records: Sequence[GameRecord], reps: int, seed: int) -> list[float]:
    """``reps`` refits, each on as many games drawn with replacement from ``records``."""
    scored = [(Counter(r.evals), r.result) for r in records if r.result is not None]
    rng = random.Random(seed)
    slopes = []
    for _ in range(reps):
        table: dict[float, tuple[float, float]] = {}
        for counts, result in rng.choices(scored, k=len(scored)):
            for evaluation, n in counts.items():
                weight, total = table.get(evaluation, (0.0, 0.0))
                table[evaluation] = (weight + n, total + n * result)
        slopes.append(fit_slope(table))
    return slopes


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` (0..1) percentile of ``values``, linear between the nearest two: so an
    infinite neighbour is the answer, as the line to it is infinite everywhere short of it.
    Raises ``ValueError`` for no values or a NaN (a sort with NaN in it leaves the order
    anywhere)."""
    if not values:
        raise ValueError("a percentile of no values")
    if any(math.isnan(v) for v in values):
        raise ValueError("a percentile of values with NaN among them")
    ordered = sorted(values)
    where = share * (len(ordered) - 1)
    below = math.floor(where)
    above = min(below + 1, len(ordered) - 1)
    low, high = ordered[below], ordered[above]
    if where == below or low == high or low == -math.inf:
        return low
    if high == math.inf:
        return high
    return low + (high - low) * (where - below)


def interval(values: Sequence[float]) -> tuple[float, float] | None:
    """The 95 % percentile interval of bootstrap ``values`` (an infinite end when that many
    refits found no finite best); ``None`` when it cannot be given: no refits, or a refit
    without a value (NaN), which no place in the order would stand for honestly."""
    if not values or any(math.isnan(v) for v in values):
        return None
    return percentile(values, 0.025), percentile(values, 0.975)


def calibrated_refits(slopes: Sequence[float], chess: Sequence[float]) -> list[float]:
    """Each refit of a game calibrated by the refit of chess drawn beside it (lichess / chess);
    NaN where chess's refit has no finite positive slope, so there is no ratio to apply."""
    return [
        s * (LICHESS_SLOPE / c) if math.isfinite(c) and c > 0 else math.nan
        for s, c in zip(slopes, chess, strict=True)
    ]


# ---- reporting ----------------------------------------------------------------------------------


def calibration_rows(
    records: Sequence[GameRecord], slope: float, edges: Sequence[int]
) -> list[tuple[str, int, float, float]]:
    """Per band of ``|evaluation|``: the side ahead's observed mean score against the curve's
    (a position evaluated 0 has no side ahead and is in no band)."""
    rows = []
    for low, high in itertools.pairwise(edges):
        seen = predicted = 0.0
        count = 0
        for record in records:
            if record.result is None:
                continue
            for e in record.evals:
                if e and low <= abs(e) < high:
                    ahead = record.result if e > 0 else 1 - record.result
                    seen += ahead
                    predicted += _sigmoid(slope * abs(e))
                    count += 1
        if count:
            rows.append((f"{low}-{high}", count, seen / count, predicted / count))
    return rows


def load(paths: Sequence[str]) -> list[GameRecord]:
    """The records saved by ``--out`` in ``paths`` (JSON lines)."""
    records: list[GameRecord] = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            records.extend(GameRecord(**json.loads(line)) for line in handle if line.strip())
    return records


def play(
    games: Sequence[str],
    count: int,
    first: int,
    settings: Settings,
    processes: int,
    out: str | None,
) -> list[GameRecord]:
    """Play ``count`` games of each game (indices from ``first``), saving each as it ends."""
    jobs = [(game, index, settings) for index in range(first, first + count) for game in games]
    sink = open(out, "a", encoding="utf-8") if out else None  # noqa: SIM115
    try:
        if processes > 1:
            with multiprocessing.get_context("fork").Pool(processes) as pool:
                return _each(pool.imap_unordered(play_game, jobs), sink)
        return _each(map(play_game, jobs), sink)
    finally:
        if sink is not None:
            sink.close()


def _each(results: Iterable[GameRecord], sink: TextIO | None) -> list[GameRecord]:
    """Each game as it ends: appended to ``sink`` and a line printed."""
    records = []
    for record in results:
        if sink is not None:
            print(json.dumps(asdict(record)), file=sink, flush=True)
        print(
            f"  {record.game:9} game {record.index:4} {record.reason:12} "
            f"result {record.result} plies {record.plies:3} positions {len(record.evals):3} "
            f"cpu {record.cpu_seconds:6.1f}s",
            flush=True,
        )
        records.append(record)
    return records


def figures(records: Sequence[GameRecord], games: Sequence[str], reps: int, seed: int) -> dict:
    """Every game of ``games`` fitted on its ``records``: counts, fitted slope and interval,
    calibrated slope and interval (when chess is among them), current slope, bands."""
    by_game = {g: [r for r in records if r.game == g] for g in games}
    fits = {g: fit_slope(game_tally(rs)) for g, rs in by_game.items()}
    boots = {g: bootstrap(rs, reps, seed + n) for n, (g, rs) in enumerate(by_game.items())}
    chess = fits.get("chess")
    ratio = LICHESS_SLOPE / chess if chess and math.isfinite(chess) and chess > 0 else None
    table: dict = {"ratio": ratio, "games": {}}
    for game, rs in by_game.items():
        scored = [r for r in rs if r.result is not None]
        wdl = Counter(r.result for r in scored)
        row = {
            "games": len(scored),
            "wins": wdl[1.0],
            "draws": wdl[0.5],
            "losses": wdl[0.0],
            "capped": len(rs) - len(scored),
            "positions": sum(len(r.evals) for r in scored),
            "fitted": fits[game],
            "ci": interval(boots[game]),
            "current": SCALES[game].slope,
            "calibrated": None,
            "calibrated_ci": None,
            "calibrated_refits_without_value": 0,
            "refits": reps,
            "cpu_seconds": round(sum(r.cpu_seconds for r in rs), 1),
            "bands": calibration_rows(rs, fits[game], [0, 100, 200, 400, 700, SCALES[game].clamp]),
        }
        if ratio is not None:
            row["calibrated"] = fits[game] * ratio
            refits = calibrated_refits(boots[game], boots["chess"])
            row["calibrated_ci"] = interval(refits)
            row["calibrated_refits_without_value"] = sum(math.isnan(v) for v in refits)
        table["games"][game] = row
    return table


def print_figures(table: dict) -> None:
    """One line per game, the ratio, and each game's bands of the side ahead."""
    print(
        f"{'game':9} {'games':>5} {'first W/D/L':>13} {'capped':>6} {'positions':>9} "
        f"{'fitted':>9} {'95% CI (games resampled)':>24} {'calibrated':>10} "
        f"{'95% CI':>21} {'current':>10}  current in calibrated CI"
    )
    for game, row in table["games"].items():
        calibrated, ci, cal_ci = row["calibrated"], row["ci"], row["calibrated_ci"]
        inside = (
            "-" if cal_ci is None else "yes" if cal_ci[0] <= row["current"] <= cal_ci[1] else "NO"
        )
        print(
            f"{game:9} {row['games']:5}   {row['wins']:3}/{row['draws']:3}/{row['losses']:3} "
            f"{row['capped']:6} {row['positions']:9} {row['fitted']:9.6f} "
            f"{_span(ci):>24} "
            f"{'-' if calibrated is None else f'{calibrated:.6f}':>10} "
            f"{'-' if calibrated is None else _span(cal_ci):>21} "
            f"{row['current']:10.6f}  {inside}"
        )
    for game, row in table["games"].items():
        if row["ci"] is None:
            print(f"{game}: no 95% CI: no refits")
        if row["calibrated"] is not None and row["calibrated_ci"] is None:
            print(
                f"{game}: no calibrated 95% CI: {row['calibrated_refits_without_value']} of "
                f"{row['refits']} refits have no value (chess's refit has no finite positive "
                "slope to calibrate by)"
            )
    ratio = table["ratio"]
    if ratio is not None:
        chess = table["games"]["chess"]["fitted"]
        print(f"lichess / fitted chess = {LICHESS_SLOPE} / {chess:.6f} = {ratio:.3f}")
    else:
        print("no calibration: chess's fit (--game chess) must be a finite positive slope")
    for game, row in table["games"].items():
        print(
            f"{game:9} side ahead, seen vs fitted curve: "
            + ", ".join(
                f"{band} {seen:.2f}/{curve:.2f} (n={n})" for band, n, seen, curve in row["bands"]
            )
        )


def _span(ci: Sequence[float] | None) -> str:
    """An interval as the table shows it (``none``: it cannot be given, said under the table)."""
    return "none" if ci is None else f"{ci[0]:.6f} - {ci[1]:.6f}"


def saved_games(path: str) -> list[GameRecord]:
    """``--records``: the games saved in ``path``, read while the flags are (a file that cannot
    be read is refused by name before anything runs)."""
    try:
        return load([path])
    except (OSError, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    """Play (or load) the games, fit every game's slope and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="repeatable; default all")
    parser.add_argument("--games", type=whole(1), default=1, help="games per game (default 1)")
    parser.add_argument(
        "--first-index",
        type=whole(0),
        default=0,
        help="index (seed) of the first game, to extend an earlier run",
    )
    parser.add_argument("--level", type=LEVEL, default=Settings.level)
    parser.add_argument("--opening-plies", type=whole(0), default=Settings.opening_plies)
    parser.add_argument("--move-nodes", type=whole(1), default=Settings.move_nodes)
    parser.add_argument(
        "--eval-nodes",
        type=whole(1),
        help="nodes per evaluation, every game (default: the game's analysis's)",
    )
    parser.add_argument("--from-ply", type=whole(0), default=Settings.from_ply)
    parser.add_argument("--max-plies", type=whole(1), help="cap per game (default: none)")
    parser.add_argument("--processes", type=whole(1), default=1)
    parser.add_argument("--bootstrap", type=whole(1), default=500, help="refits for the interval")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument(
        "--records",
        action="append",
        type=saved_games,
        default=[],
        help="fit games saved by --out instead of playing (repeatable)",
    )
    parser.add_argument("--out", help="append every game played to this file (JSON lines)")
    parser.add_argument("--json", help="write the figures as JSON to this file")
    args = parser.parse_args(argv)
    games = args.game or list(GAMES)
    started = time.monotonic()
    if args.records:
        records = [r for saved in args.records for r in saved if r.game in games]
    else:
        settings = Settings(
            args.level,
            args.opening_plies,
            args.move_nodes,
            args.eval_nodes,
            args.from_ply,
            args.max_plies,
        )
        print(f"playing {args.games} game(s) of {', '.join(games)}: {settings}", flush=True)
        records = play(games, args.games, args.first_index, settings, args.processes, args.out)
    table = figures(records, games, args.bootstrap, args.seed)
    print_figures(table)
    print(f"{time.monotonic() - started:.1f} s", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(table, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
