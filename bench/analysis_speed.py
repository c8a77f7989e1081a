"""CPU time per ply of the replay analysis, per game, in one process (ratios against chess).

Each case is a seeded random game of ``--plies`` plies (random moves blunder, so many moves get
the best move's position searched and the 4x check, as a beginner's game does), analysed by
:func:`engines.search.analysis.iter_analysis` at the game's own node budget, one case after the
other, so the ratios compare the games on the same machine in the same minute. Prints CPU
seconds per position, the nodes searched (every position, the best move's positions and the
checks) and nodes per CPU second, and each figure over chess's.

    python bench/analysis_speed.py                  # 12 plies, well under two minutes
    python bench/analysis_speed.py --plies 20 --only chess custom/xiangqi-jbq

``custom/xiangqi-jbq`` is the JBQ map 中国象棋.xlsx, read from ``--maps`` (default
``$BOARDHALL_JBQ_MAPS``, else ``$BOARDHALL_SHARED/jbq-maps``); it is left out when not there.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engines
from engines.base import Engine
from engines.search.analysis import PositionEval, iter_analysis

CASES: tuple[tuple[str, str | None], ...] = (
    ("chess", None),
    ("draughts", None),
    ("shuqi", None),
    ("hexgomoku", None),
    ("custom", "xiangqi"),
    ("custom", "xiangqi-jbq"),
)
"""(game, variant) pairs measured, in print order; chess first (the ratios' base)."""
JBQ_XIANGQI = "中国象棋.xlsx"


@dataclass
class Figures:
    """What the analysis of one case cost."""

    positions: int
    seconds: float
    nodes: int
    checked: int
    """Moves whose positions were searched again with four times the nodes."""

    @property
    def per_position(self) -> float:
        """CPU seconds per analysed position."""
        return self.seconds / max(1, self.positions)

    @property
    def nodes_per_second(self) -> float:
        """Search nodes per CPU second."""
        return self.nodes / self.seconds if self.seconds else 0.0


def default_maps() -> Path:
    """Where the JBQ maps are by default (as the tests find them)."""
    shared = os.environ.get("BOARDHALL_SHARED", "/work/shared")
    return Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(shared, "jbq-maps")))


def random_game(engine: Engine, variant: str | None, plies: int, seed: int) -> list[Any]:
    """The states of a seeded random game of at most ``plies`` plies, from its start."""
    rng = random.Random(seed)
    states = [engine.start(variant)]
    while len(states) <= plies and engine.outcome(states[-1]) is None:
        states.append(engine.play(states[-1], rng.choice(engine.legal_moves(states[-1]))))
    return states


def searched_nodes(found: PositionEval) -> int:
    """Nodes of every search behind one position's analysis."""
    extra = [part for part in (found.instead, found.checked) if part is not None]
    return found.nodes + sum(part.nodes for part in extra)


def measure(engine: Engine, variant: str | None, plies: int, seed: int) -> Figures:
    """Analyse one seeded game and time it in CPU seconds."""
    states = random_game(engine, variant, plies, seed)
    start = time.process_time()
    evals = list(iter_analysis(engine, states))
    seconds = time.process_time() - start
    return Figures(
        len(evals),
        seconds,
        sum(searched_nodes(e) for e in evals),
        sum(e.checked is not None for e in evals),
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, analyse every case, print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--plies", type=int, default=12, help="plies of each random game")
    parser.add_argument("--seed", type=int, default=1, help="the random games' seed")
    parser.add_argument(
        "--maps",
        type=Path,
        default=default_maps(),
        help="the JBQ maps' directory (for custom/xiangqi-jbq)",
    )
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="cases to run, as game or game/variant (e.g. custom/xiangqi-jbq)",
    )
    args = parser.parse_args(argv)
    custom = engines.get("custom")
    jbq = args.maps / JBQ_XIANGQI
    has_jbq = jbq.exists()
    if has_jbq:
        custom.load_file(jbq)  # type: ignore[attr-defined]
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"{args.plies} plies, seed {args.seed}, CPU seconds"
    )
    print(
        f"{'case':<22}{'positions':>10}{'checked':>8}{'s/position':>11}{'nodes':>9}"
        f"{'nodes/s':>9}{'x chess s':>10}{'x chess n/s':>12}"
    )
    base: Figures | None = None
    for game, variant in CASES:
        name = game if variant is None else f"{game}/{variant}"
        if args.only and name not in args.only and game not in args.only:
            continue
        if variant == "xiangqi-jbq" and not has_jbq:
            print(f"{name:<22}left out: no {jbq}")
            continue
        f = measure(engines.get(game), variant, args.plies, args.seed)
        base = base or f
        print(
            f"{name:<22}{f.positions:>10}{f.checked:>8}{f.per_position:>11.3f}{f.nodes:>9}"
            f"{f.nodes_per_second:>9.0f}{f.per_position / base.per_position:>10.2f}"
            f"{f.nodes_per_second / base.nodes_per_second:>12.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
