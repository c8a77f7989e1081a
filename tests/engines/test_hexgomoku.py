"""Hexagonal five-in-a-row: RULES.md section 4."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import BadOption, BadPosition, IllegalMove, get
from engines.hexgomoku import (
    DIRECTIONS,
    POINTS,
    HexState,
    format_point,
    on_board,
    winning_line,
)

GAME = get("hexgomoku")


def play_all(moves: list[str], state: HexState | None = None, **options: object) -> HexState:
    """Play ``moves`` from the start (or ``state``)."""
    state = state or GAME.start(options=options)
    for move in moves:
        state = GAME.play(state, move)
    return state


def test_board_has_169_points_in_7_rings() -> None:
    """A centre and rings of 6, 12, ..., 42 points."""
    assert len(POINTS) == 169 == len(set(POINTS))
    rings = [sum(1 for q, r in POINTS if max(abs(q), abs(r), abs(q + r)) == k) for k in range(8)]
    assert rings == [1, 6, 12, 18, 24, 30, 36, 42]


def test_fifteen_lines_in_each_direction() -> None:
    """45 lines in all; every line is a maximal run of points in one direction."""
    for dq, dr in DIRECTIONS:
        starts = [p for p in POINTS if not on_board((p[0] - dq, p[1] - dr))]
        assert len(starts) == 15


def test_start_and_first_moves() -> None:
    """Black moves first onto any of the 169 points."""
    state = GAME.start()
    assert state.turn == "first" and state.ply == 0 and state.last_move is None
    assert len(GAME.legal_moves(state)) == 169
    state = GAME.play(state, " 0 , 0 ")
    assert state.last_move == "0,0" and state.turn == "second" and state.ply == 1
    assert GAME.position(state) == "second;0,0;"
    assert "0,0" not in GAME.legal_moves(state)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a point"),
        ("a,b", "not a point"),
        ("1;2", "not a point"),
        ("8,0", "off the board"),
        ("4,4", "off the board"),
        ("-7,-1", "off the board"),
        ("1" * 100, "not a point"),
    ],
)
def test_bad_points_are_refused_with_a_reason(text: str, reason: str) -> None:
    """Bad notation names the problem and changes nothing."""
    state = GAME.start()
    with pytest.raises(IllegalMove, match=reason):
        GAME.play(state, text)
    assert GAME.position(state) == "first;;"


def test_occupied_point_is_refused() -> None:
    """A stone cannot go on a stone."""
    state = play_all(["0,0"])
    with pytest.raises(IllegalMove, match="taken by a black stone"):
        GAME.play(state, "0,0")


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_five_in_each_direction_wins(direction: tuple[int, int]) -> None:
    """Five in a row along any of the three directions wins at once."""
    dq, dr = direction
    black = [f"{k * dq},{k * dr}" for k in range(-2, 3)]
    white = ["-7,0", "-7,1", "-7,2", "-7,3"]
    moves = [m for pair in zip(black, white, strict=False) for m in pair] + [black[4]]
    state = play_all(moves)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == "first" and outcome.reason == "five"
    assert set(outcome.highlight) == set(black)
    assert GAME.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.play(state, "7,0")


def test_four_is_not_a_win_and_a_broken_line_is_not_five() -> None:
    """0,0 1,0 2,0 3,0 and 5,0 are not five in a row."""
    moves = ["0,0", "0,3", "1,0", "1,3", "2,0", "2,3", "3,0", "-3,3", "5,0", "-2,3"]
    state = play_all(moves)
    assert GAME.outcome(state) is None


def test_six_wins_unless_exact5() -> None:
    """A line of six wins by default; with exact5 it does not, but exactly five still does."""
    moves = ["0,0", "0,3", "1,0", "1,3", "2,0", "2,3", "4,0", "-3,3", "5,0", "-4,5", "3,0"]
    won = GAME.outcome(play_all(moves))
    assert won is not None and won.reason == "five" and len(won.highlight) == 6
    not_won = play_all(moves, exact5=True)
    assert GAME.outcome(not_won) is None and not_won.turn == "second"
    # black then makes exactly five along (0, 1) through 3,0
    state = play_all(["-5,5", "3,1", "-5,6", "3,2", "-6,6", "3,3", "-6,7", "3,-1"], not_won)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "five" and outcome.winner == "first"
    assert set(outcome.highlight) == {"3,-1", "3,0", "3,1", "3,2", "3,3"}


def test_exact5_line_of_five_wins() -> None:
    """exact5 still wins with exactly five."""
    moves = ["0,0", "0,3", "1,0", "1,3", "2,0", "2,3", "3,0", "3,3", "4,0"]
    outcome = GAME.outcome(play_all(moves, exact5=True))
    assert outcome is not None and outcome.winner == "first"


def test_white_can_win() -> None:
    """Second player's five wins for second."""
    moves = ["7,0", "0,0", "7,-1", "0,1", "7,-2", "0,2", "7,-3", "0,3", "-7,0", "0,4"]
    outcome = GAME.outcome(play_all(moves))
    assert outcome is not None and outcome.winner == "second" and outcome.result == "second"


def test_unknown_option_and_wrong_type_are_refused() -> None:
    """Options are validated."""
    with pytest.raises(BadOption, match="no option 'five'"):
        GAME.start(options={"five": True})
    with pytest.raises(BadOption, match="true or false"):
        GAME.start(options={"exact5": 1})


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("first;;;", "3 fields"),
        ("black;;", "TURN must be"),
        ("second;;", "first's turn"),
        ("first;0,0;", "first's turn|second's turn"),
        ("first;0,0 0,0;1,1", "listed twice"),
        ("first;0,0;0,0", "listed twice"),
        ("first;;0,0", "as many stones"),
        ("first;9,9;0,0", "off the board"),
        ("second;0,0 1,0 2,0 3,0 4,0;0,1 0,2 0,3 0,4", "already has five"),
        ("x" * 5000, "longer than 4096"),
    ],
)
def test_bad_positions_are_refused(text: str, reason: str) -> None:
    """Garbage position strings get a reason."""
    with pytest.raises(BadPosition, match=reason):
        GAME.start(position=text)


def test_position_round_trip_and_turn() -> None:
    """A position string reads back to the same position."""
    text = "second;0,0 1,-1 -3,2;2,2 -1,-1"
    state = GAME.start(position=text)
    assert state.turn == "second" and state.ply == 5
    assert GAME.start(position=GAME.position(state)) == state


def _has_five(stones: set[tuple[int, int]]) -> bool:
    return any(winning_line(frozenset(stones), p, exact5=False) for p in stones)


def test_full_board_is_a_draw() -> None:
    """A board filled with no five is a draw (board_full)."""
    # (q - 2r) mod 4 < 2 gives runs of at most 2 along each of the three directions
    black = {p for p in POINTS if (p[0] - 2 * p[1]) % 4 < 2}
    white = set(POINTS) - black
    larger, smaller = (black, white) if len(black) > len(white) else (white, black)
    for p in sorted(larger):
        if len(larger) - len(smaller) <= 1:
            break
        if not _has_five(smaller | {p}):
            larger.remove(p)
            smaller.add(p)
    if len(white) > len(black):
        black, white = white, black
    assert len(black) == 85 and len(white) == 84
    assert not _has_five(black) and not _has_five(white)
    order = [m for pair in zip(sorted(black), sorted(white), strict=False) for m in pair]
    order.append(sorted(black)[-1])
    state = play_all([f"{q},{r}" for q, r in order])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "board_full" and outcome.result == "draw"
    assert GAME.legal_moves(state) == []


def test_perft_counts() -> None:
    """perft n = 169 * 168 * ... (no five is possible before ply 9)."""
    state = GAME.start()
    assert GAME.perft(state, 1) == 169
    assert GAME.perft(state, 2) == 169 * 168


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 168), max_size=40))
def test_random_games_round_trip_and_keep_invariants(picks: list[int]) -> None:
    """Every listed move is accepted; positions round-trip; counts stay balanced."""
    state = GAME.start()
    for pick in picks:
        moves = GAME.legal_moves(state)
        if not moves:
            break
        move = moves[pick % len(moves)]
        state = GAME.play(state, move)
        assert state.last_move == move
    assert len(state.black) - len(state.white) in (0, 1)
    if GAME.outcome(state) is None:
        again = GAME.start(position=GAME.position(state))
        assert (again.black, again.white, again.turn, again.ply) == (
            state.black,
            state.white,
            state.turn,
            state.ply,
        )


@given(st.text(max_size=60))
def test_no_string_crashes_the_parsers(text: str) -> None:
    """Any text is a move or an IllegalMove, a position or a BadPosition."""
    with contextlib.suppress(IllegalMove):
        GAME.play(GAME.start(), text)
    with contextlib.suppress(BadPosition):
        GAME.start(position=text)


def test_position_and_moves_are_in_board_order_on_random_games() -> None:
    """The sorted/table-driven position and move list equal a plain scan of the 169 points."""
    rng = random.Random(9)
    for _ in range(4):
        state = GAME.start()
        while GAME.outcome(state) is None:
            black = " ".join(format_point(p) for p in POINTS if p in state.black)
            white = " ".join(format_point(p) for p in POINTS if p in state.white)
            assert GAME.position(state) == f"{state.turn};{black};{white}"
            empty = [format_point(p) for p in POINTS if state.owner(p) is None]
            assert GAME.legal_moves(state) == empty
            state = GAME.play(state, rng.choice(empty))


@pytest.mark.parametrize("text", ["١,٠", "0,٣", "１,2", "-٢,1"])
def test_points_are_ascii_digits_only(text: str) -> None:
    """Arabic-Indic or full-width digits are not the notation ``q,r``: refused, never read as
    another point (``١,٠`` was played as 1,0)."""
    with pytest.raises(IllegalMove, match="not a point"):
        GAME.play(GAME.start(), text)
    with pytest.raises(BadPosition, match="not a point"):
        GAME.start(position=f"second;{text};")


def lines_of_the_board() -> list[list[tuple[int, int]]]:
    """The 45 lines of RULES.md section 4, each as its points in order: start from every point
    whose predecessor along a direction is off the board and walk while on it."""
    found = []
    for dq, dr in DIRECTIONS:
        for q, r in POINTS:
            if on_board((q - dq, r - dr)):
                continue
            line = []
            while on_board((q, r)):
                line.append((q, r))
                q, r = q + dq, r + dr
            found.append(line)
    return found


def longest_runs(stones: frozenset[tuple[int, int]]) -> list[int]:
    """The length of every maximal run of ``stones`` along every line."""
    runs = []
    for line in lines_of_the_board():
        length = 0
        for point in [*line, None]:
            if point is not None and point in stones:
                length += 1
            elif length:
                runs.append(length)
                length = 0
    return runs


@pytest.mark.parametrize("exact5", [False, True])
def test_random_games_end_exactly_when_a_line_scan_finds_five(exact5: bool) -> None:
    """Games crowded into the middle (so lines of five and six are common): after every move the
    game is won exactly when a scan of the 45 lines finds a run of the mover's stones of five or
    more (exactly five with exact5), by the mover, with a line of the mover's stones."""
    assert len(lines_of_the_board()) == 45
    rng = random.Random(f"hex-scan-{exact5}")
    middle = [p for p in POINTS if max(abs(p[0]), abs(p[1]), abs(p[0] + p[1])) <= 3]
    wins = overlines = 0
    for _ in range(40):
        state = GAME.start(options={"exact5": exact5})
        while GAME.outcome(state) is None:
            free = [p for p in middle if state.owner(p) is None] or [
                p for p in POINTS if state.owner(p) is None
            ]
            mover = state.turn
            state = GAME.play(state, format_point(rng.choice(free)))
            runs = longest_runs(state.stones_of(mover))
            won = any(n == 5 or (n > 5 and not exact5) for n in runs)
            overlines += any(n > 5 for n in runs)
            outcome = GAME.outcome(state)
            if won:
                assert outcome is not None and (outcome.winner, outcome.reason) == (mover, "five")
                assert len(outcome.highlight) >= 5
                assert {tuple(map(int, p.split(","))) for p in outcome.highlight} <= set(
                    state.stones_of(mover)
                )
                wins += 1
            else:
                assert outcome is None or outcome.reason == "board_full"
    assert wins >= 30 and (overlines > 0 or not exact5)
