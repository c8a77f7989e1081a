"""Span expressions: a recursive-descent parser with exact rational arithmetic.

Grammar (ASCII, no spaces)::

    expression := term (("+" | "-") term)*
    term       := factor (("*" | "/") factor)*
    factor     := DIGIT | "(" expression ")"

Operands are single digits 0-9: no unary minus and no gluing digits into ``12`` (RULES.md 3,
"Span"). Arithmetic is exact (:class:`fractions.Fraction`); dividing by zero is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

MAX_LENGTH: Final = 200
"""Longest expression accepted (the wire's move limit)."""

MAX_DEPTH: Final = 40
"""Deepest parenthesis nesting accepted."""


class ExpressionError(ValueError):
    """An expression that cannot be read or evaluated; the message says where and why."""


@dataclass(frozen=True)
class Evaluated:
    """The result of :func:`evaluate`: the exact value and the operands in reading order."""

    value: Fraction
    operands: tuple[int, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.operands: list[int] = []

    def fail(self, what: str) -> ExpressionError:
        found = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end"
        if found.strip("'").isspace():
            found += " (no spaces allowed)"
        return ExpressionError(
            f"expression {self.text!r}: {what} at position {self.pos + 1}, found {found}"
        )

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expression(self, depth: int) -> Fraction:
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op = self.text[self.pos]
            self.pos += 1
            right = self.term(depth)
            value = value + right if op == "+" else value - right
        return value

    def term(self, depth: int) -> Fraction:
        value = self.factor(depth)
        while self.peek() in ("*", "/"):
            op = self.text[self.pos]
            where = self.pos
            self.pos += 1
            right = self.factor(depth)
            if op == "*":
                value = value * right
            elif right == 0:
                raise ExpressionError(
                    f"expression {self.text!r}: division by zero at position {where + 1}"
                )
            else:
                value = value / right
        return value

    def factor(self, depth: int) -> Fraction:
        c = self.peek()
        if c == "(":
            if depth >= MAX_DEPTH:
                raise self.fail(f"more than {MAX_DEPTH} nested parentheses")
            self.pos += 1
            value = self.expression(depth + 1)
            if self.peek() != ")":
                raise self.fail("expected ')' or an operator")
            self.pos += 1
            return value
        if len(c) == 1 and "0" <= c <= "9":
            self.pos += 1
            if len(self.peek()) == 1 and "0" <= self.peek() <= "9":
                raise self.fail("numbers are single digits (no gluing digits together)")
            self.operands.append(int(c))
            return Fraction(int(c))
        if c == "-":
            raise self.fail("expected a digit or '(' (there is no unary minus)")
        raise self.fail("expected a digit or '('")


def evaluate(text: str) -> Evaluated:
    """Parse and evaluate ``text``; raises :class:`ExpressionError` with the reason.

    >>> evaluate("(6+3)/2").value
    Fraction(9, 2)
    """
    if not isinstance(text, str):
        raise ExpressionError("an expression must be text")
    if text == "":
        raise ExpressionError("the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH} characters")
    parser = _Parser(text)
    value = parser.expression(0)
    if parser.pos != len(text):
        raise parser.fail("expected an operator")
    return Evaluated(value, tuple(parser.operands))


def format_value(value: Fraction) -> str:
    """``Fraction(9, 2)`` -> ``"9/2"``, ``Fraction(3)`` -> ``"3"``."""
    return str(value)
