"""Two players at a table on a real server, for tests that play a few moves and then restart,
stop or kill it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from server.net import BoardhallServer, running_server
from server.testing import WireClient
from tests.server.http_tools import Where, port_of


async def seated_pair(
    where: Where, clock: dict[str, int] | None = None, game: str = "hexgomoku"
) -> tuple[WireClient, WireClient, str]:
    """ann (first) and bob (second) playing a new room of ``game``: both clients and its code."""
    url = f"ws://127.0.0.1:{port_of(where)}"
    ann = await WireClient.connect(url, "ann")
    bob = await WireClient.connect(url, "bob")
    fields: dict[str, Any] = {"type": "create", "game": game, "color": "first"}
    if clock is not None:
        fields["clock"] = clock
    code = (await ann.request(**fields))["room"]
    assert (await bob.request(type="join", room=code))["status"] == "playing"
    return ann, bob, code


async def play(ann: WireClient, bob: WireClient, code: str, moves: list[str]) -> None:
    """Play ``moves`` in turn from the room's first ply, each answered with ``moved``."""
    for ply, move in enumerate(moves):
        wire = ann if ply % 2 == 0 else bob
        reply = await wire.request(type="move", room=code, ply=ply, move=move)
        assert reply["type"] == "moved", reply


async def drawn_by_agreement(
    first: WireClient, second: WireClient, game: str, moves: list[str]
) -> None:
    """An untimed game of ``game`` between ``first`` (seated first) and ``second``: ``moves``
    played, then drawn by agreement."""
    made = await first.request(type="create", game=game, color="first")
    code = made["room"]
    assert (await second.request(type="join", room=code))["status"] == "playing"
    await play(first, second, code, moves)
    await first.request(type="offer", room=code, kind="draw")
    await second.request(type="answer", room=code, kind="draw", accept=True)
    await second.expect("room", room=code, status="over")


async def claim_when_absence_ends(
    server: Any, token: str, code: str, away_s: int, grace_s: int
) -> dict[str, Any]:
    """ann (``token``) back on a restarted ``server``: her claim that bob, away ``away_s`` of a
    ``grace_s`` grace, has abandoned is refused until the grace is over, then wins. Returns the
    ``over`` that answered the claim once the rest of the grace has passed."""
    ann = await WireClient.connect(server.url, "ann", token=token)
    try:
        early = await ann.request(type="timeout", room=code)
        assert (early["type"], early["code"]) == ("error", "not_allowed"), early
        assert f"away {away_s} s" in early["message"], early
        seat = server.hall.rooms[code].seats["second"]
        assert seat is not None and seat.away_since is not None
        seat.away_since -= grace_s - away_s  # the rest of the grace, passed
        over: dict[str, Any] = await ann.request(type="timeout", room=code)
    finally:
        await ann.close()
    assert (over["type"], over["result"], over["reason"]) == ("over", "first", "abandoned"), over
    return over


@contextlib.asynccontextmanager
async def serving(where: Path, **kwargs: Any) -> AsyncIterator[BoardhallServer]:
    """A real in-process server on 127.0.0.1:0 on the database ``where`` (a file, or a folder
    that holds ``hall.db``), with no pings unless asked (lag 0); leaving the block stops it
    cleanly (what SIGTERM does)."""
    db = where / "hall.db" if where.is_dir() else where
    kwargs.setdefault("ping_interval", None)
    async with running_server(host="127.0.0.1", port=0, db=str(db), **kwargs) as server:
        yield server


async def close_all(*wires: WireClient) -> None:
    """Close each of ``wires``."""
    for wire in wires:
        await wire.close()
