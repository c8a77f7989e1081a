"""Number chess (shuqi): the rules of RULES.md section 3, one hand-made position per rule."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engines import BadOption, BadPosition, ClaimRefused, IllegalMove, UnknownVariant, get
from engines.__main__ import main as engines_main
from engines.shuqi import ENGINE, ShuqiState, evaluate
from engines.shuqi.board import (
    INDEX,
    LEFT_CAMP,
    NEIGHBOURS,
    POINTS,
    RAYS,
    RIGHT_CAMP,
    Point,
)
from engines.shuqi.engine import _any_move, _base, _one_move, generate_moves

START = (
    "first;0;14,7 11,4 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8;"
    "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6"
)
"""The start position string exactly as RULES.md writes it."""

LEFT = {n: p for p, n in LEFT_CAMP.items()}
RIGHT = {n: p for p, n in RIGHT_CAMP.items()}

Pieces = dict[int, Point]


def on_line(a: Point, b: Point) -> bool:
    """True when ``a`` and ``b`` lie on one board line (or are the same point)."""
    return a[0] == b[0] or a[0] + a[1] == b[0] + b[1] or a[0] - a[1] == b[0] - b[1]


def make(
    first: Pieces,
    second: Pieces,
    turn: str = "first",
    ply: int | None = None,
    watch: tuple[Point, ...] = (),
) -> str:
    """A position string with the given pieces. The others are parked outside both camps and
    off every line through the ``watch`` points, so they add no move from those points."""
    used = set(first.values()) | set(second.values())
    assert len(used) == len(first) + len(second), "two pieces on one point"
    free = [
        p
        for p in POINTS
        if p not in used and not any(on_line(p, w) for w in watch) and 4 <= p[0] <= 10
    ]
    spots = iter(free)
    points: list[str] = []
    for pieces in (first, second):
        for n in range(10):
            p = pieces[n] if n in pieces else next(spots)
            points.append(pt(p))
    if ply is None:
        ply = 0 if turn == "first" else 1
    return f"{turn};{ply};{' '.join(points[:10])};{' '.join(points[10:])}"


def pt(p: Point) -> str:
    """``(3, 6)`` -> ``"3,6"``."""
    return f"{p[0]},{p[1]}"


def add(p: Point, d: Point, k: int = 1) -> Point:
    """``p + k * d``."""
    return (p[0] + k * d[0], p[1] + k * d[1])


def state_of(position: str, **options: int) -> ShuqiState:
    """The state of a position string."""
    return ENGINE.start(position=position, options=options)


def moves_from(state: ShuqiState, p: Point) -> dict[str, str | None]:
    """Listed moves from ``p``: destination -> expression (None for a step or hop)."""
    out: dict[str, str | None] = {}
    for move in ENGINE.legal_moves(state):
        head, _, expression = move.partition("=")
        frm, to = head.split("-")
        if frm == pt(p):
            out[to] = expression or None
    return out


def refused(state: ShuqiState, move: str) -> str:
    """The reason ``move`` is refused (fails the test if it is accepted)."""
    with pytest.raises(IllegalMove) as info:
        ENGINE.play(state, move)
    return str(info.value)


# Lines long enough for "piece, gap, piece, gap, piece, landing, one more": (start, direction).
LINES: list[tuple[Point, Point]] = [
    ((2, 5), (1, 1)),
    ((8, 11), (-1, -1)),
    ((2, 9), (1, -1)),
    ((8, 3), (-1, 1)),
    ((7, 0), (0, 2)),
    ((7, 14), (0, -2)),
]
LINE_IDS = [f"d={d}" for _, d in LINES]


# ---- board and start ----------------------------------------------------------------------------


def test_board_has_64_points_and_the_four_corners() -> None:
    """x + y odd inside |x-7| + |y-7| <= 7: 64 points, corners (0,7) (14,7) (7,0) (7,14)."""
    assert len(POINTS) == 64 == len(set(POINTS))
    assert all((x + y) % 2 == 1 and abs(x - 7) + abs(y - 7) <= 7 for x, y in POINTS)
    for corner in [(0, 7), (14, 7), (7, 0), (7, 14)]:
        assert corner in INDEX
    assert (7, 7) not in INDEX and (15, 7) not in INDEX


def test_neighbours_are_the_six_line_steps() -> None:
    """(x+-1, y+-1) and (x, y+-2): six in the middle, two at a 60-degree corner, three at top."""
    middle = {POINTS[i] for i in NEIGHBOURS[INDEX[(6, 7)]]}
    assert middle == {(7, 8), (5, 6), (7, 6), (5, 8), (6, 9), (6, 5)}
    assert {POINTS[i] for i in NEIGHBOURS[INDEX[(0, 7)]]} == {(1, 6), (1, 8)}
    assert {POINTS[i] for i in NEIGHBOURS[INDEX[(7, 0)]]} == {(6, 1), (8, 1), (7, 2)}
    assert max(len(ray) for rays in RAYS for ray in rays) == 7  # a line holds at most 8 points


def test_camps_are_numbered_and_r_is_l_turned() -> None:
    """Both camps have points 0..9 and R is L turned half a circle around (7, 7)."""
    assert sorted(LEFT_CAMP.values()) == list(range(10)) == sorted(RIGHT_CAMP.values())
    assert LEFT[0] == (0, 7) and RIGHT[0] == (14, 7) and RIGHT[9] == (13, 8)
    assert all(RIGHT[n] == (14 - x, 14 - y) for n, (x, y) in LEFT.items())


def test_start_position_first_in_r_moves_first() -> None:
    """Piece n of first on R's point n, of second on L's point n; first to move at ply 0."""
    state = ENGINE.start()
    assert ENGINE.position(state) == START
    assert state.turn == "first" and state.ply == 0 and state.last_move is None
    assert state.first == tuple(RIGHT[n] for n in range(10))
    assert state.second == tuple(LEFT[n] for n in range(10))
    assert ENGINE.scores(state) == {"first": 0, "second": 0}
    assert ENGINE.outcome(state) is None


def test_engine_metadata_and_registry() -> None:
    """Game id shuqi, variant standard, the two options with their defaults."""
    assert get("shuqi") is ENGINE
    assert ENGINE.game == "shuqi"
    assert [v.id for v in ENGINE.variants()] == ["standard"]
    assert dict(ENGINE.default_options) == {"max_plies": 400, "home_limit": 30}
    assert ENGINE.resolve_variant(None) == "standard"
    with pytest.raises(UnknownVariant, match="standard"):
        ENGINE.start("giant")


def test_options_are_checked() -> None:
    """Unknown options, wrong types and max_plies 0 are refused; good values reach the state."""
    state = ENGINE.start(options={"max_plies": 12, "home_limit": 4})
    assert (state.max_plies, state.home_limit) == (12, 4)
    with pytest.raises(BadOption, match="no option 'clock'"):
        ENGINE.start(options={"clock": 3})
    with pytest.raises(BadOption, match="whole number"):
        ENGINE.start(options={"home_limit": "5"})
    with pytest.raises(BadOption, match="at least 1"):
        ENGINE.start(options={"max_plies": 0})


def test_start_moves_are_the_twenty_expected() -> None:
    """From the start: 8 steps, 6 hops, 6 spans (RULES.md's 13,8-10,5=6+3 among them)."""
    moves = ENGINE.legal_moves(ENGINE.start())
    heads = sorted(m.split("=")[0] for m in moves)
    assert heads == sorted(
        [
            "11,4-10,3", "11,4-10,5", "11,6-10,5", "11,6-10,7",
            "11,8-10,7", "11,8-10,9", "11,10-10,9", "11,10-10,11",
            "12,5-10,3", "12,5-10,7", "12,7-10,5", "12,7-10,9",
            "12,9-10,7", "12,9-10,11",
            "13,6-10,3", "13,6-10,9", "13,8-10,5", "13,8-10,11",
            "14,7-10,3", "14,7-10,11",
        ]
    )  # fmt: skip
    spans = [m for m in moves if "=" in m]
    assert len(spans) == 6
    for move in spans:
        x, y = (int(v) for v in move.split("-")[0].split(","))
        frm = (x, y)
        assert evaluate(move.split("=")[1]).value == RIGHT_CAMP[frm]  # piece n starts on point n


def test_perft_from_the_start() -> None:
    """Distinct (from, to) moves: 20, 400, 10700, 286261."""
    state = ENGINE.start()
    assert [ENGINE.perft(state, d) for d in range(5)] == [1, 20, 400, 10700, 286261]


def test_perft_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m engines perft shuqi D [--position P]` prints the count last."""
    assert engines_main(["perft", "shuqi", "2"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "400"
    lone = make({9: (6, 7)}, {}, watch=((6, 7),))
    assert engines_main(["perft", "shuqi", "1", "--position", lone]) == 0
    expected = len(ENGINE.legal_moves(state_of(lone)))
    assert capsys.readouterr().out.strip().splitlines()[-1] == str(expected)
    assert engines_main(["perft", "shuqi", "1", "--position", "first;1;x;y"]) == 2
    assert "PLY" in capsys.readouterr().err


# ---- the three moves ----------------------------------------------------------------------------


def test_step_goes_to_each_of_the_six_neighbours() -> None:
    """A lone piece steps along all three line directions, both ways, and nowhere else."""
    state = state_of(make({5: (6, 7)}, {}, watch=((6, 7),)))
    assert moves_from(state, (6, 7)) == {
        t: None for t in ("7,8", "5,6", "7,6", "5,8", "6,9", "6,5")
    }
    after = ENGINE.play(state, "6,7-6,9")
    assert after.first[5] == (6, 9) and after.last_move == "6,7-6,9"
    assert "neighbour" in refused(state, "6,7-6,11")


def test_step_refused_onto_a_piece_or_off_the_board() -> None:
    """The target of a step must be an empty board point."""
    state = state_of(make({5: (6, 7)}, {0: (7, 8)}, watch=((6, 7),)))
    assert "7,8" not in moves_from(state, (6, 7))
    assert "occupied" in refused(state, "6,7-7,8")
    corner = state_of(make({0: (0, 7)}, {}, watch=((0, 7),)))
    assert "not a point of the board" in refused(corner, "0,7-0,9")
    assert "not on a line" in refused(state, "6,7-8,11")


@pytest.mark.parametrize(("s", "d"), LINES, ids=LINE_IDS)
def test_hop_over_one_adjacent_piece_in_each_direction(s: Point, d: Point) -> None:
    """Over one adjacent piece of either colour to the point directly beyond it."""
    for colour in ("first", "second"):
        jumped = {3: add(s, d)}
        first = {7: s, **(jumped if colour == "first" else {})}
        second = jumped if colour == "second" else {}
        state = state_of(make(first, second, watch=(s,)))
        assert moves_from(state, s)[pt(add(s, d, 2))] is None
        after = ENGINE.play(state, f"{pt(s)}-{pt(add(s, d, 2))}")
        assert after.first[7] == add(s, d, 2)
        assert after.piece_at(add(s, d)) == (colour, 3)  # nothing is captured


@pytest.mark.parametrize(("s", "d"), LINES, ids=LINE_IDS)
def test_hop_needs_the_piece_adjacent_and_the_landing_empty(s: Point, d: Point) -> None:
    """A single piece with a gap before it cannot be jumped; no hop onto a piece."""
    gap = state_of(make({7: s}, {3: add(s, d, 2)}, watch=(s,)))
    assert pt(add(s, d, 3)) not in moves_from(gap, s)
    assert "adjacent" in refused(gap, f"{pt(s)}-{pt(add(s, d, 3))}")
    blocked = state_of(make({7: s}, {3: add(s, d), 4: add(s, d, 2)}, watch=(s,)))
    assert pt(add(s, d, 2)) not in moves_from(blocked, s)
    assert "occupied" in refused(blocked, f"{pt(s)}-{pt(add(s, d, 2))}")


@pytest.mark.parametrize(("s", "d"), LINES, ids=LINE_IDS)
def test_span_with_gaps_over_both_colours_in_each_direction(s: Point, d: Point) -> None:
    """Piece 9 spans first's 4 and second's 5 (gaps before and between) to directly beyond."""
    position = make({9: s, 4: add(s, d, 2)}, {5: add(s, d, 4)}, watch=(s,))
    state = state_of(position)
    listed = moves_from(state, s)
    landing = pt(add(s, d, 5))
    expression = listed[landing]
    assert expression is not None
    assert evaluate(expression).value == 9
    assert sorted(evaluate(expression).operands) == [4, 5]
    # Only the steps and this one span: nothing beyond a lone far piece, nothing further on.
    assert set(listed) == {pt(POINTS[i]) for i in NEIGHBOURS[INDEX[s]]} | {landing}
    after = ENGINE.play(state, f"{pt(s)}-{landing}=5+4")
    assert after.first[9] == add(s, d, 5)
    assert after.last_move == f"{pt(s)}-{landing}=5+4"  # the mover's own expression
    assert "directly beyond" in refused(state, f"{pt(s)}-{pt(add(s, d, 6))}=4+5")
    assert "adjacent" in refused(state, f"{pt(s)}-{pt(add(s, d, 3))}")


def test_every_point_beyond_a_piece_with_two_behind_is_a_landing() -> None:
    """Along one line: 8 over (1, 7) to 7,6, and over (1, 7, 0) to 7,10; 7,12 is too far."""
    state = state_of(make({8: (7, 0), 1: (7, 2)}, {7: (7, 4), 0: (7, 8)}, watch=((7, 0),)))
    listed = moves_from(state, (7, 0))
    for landing, numbers in (("7,6", [1, 7]), ("7,10", [0, 1, 7])):
        expression = listed[landing]
        assert expression is not None
        result = evaluate(expression)
        assert result.value == 8 and sorted(result.operands) == numbers
    assert "7,12" not in listed and "7,8" not in listed
    assert "7,2" not in listed  # no hop: the point beyond the adjacent piece is taken
    for move in ("7,0-7,6=7+1", "7,0-7,10=1+7-0", "7,0-7,10=(1+7)/(0+1)"):
        if move.endswith("(0+1)"):
            assert "used 0, 1, 1" in refused(state, move)  # two 1s: 1 is spanned only once
        else:
            assert ENGINE.play(state, move).last_move == move


def test_span_that_no_expression_solves_is_not_listed() -> None:
    """9 over 0 and 1: nothing makes 9, so the span is not a move; play says why."""
    state = state_of(make({9: (7, 0), 1: (7, 4)}, {0: (7, 2)}, watch=((7, 0),)))
    assert "7,6" not in moves_from(state, (7, 0))
    reason = refused(state, "7,0-7,6=0+1")
    assert "value 1" in reason and "needed 9" in reason
    reason = refused(state, "7,0-7,6")
    assert "needs an expression" in reason and "0, 1" in reason and "making 9" in reason


def test_span_with_fractions_and_zero() -> None:
    """Intermediate values may be fractions; 0 is an operand, but nothing divides by it."""
    state = state_of(make({9: (7, 0), 3: (7, 2)}, {2: (7, 4), 6: (7, 6)}, watch=((7, 0),)))
    assert ENGINE.play(state, "7,0-7,8=3/2*6").first[9] == (7, 8)
    assert ENGINE.play(state, "7,0-7,8=6/(2/3)").last_move == "7,0-7,8=6/(2/3)"
    zero = state_of(make({0: (7, 0), 5: (7, 4)}, {0: (7, 2)}, watch=((7, 0),)))
    assert moves_from(zero, (7, 0))["7,6"] is not None
    assert ENGINE.play(zero, "7,0-7,6=0/5").first[0] == (7, 6)
    assert ENGINE.play(zero, "7,0-7,6=5*0").first[0] == (7, 6)
    assert "division by zero" in refused(zero, "7,0-7,6=5/0")


def test_span_errors_name_expected_used_value_and_needed() -> None:
    """RULES.md's example 13,8-10,5=6+3, and each way to get it wrong."""
    state = ENGINE.start()
    after = ENGINE.play(state, "13,8-10,5=6+3")
    assert after.last_move == "13,8-10,5=6+3" and after.first[9] == (10, 5)
    reason = refused(state, "13,8-10,5=3*3")
    assert "numbers 3, 6" in reason and "used 3, 3" in reason and "needed 9" in reason
    reason = refused(state, "13,8-10,5=6-3")
    assert "value 3" in reason and "needed 9" in reason and "used 3, 6" in reason
    reason = refused(state, "13,8-10,5=6*3+3")
    assert "used 3, 3, 6" in reason and "numbers 3, 6" in reason and "value 21" in reason
    for move, words in (
        ("13,8-10,5", "needs an expression"),
        ("13,8-10,5=", "needs an expression"),
        ("13,8-10,5=63", "single digits"),
        ("13,8-10,5=-6+3+12", "unary minus"),
        ("13,8-10,5=6 + 3", "no spaces"),
        ("13,8-10,5=(6+3", "')'"),
        ("13,8-10,5=6/(3-3)", "division by zero"),
        ("13,8-10,5=6+3=9", "expected"),
        ("13,8-10,5=6x3", "expected"),
    ):
        reason = refused(state, move)
        assert words in reason, (move, reason)
        assert "numbers 3, 6" in reason and "making 9" in reason, reason


def test_steps_and_hops_carry_no_expression() -> None:
    """Only spans have '=EXPRESSION'."""
    state = ENGINE.start()
    assert "step" in refused(state, "11,4-10,3=1")
    assert "hop" in refused(state, "12,9-10,7=6")
    assert ENGINE.play(state, "12,9-10,7").last_move == "12,9-10,7"


def test_only_the_side_to_move_moves_its_own_pieces() -> None:
    """Moving an empty point or the opponent's piece is refused with the reason."""
    state = ENGINE.start()
    assert "second's" in refused(state, "3,4-4,5")
    assert "no piece on 7,6" in refused(state, "7,6-8,5")
    assert "not a move" in refused(state, "e2e4")
    assert "not a point" in refused(state, "7,7-8,8")


def test_play_returns_a_new_state_and_never_changes_the_old_one() -> None:
    """States are frozen values; equal positions give equal states."""
    state = ENGINE.start()
    after = ENGINE.play(state, "11,4-10,3")
    assert ENGINE.position(state) == START
    assert after.turn == "second" and after.ply == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.ply = 3  # type: ignore[misc]
    assert ENGINE.start(position=START) == state
    assert hash(ENGINE.start(position=START)) == hash(state)


# ---- stop, report, limits -----------------------------------------------------------------------


def test_stop_scores_the_product_sum_and_the_higher_wins() -> None:
    """First in L with piece n on point n: 285 against second's 81 + 64 = 145."""
    state = state_of(make(LEFT, {9: RIGHT[9], 8: RIGHT[8]}))
    assert ENGINE.scores(state) == {"first": 285, "second": 145}
    outcome = ENGINE.claim(state, "stop", "first")
    assert (outcome.winner, outcome.reason) == ("first", "stop")
    assert outcome.scores == {"first": 285, "second": 145}


def test_stop_can_lose_on_score() -> None:
    """First in L with piece n on point 9-n scores 120; second's 285 wins."""
    first = {n: LEFT[9 - n] for n in range(10)}
    state = state_of(make(first, RIGHT))
    outcome = ENGINE.claim(state, "stop", "first")
    assert (outcome.winner, outcome.reason, outcome.result) == ("second", "stop", "second")
    assert outcome.scores == {"first": 120, "second": 285}


def test_stop_equal_scores_draw() -> None:
    """285 against 285: a draw; second may stop on its own turn too."""
    state = state_of(make(LEFT, RIGHT, turn="second"))
    outcome = ENGINE.claim(state, "stop", "second")
    assert (outcome.winner, outcome.result, outcome.reason) == (None, "draw", "stop")
    assert outcome.scores == {"first": 285, "second": 285}


def test_stop_refused_off_turn_or_with_a_piece_outside_the_camp() -> None:
    """Stop is on one's own turn with all ten pieces in the target camp; the game goes on."""
    state = state_of(make(LEFT, RIGHT, turn="second"))
    with pytest.raises(ClaimRefused, match="own turn"):
        ENGINE.claim(state, "stop", "first")
    nine_in = state_of(make({**LEFT, 3: (6, 7)}, RIGHT))
    with pytest.raises(ClaimRefused) as info:
        ENGINE.claim(nine_in, "stop", "first")
    assert "3 on 6,7" in str(info.value) and "camp L" in str(info.value)
    with pytest.raises(ClaimRefused, match="not there"):
        ENGINE.claim(ENGINE.start(), "stop", "first")
    assert ENGINE.outcome(nine_in) is None
    assert ENGINE.play(nine_in, "6,7-6,9").ply == 1


def test_report_wins_when_the_opponent_keeps_a_piece_home_after_30_moves() -> None:
    """Second has made 30 moves with its 4 still on L's point 4: first's report wins."""
    for ply in (60, 61):  # on either side's turn
        turn = "first" if ply % 2 == 0 else "second"
        state = state_of(make({}, {4: LEFT[4]}, turn=turn, ply=ply))
        outcome = ENGINE.claim(state, "report", "first")
        assert (outcome.winner, outcome.reason) == ("first", "report")
        assert outcome.scores == ENGINE.scores(state)
        assert outcome.highlight == ("3,4",)


def test_report_refused_before_the_limit_or_with_nothing_home() -> None:
    """29 moves are not enough; 30 moves with no piece home is no violation either."""
    early = state_of(make({}, {4: LEFT[4]}, turn="second", ply=59))
    with pytest.raises(ClaimRefused) as info:
        ENGINE.claim(early, "report", "first")
    assert "29 moves" in str(info.value) and "limit 30" in str(info.value)
    assert "4 on 3,4" in str(info.value)
    clean = state_of(make({}, {}, ply=60))
    with pytest.raises(ClaimRefused, match="none"):
        ENGINE.claim(clean, "report", "first")
    with pytest.raises(ClaimRefused, match="0 moves"):
        ENGINE.claim(ENGINE.start(), "report", "second")


def test_report_by_second_and_the_home_limit_option() -> None:
    """First's count is (ply + 1) // 2; home_limit changes the threshold."""
    state = state_of(make({2: RIGHT[2]}, {}, turn="second", ply=59))
    outcome = ENGINE.claim(state, "report", "second")
    assert (outcome.winner, outcome.reason) == ("second", "report")
    short = make({2: RIGHT[2]}, {}, turn="first", ply=8)
    with pytest.raises(ClaimRefused, match="4 moves"):
        ENGINE.claim(state_of(short, home_limit=5), "report", "second")
    longer = make({2: RIGHT[2]}, {}, turn="second", ply=9)
    assert ENGINE.claim(state_of(longer, home_limit=5), "report", "second").winner == "second"


def test_unknown_claims_and_sides_are_refused() -> None:
    """Only stop and report."""
    with pytest.raises(ClaimRefused, match="not a claim"):
        ENGINE.claim(ENGINE.start(), "draw", "first")
    with pytest.raises(ClaimRefused, match="not a side"):
        ENGINE.claim(ENGINE.start(), "stop", "white")  # type: ignore[arg-type]


def test_max_plies_draws_and_ends_everything() -> None:
    """At max_plies the game is drawn (move_limit): no moves, no claims, scores filled."""
    state = state_of(make(LEFT, {}, turn="second", ply=9), max_plies=10)
    assert ENGINE.outcome(state) is None
    move = ENGINE.legal_moves(state)[0]
    over = ENGINE.play(state, move)
    outcome = ENGINE.outcome(over)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.result) == (None, "move_limit", "draw")
    assert outcome.scores == {"first": 285, "second": 0}
    assert ENGINE.legal_moves(over) == [] and ENGINE.perft(over, 2) == 0
    assert "game is over" in refused(over, move)
    with pytest.raises(ClaimRefused, match="over"):
        ENGINE.claim(over, "stop", "first")


def test_no_legal_move_loses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The side to move without a move loses (no_moves).

    No valid position has this: blocking ten pieces needs every neighbour and every hop landing
    taken, at least 21 points (the packed camp below still hops), and there are only 20 pieces.
    So the rule is checked by making the "has a move" check answer no (what an empty
    generator would give).
    """
    packed = {n: p for n, p in enumerate([(10, 3), (10, 5), (10, 7), (10, 9), (10, 11)])}
    packed.update({5 + n: (9, y) for n, y in enumerate((2, 4, 6, 8, 10))})
    state = state_of(make(RIGHT, packed))
    moves = ENGINE.legal_moves(state)
    assert "11,10-9,12" in moves and not any(m.startswith("11,4-") for m in moves)
    monkeypatch.setattr("engines.shuqi.engine._any_move", lambda *args: False)
    state = dataclasses.replace(state)  # nothing memoised yet
    outcome = ENGINE.outcome(state)
    with pytest.raises(IllegalMove, match="no_moves"):
        ENGINE.play(state, "11,10-9,12")
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("second", "no_moves")
    assert outcome.scores == {"first": 0, "second": 0}


# ---- position strings ---------------------------------------------------------------------------


def test_position_round_trip() -> None:
    """position(start(position=P)) == P, including a position after moves."""
    state = ENGINE.play(ENGINE.play(ENGINE.start(), "13,8-10,5=6+3"), "3,4-4,5")
    text = ENGINE.position(state)
    assert text.startswith("first;2;")
    assert ENGINE.position(ENGINE.start(position=text)) == text
    assert ENGINE.start(position=text).squares == state.squares


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("first;1;" + START.split(";", 2)[2], "does not match PLY"),
        ("second;0;" + START.split(";", 2)[2], "does not match PLY"),
        ("white;0;" + START.split(";", 2)[2], "TURN must be first or second"),
        ("first;-2;" + START.split(";", 2)[2], "PLY must be a whole number"),
        ("first;two;" + START.split(";", 2)[2], "PLY must be a whole number"),
        ("first;0;" + START.split(";", 2)[2] + ";", "4 fields"),
        ("first;0", "4 fields"),
        ("", "4 fields"),
        (START.replace("14,7 ", ""), "ten points"),
        (START.replace("14,7 ", "14,7  "), "ten points"),
        (START.replace("14,7", "7,7"), "not a point of the board"),
        (START.replace("14,7", "16,7"), "not a point of the board"),
        (START.replace("14,7", "a,b"), "is not a point"),
        (START.replace("14,7", "0,7"), "both on 0,7"),
        (START.replace("14,7", "11,4"), "both on 11,4"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(text: str, words: str) -> None:
    """TURN/PLY parity, field counts, ten board points each, twenty distinct points."""
    with pytest.raises(BadPosition) as info:
        ENGINE.start(position=text)
    assert words in str(info.value)


def test_record_round_trip() -> None:
    """The JSON record replays to the same final state."""
    from engines.base import RecordInfo

    moves = ("13,8-10,5=6+3", "3,4-4,5", "11,4-10,3")
    state = ENGINE.start()
    for move in moves:
        state = ENGINE.play(state, move)
    text = ENGINE.record(RecordInfo(variant="standard", start=START, moves=moves))
    assert ENGINE.from_record(text).squares == state.squares


def test_spanned_gives_the_hint_button_its_numbers() -> None:
    """ENGINE.spanned names the jumped numbers and the target; solve() then finds a hint."""
    from engines.shuqi import solve

    state = ENGINE.start()
    numbers, target = ENGINE.spanned(state, (13, 8), (10, 5))
    assert (numbers, target) == ((6, 3), 9)
    hint = solve(numbers, target)
    assert hint is not None and ENGINE.play(state, f"13,8-10,5={hint}").ply == 1
    with pytest.raises(IllegalMove, match="not a span"):
        ENGINE.spanned(state, (12, 9), (10, 7))


def test_timeout_outcome_carries_the_scores() -> None:
    """Every outcome has both scores, a timeout too."""
    state = state_of(make(LEFT, {}))
    outcome = ENGINE.timeout_outcome(state, "first")
    assert (outcome.winner, outcome.reason) == ("second", "timeout")
    assert outcome.scores == {"first": 285, "second": 0}


def test_one_move_and_any_move_agree_with_the_generator() -> None:
    """The hot path's single-move check and early-exit "has a move" match ``generate_moves``
    for every (from, to) pair of every position of a few random games."""
    rng = random.Random(3)
    size = len(POINTS)
    for _ in range(3):
        state = ENGINE.start()
        while ENGINE.outcome(state) is None and state.ply < 120:
            base = _base(state.turn)
            raw = generate_moves(state.board, state.squares, base)
            listed = {(i, j): (c, n) for c, i, j, n in raw}
            assert _any_move(state.board, state.squares, base) == bool(listed)
            for i in range(size):
                for j in range(size):
                    assert _one_move(state.board, base, i, j) == listed.get((i, j)), (i, j)
            state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
