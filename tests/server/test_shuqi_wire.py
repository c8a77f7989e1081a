"""Number chess over the wire: a real server on loopback, real WebSocket clients, whole games.

Each room starts from a near-finished position (``create`` with ``position``) so the games end in
a few moves: by ``stop``, by ``report`` and by the ``max_plies`` room option.
"""

from __future__ import annotations

from typing import Any

from server.testing import WireClient
from tests.server.helpers import Factory

# First has pieces 0..8 on their own points of camp L; its 9 on 5,10 can span its 6 and 3 to L's
# point 9 (1,6). Second is in camp R with 1 and 2 swapped; its 9 on 9,4 spans 3 and 6 to 13,8.
FIRST = "0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 5,10"
SECOND = "14,7 11,8 11,4 11,6 11,10 12,9 12,7 12,5 13,6 9,4"
NEAR_END = f"first;40;{FIRST};{SECOND}"
# The same, except that second's 4 never left home (L's point 4, 3,4); first's 4 waits on 4,5.
STAYED_HOME = (
    "first;40;0,7 3,10 3,6 3,8 4,5 2,5 2,7 2,9 1,8 5,10;"
    "14,7 11,8 11,4 11,6 3,4 12,9 12,7 12,5 13,6 9,4"
)


async def _table(
    client: Factory, position: str, options: dict[str, int]
) -> tuple[WireClient, WireClient, str]:
    """Ann (first) opens a number chess room at ``position``; bob joins as second."""
    ann, bob = await client("ann"), await client("bob")
    created = await ann.request(
        type="create", game="shuqi", color="first", position=position, options=options
    )
    assert created["type"] == "room", created
    assert created["game"] == "shuqi" and created["variant"] == "standard"
    assert created["position"] == position and created["start"] == position
    assert created["options"] == options
    code = created["room"]
    joined = await bob.request(type="join", room=code)
    assert joined["you"] == "second" and joined["status"] == "playing"
    await ann.expect("room", status="playing")
    return ann, bob, code


async def _error(wire: WireClient, **fields: Any) -> dict[str, Any]:
    reply = await wire.request(**fields)
    assert reply["type"] == "error", reply
    return reply


async def test_a_game_of_number_chess_ends_by_stop(client: Factory) -> None:
    """Spans with expressions, refused claims with the engine's reasons, then stop: 285 to 284."""
    options = {"max_plies": 60, "home_limit": 20}
    ann, bob, code = await _table(client, NEAR_END, options)

    early = await _error(ann, type="stop", room=code)
    assert early["code"] == "not_allowed" and "9 on 5,10" in early["message"]
    report = await _error(bob, type="report", room=code)
    assert report["code"] == "not_allowed"
    assert "20 moves" in report["message"] and "none" in report["message"]

    bare = await _error(ann, type="move", room=code, ply=0, move="5,10-1,6")
    assert bare["code"] == "illegal_move" and "needs an expression" in bare["message"]
    wrong = await _error(ann, type="move", room=code, ply=0, move="5,10-1,6=6*3")
    assert wrong["code"] == "illegal_move"
    assert "value 18" in wrong["message"] and "needed 9" in wrong["message"]

    moved = await ann.request(type="move", room=code, ply=0, move="5,10-1,6=6+3")
    assert moved["type"] == "moved" and moved["move"] == "5,10-1,6=6+3"
    assert (await bob.expect("moved", ply=0))["move"] == "5,10-1,6=6+3"

    not_yet = await _error(bob, type="stop", room=code)
    assert not_yet["code"] == "not_allowed" and "9 on 9,4" in not_yet["message"]
    off_turn = await _error(ann, type="stop", room=code)
    assert off_turn["code"] == "not_allowed" and "own turn" in off_turn["message"]

    moved = await bob.request(type="move", room=code, ply=1, move="9,4-13,8=(3+6)")
    assert moved["type"] == "moved" and moved["move"] == "9,4-13,8=(3+6)"
    await ann.expect("moved", ply=1)

    over = await ann.request(type="stop", room=code)
    assert over["type"] == "over", over
    assert (over["result"], over["reason"]) == ("first", "stop")
    assert over["scores"] == {"first": 285, "second": 284}
    seen = await bob.expect("over")
    assert seen["scores"] == {"first": 285, "second": 284} and "re" not in seen
    final = await bob.expect("room", status="over")
    assert final["moves"] == ["5,10-1,6=6+3", "9,4-13,8=(3+6)"]
    late = await _error(bob, type="move", room=code, ply=2, move="13,6-13,4")
    assert late["code"] == "game_over"


async def test_report_wins_when_a_piece_stays_home(client: Factory) -> None:
    """Second made 20 moves (home_limit 20) with its 4 still home: first's report wins."""
    ann, bob, code = await _table(client, STAYED_HOME, {"max_plies": 60, "home_limit": 20})
    over = await ann.request(type="report", room=code)
    assert over["type"] == "over", over
    assert (over["result"], over["reason"]) == ("first", "report")
    assert over["highlight"] == ["3,4"]
    assert set(over["scores"]) == {"first", "second"}
    assert (await bob.expect("over"))["reason"] == "report"


async def test_report_refused_before_the_home_limit(client: Factory) -> None:
    """With home_limit 21 the same report is refused with the count checked; play goes on."""
    ann, bob, code = await _table(client, STAYED_HOME, {"max_plies": 60, "home_limit": 21})
    refused = await _error(ann, type="report", room=code)
    assert refused["code"] == "not_allowed"
    assert "20 moves (limit 21)" in refused["message"] and "4 on 3,4" in refused["message"]
    moved = await ann.request(type="move", room=code, ply=0, move="5,10-1,6=3+6")
    assert moved["type"] == "moved"
    assert (await bob.expect("moved", ply=0))["move"] == "5,10-1,6=3+6"


async def test_max_plies_draws_with_both_scores(client: Factory) -> None:
    """max_plies 41 from ply 40: one span and the game is drawn (move_limit) with the scores."""
    ann, bob, code = await _table(client, NEAR_END, {"max_plies": 41, "home_limit": 30})
    moved = await ann.request(type="move", room=code, ply=0, move="5,10-1,6=(3+6)")
    assert moved["type"] == "moved"
    for wire in (ann, bob):
        over = await wire.expect("over")
        assert (over["result"], over["reason"]) == ("draw", "move_limit")
        assert over["scores"] == {"first": 285, "second": 203}
