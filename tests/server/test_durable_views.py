"""Nothing shows a move (or a result) before its write is durable: not a snapshot to someone who
joins the room, not the lobby list, not the records read over HTTP.

A real server syncs its log on a thread here, where :class:`Gate` holds the syncs; a spy on the
server's sends (and on its record export) notes how many syncs had finished when each message
left, so every check is about order, never about timing.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import server.net as net
from server.outputs import SaveGame
from server.storage import Storage
from server.testing import BoardhallServer, WireClient, running_server
from tests.server.http_tools import http_get, http_request
from tests.server.storage_tools import Gate, plies_on_disk, until


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    fake = Gate(os.fdatasync)
    monkeypatch.setattr(os, "fdatasync", fake.fdatasync)
    yield fake
    fake.open()


Sent = list[tuple[dict[str, Any], int]]
"""Every message the server sent, with the number of syncs finished at the time."""


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, gate: Gate) -> Sent:
    log: Sent = []
    real = net.broadcast

    def spy(targets: Any, text: str) -> None:
        log.append((json.loads(text), gate.done))
        real(targets, text)

    monkeypatch.setattr(net, "broadcast", spy)
    return log


@pytest.fixture
async def synced_server(tmp_path: Path, gate: Gate) -> AsyncIterator[BoardhallServer]:
    async with running_server(
        db=tmp_path / "hall.db", durable=True, sync_on_thread=True, ping_interval=None
    ) as running:
        yield running


@pytest.fixture
async def clients(synced_server: BoardhallServer) -> AsyncIterator[Callable[..., Any]]:
    opened: list[WireClient] = []

    async def make(name: str) -> WireClient:
        wire = await WireClient.connect(synced_server.url, name)
        opened.append(wire)
        return wire

    yield make
    for wire in opened:
        await wire.close()


async def _playing(clients: Callable[..., Any]) -> tuple[WireClient, WireClient, str, str]:
    ann, bob = await clients("ann"), await clients("bob")
    room = await ann.request(type="create", game="hexgomoku", color="first")
    await bob.request(type="join", room=room["room"])
    await ann.expect("room", room=room["room"], status="playing")
    return ann, bob, room["room"], room["game_id"]


def _sent_with(sent: Sent, **match: Any) -> list[int]:
    """The syncs finished when each message matching ``match`` was sent."""
    return [done for data, done in sent if all(data.get(k) == v for k, v in match.items())]


async def test_a_spectator_who_joins_after_the_players_left_sees_the_move_once_it_is_durable(
    synced_server: BoardhallServer, clients: Callable[..., Any], gate: Gate, sent: Sent
) -> None:
    """Nothing pending for the spectator's connection, and the movers are gone: only the room
    links the snapshot to the move's write."""
    ann, bob, code, _ = await _playing(clients)
    carl = await clients("carl")
    room = synced_server.hall.rooms[code]
    gate.hold()
    before = gate.done
    await ann.send(type="move", room=code, ply=0, move="0,0", id="m")
    await gate.started_at_least(gate.started + 1)  # committed; its sync held
    await ann.close()
    await bob.close()
    await until(lambda: not any(seat and seat.connected for seat in room.seats.values()))
    await carl.send(type="join", room=code, role="spectator", id="w")
    await until(lambda: room.spectators)  # the join is handled, its snapshot made
    gate.open()
    snapshot = await carl.expect("room", re="w")
    assert len(snapshot["moves"]) == 1
    assert all(done > before for done in _sent_with(sent, type="room", re="w")), (
        "the snapshot showed the move before its write was synced"
    )


async def test_the_lobby_list_shows_a_game_ended_only_once_the_end_is_durable(
    synced_server: BoardhallServer, clients: Callable[..., Any], gate: Gate, sent: Sent
) -> None:
    """A resigned game leaves the lobby list; the list must not say so before the resignation
    is on the disk."""
    ann, _bob, code, _ = await _playing(clients)
    carl = await clients("carl")
    listed = await carl.request(type="list")
    assert code in [r["room"] for r in listed["rooms"]]
    gate.hold()
    before = gate.done
    await ann.send(type="resign", room=code, id="r")
    await gate.started_at_least(gate.started + 1)
    await carl.send(type="list", watch=True, id="l")
    hall = synced_server.hall
    await until(lambda: any(s.watching for s in hall.sessions.values()))  # the list is made
    gate.open()
    answer = await carl.expect("rooms", re="l")
    assert code not in [r["room"] for r in answer["rooms"]]
    assert all(done > before for done in _sent_with(sent, type="rooms", re="l")), (
        "the lobby showed the game over before its end was synced"
    )


async def test_a_record_read_over_http_shows_only_synced_moves(
    synced_server: BoardhallServer,
    clients: Callable[..., Any],
    gate: Gate,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``GET /games/ID`` reads through its own connection, which sees every commit: a move
    committed while the read waited for an earlier sync must not be in the answer until its
    own sync is done."""
    ann, bob, code, game_id = await _playing(clients)
    exported: list[tuple[int, int]] = []  # (moves in the answer, syncs finished then)
    real_export = net.export

    def export_spy(meta: dict[str, Any], moves: list[dict[str, Any]], fmt: str | None) -> Any:
        exported.append((len(moves), gate.done))
        return real_export(meta, moves, fmt)

    monkeypatch.setattr(net, "export", export_spy)
    storage = synced_server.storage
    entered = asyncio.Event()
    real_run = storage.run

    async def run_spy(fn: Callable[[], Any], **options: Any) -> Any:
        entered.set()
        return await real_run(fn, **options)

    monkeypatch.setattr(storage, "run", run_spy)
    read = threading.Event()  # the record was read (on the reader thread)
    reader = storage.storage
    real_game = reader.game

    def game_spy(game: str) -> Any:
        found = real_game(game)
        read.set()
        return found

    monkeypatch.setattr(reader, "game", game_spy)
    waiting = asyncio.Event()  # set when the server waits for the syncs after its read
    real_durable = getattr(storage, "durable_so_far", None)
    if real_durable is not None:

        async def durable_spy() -> Any:
            if read.is_set():
                waiting.set()
            return await real_durable()

        monkeypatch.setattr(storage, "durable_so_far", durable_spy)

    gate.hold()
    before = gate.done
    await ann.send(type="move", room=code, ply=0, move="0,0", id="m0")
    await gate.started_at_least(gate.started + 1)  # move 0 committed; its sync held
    get = asyncio.ensure_future(http_get(synced_server.port, f"/games/{game_id}?format=json"))
    await entered.wait()
    await bob.send(type="move", room=code, ply=1, move="1,1", id="m1")
    db = tmp_path / "hall.db"
    await until(lambda: len(plies_on_disk(db, game_id)) == 2)  # move 1 committed, not synced
    started = gate.started
    gate.allow(1)  # the sync of move 0 only
    await gate.started_at_least(started + 1)  # move 1's sync begins, held
    await until(lambda: exported or waiting.is_set())
    gate.open()
    status, body = await get
    assert status == 200
    assert len(json.loads(body)["moves"]) in (1, 2)
    for count, done in exported:
        assert count <= done - before, (
            f"the answer showed {count} moves when {done - before} of their syncs were done"
        )


# ---- GET /games?player=ID --------------------------------------------------------------------


def _meta(number: int, player: str, other: str, private: bool) -> dict[str, Any]:
    return {
        "id": f"g{number:04d}",
        "room": f"r{number:04d}",
        "game": "hexgomoku",
        "variant": "standard",
        "status": "over",
        "private": private,
        "created": f"2026-11-24T10:{number // 60:02d}:{number % 60:02d}Z",
        "seats": {"first": {"player": player, "name": "ann"}, "second": {"player": other}},
    }


async def test_a_record_read_while_a_sync_fails_is_a_503_not_the_held_move(
    synced_server: BoardhallServer, clients: Callable[..., Any], gate: Gate
) -> None:
    """A move whose sync failed is committed (the reader sees it) but held, not durable, until
    it is written again: ``GET /games/ID`` showed it. Until then the records answer 503
    ``storage_failing``, as ``/healthz`` does; the move shows once it is written again."""
    ann, _bob, code, game_id = await _playing(clients)
    storage = synced_server.storage
    storage.retry_first = storage._retry_in = 3600.0  # the retry is this test's to make
    gate.errors.append(OSError(errno.EIO, "Input/output error"))
    await ann.send(type="move", room=code, ply=0, move="0,0", id="m0")
    await until(lambda: storage.failure is not None)
    for path in (f"/games/{game_id}?format=json", f"/games?player={ann.welcome['player']}"):
        reply = await http_request(synced_server, path)
        assert reply.status == 503, path
        assert reply.headers.get("retry-after") == "5"
        body = json.loads(reply.body)
        assert body["status"] == "storage_failing"
        assert "Input/output error" in body["error"]
    storage._try_again()  # the retry: this sync succeeds
    await ann.expect("moved", ply=0)
    reply = await http_request(synced_server, f"/games/{game_id}?format=json")
    assert reply.status == 200
    assert [row["move"] for row in reply.json()["moves"]] == ["0,0"]


async def test_the_games_of_a_player_fill_the_limit_with_games_the_viewer_may_see(
    tmp_path: Path,
) -> None:
    """60 public games, then 20 newer private ones: a stranger still gets 50 games."""
    db = tmp_path / "hall.db"
    storage = Storage(db)
    metas = [_meta(n, "pann", "pbob", private=n >= 60) for n in range(80)]
    storage.apply([SaveGame(meta) for meta in metas])
    storage.close()
    async with running_server(db=db, durable=False, ping_interval=None) as server:
        status, body = await http_get(server.port, "/games?player=pann")
        assert status == 200
        games = json.loads(body)["games"]
        assert len(games) == 50
        assert not any(g["private"] for g in games)
        newest_public = sorted((m for m in metas if not m["private"]), key=lambda m: m["created"])
        assert [g["id"] for g in games] == [m["id"] for m in reversed(newest_public[-50:])]


def test_a_player_sees_their_own_private_games_among_the_newest(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "hall.db")
    try:
        metas = [_meta(n, "pann", "pbob", private=n % 2 == 0) for n in range(80)]
        storage.apply([SaveGame(meta) for meta in metas])
        assert storage.games_of("pann", viewer="pann")[0]["id"] == "g0079"
        assert len(storage.games_of("pann", viewer="pbob")) == 50
        strangers = storage.games_of("pann")
        assert len(strangers) == 40 and not any(m["private"] for m in strangers)
        assert len(storage.games_of("pann", viewer="pcarl")) == 40
    finally:
        storage.close()


def test_games_begun_in_the_same_second_are_listed_newest_first(tmp_path: Path) -> None:
    """``created`` is to the second, and each save of a game (a move's end, its end) replaced
    its row: games begun within one second came in the order they were last saved, so the one
    a player had just played could be listed under older ones. The order they were first
    stored in (their creation) now breaks the tie."""
    storage = Storage(tmp_path / "hall.db")
    try:
        metas = [{**_meta(n, "pann", "pbob", private=False), "created": "2026-11-24T10:00:00Z",
                  "status": "playing"} for n in range(4)]
        storage.apply([SaveGame(meta) for meta in metas])
        for meta in (metas[3], metas[1], metas[0], metas[2]):  # they end in another order
            storage.apply([SaveGame({**meta, "status": "over"})])
        newest_first = ["g0003", "g0002", "g0001", "g0000"]
        assert [m["id"] for m in storage.games_of("pann", viewer="pann")] == newest_first
        assert [m["id"] for m in storage.games_of("pbob")] == newest_first
    finally:
        storage.close()
