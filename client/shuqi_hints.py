"""A picked number chess piece's moves in the player's words (RULES.md section 3, "Moves"):
how it can move when picked (step, hop, span and over which numbers), and why it cannot go to a
clicked point (the room said nothing and dropped the pick).
"""

from __future__ import annotations

from typing import Any

from engines.base import IllegalMove

PLAIN_WORDS = (
    (
        "a jump lands directly beyond the last piece jumped",
        "A jump lands right beyond the last piece it jumps",
    ),
    (
        "nothing to jump between the two points; a step goes to a neighbour",
        "Too far for a step (a step goes to a neighbour), and there is no piece between to jump",
    ),
    (
        "one piece can be hopped only when it is adjacent (a span needs two or more pieces)",
        "One piece can be hopped only when it stands next to the mover; a span needs two or "
        "more pieces",
    ),
)
"""The engine's reasons that a point cannot be reached (after ``FROM-TO: ``), as players say
them; an unknown reason is shown as the engine gives it."""


MOST_WORDS = 120
"""A picked piece's moves are listed up to this many characters, else counted."""


def piece_moves(engine: Any, state: Any, origin: str) -> str:
    """How the side to move's piece on ``origin`` can move, e.g. "The 9 can span 6 and 3 to
    10,5 or 5 and 4 to 10,11."; many moves are counted ("The 4 has 9 moves, marked green: 5
    steps, 2 hops and 2 spans."). ``""`` when it has none or nothing can be said."""
    try:
        frm = _point(origin)
        piece = state.piece_at(frm)
        if piece is None or piece[0] != state.turn:
            return ""
        steps: list[str] = []
        hops: list[str] = []
        spans: list[str] = []
        for move in engine.legal_moves(state):
            body = move.partition("=")[0]
            start, _, point = body.partition("-")
            if start != origin:
                continue
            to = _point(point)
            if "=" in move:
                numbers, _ = engine.spanned(state, frm, to)
                spans.append(f"{_and(numbers)} to {point}")
            elif abs(to[0] - frm[0]) + abs(to[1] - frm[1]) <= 2 and to != frm:
                steps.append(point)
            else:
                over = state.piece_at(((frm[0] + to[0]) // 2, (frm[1] + to[1]) // 2))
                hops.append(f"over the {over[1]} to {point}")
    except (IllegalMove, ValueError, AttributeError, TypeError):
        return ""
    said = [
        words
        for words, found in (
            (f"step to {_or(steps)}", steps),
            (f"hop {' or '.join(hops)}", hops),
            (f"span {' or '.join(spans)}", spans),
        )
        if found
    ]
    if not said:
        return ""
    text = f"The {piece[1]} can {', '.join(said[:-1])}{', or ' if len(said) > 1 else ''}{said[-1]}."
    if len(text) <= MOST_WORDS:
        return text
    counts = [
        f"{len(found)} {kind}{'' if len(found) == 1 else 's'}"
        for kind, found in (("step", steps), ("hop", hops), ("span", spans))
        if found
    ]
    total = len(steps) + len(hops) + len(spans)
    return f"The {piece[1]} has {total} moves, marked green: {_and(counts)}."


def _and(items: Any) -> str:
    """``6 and 3``, ``7, 1 and 3``."""
    return _listed([str(item) for item in items], "and")


def _or(items: list[str]) -> str:
    """``10,5 or 10,7``."""
    return _listed(items, "or")


def _listed(words: list[str], last: str) -> str:
    """``words`` one after another, ``last`` ("and", "or") before the last one."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def landing_refusal(engine: Any, state: Any, origin: str, point: str) -> str:
    """Why the piece on ``origin`` cannot go to ``point`` in ``state`` (the side to move's
    piece, ``point`` not one of its destinations): "The 5 cannot span 6 and 3 to 10,5: ...",
    "3,6 is taken: ...". ``""`` when it can, or nothing can be said."""
    try:
        frm, to = _point(origin), _point(point)
        piece = state.piece_at(frm)
        move = f"{origin}-{point}"
        if (
            piece is None
            or piece[0] != state.turn
            or any(legal.partition("=")[0] == move for legal in engine.legal_moves(state))
        ):
            return ""
        if state.piece_at(to) is not None:
            return f"{point} is taken: pieces move only to empty points."
        try:
            numbers, value = engine.spanned(state, frm, to)
        except IllegalMove:
            engine.play(state, move)  # not a span: its refusal says why
            return ""
        listed = _and(numbers)
        return (
            f"The {value} cannot span {listed} to {point}: no arithmetic of {listed}, "
            f"each used once, makes {value}."
        )
    except IllegalMove as exc:
        return plain(str(exc), f"{origin}-{point}")
    except (ValueError, AttributeError, TypeError):
        return ""


def plain(reason: str, move: str) -> str:
    """The engine's ``reason`` for ``move`` without the move's name, in the player's words."""
    for prefix in (f"{move}: ", f"{move!r}: "):
        reason = reason.removeprefix(prefix)
    for engine_words, words in PLAIN_WORDS:
        if reason.startswith(engine_words):
            reason = words + reason[len(engine_words) :]
    if " is not on a line through " in reason:
        reason = reason.split(" (lines run", 1)[0] + ": pieces move along the lines"
    return reason[:1].upper() + reason[1:].rstrip(".") + "."


def _point(text: str) -> tuple[int, int]:
    x, _, y = text.partition(",")
    return int(x), int(y)
