"""Rating-aware matchmaking on a real server (loopback port 0, SQLite in a tmp dir, WebSocket
clients): stored ratings decide who is paired with whom, and a waiting pair is paired by the
server's own timer once the windows have grown. Time is moved on by shifting the event loop's
clock (the server's only clock), never by sleeping."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.glicko2 import Rating
from server.hall import hash_token
from server.matchmaking import WINDOW_STEP_S
from server.outputs import SaveIdentity, SaveRatings
from server.ratings import NewRating
from server.storage import Storage
from server.testing import WireClient
from tests.server.helpers import LoopClock
from tests.server.tables import serving

BLITZ = {"initial": 300, "increment": 3}
PLAYERS = {"ann": 1500.0, "bob": 1800.0, "cid": 1600.0, "dan": 2100.0}
"""Each seeded player's chess rating (deviation 60: settled, windows start at 150)."""


def _seed(db: Path) -> None:
    """Store the :data:`PLAYERS` with their ratings; each one's token is its name * 4."""
    storage = Storage(db)
    try:
        ops: list[Any] = []
        for name, rating in PLAYERS.items():
            player = f"p{name}"
            ops.append(SaveIdentity(player, hash_token(name * 4), name))
            after = Rating(rating, 60.0, 0.06, 20)
            ops.append(SaveRatings(f"gseed{name}", "chess", (NewRating(player, Rating(), after),)))
        storage.apply(ops)
    finally:
        storage.close()


async def _seek(wire: WireClient) -> dict[str, Any]:
    return await wire.request(type="join", game="chess", clock=BLITZ)


def _opponent(room: dict[str, Any]) -> str:
    seats = room["seats"]
    return str(seats["second" if room["you"] == "first" else "first"]["name"])


async def test_stored_ratings_pair_the_closest_and_the_timer_pairs_the_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob (1800) and ann (1500) wait, too far apart; cid (1600) is paired with ann, the
    closer, not bob, the older. dan (2100) then waits with bob, 300 apart: neither sends
    anything more, and the server pairs them when both windows reach 300 (15 s after dan)."""
    _seed(tmp_path / "hall.db")
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    async with serving(tmp_path) as server:
        wires = {n: await WireClient.connect(server.url, n, token=n * 4) for n in PLAYERS}
        try:
            assert (await _seek(wires["bob"]))["type"] == "queued"
            assert (await _seek(wires["ann"]))["type"] == "queued"
            rooms = await wires["ann"].request(type="list")
            assert sorted(r["ratings"][0] for r in rooms["rooms"] if r["seek"]) == [1500, 1800]
            paired = await _seek(wires["cid"])
            assert paired["type"] == "room" and _opponent(paired) == "ann"
            assert _opponent(await wires["ann"].expect("room")) == "cid"
            assert (await _seek(wires["dan"]))["type"] == "queued"
            clock.advance(3 * WINDOW_STEP_S - 1)
            pong = await wires["bob"].request(type="ping")  # a turn of the loop: nothing due
            assert pong["type"] == "pong" and not wires["bob"].take_all("room")
            clock.advance(1.5)
            bob_room = await wires["bob"].expect("room")
            dan_room = await wires["dan"].expect("room")
            assert (_opponent(bob_room), _opponent(dan_room)) == ("dan", "bob")
            assert bob_room["room"] == dan_room["room"] and bob_room["status"] == "playing"
            assert bob_room["seats"]["first"]["rating"] in (1800, 2100)
        finally:
            for wire in wires.values():
                await wire.close()
