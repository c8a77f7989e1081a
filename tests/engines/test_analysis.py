"""Computer analysis (engines.search.analysis): known positions of chess, draughts and
hexgomoku, the first player's view, mates, verdicts, determinism and cancellation."""

from __future__ import annotations

from typing import Any

import pytest

import engines
from engines.search.analysis import (
    SCALES,
    THRESHOLDS,
    PositionEval,
    accuracy,
    analyse,
    classify,
    evaluate_position,
    expected,
    iter_analysis,
    judge,
    move_accuracy,
    summary,
)

BACK_RANK = "6k1/5ppp/8/8/8/2n5/5PPP/R5K1 w - - 0 1"
"""White mates in one with Ra8; the knight cannot cover the back rank."""


def replay(game: str, moves: list[str], position: str | None = None) -> list[Any]:
    """The states of ``moves`` played from the start (or ``position``)."""
    engine = engines.get(game)
    state = engine.start(position=position)
    states = [state]
    for move in moves:
        state = engine.play(state, move)
        states.append(state)
    return states


def played(states: list[Any]) -> list[str]:
    """The canonical moves that lead through ``states``."""
    return [s.last_move for s in states[1:]]


def test_a_mate_in_one_is_found_and_missing_it_is_a_blunder() -> None:
    states = replay("chess", ["h2h3"], BACK_RANK)
    evals = analyse(engines.get("chess"), states)
    assert evals[0].best == "a1a8"
    assert evals[0].mate == 1
    assert evals[0].score == SCALES["chess"].clamp
    assert evals[1].mate is None and 0 < evals[1].score < 600  # a rook for a knight
    [verdict] = judge("chess", evals, played(states))
    assert verdict.side == "first" and verdict.best == "a1a8"
    assert verdict.missed_win  # the mate was certain: 100%, a rook for a knight ~85%
    assert evals[1].checked is not None and evals[1].instead is None  # searched 4x deeper
    assert verdict.drop >= 7.0
    assert verdict.verdict == "blunder"


def test_the_best_move_played_loses_nothing() -> None:
    states = replay("chess", ["a1a8"], BACK_RANK)
    evals = analyse(engines.get("chess"), states)
    assert evals[1] == PositionEval(1000, 0, None, "second", "first")
    [verdict] = judge("chess", evals, played(states))
    assert (verdict.drop, verdict.verdict, verdict.missed_win) == (0, None, False)


def test_the_second_players_mate_is_negative_and_the_move_allowing_it_a_blunder() -> None:
    states = replay("chess", ["f2f3", "e7e5", "g2g4", "d8h4"])
    evals = analyse(engines.get("chess"), states)
    assert evals[3].best == "d8h4" and evals[3].mate == -1
    assert evals[3].score == -SCALES["chess"].clamp
    assert evals[4].result == "second" and evals[4].mate == 0
    judged = judge("chess", evals, played(states))
    assert judged[2].verdict == "blunder" and judged[2].side == "first"
    assert judged[3].verdict is None and judged[3].drop == 0
    assert summary(judged, "first")["blunder"] >= 1
    assert summary(judged, "second") == {"inaccuracy": 0, "mistake": 0, "blunder": 0}


def test_a_draughts_man_given_away_in_an_ending_is_marked_with_the_safe_move_shown() -> None:
    """Two men each: giving one away swings the evaluation by several men (at draughts' fitted
    slope, about 19 points: an inaccuracy)."""
    position = "W:W28,38:B17,7"
    states = replay("draughts", ["28-22"], position)
    evals = analyse(engines.get("draughts"), states)
    assert evals[0].best == "28-23"
    assert evals[0].score > 0 > evals[1].score  # white's view both times
    [verdict] = judge("draughts", evals, played(states))
    assert verdict.verdict is not None and verdict.best == "28-23"
    assert verdict.drop > 15
    safe = replay("draughts", ["28-23"], position)
    assert judge("draughts", analyse(engines.get("draughts"), safe), played(safe))[0].drop == 0


HEX_FOUR = ["5,0", "1,0", "-3,3", "2,0", "3,-6", "3,0", "-5,2", "4,0"]
"""Second has four in a row (1,0 to 4,0), first holds 5,0: only 0,0 stops the five."""


def test_a_hexgomoku_five_threat_left_open_is_a_blunder() -> None:
    states = replay("hexgomoku", [*HEX_FOUR, "-4,4"])
    evals = analyse(engines.get("hexgomoku"), states[-2:])
    assert evals[0].best == "0,0" and evals[0].mate is None
    assert evals[1].mate == -1 and evals[1].best == "0,0"
    [verdict] = judge("hexgomoku", evals, ["-4,4"])
    assert verdict.verdict == "blunder" and verdict.best == "0,0"
    assert verdict.drop >= THRESHOLDS["blunder"]


def test_number_chess_is_analysed_through_its_evaluation() -> None:
    engine = engines.get("shuqi")
    state = engine.start()
    found = evaluate_position(engine, state, nodes=500)
    assert found.best in engine.legal_moves(state)
    assert found.turn == "first" and found.nodes <= 501


def test_the_same_game_gets_the_same_analysis_twice() -> None:
    states = replay("chess", ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"])
    first = analyse(engines.get("chess"), states, nodes=1500)
    second = analyse(engines.get("chess"), states, nodes=1500)
    assert first == second
    assert judge("chess", first, played(states)) == judge("chess", second, played(states))


def test_a_stop_ends_the_analysis_between_and_inside_positions() -> None:
    states = replay("chess", ["e2e4", "e7e5", "g1f3", "b8c6"])
    got: list[PositionEval] = []
    for found in iter_analysis(engines.get("chess"), states, nodes=300,
                               stop=lambda: len(got) >= 2):
        got.append(found)
    assert len(got) == 2
    polls: list[int] = []

    def stop_inside() -> bool:
        polls.append(1)
        return len(polls) > 3  # polled every 64 nodes inside the search

    assert analyse(engines.get("chess"), states, nodes=10**9, stop=stop_inside) == []
    assert len(polls) < 10  # the endless budget was cut at once, not searched out


def test_the_thresholds_classify_drops_of_winning_chances_in_order() -> None:
    assert THRESHOLDS == {"inaccuracy": 10.0, "mistake": 20.0, "blunder": 30.0}
    assert [classify(x) for x in (0, 9.9, 10, 19.9, 20, 29.9, 30, 100)] == [
        None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_the_expected_score_is_lichess_curve_with_a_slope_per_game() -> None:
    chess = SCALES["chess"]
    assert chess.slope == 0.00368208  # lichess's
    assert expected(0, chess) == 50.0
    assert expected(100, chess) == pytest.approx(59.1, abs=0.05)  # a pawn
    assert expected(300, chess) == pytest.approx(75.1, abs=0.05)  # a knight
    assert expected(-900, chess) == pytest.approx(3.5, abs=0.05)  # a queen down
    draughts = SCALES["draughts"]  # fitted by bench/fit_slopes.py
    assert expected(100, draughts) == pytest.approx(55.0, abs=0.05)  # a man
    assert expected(500, draughts) == pytest.approx(73.1, abs=0.05)  # five men
    for game, scale in SCALES.items():
        assert expected(scale.clamp, scale) > 85.0, game  # the clamp is all but won
        assert expected(-40, scale) + expected(40, scale) == pytest.approx(100.0), game


def test_a_position_with_a_forced_win_or_over_is_certain() -> None:
    from engines.search.analysis import chances
    chess = SCALES["chess"]
    mate = PositionEval(1000, 3, "a1a8", "first")
    assert (chances(mate, "first", chess), chances(mate, "second", chess)) == (100.0, 0.0)
    assert chances(PositionEval(-1000, 0, None, "first", "second"), "second", chess) == 100.0
    assert chances(PositionEval(0, None, None, "first", "draw"), "first", chess) == 50.0
    assert chances(PositionEval(300, None, "e2e4", "second"), "second", chess) == \
        pytest.approx(24.9, abs=0.05)


def _eval(score: int, turn: str, best: str | None = "x", choices: int = 20,
          mate: int | None = None, instead: PositionEval | None = None) -> PositionEval:
    return PositionEval(score, mate, best, turn, choices=choices,  # type: ignore[arg-type]
                        instead=instead)


def test_a_lost_position_kept_lost_is_not_a_blunder_but_an_even_one_thrown_away_is() -> None:
    """Both moves lose 300 units against the best; only the second changes the game."""
    lost = [_eval(-800, "first"), _eval(-1000, "second", instead=_eval(-700, "second"))]
    [kept] = judge("chess", lost, ["y"])
    assert kept.verdict is None and kept.drop < THRESHOLDS["inaccuracy"]
    even = [_eval(0, "first"), _eval(-300, "second", instead=_eval(0, "second"))]
    [thrown] = judge("chess", even, ["y"])
    assert thrown.verdict == "mistake" and thrown.drop == pytest.approx(25.1, abs=0.1)
    queen = [_eval(0, "first"), _eval(-900, "second", instead=_eval(0, "second"))]
    assert judge("chess", queen, ["y"])[0].verdict == "blunder"


def test_the_only_legal_move_is_never_marked() -> None:
    """A forced recapture with the evaluation swinging across it: no verdict, no accuracy."""
    evals = [_eval(300, "first", best="a", choices=1), _eval(-500, "second")]
    [forced] = judge("chess", evals, ["b"])
    assert forced.forced and forced.verdict is None and forced.drop == 0
    assert accuracy([forced], "first") is None


def test_a_missed_forced_win_is_at_least_an_inaccuracy_and_named() -> None:
    won = [_eval(1000, "first", mate=4), _eval(1000, "second")]
    [kept_winning] = judge("chess", won, ["y"])
    assert kept_winning.missed_win and kept_winning.verdict == "inaccuracy"
    still_mates = [_eval(1000, "first", mate=4), _eval(1000, "second", mate=3)]
    assert judge("chess", still_mates, ["y"])[0].verdict is None


def test_accuracy_is_lichess_per_move_figure_averaged() -> None:
    assert move_accuracy(0) == 100.0
    assert move_accuracy(10) == pytest.approx(64.6, abs=0.1)
    assert move_accuracy(100) == 0.0
    evals = [_eval(0, "first", best="a"), _eval(0, "second", best="b"),
             _eval(600, "first", instead=_eval(0, "first"))]
    judged = judge("chess", evals, ["a", "c"])
    assert accuracy(judged, "first") == 100.0
    assert accuracy(judged, "second") == pytest.approx(move_accuracy(judged[1].drop))
    assert accuracy([], "first") is None


@pytest.mark.parametrize("nodes", [0, -5, 2.5, True])
def test_a_bad_node_budget_is_named(nodes: Any) -> None:
    engine = engines.get("chess")
    with pytest.raises(ValueError, match="node budget"):
        evaluate_position(engine, engine.start(), nodes)


def test_an_unknown_game_is_named() -> None:
    with pytest.raises(ValueError, match=r"'go'.*chess"):
        judge("go", [], [])


DETERMINISM_SCRIPT = """
import engines
from engines.search.analysis import analyse, judge
for game, variant, moves in [("chess", None, ["e2e4", "d7d5", "d1g4", "c8g4"]),
                             ("custom", "xiangqi", [])]:
    engine = engines.get(game)
    states = [engine.start(variant)]
    for move in moves:
        states.append(engine.play(states[-1], move))
    evals = analyse(engine, states, nodes=800)
    print([(e.score, e.best, e.nodes, e.checked and e.checked.score) for e in evals])
    print([(j.drop, j.verdict) for j in judge(game, evals, moves)])
"""


def test_the_analysis_is_the_same_in_another_process() -> None:
    """String hashes change between processes (PYTHONHASHSEED); the analysis must not."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT], env=env, cwd=root,
                              capture_output=True, text=True, timeout=120, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    text = next(iter(outputs))
    assert text.count("(") == 10  # five chess positions and four moves, one xiangqi position
    assert "'blunder')" in text  # 2. Qg4?? Bxg4, judged on its 4x check


DEEPER_MOVES = {
    "chess": ["e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c8d7", "b5c4", "b7b5", "c4d3", "f6d5",
              "b1c3", "d5f4", "d1f3", "f4d3", "f3d3", "b5b4", "c3e4", "b8c6", "g1f3", "e7e5",
              "d3d5", "f7f6", "d2d4", "e5d4", "f3d4", "c6d4", "d5d4", "d7f5", "d4c4", "f5e4"],
    "shuqi": ["13,8-10,5=3+6", "0,7-4,3=4+5-9", "12,5-10,3", "1,6-5,2=0+4+5", "13,6-9,2=1+7",
              "2,5-6,1=0-(4-9)", "14,7-13,8", "2,9-4,11", "11,6-9,4", "4,11-5,12", "10,5-8,3",
              "1,8-6,13=1+7", "12,7-7,2=9-3", "6,1-10,5=(6+9)/3", "8,3-6,1", "5,2-7,0",
              "9,4-8,5", "2,7-4,9", "12,9-7,4=2+3", "3,8-5,10", "11,8-6,3=5-3", "3,4-5,2",
              "9,2-8,1", "3,6-4,7", "8,1-5,4=2+6", "5,2-9,6=2-(3-5)", "11,10-10,9",
              "4,9-6,11", "7,2-4,5=8-2", "5,12-7,10"],
}
"""Thirty plies each side chose with four times the analysis' nodes: good moves, often not the
analysis' own best."""


@pytest.mark.parametrize(("game", "most"), [("chess", 0), ("shuqi", 1)])
def test_moves_a_deeper_search_chose_are_not_called_mistakes(game: str, most: int) -> None:
    """Measured against the best score before the move, a good move looked like a loss whenever
    the evaluation swung with the side to move (number chess's tempo: 9 of 30 flagged, chess 2);
    against the position the best move leads to, searched alike, it does not."""
    states = replay(game, DEEPER_MOVES[game])
    evals = analyse(engines.get(game), states)
    flagged = [j for j in judge(game, evals, played(states)) if j.verdict]
    assert len(flagged) <= most, flagged
    assert all(e.instead is not None for j in flagged for e in [evals[j.ply + 1]])


QGD = ["d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6", "c1g5", "f8e7", "e2e3", "e8g8", "g1f3",
       "b8d7", "d1c2", "c7c6"]
"""The Orthodox Queen's Gambit Declined, fourteen plies of theory."""


def test_a_chess_game_marks_the_hung_queen_and_not_the_opening() -> None:
    """8. Qf5?? exf5: a blunder; the opening's book moves and the recapture are not marked."""
    states = replay("chess", [*QGD, "c2f5", "e6f5", "f1d3"])
    evals = analyse(engines.get("chess"), states)
    judged = judge("chess", evals, played(states))
    marked = {j.move: j.verdict for j in judged if j.verdict}
    assert marked == {"c2f5": "blunder"}, marked
    assert judged[14].drop >= 40 and judged[14].best != "c2f5"
    white, black = accuracy(judged, "first"), accuracy(judged, "second")
    assert white is not None and black is not None and white < black


DRAUGHTS_OPENING = ["31-26", "20-24", "37-31", "14-20", "33-29", "24x33", "39x28", "20-24"]
"""Eight plies the analysis' own search chose (an exchange on 33 included)."""


def test_a_draughts_man_lost_in_the_opening_drops_a_few_points_unmarked() -> None:
    """44-39 lets 24-30 ... win a man for nothing: about 5 points at draughts' fitted slope (a
    man up is 55%), not marked, like a pawn in chess; the opening's own moves drop nothing."""
    states = replay("draughts", [*DRAUGHTS_OPENING, "44-39"])
    evals = analyse(engines.get("draughts"), states)
    judged = judge("draughts", evals, played(states))
    assert [j.move for j in judged if j.verdict] == []
    assert all(j.drop == 0 for j in judged[:-1])
    assert judged[-1].best != "44-39" and 3 < judged[-1].drop < THRESHOLDS["inaccuracy"]
    assert evals[-1].score < -80  # a man down, white's view


DRAUGHTS_SHOT = ["34-30", "19-24", "30x19", "13x24", "33-29", "24x33", "39x28", "17-22", "28x17",
                 "12x21", "32-27", "21x32", "38x27", "7-12", "27-22", "18x27", "31x22", "12-18",
                 "22x13", "8x19", "44-39", "20-24", "39-33", "15-20", "43-38", "11-17", "40-34",
                 "6-11", "45-40", "16-21", "38-32", "1-7", "36-31", "9-13", "33-28", "13-18",
                 "31-27", "21-26"]
"""Thirty-eight plies of white searching 6000 nodes a move against black searching 150: black's
21-26 lets 28-22 sacrifice a man for a capture of several."""


def test_a_draughts_capture_missed_is_marked() -> None:
    """Several men let go: about 20 points at draughts' fitted slope."""
    states = replay("draughts", [*DRAUGHTS_SHOT, "28-23"])
    evals = analyse(engines.get("draughts"), states[-2:])
    [judged] = judge("draughts", evals, ["28-23"])
    assert judged.best == "28-22"
    assert judged.verdict is not None and judged.drop > 15, judged
