"""The movement-rule and position-condition grammar of JBQ maps (RULES.md section 5).

A movement rule is ``STEPS;SLIDES``: comma-separated keypad directions (``1 2 3 / 4 . 5 / 6 7 8``,
2 = up), each optionally ``d(COND&COND...)``. A condition is ``NAME[a|b|...]`` with integer
arguments; ``&`` between conditions means OR. Parsing never raises: every function returns the
parsed value together with the list of problems it found, so a validator can report them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_RULE_CHARS = 4000
"""Longest movement rule or condition text accepted."""
MAX_ARGS = 64
"""Most arguments one condition may have."""
MAX_ABS_ARG = 1000
"""Condition arguments lie in ``-1000..1000``."""

CORE_CONDITIONS = frozenset({"X", "Y", "P"})
"""Conditions every variant understands."""
MODULE_CONDITIONS = frozenset({"NP", "C", "D", "R", "T"})
"""Conditions of the ``conditions`` module."""

DIRECTIONS: dict[int, tuple[int, int]] = {
    1: (-1, -1),
    2: (-1, 0),
    3: (-1, 1),
    4: (0, -1),
    5: (0, 1),
    6: (1, -1),
    7: (1, 0),
    8: (1, 1),
}
"""Keypad direction -> (row delta, column delta); row 1 is the top, so 2 is up."""

_ATOM = re.compile(r"([A-Z]{1,8})\[([^\[\]]*)\]")
_INT = re.compile(r"-?[0-9]{1,6}")
_DIR = re.compile(r"([1-8])(?:\((.*)\))?")


@dataclass(frozen=True)
class Atom:
    """One condition such as ``X[1|-1]``: a name and its integer arguments."""

    name: str
    args: tuple[int, ...]

    def text(self) -> str:
        """The condition in map notation."""
        return f"{self.name}[{'|'.join(str(a) for a in self.args)}]"


Condition = tuple[Atom, ...]
"""Conditions joined by ``&``: true when ANY of them holds."""


@dataclass(frozen=True)
class Direction:
    """One direction of a movement rule, active when ``when`` is empty or any of it holds."""

    dir: int
    when: Condition = ()

    def text(self) -> str:
        """The direction in map notation."""
        if not self.when:
            return str(self.dir)
        return f"{self.dir}({condition_text(self.when)})"


@dataclass(frozen=True)
class MoveRule:
    """A parsed movement rule: one-square steps and any-distance slides."""

    steps: tuple[Direction, ...] = ()
    slides: tuple[Direction, ...] = ()

    def text(self) -> str:
        """The rule in map notation (``STEPS;SLIDES``)."""
        return (
            ",".join(d.text() for d in self.steps) + ";" + ",".join(d.text() for d in self.slides)
        )

    def atoms(self) -> list[Atom]:
        """Every condition atom the rule uses."""
        return [a for d in self.steps + self.slides for a in d.when]


def condition_text(cond: Condition) -> str:
    """A condition in map notation."""
    return "&".join(a.text() for a in cond)


def _check_arity(atom: Atom) -> str | None:
    n = len(atom.args)
    name = atom.name
    if name in ("X", "Y") and n < 1:
        return f"{name}[] needs at least one number"
    if name in ("P", "NP") and (n < 2 or n % 2):
        return f"{name}[...] needs row|column pairs, got {n} number(s)"
    if name in ("C", "D") and n != 3:
        return f"{name}[...] needs exactly 3 numbers, got {n}"
    if name == "T" and n != 1:
        return f"T[...] needs exactly 1 number, got {n}"
    if name == "R" and n < 4:
        return (
            f"R[...] needs a piece id, a comparison, a distance and directions, got {n} number(s)"
        )
    if name in ("D", "R") and n >= 2 and atom.args[1] not in (-1, 0, 1):
        return f"{name}[...] comparison must be -1, 0 or 1, not {atom.args[1]}"
    if name == "R" and any(d < 1 or d > 8 for d in atom.args[3:]):
        return "R[...] directions must be 1 to 8"
    if name in ("C", "D", "R", "T") and n >= 1 and atom.args[0] < 0:
        return f"{name}[...] piece id must not be negative"
    return None


def parse_condition(text: str) -> tuple[Condition, list[str]]:
    """Parse ``X[1|2]&P[3|4]``; returns the atoms and the problems (empty when fine).

    Unknown names are parsed (so the caller can say which module is missing); arity is checked.
    """
    problems: list[str] = []
    if len(text) > MAX_RULE_CHARS:
        return (), [f"condition longer than {MAX_RULE_CHARS} characters"]
    atoms: list[Atom] = []
    for raw in text.split("&"):
        part = raw.strip()
        if not part:
            continue
        m = _ATOM.fullmatch(part)
        if m is None:
            problems.append(f"bad condition {part[:40]!r} (expected NAME[a|b|...])")
            continue
        name, body = m.group(1), m.group(2)
        pieces = [p.strip() for p in body.split("|")]
        if len(pieces) > MAX_ARGS:
            problems.append(f"condition {name} has more than {MAX_ARGS} numbers")
            continue
        if not all(_INT.fullmatch(p) for p in pieces):
            problems.append(f"condition {part[:40]!r}: arguments must be whole numbers")
            continue
        args = tuple(int(p) for p in pieces)
        if any(abs(a) > MAX_ABS_ARG for a in args):
            problems.append(f"condition {name}: numbers must lie in -{MAX_ABS_ARG}..{MAX_ABS_ARG}")
            continue
        atom = Atom(name, args)
        if name in CORE_CONDITIONS or name in MODULE_CONDITIONS:
            issue = _check_arity(atom)
            if issue:
                problems.append(issue)
                continue
        atoms.append(atom)
    return tuple(atoms), problems


def _bad_direction(token: str) -> str:
    """Why ``token`` is not a direction (with or without its condition)."""
    shown = repr(token[:40])
    if token.count("(") > token.count(")"):
        return f"direction {shown} opens '(' and never closes it"
    if token.count(")") > token.count("("):
        return f"direction {shown} closes ')' it never opened"
    return f"unknown direction {shown} (directions are 1 to 8)"


def _parse_group(text: str, what: str) -> tuple[tuple[Direction, ...], list[str]]:
    problems: list[str] = []
    found: list[Direction] = []
    for raw in text.split(","):
        token = raw.strip()
        if not token:
            continue
        m = _DIR.fullmatch(token)
        if m is None:
            problems.append(f"{what}: {_bad_direction(token)}")
            continue
        when: Condition = ()
        if m.group(2) is not None:
            when, issues = parse_condition(m.group(2))
            problems.extend(f"{what} direction {m.group(1)}: {p}" for p in issues)
            if not when and not issues:
                problems.append(f"{what} direction {m.group(1)}: empty condition")
        found.append(Direction(int(m.group(1)), when))
    return tuple(found), problems


def parse_move_rule(text: str) -> tuple[MoveRule, list[str], list[str]]:
    """Parse ``STEPS;SLIDES[;EXTRA...]``.

    Returns the rule, the problems, and the non-empty extra groups (beyond the second) verbatim,
    which only JBQ extensions give a meaning; the caller refuses them.
    """
    if len(text) > MAX_RULE_CHARS:
        return MoveRule(), [f"rule longer than {MAX_RULE_CHARS} characters"], []
    groups = text.split(";")
    if len(groups) < 2:
        return MoveRule(), [f"rule {text[:40]!r} needs a ';' between steps and slides"], []
    steps, p1 = _parse_group(groups[0], "steps")
    slides, p2 = _parse_group(groups[1], "slides")
    extra = [g for g in groups[2:] if g.strip()]
    return MoveRule(steps, slides), p1 + p2, extra
