"""Spectators follow a rematch: when both players accept it, every spectator of the finished room
watches the new one (as if it had sent ``join`` as a spectator for it), up to the limit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from server.config import ServerConfig
from server.net import BoardhallServer
from server.testing import HallDriver, WireClient
from tests.server.tables import serving


async def _finished_game_watched(
    server: BoardhallServer, private: bool = False
) -> tuple[WireClient, WireClient, WireClient, str]:
    """ann (first) and bob play a game carl watches; bob resigns: ``(ann, bob, carl, code)``."""
    ann = await WireClient.connect(server.url, "ann")
    bob = await WireClient.connect(server.url, "bob")
    carl = await WireClient.connect(server.url, "carl")
    created = await ann.request(type="create", game="hexgomoku", color="first", private=private)
    code = created["room"]
    assert (await bob.request(type="join", room=code))["status"] == "playing"
    watched = await carl.request(type="join", room=code, role="spectator")
    assert watched["type"] == "room" and watched["you"] is None, watched
    assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
    assert (await bob.request(type="resign", room=code))["type"] == "over"
    await carl.expect("over", room=code)
    return ann, bob, carl, code


async def _rematch(ann: WireClient, bob: WireClient, code: str) -> str:
    """bob offers a rematch, ann accepts: the new room's code."""
    ann.take_all("room")
    assert (await bob.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
    assert (await ann.request(type="answer", room=code, kind="rematch", accept=True))[
        "type"
    ] == "ok"
    new = (await ann.expect("room", status="playing"))["room"]
    assert new != code
    return str(new)


async def test_a_spectator_follows_the_rematch_to_the_new_room(tmp_path: Path) -> None:
    """carl gets the rematch's snapshot as a spectator, is counted there and no longer in the
    finished room, may chat and leave it like any spectator of it."""
    async with serving(tmp_path / "hall.db") as server:
        ann, bob, carl, code = await _finished_game_watched(server)
        try:
            new = await _rematch(ann, bob, code)
            snap = await carl.expect("room", room=new)
            assert snap["you"] is None and snap["status"] == "playing", snap
            assert snap["seats"]["first"]["name"] == "bob"
            assert snap["seats"]["second"]["name"] == "ann"
            assert snap["spectators"] == 1 and snap["moves"] == []
            hall = server.hall
            carl_conn = next(
                c for c, s in hall.sessions.items()
                if s.identity is not None and s.identity.name == "carl"
            )
            assert hall.sessions[carl_conn].spectating == {new}
            assert carl_conn in hall.rooms[new].spectators
            assert carl_conn not in hall.rooms[code].spectators
            # the players see the watcher arrive in their new room
            assert (await ann.expect("presence", room=new))["spectators"] == 1
            # a spectator of the new room: its chat, its moves, its leave
            assert (await bob.request(type="move", room=new, ply=0, move="0,0"))["type"] == "moved"
            assert (await carl.expect("moved", room=new))["ply"] == 0
            assert (await carl.request(type="chat", room=new, text="gl"))["type"] == "ok"
            assert (await carl.request(type="leave", room=new))["type"] == "ok"
            # it was moved, not copied: the finished room no longer holds it
            gone = await carl.request(type="leave", room=code)
            assert gone["type"] == "error", gone
        finally:
            for wire in (ann, bob, carl):
                await wire.close()


async def test_a_private_rooms_rematch_is_private_and_its_spectator_follows(
    tmp_path: Path,
) -> None:
    """Anyone with a private room's code may watch it (it is only left out of the lobby): its
    spectator follows the rematch, which is private too and not listed."""
    async with serving(tmp_path / "hall.db") as server:
        ann, bob, carl, code = await _finished_game_watched(server, private=True)
        try:
            new = await _rematch(ann, bob, code)
            snap = await carl.expect("room", room=new)
            assert snap["private"] is True and snap["you"] is None, snap
            listed = await carl.request(type="list")
            assert all(r["room"] != new for r in listed["rooms"]), listed
        finally:
            for wire in (ann, bob, carl):
                await wire.close()


async def test_the_rematch_and_its_spectator_survive_a_restart(tmp_path: Path) -> None:
    """After a rematch the spectators followed, a restart on the same database resumes the
    new game for its players, and a spectator watches it again by its code."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann, bob, carl, code = await _finished_game_watched(server)
        try:
            new = await _rematch(ann, bob, code)
            await carl.expect("room", room=new)
            assert (await bob.request(type="move", room=new, ply=0, move="0,0"))["type"] == "moved"
            tokens = [w.welcome["token"] for w in (ann, bob, carl)]
        finally:
            for wire in (ann, bob, carl):
                await wire.close()
    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann", token=tokens[0])
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        carl = await WireClient.connect(server.url, "carl", token=tokens[2])
        try:
            assert new in ann.welcome["resumed"] and new in bob.welcome["resumed"]
            snap = await carl.request(type="join", room=new, role="spectator")
            assert snap["type"] == "room" and snap["you"] is None, snap
            assert snap["moves"] == ["0,0"] and snap["status"] == "playing"
            reply = await ann.request(type="move", room=new, ply=1, move="1,0")
            assert reply["type"] == "moved", reply
            assert (await carl.expect("moved", room=new))["ply"] == 1
        finally:
            for wire in (ann, bob, carl):
                await wire.close()


def test_a_spectator_over_the_limit_stays_in_the_finished_room() -> None:
    """With room for one spectator in the rematch (the limit lowered while two watched), the
    first watcher follows it and the other stays in the finished room, told nothing new."""
    d = HallDriver(ServerConfig(spectators_per_room=2))
    a, b, code = d.table()
    carl, dan = d.player("carl"), d.player("dan")
    for watcher in (carl, dan):
        assert d.request(watcher, type="join", room=code, role="spectator")["type"] == "room"
    d.request(b, type="resign", room=code)
    d.hall.config = dataclasses.replace(d.hall.config, spectators_per_room=1)
    for conn in (a, b, carl, dan):
        d.inbox[conn].clear()
    assert d.request(b, type="offer", room=code, kind="rematch")["type"] == "ok"
    assert d.request(a, type="answer", room=code, kind="rematch", accept=True)["type"] == "ok"
    new = d.last(a, "room")["room"]
    assert new != code
    followed = [w for w in (carl, dan) if any(m["room"] == new for m in d.take(w, "room"))]
    assert followed == [carl]
    assert d.hall.rooms[new].spectators == {carl}
    assert d.hall.rooms[code].spectators == {dan}
    assert d.hall.sessions[carl].spectating == {new}
    assert d.hall.sessions[dan].spectating == {code}
    assert all(e.get("room") != new for e in d.take(dan, "error"))


def test_the_rematch_outputs_carry_the_new_rooms_key() -> None:
    """What the rematch sends for the new room is ordered after that room's earlier outputs:
    the accepting answer's outputs carry both rooms' keys."""
    d = HallDriver()
    a, b, code = d.table()
    carl = d.player("carl")
    d.request(carl, type="join", room=code, role="spectator")
    d.request(b, type="resign", room=code)
    d.request(b, type="offer", room=code, kind="rematch")
    out = d.hall.receive(
        a, '{"type":"answer","id":"x","room":"' + code + '","kind":"rematch","accept":true}', d.now
    )
    new = d.hall.rooms[code].rematch_room
    assert new is not None
    assert code in (out.key, *out.keys) and new in (out.key, *out.keys)
    spectator_snaps = [
        m for conns, m in out.sends if carl in conns and getattr(m, "room", None) == new
    ]
    assert spectator_snaps and type(spectator_snaps[0]).__name__ == "RoomState"
