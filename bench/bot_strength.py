"""Bot strength: matches between bot levels, a random mover, and an original-style baseline.

Games run in worker processes (2 by default); colours alternate; every game is capped at
``--max-plies`` plies (a capped game is nobody's win); only real wins count: checkmate, no moves,
five, captain, stop and report (a game's own end, never an adjudication).

Matches (``--match``):

- ``random``: level 4 against a random mover (target: at least 48 of 50 games won).
- ``levels``: level 6 against level 2 (target: at least 70 % of 40 games won).
- ``baseline``: number chess only, level 4 against a baseline that plays like the original
  program: depth-2 alpha-beta on the straight-line distance to the target camp, never breaking the
  report rule (target: at least 75 % of 40 games won).
- ``lawful``: number chess only, level 4 against a random mover that never breaks the report rule
  (so the bot must win by ``stop``, not by reporting).

The default run (about two minutes) plays 4 games of ``random`` per game. Full runs::

    python bench/bot_strength.py --match random --games 50
    python bench/bot_strength.py --match levels --games 40
    python bench/bot_strength.py --match baseline --games 40
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from engines import get
from engines.base import ClaimRefused, Side
from engines.search import BotPlayer
from engines.search.evaluate.shuqi import SIDE_OF_BASE, STOP, ShuqiAdapter, moves_made
from engines.shuqi.board import IN_HOME, POINTS, TARGET_CAMP

GAMES = ("hexgomoku", "chess", "draughts", "shuqi", "custom")
REAL_WINS = frozenset({"checkmate", "no_moves", "five", "captain", "stop", "report"})
DEFAULT_MAX_PLIES = {"chess": 300, "draughts": 200, "hexgomoku": 169, "shuqi": 300, "custom": 300}
TARGETS = {
    "random": (4, "random", 0.96),
    "levels": (6, "level2", 0.70),
    "baseline": (4, "baseline", 0.75),
    "lawful": (4, "lawful", 0.96),
}
"""match -> (bot level, opponent, share of games the bot must win)."""


# ---- opponents ----------------------------------------------------------------------------------


class RandomMover:
    """Plays a uniformly random legal move."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, engine: Any, state: Any) -> tuple[str, str | None]:
        """A random move."""
        return "move", self.rng.choice(engine.legal_moves(state))


class LevelBot:
    """Our bot at a level."""

    def __init__(self, game: str, level: int, seed: int) -> None:
        self.player = BotPlayer(game, level, seed=seed)

    def act(self, engine: Any, state: Any) -> tuple[str, str | None]:
        """The bot's decision."""
        decision = self.player.decide(state)
        return decision.action, decision.move


def _screen(i: int) -> tuple[float, float]:
    x, y = POINTS[i]
    return math.sqrt(3) * x, float(y)


class ShuqiBaseline:
    """Number chess as the original program played: depth-2 alpha-beta on the summed straight-line
    distance of the pieces to the target camp; never breaks the report rule; calls stop when all
    its pieces are in and its score is ahead, and reports a violation it sees."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.near: dict[int, tuple[float, ...]] = {}
        sides: tuple[tuple[int, Side], ...] = ((0, "first"), (10, "second"))
        for base, side in sides:
            camp = [_screen(POINTS.index(p)) for p in TARGET_CAMP[side]]
            self.near[base] = tuple(
                min(math.dist(_screen(i), c) for c in camp) for i in range(len(POINTS))
            )

    def _distance(self, a: ShuqiAdapter, base: int) -> float:
        near = self.near[base]
        return sum(near[a.squares[c]] for c in range(base, base + 10))

    def _value(self, a: ShuqiAdapter) -> float:
        me = a.base
        return self._distance(a, 10 - me) - self._distance(a, me)

    def _legal(self, a: ShuqiAdapter) -> list[Any]:
        me = a.base
        moves = [m for m in a.moves() if m != STOP]
        safe = []
        for m in moves:
            a.push(m)
            made = moves_made(me, a.ply)
            if not (made >= a.home_limit and a.at_home(me)):
                safe.append(m)
            a.pop()
        return safe or moves

    def _root_moves(self, a: ShuqiAdapter) -> list[Any]:
        """Moves that keep the report rule; when the limit nears, those that empty the home camp
        (pieces deep in the camp need several moves, so they start early enough)."""
        moves = self._legal(a)
        home = IN_HOME[SIDE_OF_BASE[a.base]]
        left = a.home_limit - moves_made(a.base, a.ply)
        if a.at_home(a.base) and left <= 2 * a.at_home(a.base) + 6:
            leaving = [m for m in moves if home[m[1]] and not home[m[2]]]
            stirring = [m for m in moves if home[m[1]]]
            moves = leaving or stirring or moves
        return moves

    def _search(self, a: ShuqiAdapter, depth: int, alpha: float, beta: float) -> float:
        if depth == 0:
            return self._value(a)
        if a.violates(10 - a.base):
            return 1e6
        best = -math.inf
        for m in self._legal(a):
            a.push(m)
            score = -self._search(a, depth - 1, -beta, -alpha)
            a.pop()
            best = max(best, score)
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        return best if best > -math.inf else self._value(a)

    def act(self, engine: Any, state: Any) -> tuple[str, str | None]:
        """Report, stop, or the depth-2 best move (ties broken at random)."""
        side = state.turn
        try:
            engine.claim(state, "report", side)
            return "report", None
        except ClaimRefused:
            pass
        a = ShuqiAdapter(state)
        if a.all_in_target(a.base) and a.product_sum(a.base) > a.product_sum(10 - a.base):
            return "stop", None
        best, choices = -math.inf, []
        for m in self._root_moves(a):
            a.push(m)
            score = -self._search(a, 1, -math.inf, math.inf)
            a.pop()
            if score > best + 1e-9:
                best, choices = score, [m]
            elif abs(score - best) <= 1e-9:
                choices.append(m)
        return "move", a.notation(self.rng.choice(choices))


class LawfulRandom(ShuqiBaseline):
    """Number chess: a random move among those that keep the report rule."""

    def act(self, engine: Any, state: Any) -> tuple[str, str | None]:
        """A random lawful move; when the report limit nears, one that leaves the home camp."""
        a = ShuqiAdapter(state)
        return "move", a.notation(self.rng.choice(self._root_moves(a)))


def make_player(spec: str, game: str, seed: int) -> Any:
    """``random``, ``baseline``, ``lawful`` or ``levelN``."""
    if spec == "random":
        return RandomMover(seed)
    if spec == "lawful":
        return LawfulRandom(seed)
    if spec == "baseline":
        return ShuqiBaseline(seed)
    return LevelBot(game, int(spec.removeprefix("level")), seed)


# ---- one game -----------------------------------------------------------------------------------


@dataclass
class GameResult:
    """One finished (or capped) game."""

    game: str
    index: int
    bot_side: str
    winner: str | None
    reason: str
    plies: int
    seconds: float


def play_game(job: tuple[str, str | None, str, str, int, int]) -> GameResult:
    """Play game ``index`` of bot spec against opponent spec; the bot is first on even indices."""
    game, variant, bot_spec, opponent_spec, index, max_plies = job
    engine = get(game)
    options = {"max_plies": max_plies} if "max_plies" in engine.default_options else None
    state = engine.start(variant, options=options)
    bot_side = "first" if index % 2 == 0 else "second"
    players = {
        bot_side: make_player(bot_spec, game, 1000 + index),
        ("second" if bot_side == "first" else "first"): make_player(
            opponent_spec, game, 2000 + index
        ),
    }
    started = time.monotonic()
    while True:
        outcome = engine.outcome(state)
        if outcome is not None:
            break
        if state.ply >= max_plies:
            outcome = None
            break
        action, move = players[state.turn].act(engine, state)
        if action == "move":
            state = engine.play(state, move)
        else:
            outcome = engine.claim(state, action, state.turn)
            break
    seconds = time.monotonic() - started
    if outcome is None:
        return GameResult(game, index, bot_side, None, "capped", state.ply, seconds)
    winner = outcome.winner if outcome.reason in REAL_WINS else None
    return GameResult(game, index, bot_side, winner, outcome.reason, state.ply, seconds)


# ---- matches ------------------------------------------------------------------------------------


def run_match(
    match: str, game: str, variant: str | None, games: int, max_plies: int, processes: int
) -> dict[str, Any]:
    """Play one match and return its figures."""
    level, opponent, target = TARGETS[match]
    jobs = [(game, variant, f"level{level}", opponent, i, max_plies) for i in range(games)]
    started = time.monotonic()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        results = pool.map(play_game, jobs, chunksize=1)
    wins = sum(1 for r in results if r.winner == r.bot_side)
    losses = sum(1 for r in results if r.winner is not None and r.winner != r.bot_side)
    reasons = Counter(
        f"{'bot' if r.winner == r.bot_side else 'opp' if r.winner else 'none'}:{r.reason}"
        for r in results
    )
    return {
        "match": match,
        "game": game,
        "variant": variant,
        "bot": f"level {level}",
        "opponent": opponent,
        "games": games,
        "bot_wins": wins,
        "opponent_wins": losses,
        "no_result": games - wins - losses,
        "target": f">= {math.ceil(target * games)} of {games}",
        "passed": wins >= math.ceil(target * games - 1e-9),
        "reasons": dict(sorted(reasons.items())),
        "mean_plies": round(sum(r.plies for r in results) / max(1, games), 1),
        "wall_seconds": round(time.monotonic() - started, 1),
        "results": [asdict(r) for r in results],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the chosen matches and print one line each (and JSON with ``--out``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match", choices=(*TARGETS, "all"), default="random")
    parser.add_argument("--game", action="append", choices=GAMES, help="repeatable; default all")
    parser.add_argument("--variant", help="variant id (with a single --game)")
    parser.add_argument("--games", type=int, default=4, help="games per match (default 4)")
    parser.add_argument("--max-plies", type=int, help="cap per game (default per game)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", help="write every result as JSON to this file")
    args = parser.parse_args(argv)
    matches = list(TARGETS) if args.match == "all" else [args.match]
    report: list[dict[str, Any]] = []
    for match in matches:
        shuqi_only = match in ("baseline", "lawful")
        games = args.game or (["shuqi"] if shuqi_only else list(GAMES))
        for game in games:
            if shuqi_only and game != "shuqi":
                continue
            cap = args.max_plies or DEFAULT_MAX_PLIES[game]
            figures = run_match(match, game, args.variant, args.games, cap, args.processes)
            report.append(figures)
            print(
                f"{match:8} {game:9} {figures['bot']} vs {figures['opponent']:8} "
                f"won {figures['bot_wins']:3}/{figures['games']:<3} lost "
                f"{figures['opponent_wins']:3} none {figures['no_result']:3} "
                f"target {figures['target']:12} {'PASS' if figures['passed'] else 'FAIL'} "
                f"plies {figures['mean_plies']:6} {figures['wall_seconds']:7.1f}s "
                f"{figures['reasons']}",
                flush=True,
            )
            if args.out:
                with open(args.out, "w", encoding="utf-8") as handle:
                    json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
