"""Chat on a public server: every line names its speaker's stable id (``player``, what a client
mutes by), and one player's lines are held to a rate and refused when said again at once, with a
``rate_limited`` error that leaves the connection open. A real server on loopback port 0, real
WebSocket clients; time is moved on by shifting the event loop's clock (the server's only
clock), never by sleeping."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from protocol import limits
from server.config import ServerConfig
from server.proxies import parse_networks
from server.testing import WireClient
from tests.server.chat_tools import lines_after_snapshots, settled, table
from tests.server.helpers import Factory, LoopClock
from tests.server.tables import serving

HOME, AWAY = "198.51.100.7", "203.0.113.9"


async def test_each_line_names_its_speakers_id_live_and_in_the_history(client: Factory) -> None:
    """A player's and a spectator's lines carry ``player``, the id their ``welcome`` gave them
    (names can change and repeat; the id does not), live and in the history after a join."""
    ann, bob, carl = await client("ann"), await client("bob"), await client("carl")
    code = await table(ann, bob, carl)
    assert (await ann.request(type="chat", room=code, text="hi bob"))["type"] == "ok"
    assert (await carl.request(type="chat", room=code, text="hi watchers"))["type"] == "ok"
    line = await bob.expect("chat", room=code)
    assert (line["from"], line["player"]) == ("ann", ann.welcome["player"])
    await settled(carl)
    said = [m for m in carl.inbox if m["type"] == "chat"]
    assert [(m["from"], m["player"]) for m in said] == [("carl", carl.welcome["player"])]
    bob.inbox.clear()
    await bob.send(type="join", room=code)
    await settled(bob)
    history = [m for m in bob.inbox if m["type"] == "chat"]
    assert [(m["text"], m["player"]) for m in history] == [("hi bob", ann.welcome["player"])]


async def test_the_speakers_id_is_stored_with_the_line_and_back_after_a_restart(
    tmp_path: Path,
) -> None:
    """The id is stored with the line: after a restart the history still names it (a line a
    server stored before lines had ids comes back without one)."""
    db = tmp_path / "hall.db"
    async with serving(db) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        code = await table(ann, bob)
        assert (await ann.request(type="chat", room=code, text="gl"))["type"] == "ok"
        ids = ann.welcome["player"], bob.welcome["token"]
        for wire in (ann, bob):
            await wire.close()
    conn = sqlite3.connect(db)
    try:  # an older server's line, stored without the speaker's id
        conn.execute("INSERT INTO chat (game_id, seq, sender, role, audience, text) "
                     "SELECT game_id, 1, 'old', 'first', 'players', 'from before' FROM chat")
        conn.commit()
    finally:
        conn.close()
    async with serving(db) as server:
        bob = await WireClient.connect(server.url, "bob", token=ids[1])
        await settled(bob)
        history = [m for m in bob.inbox if m["type"] == "chat"]
        assert [(m["text"], m.get("player")) for m in history] == [
            ("gl", ids[0]), ("from before", None)]
        assert lines_after_snapshots(bob, code) == [["gl", "from before"]]
        await bob.close()


async def test_a_player_over_the_chat_rate_is_refused_until_the_window_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """:data:`limits.CHAT_LINES` lines within :data:`limits.CHAT_WINDOW_S` pass; the next is
    ``rate_limited`` (its reply names the limit, the connection stays open, the line reaches
    nobody); once the window has passed the player speaks again. The other player is not held
    by ann's rate, and the limits are in ``welcome.limits``."""
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    async with serving(tmp_path / "hall.db") as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        try:
            assert ann.welcome["limits"]["chat_lines"] == limits.CHAT_LINES
            assert ann.welcome["limits"]["chat_window_s"] == limits.CHAT_WINDOW_S
            code = await table(ann, bob)
            for n in range(limits.CHAT_LINES):
                reply = await ann.request(type="chat", room=code, text=f"line {n}")
                assert reply["type"] == "ok", reply
                clock.advance(0.5)
            refused = await ann.request(type="chat", room=code, text="one too many")
            assert (refused["type"], refused["code"]) == ("error", "rate_limited"), refused
            assert refused["room"] == code
            assert f"{limits.CHAT_LINES} chat lines" in refused["message"], refused
            assert (await bob.request(type="chat", room=code, text="calm down"))["type"] == "ok"
            clock.advance(limits.CHAT_WINDOW_S - limits.CHAT_LINES * 0.5 + 0.1)  # line 0 is out
            assert (await ann.request(type="chat", room=code, text="sorry"))["type"] == "ok"
            refused = await ann.request(type="chat", room=code, text="again")
            assert refused.get("code") == "rate_limited", refused
            assert (await ann.request(type="ping"))["type"] == "pong"  # still connected
            await settled(bob)
            heard = [m["text"] for m in bob.inbox if m["type"] == "chat" and m["from"] == "ann"]
            assert heard == [*(f"line {n}" for n in range(limits.CHAT_LINES)), "sorry"]
        finally:
            for wire in (ann, bob):
                await wire.close()


async def test_the_same_line_again_at_once_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line the player said within :data:`limits.CHAT_REPEAT_S` (the same words, whatever
    the case and spacing) is ``rate_limited``; another line passes, and the same line passes
    again once that time is over. Another player, from another address, may say the same
    words (from ann's, the guard per address refuses them: ``test_chat_address``); the test's
    loopback peer is a trusted proxy that names each one's address."""
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    config = ServerConfig(trusted_proxies=parse_networks("127.0.0.1"))
    async with serving(tmp_path / "hall.db", config=config) as server:
        ann = await WireClient.connect(server.url, "ann", headers={"X-Forwarded-For": HOME})
        bob = await WireClient.connect(server.url, "bob", headers={"X-Forwarded-For": AWAY})
        try:
            code = await table(ann, bob)
            assert (await ann.request(type="chat", room=code, text="Good luck"))["type"] == "ok"
            clock.advance(limits.CHAT_WINDOW_S)  # the rate is not what refuses it
            refused = await ann.request(type="chat", room=code, text="  good   LUCK ")
            assert (refused["type"], refused["code"]) == ("error", "rate_limited"), refused
            assert "said that" in refused["message"], refused
            assert (await bob.request(type="chat", room=code, text="good luck"))["type"] == "ok"
            assert (await ann.request(type="chat", room=code, text="have fun"))["type"] == "ok"
            clock.advance(limits.CHAT_REPEAT_S - limits.CHAT_WINDOW_S + 0.1)
            assert (await ann.request(type="chat", room=code, text="good luck"))["type"] == "ok"
        finally:
            for wire in (ann, bob):
                await wire.close()


def test_an_operator_sets_the_guard_and_may_allow_repeats() -> None:
    """With ``--chat-lines 2 --chat-window 4 --chat-repeat 0`` (the hall's settings): the same
    line twice passes, a third line within 4 s is refused, and welcome says so."""
    from server.testing import HallDriver

    d = HallDriver(ServerConfig(chat_lines=2, chat_window_s=4, chat_repeat_s=0))
    a, _b, code = d.table()
    assert d.request(a, type="chat", room=code, text="gg")["type"] == "ok"
    assert d.request(a, type="chat", room=code, text="gg")["type"] == "ok"
    refused = d.request(a, type="chat", room=code, text="gg")
    assert (refused["code"], refused["message"]) == (
        "rate_limited",
        "at most 2 chat lines in 4 s: wait 4 s",
    )
    d.advance(4)
    assert d.request(a, type="chat", room=code, text="gg")["type"] == "ok"
    welcome = d.request(d.open(), type="hello", name="ann", protocol=1)
    assert (welcome["limits"]["chat_lines"], welcome["limits"]["chat_repeat_s"]) == (2, 0)
