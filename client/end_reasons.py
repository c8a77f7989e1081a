"""Number chess's ends in its players' words (RULES.md section 3, "End of the game"): why a
game ended, beyond who won (a report names the pieces left at home past the home limit, a stop
who had all ten pieces in the other's camp), and why a stop or report would be refused, said
before it is sent (the server's refusal speaks of 'first', 'second' and 'camp L').
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client.boards.shuqi import LEFT_CAMP, RIGHT_CAMP
from client.room_model import SEATS, RoomModel

HOME_CAMP = {"first": frozenset(RIGHT_CAMP), "second": frozenset(LEFT_CAMP)}
"""Each side's home camp, the other side's target."""


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


def claim_refusal(m: RoomModel, kind: str, claimant: str, name: Callable[[str], str]) -> str:
    """Why ``claimant``'s ``stop`` or ``report`` would be refused in this position, in the
    player's words ("You can call stop only on your turn."); ``""`` when it would be accepted
    or this client cannot tell (the server judges it then)."""
    engine: Any = m.engine  # number chess's: its claims take a seat word
    state = m.state
    if m.game != "shuqi" or engine is None or state is None or claimant not in SEATS:
        return ""
    try:
        engine.claim(state, kind, claimant)
    except Exception:  # refused: said below in the player's words
        pass
    else:
        return ""
    rival = "second" if claimant == "first" else "first"
    if kind == "stop":
        if state.turn != claimant:
            return "You can call stop only on your turn."
        out = [n for n, p in enumerate(state.pieces(claimant)) if p not in HOME_CAMP[rival]]
        return (
            (
                f"You can call stop once all ten of your pieces stand in {name(rival)}'s camp; "
                f"not there yet: {', '.join(map(str, out))}."
            )
            if out
            else ""
        )
    if kind != "report":
        return ""
    made, limit = state.moves_made(rival), state.home_limit
    if made < limit:
        return (
            f"Nothing to report yet: pieces may stay at home until their side has made "
            f"{limit} moves; {name(rival)} has made {made}."
        )
    if not any(p in HOME_CAMP[rival] for p in state.pieces(rival)):
        return (
            f"Nothing to report: none of {name(rival)}'s pieces is at home "
            f"({name(rival)} has made {made} moves, home limit {limit})."
        )
    return ""
