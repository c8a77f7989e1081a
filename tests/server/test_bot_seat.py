"""A room against the computer: one name for the bot seat from start to end, no "is back" when
the bot process first arrives, and the JSON "listening" log line says where the server is bound."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from server.logs import JsonFormatter
from server.testing import HallDriver, WireClient, running_server
from tests.server.http_tools import http_get


def _bot_room(d: HallDriver, game: str, level: int = 1) -> tuple[int, int, str]:
    """Ann (first) against a server bot that has connected as the process does: ``(ann, bot,
    room)``. The bot says hello as ``client/bot.py`` does (its own ``Bot L<level>`` name)."""
    ann = d.player("ann")
    room = d.request(ann, type="create", game=game, color="first", opponent=f"bot:{level}")
    assert room["type"] == "room", room
    launch = d.bots[-1]
    bot = d.player(f"Bot L{level}", client="bot/1", token=launch.token)
    assert d.request(bot, type="join", room=room["room"])["you"] == "second"
    return ann, bot, room["room"]


@pytest.mark.parametrize("game", ["chess", "hexgomoku", "draughts", "shuqi"])
def test_the_bot_seat_has_one_name_in_every_game(game: str) -> None:
    """The creator's first snapshot, later snapshots, the bot's own view, the stored record and
    the lobby all name the bot seat the same way, whatever name the bot process says hello with."""
    d = HallDriver()
    ann = d.player("ann")
    first = d.request(ann, type="create", game=game, color="first", opponent="bot:1")
    assert first["type"] == "room", first
    code = first["room"]
    name = first["seats"]["second"]["name"]
    assert name == "Computer L1"
    (launch,) = d.bots
    bot = d.player("Bot L1", client="bot/1", token=launch.token)
    welcome_name = d.hall.identities[d.hall.rooms[code].seats["second"].player].name  # type: ignore[union-attr]
    assert welcome_name == name
    seen = d.request(bot, type="join", room=code)
    assert seen["seats"]["second"]["name"] == name
    again = d.request(ann, type="join", room=code)  # a snapshot after the bot arrived
    assert again["seats"]["second"]["name"] == name
    assert [s.name for s in d.hall.rooms[code].seats.values() if s] == ["ann", name]
    d.request(ann, type="resign", room=code)
    saved = [w.meta for w in d.writes if type(w).__name__ == "SaveGame"]
    assert {m["seats"]["second"]["name"] for m in saved} == {name}
    end = d.last(ann, "room")
    assert end["status"] == "over" and end["seats"]["second"]["name"] == name


def test_the_bot_name_survives_a_reconnection_and_a_rematch() -> None:
    """The bot process reconnecting (with its token and any name) or playing a rematch does not
    rename its seat."""
    d = HallDriver()
    ann, bot, code = _bot_room(d, "hexgomoku")
    token = next(b.token for b in d.bots)
    d.drop(bot)
    bot = d.player("someone else", client="bot/1", token=token)
    assert d.request(bot, type="join", room=code)["seats"]["second"]["name"] == "Computer L1"
    d.request(ann, type="resign", room=code)
    d.request(bot, type="offer", room=code, kind="rematch")
    d.request(ann, type="answer", room=code, kind="rematch", accept=True)
    new = d.last(ann, "room")
    assert new["room"] != code
    assert [s["name"] for s in new["seats"].values()] == ["Computer L1", "ann"]


def test_the_bot_seat_is_shown_here_from_the_start_without_an_is_back() -> None:
    """The seat of the bot the server is starting shows connected from the room's start, and its
    process's first connection sends no ``presence`` (the client would say "... is back")."""
    d = HallDriver()
    ann = d.player("ann")
    room = d.request(ann, type="create", game="chess", color="first", opponent="bot:1")
    code = room["room"]
    assert room["seats"]["second"]["connected"] is True
    d.move(ann, code, "e2e4")  # the player moves before the bot process has connected
    (launch,) = d.bots
    bot = d.player("Bot L1", client="bot/1", token=launch.token)
    seen = d.request(bot, type="join", room=code)
    assert seen["seats"]["second"]["connected"] is True
    assert [p for p in d.take(ann, "presence") if p.get("seat") is not None] == []
    assert d.move(bot, code, "e7e5")["type"] == "moved"
    assert d.request(ann, type="join", room=code)["seats"]["second"]["connected"] is True


def test_a_bot_that_really_goes_away_and_comes_back_is_announced() -> None:
    """Once the bot process was here, losing it and getting it back are real news."""
    d = HallDriver()
    ann, bot, _ = _bot_room(d, "hexgomoku")
    token = d.bots[-1].token
    d.take(ann, "presence")
    d.drop(bot)
    (gone,) = d.take(ann, "presence")
    assert (gone["seat"], gone["connected"]) == ("second", False)
    bot = d.player("Bot L1", client="bot/1", token=token)
    (back,) = d.take(ann, "presence")
    assert (back["seat"], back["connected"]) == ("second", True)


def test_an_untimed_game_against_a_bot_that_never_arrives_can_still_be_claimed() -> None:
    """Showing the starting bot as here does not keep its opponent from claiming the game when
    its process never comes (untimed: the absence grace)."""
    d = HallDriver()
    ann = d.player("ann")
    code = d.request(ann, type="create", game="chess", color="first", opponent="bot:1")["room"]
    d.move(ann, code, "e2e4")
    d.now += d.hall.config.absence_grace_s + 1  # the first-move deadline is a timer: not fired
    reply = d.request(ann, type="timeout", room=code)
    assert (reply["type"], reply.get("reason")) == ("over", "abandoned"), reply


def test_after_a_restart_the_bot_seat_does_not_flap() -> None:
    """A restored bot room whose bot is started again shows the seat here to its returning
    player; the bot process's connection announces nothing and renames nothing."""
    d = HallDriver()
    conn = d.open()
    token = d.request(conn, type="hello", name="ann", protocol=1)["token"]
    code = d.request(conn, type="create", game="hexgomoku", color="first", opponent="bot:1")["room"]
    bot = d.player("Bot L1", client="bot/1", token=d.bots[-1].token)
    d.request(bot, type="join", room=code)
    d.move(conn, code, "0,0")
    room = d.hall.rooms[code]
    meta = room.meta()
    ann = room.seats["first"]
    assert ann is not None
    e = HallDriver()  # the restarted server: storage gives back the game and ann's identity
    e.hall.restore(meta, [{"move": "0,0", "by": "first", "at": "", "clocks": {}}], e.now)
    e.hall.add_identity(ann.player, d.hall.identities[ann.player].token_hash, "ann")
    e.hall.restart_clocks(e.now)
    (launch,) = e.hall.bot_launches()
    ann2 = e.open()
    assert e.request(ann2, type="hello", name="ann", protocol=1, token=token)["resumed"] == [code]
    seen = e.last(ann2, "room")
    assert seen["seats"]["second"] == {
        "player": meta["seats"]["second"]["player"],
        "name": "Computer L1",
        "connected": True,
        "bot": True,
        "rating": None,  # a bot has none
        "rd": None,
    }
    bot2 = e.player("Bot L1", client="bot/1", token=launch.token)
    assert e.request(bot2, type="join", room=code)["seats"]["second"]["name"] == "Computer L1"
    assert e.take(ann2, "presence") == []


@pytest.mark.slow
@pytest.mark.parametrize("game", ["chess", "hexgomoku"])
async def test_a_real_bot_game_names_the_bot_one_way_to_the_end(game: str, tmp_path: Path) -> None:
    """With the real bot process: no presence for its arrival, the same name in every snapshot,
    in the record (JSON and PGN-style tags) and in ``/games?player=`` (whose ``bot_seat`` says
    which seat it held: it has no profile)."""
    first_move = {"chess": "e2e4", "hexgomoku": "0,0"}[game]
    async with running_server(port=0, db=tmp_path / "hall.db") as server:
        ann = await WireClient.connect(server.url, "ann")
        room = await ann.request(type="create", game=game, color="first", opponent="bot:1")
        code = room["room"]
        assert room["seats"]["second"]["name"] == "Computer L1"
        assert room["seats"]["second"]["connected"] is True
        await ann.request(type="move", room=code, ply=0, move=first_move)
        await ann.expect("moved", ply=1, timeout=30)
        again = await ann.request(type="join", room=code)
        assert again["seats"]["second"]["name"] == "Computer L1"
        assert again["seats"]["second"]["connected"] is True
        assert [p for p in ann.take_all("presence") if p.get("seat") is not None] == []
        over = await ann.request(type="resign", room=code)
        assert over["type"] == "over"
        end = await ann.expect("room", status="over")
        assert end["seats"]["second"]["name"] == "Computer L1"
        bot_player = end["seats"]["second"]["player"]
        status, body = await http_get(server.port, f"/games?player={bot_player}")
        assert status == 200, body
        (listed,) = json.loads(body)["games"]
        assert "Computer L1" in json.dumps(listed) and "Bot L" not in json.dumps(listed)
        assert listed["bot_seat"] == "second"  # the client offers no profile for it
        status, body = await http_get(server.port, f"/players/{bot_player}")
        assert status == 404 and bot_player in body, body  # never a stored identity
        status, body = await http_get(server.port, f"/games/{room['game_id']}")
        assert status == 200, body
        assert "Computer L1" in body and "Bot L" not in body
        await ann.close()


async def test_the_listening_log_line_says_where_it_is_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Bound to every interface, the JSON "listening" line names the loopback URL the server
    hands its bots and also the address it is bound to."""
    caplog.set_level(logging.INFO, logger="boardhall.server")
    async with running_server(host="0.0.0.0", port=0) as server:
        port = server.port
        client = await WireClient.connect(server.url, "ann")
        await client.close()
    (record,) = [r for r in caplog.records if r.getMessage() == "listening"]
    line: dict[str, Any] = json.loads(JsonFormatter().format(record))
    assert line["url"] == f"ws://127.0.0.1:{port}"
    assert line["bound"] == f"0.0.0.0:{port}"


def test_a_bot_that_never_connects_is_shown_away() -> None:
    """When the started bot process fails or ends before connecting, its seat stops being shown
    as here (one presence: the seat is away), and nothing more is said after it did connect."""
    d = HallDriver()
    ann = d.player("ann")
    code = d.request(ann, type="create", game="chess", color="first", opponent="bot:1")["room"]
    d._collect(d.hall.bot_missing(code, d.now))
    (gone,) = d.take(ann, "presence")
    assert (gone["seat"], gone["connected"]) == ("second", False)
    assert d.request(ann, type="join", room=code)["seats"]["second"]["connected"] is False
    d._collect(d.hall.bot_missing(code, d.now))  # said once only
    assert d.take(ann, "presence") == []
    ann2, _, other = _bot_room(d, "hexgomoku")
    d.take(ann2, "presence")
    d._collect(d.hall.bot_missing(other, d.now))  # a process that had connected: no news
    assert d.take(ann2, "presence") == []


async def test_a_bot_that_cannot_be_started_is_shown_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a real server whose bot process cannot start, the player learns the seat is away."""
    import server.bot_launcher

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no python here")

    monkeypatch.setattr(server.bot_launcher, "launch_bot", broken)
    async with running_server(port=0) as server_:
        ann = await WireClient.connect(server_.url, "ann")
        room = await ann.request(type="create", game="chess", color="first", opponent="bot:1")
        assert room["seats"]["second"]["connected"] is True
        gone = await ann.expect("presence", room=room["room"], seat="second")
        assert gone["connected"] is False
        await ann.close()


# ---- a server bot is let go once no room needs it (its process ends) ---------------------------


def _human_bot_room(d: HallDriver) -> tuple[int, str, int, str]:
    """Ann (first, her token kept) against a connected server bot: ``(ann, token, bot, room)``."""
    ann = d.open()
    token = d.request(ann, type="hello", name="ann", protocol=1)["token"]
    room = d.request(ann, type="create", game="hexgomoku", color="first", opponent="bot:1")
    bot = d.player("Bot L1", client="bot/1", token=d.bots[-1].token)
    assert d.request(bot, type="join", room=room["room"])["you"] == "second"
    return ann, token, bot, room["room"]


def test_a_server_bot_is_let_go_when_its_human_leaves_the_finished_room() -> None:
    """The human leaves the finished room (a spectator keeps it open): the bot's connection is
    closed (1000), so its process ends instead of waiting 600 s for a rematch (32 finished
    chess bots held about 7 GB)."""
    d = HallDriver()
    ann, _, bot, code = _human_bot_room(d)
    carol = d.player("carol")
    assert d.request(carol, type="join", room=code, role="spectator")["type"] == "room"
    d.request(ann, type="resign", room=code)
    assert bot not in d.closed
    assert d.request(ann, type="leave", room=code)["type"] == "ok"
    assert code in d.hall.rooms  # still watched
    assert d.closed.get(bot) == 1000


def test_a_server_bot_stays_while_its_human_may_come_back_and_goes_with_the_room() -> None:
    """The human drops after the end: the bot stays for the room's own keep time, so a human
    who comes back still gets a rematch; leaving the old room then keeps the bot (it plays the
    rematch); once the rematch's room closes (the human gone, not back in time) it is let go."""
    d = HallDriver()
    ann, token, bot, code = _human_bot_room(d)
    d.request(ann, type="resign", room=code)
    d.drop(ann)
    d.advance(d.hall.config.finished_room_return_s / 2)
    assert bot not in d.closed and code in d.hall.rooms
    ann = d.open()
    d.request(ann, type="hello", name="ann", protocol=1, token=token)
    d.request(ann, type="join", room=code)
    assert d.request(ann, type="offer", room=code, kind="rematch")["type"] == "ok"
    d.request(bot, type="answer", room=code, kind="rematch", accept=True)
    new = d.last(ann, "room")["room"]
    assert new != code
    assert d.request(ann, type="leave", room=code)["type"] == "ok"
    assert bot not in d.closed
    d.request(ann, type="resign", room=new)
    d.drop(ann)
    assert bot not in d.closed
    d.advance(d.hall.config.finished_room_return_s + 1)
    assert new not in d.hall.rooms
    assert d.closed.get(bot) == 1000


def test_a_bot_someone_runs_in_a_room_is_never_closed_by_the_server() -> None:
    """Only bots the server started are let go: a bot a user runs (``--room``) decides itself."""
    d = HallDriver()
    ann = d.player("ann")
    code = d.request(ann, type="create", game="hexgomoku", color="first")["room"]
    bot = d.player("Bot L1", client="bot boardhall")
    d.request(bot, type="join", room=code)
    d.request(ann, type="resign", room=code)
    d.request(ann, type="leave", room=code)
    assert code not in d.hall.rooms
    assert bot not in d.closed
