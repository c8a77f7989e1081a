"""A group commit writes its moves with one statement, and stores exactly what it was given."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable
from pathlib import Path

from server.outputs import SaveGame, SaveMove, StorageOp, TruncateMoves
from server.storage import AsyncStorage, Storage, WriteRefused


def _move(ply: int, move: str = "3,4", clock_ms: int | None = 59_000) -> SaveMove:
    return SaveMove(
        "g1", ply, move, "first" if ply % 2 == 0 else "second", clock_ms, ply % 7,
        "2026-11-22T12:00:00.123Z", {"first": 59_000 - ply, "second": 60_000},
    )  # fmt: skip


def test_a_batch_of_moves_is_one_statement(tmp_path: Path) -> None:
    """Every statement lets go of the GIL and must win it back: 300 moves are one statement,
    which is its own transaction."""
    storage = Storage(tmp_path / "hall.db")
    statements: list[str] = []
    storage.db.set_trace_callback(statements.append)
    storage.apply([_move(ply) for ply in range(300)])
    assert [s.split()[0] for s in statements] == ["INSERT"]
    assert len(storage.moves("g1")) == 300
    storage.close()


def test_a_mixed_batch_is_one_transaction(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "hall.db")
    statements: list[str] = []
    storage.db.set_trace_callback(statements.append)
    storage.apply([_move(0), _move(1), TruncateMoves("g1", 1), _move(1, "B")])
    assert [s.split()[0] for s in statements] == ["BEGIN", "INSERT", "DELETE", "INSERT", "COMMIT"]
    assert [m["move"] for m in storage.moves("g1")] == ["3,4", "B"]
    storage.close()


def test_a_single_move_is_stored_as_a_batch_stores_it(tmp_path: Path) -> None:
    """One move (the usual steady-rate commit) takes a plain insert: same rows, same types,
    and it replaces a move of the same ply as the batch does."""
    moves = [_move(0, "e2e4"), _move(1, '甲→乙 "q" \\', None), _move(2, "32-28")]
    one = Storage(tmp_path / "one.db")
    batch = Storage(tmp_path / "batch.db")
    statements: list[str] = []
    one.db.set_trace_callback(statements.append)
    for move in [_move(0, "old"), *moves]:
        one.apply([move])
    batch.apply(moves)
    assert statements[0].startswith("INSERT OR REPLACE INTO moves VALUES")
    assert one.moves("g1") == batch.moves("g1")
    typed = "SELECT typeof(ply), typeof(clock_ms), typeof(clocks), * FROM moves ORDER BY ply"
    assert [tuple(r) for r in one.db.execute(typed)] == [tuple(r) for r in batch.db.execute(typed)]
    one.close()
    batch.close()


def test_a_single_move_sqlite_cannot_bind_is_stored_as_the_batch_stores_it(tmp_path: Path) -> None:
    """A value the plain insert cannot bind (a bug upstream) must not fail the commit, which the
    storage would take for the database failing, holding every write behind it: it is stored
    as JSON text, as the batch stores it."""
    odd = SaveMove(
        "g1", 0, "e2e4", "first", 59_000, ["not", "a", "number"],  # type: ignore[arg-type]
        "2026-11-22T12:00:00.123Z", {},
    )  # fmt: skip
    one = Storage(tmp_path / "one.db")
    batch = Storage(tmp_path / "batch.db")
    one.apply([odd])
    batch.apply([odd, _move(1)])
    query = "SELECT lag_ms, typeof(lag_ms) FROM moves WHERE ply = 0"
    assert tuple(one.db.execute(query).fetchone()) == ('["not","a","number"]', "text")
    assert tuple(batch.db.execute(query).fetchone()) == ('["not","a","number"]', "text")
    one.close()
    batch.close()


def test_moves_are_stored_with_their_types_and_text(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "hall.db")
    moves = [_move(0, "e2e4"), _move(1, '甲→乙 "q" \\', None), _move(2, "32-28")]
    storage.apply(moves)
    stored = storage.moves("g1")
    assert [m["move"] for m in stored] == ["e2e4", '甲→乙 "q" \\', "32-28"]
    assert [m["clock_ms"] for m in stored] == [59_000, None, 59_000]
    assert stored[2] == {
        "ply": 2, "move": "32-28", "by": "first", "clock_ms": 59_000, "lag_ms": 2,
        "at": "2026-11-22T12:00:00.123Z", "clocks": {"first": 58_998, "second": 60_000},
    }  # fmt: skip
    types = storage.db.execute(
        "SELECT typeof(ply), typeof(clock_ms), typeof(lag_ms), typeof(move), typeof(clocks) "
        "FROM moves ORDER BY ply"
    ).fetchall()
    assert [tuple(t) for t in types] == [
        ("integer", "integer", "integer", "text", "text"),
        ("integer", "null", "integer", "text", "text"),
        ("integer", "integer", "integer", "text", "text"),
    ]
    storage.close()


def test_a_failed_batch_writes_nothing(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "hall.db")
    storage.apply([_move(0)])
    broken = SaveGame(meta={"room": "K7QD"})  # no "id": the batch fails midway
    try:
        storage.apply([_move(1), broken, _move(2)])
    except KeyError:
        pass
    else:
        raise AssertionError("a game without an id was stored")
    assert [m["ply"] for m in storage.moves("g1")] == [0]
    storage.close()


async def test_write_calls_back_on_the_loop_with_the_outcome(tmp_path: Path) -> None:
    store = AsyncStorage(tmp_path / "hall.db")
    await store.open()
    loop = asyncio.get_running_loop()
    heard: list[tuple[int, BaseException | None]] = []
    done = loop.create_future()

    def then(n: int, result: object, error: BaseException | None) -> None:
        assert asyncio.get_running_loop() is loop
        heard.append((n, error))
        if len(heard) == 3:
            done.set_result(None)

    store.write([_move(0)], functools.partial(then, 0))
    store.write([_move(1)], functools.partial(then, 1))
    await store.submit([])  # a barrier: everything queued before it is committed
    store.write([SaveGame(meta={"room": "K7QD"})], functools.partial(then, 2))
    await asyncio.wait_for(done, 10)
    assert [n for n, _ in heard] == [0, 1, 2]
    assert heard[0][1] is None and heard[1][1] is None
    assert isinstance(heard[2][1], WriteRefused) and "KeyError" in str(heard[2][1])
    assert [m["ply"] for m in store.storage.moves("g1")] == [0, 1]
    await store.close()


async def test_the_writes_of_one_loop_turn_are_one_transaction(tmp_path: Path) -> None:
    """A hundred writes queued in one turn of the event loop reach the database as one apply."""
    store = AsyncStorage(tmp_path / "hall.db")
    await store.open()
    applies: list[int] = []
    apply = store.writer.apply

    def counting_apply(ops: Iterable[StorageOp]) -> None:
        listed = list(ops)
        applies.append(len(listed))
        apply(listed)

    store.writer.apply = counting_apply  # type: ignore[method-assign]
    heard: list[BaseException | None] = []
    for ply in range(100):
        store.write([_move(ply)], lambda _, error: heard.append(error))
    await store.submit([])
    assert applies == [100] and heard == [None] * 100
    assert len(store.storage.moves("g1")) == 100
    await store.close()


async def test_a_read_sees_the_writes_queued_before_it_in_the_same_turn(tmp_path: Path) -> None:
    store = AsyncStorage(tmp_path / "hall.db")
    await store.open()
    store.write([_move(0)], lambda _, error: None)
    store.write([_move(1)], lambda _, error: None)
    plies = await store.run(lambda: [m["ply"] for m in store.storage.moves("g1")])
    assert plies == [0, 1]
    await store.close()
