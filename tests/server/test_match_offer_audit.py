"""Matchmaking, offers and rematches against DESIGN.md, as players meet them.

Wire tests run a real server on a loopback port 0 with real WebSocket clients (the ``client``
fixture); where time matters (the lobby's push interval, a refusal's wait) the sans-I/O core is
driven with an injected clock (:class:`HallDriver`), never by sleeping.
"""

from __future__ import annotations

from typing import Any

import pytest

from server.testing import HallDriver, WireClient
from tests.server.helpers import Factory


async def _seeks(wire: WireClient) -> list[dict[str, Any]]:
    return [r for r in (await wire.request(type="list"))["rooms"] if r["seek"]]


# ---- seeks -----------------------------------------------------------------------------------


async def test_a_seek_is_cancelled_when_its_player_sits_down_in_another_room(
    client: Factory,
) -> None:
    """Ann seeks chess, then joins carl's room and plays there: her seek is gone from the
    lobby, and bob seeking chess is queued rather than pulled into a second game with her."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    assert (await ann.request(type="join", game="chess"))["type"] == "queued"
    code = (await carl.request(type="create", game="hexgomoku"))["room"]
    assert (await ann.request(type="join", room=code))["status"] == "playing"
    assert await _seeks(carl) == []
    assert (await bob.request(type="join", game="chess"))["type"] == "queued"


async def test_a_seek_is_cancelled_when_its_player_opens_a_room(client: Factory) -> None:
    """Ann seeks chess, then opens a room of her own: the seek is withdrawn."""
    ann, bob = await client("ann"), await client("bob")
    await ann.request(type="join", game="chess")
    assert (await ann.request(type="create", game="hexgomoku"))["type"] == "room"
    assert await _seeks(bob) == []
    assert (await bob.request(type="join", game="chess"))["type"] == "queued"


async def test_a_players_other_seeks_end_when_one_of_them_is_matched(client: Factory) -> None:
    """Ann seeks chess and hexgomoku; bob takes the hexgomoku one: her chess seek ends, so
    carl seeking chess does not start a second game with her."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    await ann.request(type="join", game="chess")
    await ann.request(type="join", game="hexgomoku")
    assert len(await _seeks(bob)) == 2
    assert (await bob.request(type="join", game="hexgomoku"))["type"] == "room"
    assert await _seeks(carl) == []
    assert (await carl.request(type="join", game="chess"))["type"] == "queued"


async def test_a_seek_stays_while_its_player_watches_a_room(client: Factory) -> None:
    """Watching a game while waiting for a match keeps the seek."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = (await carl.request(type="create", game="hexgomoku"))["room"]
    await ann.request(type="join", game="chess")
    assert (await ann.request(type="join", room=code, role="spectator"))["type"] == "room"
    assert len(await _seeks(bob)) == 1
    assert (await bob.request(type="join", game="chess"))["type"] == "room"


def test_a_player_with_seeks_up_to_the_limit_can_still_sit_down() -> None:
    """Seeks that sitting down withdraws do not count against the room limit of doing so."""
    from server.config import ServerConfig

    d = HallDriver(ServerConfig(rooms_per_identity=2))
    ann, carl = d.player("ann"), d.player("carl")
    d.request(ann, type="join", game="chess")
    d.request(ann, type="join", game="draughts")
    code = d.request(carl, type="create", game="hexgomoku")["room"]
    assert d.request(ann, type="join", room=code)["type"] == "room"
    assert d.hall.seeks == {}


# ---- colours ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_a_player_who_had_second_gets_first_against_a_newcomer(seed: int) -> None:
    """Ann played second in her last game; matched with dave, who has not played, she gets
    first (not a coin toss), whichever of them seeks."""
    for ann_seeks in (True, False):
        d = HallDriver(seed=seed)
        carl, ann = d.player("carl"), d.player("ann")
        code = d.request(carl, type="create", game="hexgomoku", color="first")["room"]
        assert d.request(ann, type="join", room=code)["you"] == "second"
        d.request(ann, type="resign", room=code)
        dave = d.player("dave")
        seeker, joiner = (ann, dave) if ann_seeks else (dave, ann)
        d.request(seeker, type="join", game="chess")
        room = d.request(joiner, type="join", game="chess")
        assert room["type"] == "room"
        mine = room["you"] if joiner == ann else d.last(ann, "room")["you"]
        assert mine == "first", (seed, ann_seeks)


def test_colours_after_a_swap_count_for_the_next_match() -> None:
    """Ann created as first but swapped to second before the first move; next time she is
    matched with bob she gets first."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(b, type="offer", room=code, kind="swap")
    d.request(a, type="answer", room=code, kind="swap", accept=True)
    d.request(a, type="resign", room=code)
    d.request(a, type="join", game="chess")
    assert d.request(b, type="join", game="chess")["you"] == "second"


# ---- offers ----------------------------------------------------------------------------------


def test_a_swap_keeps_a_pending_draw_offer_with_the_player_who_made_it() -> None:
    """Ann offers a draw, then accepts bob's swap: the draw offer is still ann's (now second),
    so ann cannot accept her own offer and bob can."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    d.request(b, type="offer", room=code, kind="swap")
    d.request(a, type="answer", room=code, kind="swap", accept=True)
    snap = d.last(a, "room")
    assert snap["you"] == "second" and snap["offers"] == [{"kind": "draw", "by": "second"}]
    refused = d.request(a, type="answer", room=code, kind="draw", accept=True)
    assert refused["code"] == "not_allowed"
    assert d.request(b, type="answer", room=code, kind="draw", accept=True)["type"] == "ok"
    assert d.last(a, "over")["reason"] == "agreement"


def test_a_crossing_offer_accepts_even_while_its_maker_waits_after_a_refusal() -> None:
    """Ann's draw offer was refused (she waits 10 s); bob then offers a draw himself: ann's
    draw offer back is an acceptance, not a new offer, so the wait does not stop it."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    d.request(b, type="answer", room=code, kind="draw", accept=False)
    assert d.request(b, type="offer", room=code, kind="draw")["type"] == "ok"
    assert d.request(a, type="offer", room=code, kind="draw")["type"] == "ok"
    assert d.last(b, "over")["reason"] == "agreement"


def test_answering_ones_own_offer_says_so() -> None:
    d = HallDriver()
    a, _b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    refused = d.request(a, type="answer", room=code, kind="draw", accept=True)
    assert refused["code"] == "not_allowed" and "you made" in refused["message"], refused


def test_answering_an_offer_a_move_cancelled_says_the_move_cancelled_it() -> None:
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    d.request(a, type="offer", room=code, kind="draw")
    d.move(b, code, "0,1")
    refused = d.request(b, type="answer", room=code, kind="draw", accept=True)
    assert refused["code"] == "not_allowed" and "move" in refused["message"], refused


def test_answering_a_rematch_already_under_way_names_its_room() -> None:
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="resign", room=code)
    d.request(a, type="offer", room=code, kind="rematch")
    d.request(b, type="answer", room=code, kind="rematch", accept=True)
    new = d.hall.rooms[code].rematch_room
    refused = d.request(b, type="answer", room=code, kind="rematch", accept=True)
    assert refused["code"] == "not_allowed" and f"room {new}" in refused["message"], refused


# ---- rematches -------------------------------------------------------------------------------


async def test_no_rematch_offer_to_an_opponent_who_left_the_room(client: Factory) -> None:
    """Bob left the finished room: ann's rematch offer is refused saying so, and bob, elsewhere
    now, gets no offer for a room he left."""
    ann, bob = await client("ann"), await client("bob")
    code = (await ann.request(type="create", game="hexgomoku"))["room"]
    await bob.request(type="join", room=code)
    await ann.request(type="resign", room=code)
    assert (await bob.request(type="leave", room=code))["type"] == "ok"
    refused = await ann.request(type="offer", room=code, kind="rematch")
    assert refused["code"] == "not_allowed" and "left" in refused["message"], refused
    await bob.request(type="ping")
    assert bob.take_all("offer") == []


async def test_leaving_the_room_declines_a_rematch_offered_to_you(client: Factory) -> None:
    """Ann offers a rematch; bob leaves the room instead: ann is told it is declined, and
    the offer is gone."""
    ann, bob = await client("ann"), await client("bob")
    code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
    await bob.request(type="join", room=code)
    await ann.request(type="resign", room=code)
    assert (await ann.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
    await bob.expect("offer", room=code, kind="rematch")
    await bob.request(type="leave", room=code)
    answered = await ann.expect("answer", room=code, kind="rematch")
    assert (answered["accept"], answered["by"]) == (False, "second")
    refused = await ann.request(type="offer", room=code, kind="rematch")
    assert refused["code"] == "not_allowed" and "left" in refused["message"], refused


async def test_leaving_the_room_withdraws_ones_own_rematch_offer(client: Factory) -> None:
    """Ann offers a rematch and leaves the room: bob's snapshot drops the offer, and accepting
    it says ann has left instead of pulling her into a new game she walked away from."""
    ann, bob = await client("ann"), await client("bob")
    code = (await ann.request(type="create", game="hexgomoku"))["room"]
    await bob.request(type="join", room=code)
    await ann.request(type="resign", room=code)
    await ann.request(type="offer", room=code, kind="rematch")
    await bob.expect("offer", room=code, kind="rematch")
    bob.take_all("room")  # the snapshot of the end, before the offer
    await ann.request(type="leave", room=code)
    assert (await bob.expect("room", room=code, offers=[]))["status"] == "over"
    refused = await bob.request(type="answer", room=code, kind="rematch", accept=True)
    assert refused["code"] == "not_allowed" and "left" in refused["message"], refused
    await ann.request(type="ping")
    assert [m for m in ann.take_all("room") if m["room"] != code] == []


# ---- the lobby -------------------------------------------------------------------------------


def test_the_lobby_is_not_pushed_when_nothing_listed_changed() -> None:
    """A lobby watcher leaving, or someone else asking for the list, changes nothing listed:
    the other watchers get no new (identical) list."""
    d = HallDriver()
    w1, w2 = d.player("wat"), d.player("wes")
    d.request(w1, type="list", watch=True)
    d.request(w2, type="list", watch=True)
    d.advance(1)
    d.drop(w2)
    d.request(d.player("lou"), type="list")
    d.advance(1)
    assert d.take(w1, "rooms") == []


def test_each_lobby_change_is_pushed_once_and_a_fresh_list_is_not_pushed_again() -> None:
    """Ann seeks: each watcher gets the new list once. A watcher who asks for the list as the
    change is still waiting for its push already has it: the push skips it."""
    d = HallDriver()
    w1, w2 = d.player("wat"), d.player("wes")
    d.request(w1, type="list", watch=True)
    d.request(w2, type="list", watch=True)
    ann = d.player("ann")
    d.request(ann, type="join", game="chess")
    for w in (w1, w2):
        pushed = d.take(w, "rooms")
        assert len(pushed) == 1 and [r["seek"] for r in pushed[0]["rooms"]] == [True]
    d.request(ann, type="leave")  # within the push interval: its push waits
    assert d.request(w2, type="list", watch=True)["rooms"] == []
    d.advance(1)
    assert [p["rooms"] for p in d.take(w1, "rooms")] == [[]]
    assert d.take(w2, "rooms") == []
