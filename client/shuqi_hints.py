"""Why a picked number chess piece cannot go to a clicked point, in the player's words
(RULES.md section 3, "Moves"): the room says it instead of dropping the pick without a word.
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
        listed = " and ".join([", ".join(map(str, numbers[:-1])), str(numbers[-1])])
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
