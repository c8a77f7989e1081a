"""Boardhall as a third-party client sees it: raw ``websockets`` and ``json`` against a real
server, each flow checked against what DESIGN.md and docs/protocol-additions.md say."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from server.net import BoardhallServer
from tests.server.third_party import RawClient, http_get, play, table


async def test_clock_parts_that_are_off_are_left_out(server: BoardhallServer) -> None:
    """DESIGN.md: "absent or 0 parts are off". The server leaves them out (it sent them as
    ``null``, which a client that reads a present part as a number trips on)."""
    ann = await RawClient.hello(server.url, "Ann")
    bob = await RawClient.hello(server.url, "Bob")
    room = await ann.request("create", game="chess", clock={"per_move": 20})
    assert room["clock"] == {"per_move": 20}
    queued = await bob.request("join", game="hexgomoku", clock={"initial": 300, "increment": 3})
    assert queued["type"] == "queued" and queued["clock"] == {"initial": 300, "increment": 3}
    listed = await ann.request("list")
    clocks = {summary["game"]: summary["clock"] for summary in listed["rooms"]}
    assert clocks == {"chess": {"per_move": 20}, "hexgomoku": {"initial": 300, "increment": 3}}
    untimed = await bob.request("create", game="shuqi")
    assert untimed["clock"] is None


XIANGQI_MATE_IN_ONE = "xiangqi;first;0,0;" + "/".join(
    [".,.,.,.,2,.,.,.,.", "7,.,.,.,.,.,.,.,.", ".,.,.,.,.,.,.,.,7"]
    + [".,.,.,.,.,.,.,.,."] * 6
    + [".,.,.,1,.,.,.,.,."]
)
"""Red's chariots on rows 2 and 3 against the lone blue general on 1,5: 3,9-1,9 mates."""

SHUQI_ALL_HOME = (
    "first;0;0,7 3,10 3,6 3,8 3,4 2,5 2,7 2,9 1,8 1,6;"
    "11,4 14,7 11,8 11,6 11,10 12,9 12,7 12,5 13,6 13,8"
)
"""Both sides in their target camps, second's pieces 0 and 1 on each other's points."""

GAMES: list[tuple[str, dict[str, Any], list[str], str, str]] = [
    ("chess", {}, ["f2f3", "e7e5", "g2g4", "d8h4"], "second", "checkmate"),
    (
        "hexgomoku",
        {},
        ["0,0", "0,1", "1,0", "1,1", "2,0", "2,1", "3,0", "3,1", "4,0"],
        "first",
        "five",
    ),
    ("draughts", {"position": "W:W28:B23"}, ["28x19"], "first", "no_moves"),
    (
        "custom",
        {"variant": "xiangqi", "position": XIANGQI_MATE_IN_ONE},
        ["3,9-1,9"],
        "first",
        "no_moves",
    ),
]
"""A short game of each game to its end: the create fields, the moves, the result and reason."""


@pytest.mark.parametrize(("game", "create", "moves", "result", "reason"), GAMES)
async def test_a_game_to_its_end_while_a_spectator_watches(
    server: BoardhallServer,
    game: str,
    create: dict[str, Any],
    moves: list[str],
    result: str,
    reason: str,
) -> None:
    """Every move reaches the other player and the spectator without ``re``; the last move's
    ``moved`` comes before ``over`` and then a ``room`` snapshot with status ``over``, to each."""
    ann, bob, room = await table(server.url, game, **create)
    eve = await RawClient.hello(server.url, "Eve")
    watched = await eve.request("join", room=room, role="spectator")
    assert watched["you"] is None and watched["status"] == "playing"
    assert (await ann.expect("presence", room=room))["spectators"] == 1
    last = await play(ann, bob, room, moves)
    for wire in (ann, bob, eve):
        over = await wire.expect("over", room=room)
        assert (over["result"], over["reason"], "re" in over) == (result, reason, False)
        assert over["position"] == last["position"]
        final = await wire.expect("room", room=room)
        assert final["status"] == "over" and final["moves"] == [
            m["move"] for m in eve.received if m["type"] == "moved"
        ]
        assert [m["type"] for m in wire.after(over)][:1] == ["room"]
    assert [m["ply"] for m in eve.received if m["type"] == "moved"] == list(range(len(moves)))
    seen = [m["type"] for m in eve.received if m["type"] in ("moved", "over")]
    assert seen == ["moved"] * len(moves) + ["over"]


async def test_number_chess_ends_with_stop(server: BoardhallServer) -> None:
    """``stop`` from a position where first has every piece home: the reply is ``over`` with
    both scores (285 against 284), and the opponent gets the same without ``re``."""
    ann, bob, room = await table(server.url, "shuqi", position=SHUQI_ALL_HOME)
    stopped = await ann.request("stop", room=room)
    assert (stopped["type"], stopped["result"], stopped["reason"]) == ("over", "first", "stop")
    assert stopped["scores"] == {"first": 285, "second": 284}
    told = await bob.expect("over", room=room)
    assert "re" not in told and told["scores"] == stopped["scores"]


async def test_a_draw_offered_and_accepted_then_a_rematch_resigned(
    server: BoardhallServer,
) -> None:
    """The offer goes to the opponent only; the answer's reply is ``ok``, the offerer gets
    ``answer`` and both ``over`` (agreement). A rematch is a new room and game id, colours
    swapped; its snapshot takes the spectator along (docs/protocol-additions.md), who no
    longer watches the old room; resigning it is answered with ``over`` itself."""
    ann, bob, room = await table(server.url, "chess", clock={"initial": 300, "increment": 3})
    eve = await RawClient.hello(server.url, "Eve")
    await eve.request("join", room=room, role="spectator")
    await play(ann, bob, room, ["e2e4", "e7e5"])
    assert (await ann.request("offer", room=room, kind="draw"))["type"] == "ok"
    assert await bob.expect("offer", room=room) == {
        "type": "offer",
        "room": room,
        "kind": "draw",
        "by": "first",
    }
    assert (await bob.request("answer", room=room, kind="draw", accept=True))["type"] == "ok"
    answered = await ann.expect("answer", room=room)
    assert (answered["accept"], answered["by"]) == (True, "second")
    drawn = [await wire.expect("over", room=room) for wire in (ann, bob)]
    assert {(o["result"], o["reason"]) for o in drawn} == {("draw", "agreement")}

    assert (await bob.request("offer", room=room, kind="rematch"))["type"] == "ok"
    await ann.expect("offer", room=room, kind="rematch")
    assert (await ann.request("answer", room=room, kind="rematch", accept=True))["type"] == "ok"
    again = await ann.take(lambda m: m["type"] == "room" and m["room"] != room)
    assert again["status"] == "playing" and again["you"] == "second"
    assert again["game_id"] != drawn[0]["game_id"]
    followed = await eve.take(lambda m: m["type"] == "room" and m["room"] == again["room"])
    assert "re" not in followed and followed["you"] is None and followed["spectators"] == 1
    assert (await eve.request("leave", room=room))["code"] == "not_allowed"  # watches no more
    resigned = await ann.request("resign", room=again["room"])
    assert (resigned["type"], resigned["result"], resigned["reason"]) == ("over", "first", "resign")
    assert (await bob.expect("over", room=again["room"]))["result"] == "first"
    assert (await eve.expect("over", room=again["room"]))["reason"] == "resign"


async def test_a_token_resumes_the_seat_after_a_dropped_connection(
    server: BoardhallServer,
) -> None:
    """docs/protocol-additions.md: after ``welcome``, each room in ``resumed`` comes as a
    ``room`` snapshot without ``re``, followed by the chat lines its player may see; the
    opponent is told by ``presence``. The game goes on from where it was."""
    ann, bob, room = await table(server.url, "hexgomoku", clock={"initial": 300, "increment": 3})
    await play(ann, bob, room, ["0,0", "0,1", "1,0"])
    assert (await ann.request("chat", room=room, text="brb"))["type"] == "ok"
    await ann.close()
    gone = await bob.expect("presence", room=room, seat="first")
    assert gone["connected"] is False

    back = await RawClient.hello(server.url, "Ann", token=ann.welcome["token"])
    assert back.welcome["player"] == ann.welcome["player"]
    assert back.welcome["resumed"] == [room]
    kept = await back.expect("chat", room=room, text="brb")
    snapshot, line = back.after(back.welcome)[:2]
    assert snapshot["type"] == "room" and line is kept
    assert "re" not in snapshot and snapshot["you"] == "first"
    assert snapshot["moves"] == ["0,0", "0,1", "1,0"] and snapshot["turn"] == "second"
    assert snapshot["seats"]["first"]["connected"] is True
    assert (await bob.expect("presence", room=room, seat="first"))["connected"] is True
    assert (await bob.request("move", room=room, ply=3, move="1,1"))["type"] == "moved"
    assert (await back.expect("moved", room=room, ply=3))["move"] == "1,1"


async def test_the_speaker_gets_its_line_and_a_join_gets_the_kept_lines(
    server: BoardhallServer,
) -> None:
    """docs/protocol-additions.md: the speaker's ``ok`` is followed by its own line, as everyone
    in its channel gets it; a ``join`` reply (a player's or a spectator's) is followed by the
    kept lines that recipient may see, oldest first. Players' lines during play are not a
    spectator's to see."""
    ann, bob, room = await table(server.url, "hexgomoku")
    said = await ann.request("chat", room=room, text="good luck")
    assert said["type"] == "ok"
    echo = await ann.expect("chat", room=room)
    assert ann.after(said)[0] is echo
    assert (echo["from"], echo["role"], echo["text"]) == ("Ann", "first", "good luck")
    assert (await bob.expect("chat", room=room))["player"] == ann.welcome["player"]
    assert (await ann.request("resign", room=room))["type"] == "over"
    assert (await bob.request("chat", room=room, text="thanks for the game"))["type"] == "ok"
    await ann.expect("chat", room=room, text="thanks for the game")

    again = await ann.request("join", room=room)
    assert again["type"] == "room" and again["you"] == "first"
    await ann.expect("chat", room=room, text="thanks for the game")
    assert [m["text"] for m in ann.after(again)[:2]] == ["good luck", "thanks for the game"]
    eve = await RawClient.hello(server.url, "Eve")
    watching = await eve.request("join", room=room, role="spectator")
    assert watching["type"] == "room" and watching["you"] is None
    await eve.expect("chat", room=room, text="thanks for the game")
    assert [m.get("text") for m in eve.received if m["type"] == "chat"] == ["thanks for the game"]


async def test_clocks_without_a_main_time_and_before_the_first_move(
    server: BoardhallServer,
) -> None:
    """docs/protocol-additions.md: ``clocks.first``/``second`` are null without a main time,
    and before a side's first move ``clocks.move`` counts down its abort deadline (30 s by
    default), with a per-move clock (20 s) or a Fischer one alike."""
    ann, bob, room = await table(server.url, "chess", clock={"per_move": 20})
    snapshot = await bob.request("join", room=room)
    clocks = snapshot["clocks"]
    assert (clocks["first"], clocks["second"], clocks["running"]) == (None, None, "first")
    assert 20_000 < clocks["move"] <= 30_000
    moved = await ann.request("move", room=room, ply=0, move="e2e4")
    assert 20_000 < moved["clocks"]["move"] <= 30_000 and moved["clocks"]["running"] == "second"
    replied = await bob.request("move", room=room, ply=1, move="e7e5")
    assert 0 < replied["clocks"]["move"] <= 20_000

    fischer = await ann.request("create", game="chess", color="first", clock={"initial": 60})
    seated = await bob.request("join", room=fischer["room"])
    assert seated["clocks"]["first"] == seated["clocks"]["second"] == 60_000
    assert 20_000 < seated["clocks"]["move"] <= 30_000


async def test_an_opponent_other_than_a_computer_level_is_a_bad_option(
    server: BoardhallServer,
) -> None:
    """docs/protocol-additions.md: ``create.opponent`` other than ``bot:1`` to ``bot:8`` is
    ``bad_option`` naming it, and no room is made."""
    ann = await RawClient.hello(server.url, "Ann")
    for opponent in ("human", "bot:9", "bot:"):
        refused = await ann.request("create", game="chess", opponent=opponent)
        assert refused["type"] == "error" and refused["code"] == "bad_option"
        assert repr(opponent) in refused["message"]
    assert (await ann.request("list"))["rooms"] == []


async def test_the_http_endpoints_a_client_reads(server: BoardhallServer) -> None:
    """README's HTTP endpoints after a finished chess and draughts game: each record in its
    native format with its content type (docs/protocol-additions.md) and as JSON, the player's
    games and profile, the leaderboard, a variant; a private game's record is 404 but with a
    token of its players; ``/``, ``/healthz`` and ``/metrics`` take no parameters and answer
    whatever the query string."""
    ann, bob, room = await table(server.url, "chess", clock={"initial": 60})
    await play(ann, bob, room, ["f2f3", "e7e5", "g2g4", "d8h4"])
    chess_id = (await ann.expect("over", room=room))["game_id"]
    ann2, bob2, room2 = await table(server.url, "draughts", position="W:W28:B23")
    await play(ann2, bob2, room2, ["28x19"])
    draughts_id = (await ann2.expect("over", room=room2))["game_id"]

    async def get(path: str) -> tuple[int, str, bytes]:
        return await asyncio.to_thread(http_get, server.url, path)

    status, kind, body = await get(f"/games/{chess_id}")
    assert (status, kind) == (200, "application/x-chess-pgn; charset=utf-8")
    assert b"Qh4#" in body
    status, kind, body = await get(f"/games/{draughts_id}")
    assert (status, kind) == (200, "text/plain; charset=utf-8") and b"28x19" in body
    status, kind, body = await get(f"/games/{chess_id}?format=json")
    record = json.loads(body)
    assert kind == "application/json; charset=utf-8" and record["clock"] == {"initial": 60}
    assert [m["move"] for m in record["moves"]] == ["f2f3", "e7e5", "g2g4", "d8h4"]

    player = ann.welcome["player"]
    games = json.loads((await get(f"/games?player={player}"))[2])["games"]
    assert [(g["id"], g["seat"], g["outcome"], g["plies"]) for g in games] == [
        (chess_id, "first", "loss", 4)
    ]
    profile = json.loads((await get(f"/players/{player}"))[2])
    assert profile["totals"]["losses"] == 1 and profile["online"] is True
    board = json.loads((await get("/ratings?game=chess"))[2])
    assert {p["player"] for p in board["players"]} == {player, bob.welcome["player"]}
    variant = json.loads((await get("/variants/xiangqi"))[2])
    assert variant["id"] == "xiangqi" and variant["board"]["rows"] == 10

    secret, other, hidden = await table(server.url, "hexgomoku", private=True)
    assert (await other.request("resign", room=hidden))["type"] == "over"
    hidden_id = (await secret.expect("over", room=hidden))["game_id"]
    assert (await get(f"/games/{hidden_id}"))[0] == 404
    assert (await get(f"/games/{hidden_id}?token={ann.welcome['token']}"))[0] == 404
    assert (await get(f"/games/{hidden_id}?token={secret.welcome['token']}"))[0] == 200

    for path in ("/", "/healthz", "/metrics"):
        assert (await get(path + "?anything=1"))[0] == 200
    status, _, body = await get(f"/players/{player}?anything=1")
    assert status == 400 and b"anything" in body


async def test_an_id_over_its_bound_is_too_large(server: BoardhallServer) -> None:
    """docs/protocol-additions.md: an ``id`` is at most 64 characters, and a string over its
    bound is ``too_large``. A 65-character id was ``bad_message`` "should be a valid integer"
    (the other type an id may have). The error has no ``re`` (the id is not one), and the
    connection goes on."""
    ann = await RawClient.hello(server.url, "Ann")
    await ann.ws.send(json.dumps({"type": "ping", "id": "i" * 65}))
    refused = await ann.expect("error")
    assert refused["code"] == "too_large" and "re" not in refused
    assert refused["message"] == "ping: field 'id' is too long (at most 64)"
    assert (await ann.request("ping", t=1))["type"] == "pong"


async def test_a_player_who_leaves_a_finished_room_has_left_it(server: BoardhallServer) -> None:
    """DESIGN.md: ``leave`` is "stop watching", and ``presence`` says "a player left or came
    back". A player who left a finished room went on getting its chat and presence, and the
    others were not told (the seat still showed connected until a rematch offer was refused
    with "the opponent has left the room"). Now the others get ``presence`` connected false,
    snapshots show the seat away, the leaver hears nothing more of the room (nor says: a chat
    line or a rematch offer is ``not_allowed`` until they join it again), and a ``join`` brings
    them back (``presence`` connected true)."""
    ann, bob, room = await table(server.url, "hexgomoku")
    eve = await RawClient.hello(server.url, "Eve")
    await eve.request("join", room=room, role="spectator")
    assert (await bob.request("resign", room=room))["type"] == "over"
    await ann.expect("over", room=room)

    assert (await ann.request("leave", room=room))["type"] == "ok"
    for wire in (bob, eve):
        gone = await wire.expect("presence", room=room, seat="first")
        assert gone["connected"] is False
    assert (await bob.request("chat", room=room, text="gg then"))["type"] == "ok"
    await eve.expect("chat", room=room, text="gg then")
    await ann.request("ping")  # anything of the room sent to ann came before its pong
    assert not [m for m in ann.received if m.get("text") == "gg then"]
    seen = await bob.request("join", room=room)
    assert seen["seats"]["first"]["connected"] is False
    refused = await bob.request("offer", room=room, kind="rematch")
    assert (refused["code"], refused["message"]) == (
        "not_allowed",
        "the opponent has left the room",
    )

    for kind, fields in (("chat", {"text": "one more?"}), ("offer", {"kind": "rematch"})):
        refused = await ann.request(kind, room=room, **fields)
        assert refused["code"] == "not_allowed", refused
        assert refused["message"].startswith(f"you left room {room}: join it again to ")
    await bob.request("ping")  # what ann's requests sent bob came before its pong
    assert not [m for m in bob.received if m.get("text") == "one more?" or m["type"] == "offer"]

    back = await ann.request("join", room=room)
    assert back["type"] == "room" and back["seats"]["first"]["connected"] is True
    assert (await bob.expect("presence", room=room, seat="first"))["connected"] is True
    assert (await bob.request("chat", room=room, text="welcome back"))["type"] == "ok"
    await ann.expect("chat", room=room, text="welcome back")


async def test_a_move_or_resign_before_the_game_starts_is_not_allowed(
    server: BoardhallServer,
) -> None:
    """docs/protocol-additions.md: ``not_allowed`` also refuses a ``move`` or a ``resign`` in
    a room whose second seat is free (DESIGN.md gives it to refused claims, offers, answers,
    leaves and aborts only); the room still waits, and plays once someone sits."""
    ann = await RawClient.hello(server.url, "Ann")
    room = (await ann.request("create", game="chess", color="first"))["room"]
    moved = await ann.request("move", room=room, ply=0, move="e2e4")
    resigned = await ann.request("resign", room=room)
    for refused in (moved, resigned):
        assert refused["code"] == "not_allowed" and "has not started" in refused["message"]
    bob = await RawClient.hello(server.url, "Bob")
    assert (await bob.request("join", room=room))["status"] == "playing"
    assert (await ann.request("move", room=room, ply=0, move="e2e4"))["type"] == "moved"


async def test_a_move_cancels_the_pending_offers_without_a_message_of_its_own(
    server: BoardhallServer,
) -> None:
    """DESIGN.md: "Any move cancels pending offers"; docs/protocol-additions.md: no message says
    so besides the ``moved`` itself, and answering the offer then is ``not_allowed`` naming the
    move that cancelled it."""
    ann, bob, room = await table(server.url, "chess")
    await play(ann, bob, room, ["e2e4"])
    assert (await ann.request("offer", room=room, kind="draw"))["type"] == "ok"
    await bob.expect("offer", room=room, kind="draw")
    moved = await bob.request("move", room=room, ply=1, move="e7e5")
    told = await ann.expect("moved", room=room, ply=1)
    late = await bob.request("answer", room=room, kind="draw", accept=True)
    assert late["code"] == "not_allowed" and "the move at ply 1 cancelled it" in late["message"]
    assert [m["type"] for m in bob.after(moved)] == ["error"]
    assert (await ann.request("join", room=room))["offers"] == []
    assert [m["type"] for m in ann.after(told)] == ["room"]
