"""When the database fails (a full disk, a read-only file), writes are held and tried again, and
nothing waiting for them is sent before they are durable; a broken write holds back no other."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from server.net import BoardhallServer
from server.outputs import SaveGame, StorageOp
from server.storage import StorageClosed, WriteRefused
from tests.server.helpers import Factory
from tests.server.http_tools import http_get
from tests.server.storage_tools import move, opened, plies_on_disk, until


async def test_writes_held_while_the_database_is_read_only_are_committed_in_order(
    tmp_path: Path,
) -> None:
    store = await opened(tmp_path / "hall.db", retry_first=0.001, retry_most=0.01)
    await store.submit([move(0)])
    store.writer.db.execute("PRAGMA query_only=1")
    first = store.submit([move(1)])
    await until(lambda: store.failure is not None)
    second = store.submit([move(2)])
    await until(lambda: store.failures_total >= 3)  # tried again, and failed again
    assert not first.done() and not second.done()
    assert isinstance(store.failure, sqlite3.OperationalError)
    assert "readonly" in str(store.failure)
    assert store.held == 2
    assert await store.run(lambda: [m["ply"] for m in store.storage.moves("g1")]) == [0]

    store.writer.db.execute("PRAGMA query_only=0")
    await asyncio.wait_for(asyncio.gather(first, second), 10)
    assert store.failure is None and store.held == 0
    assert plies_on_disk(tmp_path / "hall.db") == [0, 1, 2]
    await store.close()


async def test_a_full_disk_holds_writes_until_there_is_room(tmp_path: Path) -> None:
    """A real ``SQLITE_FULL``: the database may not grow past its size at the start."""
    store = await opened(tmp_path / "hall.db", retry_first=0.001, retry_most=0.01)
    pages = store.writer.db.execute("PRAGMA page_count").fetchone()[0]
    store.writer.db.execute(f"PRAGMA max_page_count={pages}")
    written: list[asyncio.Future[Any]] = []
    for ply in range(2_000):
        written.append(store.submit([move(ply)]))
        await until(lambda: written[-1].done() or store.failure is not None)
        if store.failure is not None:
            break
    assert store.failure is not None, "the database never filled up"
    assert "full" in str(store.failure)
    full_at = len(written) - 1
    assert not written[full_at].done()
    assert plies_on_disk(tmp_path / "hall.db") == list(range(full_at))

    store.writer.db.execute("PRAGMA max_page_count=1000000")
    await asyncio.wait_for(asyncio.gather(*written), 10)
    assert plies_on_disk(tmp_path / "hall.db") == list(range(full_at + 1))
    await store.close()


async def test_while_failing_only_the_retry_commits(tmp_path: Path) -> None:
    """New writes during a failure join the held ones; they do not each try the disk again."""
    store = await opened(tmp_path / "hall.db", retry_first=3600)
    applies: list[int] = []
    apply = store.writer.apply

    def counting_apply(ops: Iterable[StorageOp]) -> None:
        batch = list(ops)
        applies.append(len(batch))
        apply(batch)

    store.writer.apply = counting_apply  # type: ignore[method-assign]
    store.writer.db.execute("PRAGMA query_only=1")
    held = [store.submit([move(0)])]
    await until(lambda: store.failure is not None)
    for ply in range(1, 50):
        held.append(store.submit([move(ply)]))
        await asyncio.sleep(0)
    assert applies == [1] and store.held == 50
    store.writer.db.execute("PRAGMA query_only=0")
    await store.close()  # its last try succeeds
    assert applies == [1, 50]
    assert all(f.done() and f.exception() is None for f in held)
    assert plies_on_disk(tmp_path / "hall.db") == list(range(50))


async def test_closing_while_failing_tells_each_held_write(tmp_path: Path) -> None:
    store = await opened(tmp_path / "hall.db", retry_first=3600)
    store.writer.db.execute("PRAGMA query_only=1")
    held = store.submit([move(0)])
    await until(lambda: store.failure is not None)
    await store.close()
    closed = held.exception()
    assert isinstance(closed, StorageClosed) and "readonly" in str(closed)  # names the cause
    assert plies_on_disk(tmp_path / "hall.db") == []


async def test_a_broken_write_is_refused_and_the_others_of_its_turn_are_written(
    tmp_path: Path,
) -> None:
    store = await opened(tmp_path / "hall.db")
    heard: dict[str, BaseException | None] = {}
    store.write([move(0)], lambda _, error: heard.__setitem__("before", error))
    store.write([SaveGame(meta={"room": "K7QD"})], lambda _, error: heard.__setitem__("bad", error))
    store.write([move(1)], lambda _, error: heard.__setitem__("after", error))
    await store.submit([])
    assert heard["before"] is None and heard["after"] is None
    assert isinstance(heard["bad"], WriteRefused) and str(heard["bad"]) == "KeyError: 'id'"
    assert store.failure is None
    assert plies_on_disk(tmp_path / "hall.db") == [0, 1]
    await store.close()


async def test_a_move_is_not_sent_until_the_failing_database_takes_it(
    server: BoardhallServer, client: Factory
) -> None:
    """The move waits, unseen by either player, while the server answers everyone else and says
    it is unhealthy; once the database takes writes again, the move goes out and is stored."""
    server.storage.retry_first = server.storage.retry_most = 0.01
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    room = await ann.request(type="create", game="chess", color="first")
    code, game_id = room["room"], room["game_id"]
    await bob.request(type="join", room=code)
    assert (await ann.request(type="move", room=code, ply=0, move="e4"))["type"] == "moved"
    await bob.expect("moved", ply=0)

    server.storage.writer.db.execute("PRAGMA query_only=1")
    await bob.send(id="m1", type="move", room=code, ply=1, move="e5")
    await until(lambda: server.storage.failure is not None)
    for _ in range(2):  # everything sent before carl's replies has reached its reader
        assert (await carl.request(type="list"))["type"] == "rooms"
    assert not [m for m in ann.inbox + bob.inbox if m.get("type") == "moved"]
    status, body = await http_get(server.port, "/healthz")
    health = json.loads(body)
    assert status == 503 and health["status"] == "storage_failing"
    assert "readonly" in health["storage_error"] and health["held_writes"] >= 1
    _, metrics = await http_get(server.port, "/metrics")
    assert "boardhall_storage_held_writes 1" in metrics
    status, record = await http_get(server.port, f"/games/{game_id}?format=json")
    assert status == 200 and len(json.loads(record)["moves"]) == 1

    server.storage.writer.db.execute("PRAGMA query_only=0")
    assert (await bob.expect("moved", re="m1"))["move"] == "e7e5"
    assert (await ann.expect("moved", ply=1))["move"] == "e7e5"
    status, body = await http_get(server.port, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"
    _, record = await http_get(server.port, f"/games/{game_id}?format=json")
    assert [m["move"] for m in json.loads(record)["moves"]] == ["e2e4", "e7e5"]
    _, metrics = await http_get(server.port, "/metrics")
    assert "boardhall_storage_held_writes 0" in metrics
    assert "boardhall_storage_failures_total 0" not in metrics


async def test_later_messages_to_the_same_players_wait_behind_the_heldmove(
    server: BoardhallServer, client: Factory
) -> None:
    """Each connection still gets its messages in order: a refusal and a chat made after the
    held move reach their players after it."""
    server.storage.retry_first = server.storage.retry_most = 0.01
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = (await ann.request(type="create", game="chess", color="first"))["room"]
    await bob.request(type="join", room=code)
    server.storage.writer.db.execute("PRAGMA query_only=1")
    await ann.send(id="m0", type="move", room=code, ply=0, move="d4")
    await until(lambda: server.storage.failure is not None)
    await bob.send(id="early", type="move", room=code, ply=0, move="d5")  # he has not seen d4
    await ann.send(id="talk", type="chat", room=code, text="your move")
    for _ in range(2):
        assert (await carl.request(type="list"))["type"] == "rooms"
    later = ("moved", "chat", "error")
    assert not [m for m in ann.inbox + bob.inbox if m["type"] in later]

    server.storage.writer.db.execute("PRAGMA query_only=0")
    await ann.expect("chat")
    await bob.expect("chat")
    for wire in (ann, bob):
        kinds = [m["type"] for m in wire.inbox if m["type"] in later]
        assert kinds[0] == "moved", kinds
    refused = await bob.expect(None, re="early")
    assert refused["type"] == "error" and refused["code"] == "stale", refused


async def test_no_clock_runs_out_while_moves_are_held(
    server: BoardhallServer, client: Factory
) -> None:
    """A timeout due during the failure fires only once the database is back; a turn that began
    during it (its player could not see the move) begins again then."""
    server.storage.retry_first = server.storage.retry_most = 0.01
    clock = {"initial": 60}
    ann, bob, carl, dave = [await client(n) for n in ("ann", "bob", "carl", "dave")]
    held = (await ann.request(type="create", game="chess", color="first", clock=clock))["room"]
    await bob.request(type="join", room=held)
    idle = (await carl.request(type="create", game="chess", color="first", clock=clock))["room"]
    await dave.request(type="join", room=idle)
    for first, second, code in ((ann, bob, held), (carl, dave, idle)):
        assert (await first.request(type="move", room=code, ply=0, move="e4"))["type"] == "moved"
        assert (await second.request(type="move", room=code, ply=1, move="e5"))["type"] == "moved"

    server.storage.writer.db.execute("PRAGMA query_only=1")
    await ann.send(id="d4", type="move", room=held, ply=2, move="d4")
    await until(lambda: server.storage.failure is not None)
    loop = asyncio.get_running_loop()
    idle_room, held_room = server.hall.rooms[idle], server.hall.rooms[held]
    idle_room.clock.turn_start = loop.time() - 600  # carl's 60 s ran out long ago
    server.hall._schedule(idle_room)
    server._arm()
    for _ in range(20):
        await asyncio.sleep(0)
    assert idle_room.status == "playing" and server._timer is None
    bob_began = held_room.clock.turn_start
    back = loop.time()

    server.storage.writer.db.execute("PRAGMA query_only=0")
    over = await carl.expect("over", room=idle)
    assert over["reason"] == "timeout" and over["result"] == "second", over
    assert (await bob.expect("moved", ply=2))["move"] == "d2d4"
    assert bob_began < back <= held_room.clock.turn_start
    assert (await bob.request(type="move", room=held, ply=3, move="exd4"))["type"] == "moved"
