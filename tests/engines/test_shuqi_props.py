"""Number chess properties (hypothesis) and an independent move generator written from RULES.md."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import BadPosition, ClaimRefused, IllegalMove, Outcome
from engines.shuqi import ENGINE, ShuqiState, evaluate
from tests.engines.shuqi_oracle import reachable

Point = tuple[int, int]
BOARD = [
    (x, y) for y in range(15) for x in range(15) if (x + y) % 2 and abs(x - 7) + abs(y - 7) <= 7
]
SIX = [(1, 1), (-1, -1), (1, -1), (-1, 1), (0, 2), (0, -2)]


def naive_moves(occupied: dict[Point, tuple[str, int]], turn: str) -> set[tuple[Point, Point]]:
    """(from, to) of every legal move, straight from the rules' wording."""
    moves = set()
    for p, (side, number) in occupied.items():
        if side != turn:
            continue
        for dx, dy in SIX:
            k = 1
            while (q := (p[0] + k * dx, p[1] + k * dy)) in BOARD:
                if q not in occupied:
                    between = [(p[0] + i * dx, p[1] + i * dy) for i in range(1, k)]
                    jumped = [occupied[b][1] for b in between if b in occupied]
                    beyond_piece = k > 1 and between[-1] in occupied
                    if (
                        (k == 1)
                        or (k == 2 and len(jumped) == 1)
                        or (
                            len(jumped) >= 2
                            and beyond_piece
                            and Fraction(number) in reachable(tuple(sorted(jumped)))
                        )
                    ):
                        moves.add((p, q))
                k += 1
    return moves


def occupancy(state: ShuqiState) -> dict[Point, tuple[str, int]]:
    """Point -> (side, number) from the public state."""
    out = {p: ("first", n) for n, p in enumerate(state.first)}
    out.update({p: ("second", n) for n, p in enumerate(state.second)})
    return out


def pairs(moves: list[str]) -> set[tuple[Point, Point]]:
    """(from, to) of listed moves."""
    out = set()
    for move in moves:
        frm, to = move.split("=")[0].split("-")
        a, b = frm.split(","), to.split(",")
        out.add(((int(a[0]), int(a[1])), (int(b[0]), int(b[1]))))
    return out


def pt(p: Point) -> str:
    """``(3, 6)`` -> ``"3,6"``."""
    return f"{p[0]},{p[1]}"


def naive_perft(occupied: dict[Point, tuple[str, int]], turn: str, depth: int) -> int:
    """Perft on plain dicts with the naive generator."""
    moves = naive_moves(occupied, turn)
    if depth == 1:
        return len(moves)
    total = 0
    for a, b in moves:
        after = dict(occupied)
        after[b] = after.pop(a)
        total += naive_perft(after, "second" if turn == "first" else "first", depth - 1)
    return total


def test_naive_generator_agrees_on_perft_3() -> None:
    """The independent generator counts 20, 400, 10700 from the start, as the engine does."""
    occupied = occupancy(ENGINE.start())
    assert [naive_perft(occupied, "first", d) for d in (1, 2, 3)] == [20, 400, 10700]


positions = st.builds(
    lambda points, ply: (
        f"{'first' if ply % 2 == 0 else 'second'};{ply};"
        + " ".join(map(pt, points[:10]))
        + ";"
        + " ".join(map(pt, points[10:20]))
    ),
    st.permutations(BOARD),
    st.integers(0, 399),
)


def check_state(state: ShuqiState, probes: list[tuple[Point, Point]]) -> None:
    """Listed moves match the rules, all play, and unlisted (from, to) pairs are refused."""
    listed = ENGINE.legal_moves(state)
    assert pairs(listed) == naive_moves(occupancy(state), state.turn)
    assert len(listed) == len(pairs(listed))  # each (from, to) once
    assert ENGINE.perft(state, 1) == len(listed)
    mover = state.pieces(state.turn)
    for move in listed:
        after = ENGINE.play(state, move)
        assert after.last_move == move and after.ply == state.ply + 1
        if "=" in move:
            frm = tuple(int(v) for v in move.split("-")[0].split(","))
            assert evaluate(move.split("=")[1]).value == mover.index(frm)
            wrapped = move.replace("=", "=(", 1) + ")"
            assert ENGINE.play(state, wrapped).last_move == wrapped
    for a, b in probes:
        if (a, b) in pairs(listed):
            continue
        for text in (f"{pt(a)}-{pt(b)}", f"{pt(a)}-{pt(b)}=1+2", f"{pt(a)}-{pt(b)}=0*1*2*3"):
            try:
                ENGINE.play(state, text)
            except IllegalMove as exc:
                assert str(exc)
            else:
                raise AssertionError(f"{text} was accepted but not listed")


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=24), st.randoms())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_follow_the_rules(choices: list[int], rng: object) -> None:
    """Along random games: listed == rules, every listed move plays, unlisted pairs refused."""
    import random

    assert isinstance(rng, random.Random)
    state = ENGINE.start()
    for choice in choices:
        own = list(state.pieces(state.turn))
        probes = [(rng.choice(own), rng.choice(BOARD)) for _ in range(12)]
        check_state(state, probes)
        assert ENGINE.position(ENGINE.start(position=ENGINE.position(state))) == (
            ENGINE.position(state)
        )
        moves = ENGINE.legal_moves(state)
        state = ENGINE.play(state, moves[choice % len(moves)])


@given(positions, st.randoms())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_positions_round_trip_and_follow_the_rules(text: str, rng: object) -> None:
    """Any 20 distinct points with TURN matching PLY: round-trips, and moves follow the rules."""
    import random

    assert isinstance(rng, random.Random)
    state = ENGINE.start(position=text)
    assert ENGINE.position(state) == text
    own = list(state.pieces(state.turn))
    check_state(state, [(rng.choice(own), rng.choice(BOARD)) for _ in range(12)])
    for kind, side in itertools.product(("stop", "report", "x"), ("first", "second")):
        try:
            outcome = ENGINE.claim(state, kind, side)  # type: ignore[arg-type]
        except ClaimRefused as exc:
            assert str(exc)
        else:
            assert isinstance(outcome, Outcome) and outcome.scores == ENGINE.scores(state)


text_like = st.one_of(
    st.text(max_size=80),
    st.text(alphabet="0123456789,-=+*/() ;firstecond", max_size=80),
)


@given(text_like)
@settings(max_examples=300, deadline=None)
def test_no_string_crashes_play(text: str) -> None:
    """play either accepts a text or raises IllegalMove with a reason."""
    state = ENGINE.start()
    try:
        after = ENGINE.play(state, text)
    except IllegalMove as exc:
        assert str(exc)
    else:
        assert after.last_move == text


@given(text_like)
@settings(max_examples=300, deadline=None)
def test_no_string_crashes_the_position_parser(text: str) -> None:
    """start(position=...) either reads a position or raises BadPosition with a reason."""
    try:
        state = ENGINE.start(position=text)
    except BadPosition as exc:
        assert str(exc)
    else:
        assert ENGINE.position(state) == text


@given(st.sampled_from(ENGINE.legal_moves(ENGINE.start())), st.text(max_size=12))
@settings(max_examples=200, deadline=None)
def test_mangled_moves_are_refused_cleanly(move: str, noise: str) -> None:
    """A listed move with text appended is refused, never a crash (or it is still legal)."""
    state = ENGINE.start()
    try:
        after = ENGINE.play(state, move + noise)
    except IllegalMove as exc:
        assert str(exc)
    else:
        assert after.last_move == move + noise
