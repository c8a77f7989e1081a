"""Chat history: a room keeps its latest chat lines (in SQLite too), and whoever gets the room's
snapshot in reply to a join, a watch or a resuming hello gets the lines meant for them after it,
as ordinary ``chat`` messages: a player the players' lines and those to everyone, a spectator
the spectators' lines and those to everyone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.room import CHAT_HISTORY_LINES
from server.testing import ServerProcess, WireClient
from tests.server.chat_tools import lines_after_snapshots, settled, table
from tests.server.helpers import Factory
from tests.server.tables import serving


async def chat(wire: WireClient, code: str, text: str) -> None:
    """Say ``text`` in room ``code`` (the ``ok`` comes once the line is durable)."""
    assert (await wire.request(type="chat", room=code, text=text))["type"] == "ok"


async def test_a_player_who_drops_and_comes_back_gets_the_earlier_lines_once_in_order(
    client: Factory,
) -> None:
    """bob's connection drops; back with his token, the snapshot his hello resumes and the one
    replying to his join are each followed by the players' lines, in order, once, and not by
    the spectator's line."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = await table(ann, bob, carl)
    await chat(ann, code, "good luck")
    await chat(carl, code, "spectators only")
    await chat(bob, code, "you too")
    assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
    token = bob.welcome["token"]
    await bob.close()
    await ann.expect("presence", room=code, connected=False)

    again = await client("bob", token=token)
    assert again.welcome["resumed"] == [code]
    await again.send(id="back", type="join", room=code)
    await settled(again)
    assert [m.get("re") for m in again.inbox if m["type"] == "room"] == [None, "back"]
    history = ["good luck", "you too"]
    assert lines_after_snapshots(again, code) == [history, history]


async def test_snapshots_sent_for_other_reasons_bring_no_lines_again(client: Factory) -> None:
    """A takeback and the end send everyone a snapshot: no chat line comes with them."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = await table(ann, bob, carl)
    await chat(ann, code, "hi")
    await chat(carl, code, "hello spectators")
    for wire in (ann, bob, carl):
        await settled(wire)
        wire.inbox.clear()
    assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
    assert (await ann.request(type="offer", room=code, kind="undo"))["type"] == "ok"
    assert (await bob.request(type="answer", room=code, kind="undo", accept=True))["type"] == "ok"
    assert (await bob.request(type="resign", room=code))["type"] == "over"
    for wire in (ann, bob, carl):
        await settled(wire)
        snapshots = [m for m in wire.inbox if m["type"] == "room"]
        assert len(snapshots) == 2, snapshots  # the takeback's and the end's
        assert all(m.get("re") is None for m in snapshots)
        assert [text for batch in lines_after_snapshots(wire, code) for text in batch] == []


async def test_a_spectator_mid_game_gets_the_spectators_lines_and_after_the_end_everyones(
    client: Factory,
) -> None:
    """A spectator who comes during the game gets the spectators' lines, not the players'
    channel; one who comes after the end also gets the lines said to everyone since."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = await table(ann, bob, carl)
    await chat(ann, code, "players only")
    await chat(carl, code, "spectators only")
    dave = await client("dave")
    await dave.send(id="watch", type="join", room=code, role="spectator")
    await settled(dave)
    assert [m.get("re") for m in dave.inbox if m["type"] == "room"] == ["watch"]
    assert lines_after_snapshots(dave, code) == [["spectators only"]]

    assert (await bob.request(type="resign", room=code))["type"] == "over"
    await chat(ann, code, "gg")
    await chat(carl, code, "well played")
    eve = await client("eve")
    await eve.send(type="join", room=code, role="spectator")
    await settled(eve)
    assert lines_after_snapshots(eve, code) == [["spectators only", "gg", "well played"]]
    bob.inbox.clear()
    await bob.send(type="join", room=code)
    await settled(bob)
    assert lines_after_snapshots(bob, code) == [["players only", "gg", "well played"]]


async def test_the_history_keeps_the_latest_lines_only(tmp_path: Path) -> None:
    """Past :data:`CHAT_HISTORY_LINES` lines the oldest go, in the room and in the database (a
    restarted server brings back the same latest lines)."""
    said = [f"line {n}" for n in range(CHAT_HISTORY_LINES + 5)]
    kept = said[-CHAT_HISTORY_LINES:]
    config = ServerConfig(messages_per_second=1000, chat_lines=1000)
    async with serving(tmp_path / "hall.db", config=config) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        code = await table(ann, bob)
        for text in said:
            await ann.send(type="chat", room=code, text=text)
        await settled(ann)
        bob.inbox.clear()
        await bob.send(type="join", room=code)
        await settled(bob)
        assert lines_after_snapshots(bob, code) == [kept]
        tokens = ann.welcome["token"], bob.welcome["token"]
        for wire in (ann, bob):
            await wire.close()
    db = sqlite3.connect(tmp_path / "hall.db")
    try:
        (stored,) = db.execute("SELECT count(*) FROM chat").fetchone()
    finally:
        db.close()
    assert stored == CHAT_HISTORY_LINES
    async with serving(tmp_path / "hall.db", config=config) as server:
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        await settled(bob)
        assert lines_after_snapshots(bob, code) == [kept]
        await bob.close()


async def test_lines_survive_a_restart_on_the_same_database(tmp_path: Path) -> None:
    """After a restart the resumed players get the players' lines, a spectator the spectators'
    lines; a line said after the restart follows the earlier ones (after another restart too)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        carl = await WireClient.connect(server.url, "carl")
        code = await table(ann, bob, carl)
        await chat(ann, code, "have fun")
        await chat(carl, code, "who wins?")
        await chat(bob, code, "thanks")
        assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
        tokens = [wire.welcome["token"] for wire in (ann, bob, carl)]
        for wire in (ann, bob, carl):
            await wire.close()

    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann", token=tokens[0])
        assert ann.welcome["resumed"] == [code]
        await ann.send(type="join", room=code)
        await settled(ann)
        assert lines_after_snapshots(ann, code) == [["have fun", "thanks"]] * 2
        carl = await WireClient.connect(server.url, "carl", token=tokens[2])
        await carl.send(type="join", room=code, role="spectator")
        await settled(carl)
        assert lines_after_snapshots(carl, code) == [["who wins?"]]
        await chat(ann, code, "your move")
        for wire in (ann, carl):
            await wire.close()

    async with serving(db) as server:
        bob = await WireClient.connect(server.url, "bob", token=tokens[1])
        await settled(bob)
        assert lines_after_snapshots(bob, code) == [["have fun", "thanks", "your move"]]
        await bob.close()


@pytest.mark.slow
async def test_a_line_once_seen_survives_a_killed_server(tmp_path: Path) -> None:
    """A line is on disk before anyone sees it: SIGKILL right after, and the restarted server
    still has it."""
    db = str(tmp_path / "hall.db")
    proc = await ServerProcess.start(db)
    try:
        ann = await WireClient.connect(proc.url, "ann")
        bob = await WireClient.connect(proc.url, "bob")
        code = await table(ann, bob)
        await ann.send(type="chat", room=code, text="before the crash")
        assert (await bob.expect("chat", room=code))["text"] == "before the crash"
        token = bob.welcome["token"]
        await proc.kill()
        for wire in (ann, bob):
            await wire.close()
    finally:
        await proc.kill()
    proc = await ServerProcess.start(db)
    try:
        bob = await WireClient.connect(proc.url, "bob", token=token)
        await settled(bob)
        assert lines_after_snapshots(bob, code) == [["before the crash"]]
        await bob.close()
    finally:
        await proc.kill()


async def test_a_database_made_before_chat_was_kept_opens_and_keeps_lines(tmp_path: Path) -> None:
    """A database without the chat table (as every one made before it) opens, its unfinished
    game comes back, and lines said from then on are kept across the next restart."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        code = await table(ann, bob)
        assert (await ann.request(type="move", room=code, ply=0, move="0,0"))["type"] == "moved"
        token = ann.welcome["token"]
        for wire in (ann, bob):
            await wire.close()
    old = sqlite3.connect(db)
    try:
        old.execute("DROP TABLE IF EXISTS chat")
        tables = {name for (name,) in old.execute("SELECT name FROM sqlite_master")}
        assert "chat" not in tables and {"games", "moves", "identities"} <= tables
    finally:
        old.close()

    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann", token=token)
        assert ann.welcome["resumed"] == [code]
        snapshot = await ann.expect("room", room=code)
        assert snapshot["moves"] == ["0,0"] and snapshot["status"] == "playing"
        await chat(ann, code, "still here")
        await ann.close()

    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann", token=token)
        await settled(ann)
        assert lines_after_snapshots(ann, code) == [["still here"]]
        await ann.close()
