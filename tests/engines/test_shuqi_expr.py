"""Number chess span expressions: the parser (exact arithmetic, clear errors) and the solver."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.shuqi import ExpressionError, evaluate, solve
from engines.shuqi.expr import MAX_DEPTH
from engines.shuqi.solver import values
from tests.engines.shuqi_oracle import reachable


@pytest.mark.parametrize(
    ("text", "value", "operands"),
    [
        ("6+3", Fraction(9), (6, 3)),
        ("8-3-2", Fraction(3), (8, 3, 2)),  # left to right
        ("8/4/2", Fraction(1), (8, 4, 2)),
        ("2+3*4", Fraction(14), (2, 3, 4)),  # * before +
        ("(2+3)*4", Fraction(20), (2, 3, 4)),
        ("1/3", Fraction(1, 3), (1, 3)),
        ("3/2*6", Fraction(9), (3, 2, 6)),
        ("1-9", Fraction(-8), (1, 9)),
        ("0/7", Fraction(0), (0, 7)),
        ("((((5))))", Fraction(5), (5,)),
        ("8/(3-8/3)", Fraction(24), (8, 3, 8, 3)),
    ],
)
def test_evaluate_is_exact_with_usual_precedence(
    text: str, value: Fraction, operands: tuple[int, ...]
) -> None:
    """+ - * / with parentheses, left-associative, exact rationals, operands in reading order."""
    result = evaluate(text)
    assert result.value == value and result.operands == operands


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("12", "single digits"),
        ("-3", "no unary minus"),
        ("3*-3", "no unary minus"),
        ("3 +4", "no spaces"),
        ("3+", "found the end"),
        ("(3+4", "expected ')'"),
        ("3+4)", "expected an operator"),
        ("()", "expected a digit"),
        ("3/0", "division by zero"),
        ("3/(2-2)", "division by zero"),
        ("0/0", "division by zero"),
        ("3x4", "expected an operator"),
        ("٣+4", "expected a digit"),  # a non-ASCII digit is not a digit here
        ("3**4", "expected a digit"),
        ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested parentheses"),
        ("1+" * 150 + "1", "longer than"),
    ],
)
def test_evaluate_refuses_with_the_reason(text: str, words: str) -> None:
    """Every malformed expression names what is wrong, and where."""
    with pytest.raises(ExpressionError) as info:
        evaluate(text)
    assert words in str(info.value)


@given(st.text(alphabet="0123456789+-*/() x", max_size=60))
@settings(max_examples=300, deadline=None)
def test_evaluate_never_crashes(text: str) -> None:
    """Any string either evaluates or raises ExpressionError."""
    try:
        result = evaluate(text)
    except ExpressionError as exc:
        assert str(exc)
    else:
        assert isinstance(result.value, Fraction)
        assert len(result.operands) == sum(c.isdigit() for c in text)


# ---- the solver ---------------------------------------------------------------------------------


def check(numbers: list[int], target: int, expression: str | None) -> None:
    """``expression`` uses exactly ``numbers`` and is worth ``target``."""
    assert expression is not None
    result = evaluate(expression)
    assert result.value == target
    assert sorted(result.operands) == sorted(numbers)


def test_solver_known_cases() -> None:
    """Spans from RULES.md and a few classic puzzles; None when impossible."""
    check([6, 3], 9, solve([6, 3], 9))
    check([1, 3, 4, 6], 8, solve([1, 3, 4, 6], 8))
    check([0, 5], 0, solve([5, 0], 0))
    check([9, 9, 9, 9, 9, 9], 1, solve([9, 9, 9, 9, 9, 9], 1))
    check([1, 2, 3, 4, 5, 6], 0, solve([1, 2, 3, 4, 5, 6], 0))
    assert solve([0, 0], 9) is None
    assert solve([0, 1], 9) is None
    assert solve([0, 0, 0, 0, 1, 9], 7) is None
    assert solve([3, 3, 8, 8], Fraction(24)) is not None  # 8/(3-8/3): needs a fraction
    with pytest.raises(ValueError, match="digits"):
        solve([10, 1], 9)
    with pytest.raises(ValueError, match="at least one"):
        solve([], 0)


@pytest.mark.parametrize("size", [2, 3])
def test_solver_agrees_with_brute_force_on_every_small_multiset(size: int) -> None:
    """For every multiset of 2 or 3 digits and every target 0-9: found exactly when possible."""
    for numbers in itertools.combinations_with_replacement(range(10), size):
        possible = reachable(numbers)
        for target in range(10):
            expression = solve(numbers, target)
            if Fraction(target) in possible:
                check(list(numbers), target, expression)
            else:
                assert expression is None, (numbers, target, expression)


@given(st.lists(st.integers(0, 9), min_size=4, max_size=5), st.integers(0, 9))
@settings(max_examples=40, deadline=None)
def test_solver_agrees_with_brute_force_on_larger_spans(numbers: list[int], target: int) -> None:
    """4 and 5 numbers: the split search above 4 finds every reachable target."""
    expression = solve(numbers, target)
    if Fraction(target) in reachable(tuple(sorted(numbers))):
        check(numbers, target, expression)
    else:
        assert expression is None


@given(st.lists(st.integers(0, 9), min_size=1, max_size=6), st.integers(-3, 12))
@settings(max_examples=60, deadline=None)
def test_solver_answers_always_check(numbers: list[int], target: int) -> None:
    """Whatever the solver returns parses and makes the target with exactly the numbers."""
    expression = solve(numbers, target)
    if expression is not None:
        check(numbers, target, expression)
    elif len(numbers) <= 4:
        assert Fraction(target) not in values(tuple(sorted(numbers)))
