"""Why a number chess game ended, in its players' words, beyond who won: a report names the
pieces left at home past the home limit, a stop who had all ten pieces in the other's camp
(RULES.md section 3, "End of the game").
"""

from __future__ import annotations

from collections.abc import Callable

from client.room_model import SEATS, RoomModel


def why_line(m: RoomModel, you: str | None, name: Callable[[str], str]) -> str:
    """One sentence under the result of a number chess game ended by a report or a stop, from
    the reader's side (``you``: the reader's seat, ``None`` for a spectator); ``""`` otherwise.

    "Your pieces 0 and 3 were still at home after 30 moves (home limit 30)."
    "Alice had all ten pieces in your camp: the higher score wins."
    """
    if m.game != "shuqi" or m.state is None or m.result not in (*SEATS, "draw"):
        return ""

    def who(seat: str) -> str:
        return "you" if seat == you else name(seat)

    def whose(seat: str) -> str:
        return "your" if seat == you else f"{name(seat)}'s"

    if m.reason == "report" and m.result in SEATS:
        loser = "second" if m.result == "first" else "first"
        return _left_home(m, loser, whose(loser))
    if m.reason == "stop":
        caller = m.turn if m.turn in SEATS else "first"  # a stop is called instead of a move
        other = "second" if caller == "first" else "first"
        decides = "equal scores draw" if m.result == "draw" else "the higher score wins"
        return _cap(f"{who(caller)} had all ten pieces in {whose(other)} camp: {decides}.")
    return ""


def _left_home(m: RoomModel, loser: str, owner: str) -> str:
    """The reported pieces (``m.highlight``) of ``loser`` (``owner``: "your", "Bob's") and the
    moves it had made, as :func:`why_line` says them."""
    state = m.state
    numbers = []
    for point in m.highlight:
        x, _, y = point.partition(",")
        try:
            piece = state.piece_at((int(x), int(y)))
        except (ValueError, AttributeError, TypeError):
            piece = None
        if piece is not None:
            numbers.append(piece[1])
    if not numbers:
        return ""
    numbers.sort()
    if len(numbers) == 1:
        pieces = f"piece {numbers[0]} was"
    else:
        pieces = f"pieces {', '.join(map(str, numbers[:-1]))} and {numbers[-1]} were"
    made = getattr(state, "moves_made", lambda seat: None)(loser)
    limit = getattr(state, "home_limit", None)
    after = f" after {made} moves" if isinstance(made, int) else ""
    rule = f" (home limit {limit})" if isinstance(limit, int) else ""
    return _cap(f"{owner} {pieces} still at home{after}{rule}.")


def _cap(text: str) -> str:
    """A sentence about "you" starts with a capital; one starting with a player's name keeps
    the name as its player typed it."""
    return "Y" + text[1:] if text.startswith("you") else text
