"""Audit over real sockets: limits that seeks and rematches slipped past, a seek left behind by a
replaced connection, odd lobby and record queries, and the clock of a move refused as late.

Every test runs a real server on a loopback port 0 with a SQLite file in a temporary directory
and talks to it with real WebSocket clients; time is injected by moving a turn's start back."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

from server.config import ServerConfig
from server.net import BoardhallServer
from server.testing import ServerProcess, WireClient
from tests.server.http_tools import http_get
from tests.server.tables import serving


@contextlib.asynccontextmanager
async def clients(server: BoardhallServer, *names: str) -> AsyncIterator[list[WireClient]]:
    """Connected, welcomed clients, closed at the end."""
    opened = [await WireClient.connect(server.url, name) for name in names]
    try:
        yield opened
    finally:
        for wire in opened:
            await wire.close()


def live_rooms(server: BoardhallServer, wire: WireClient) -> int:
    """Unfinished rooms the client's identity sits in."""
    hall = server.hall
    codes = hall.player_rooms.get(wire.welcome["player"], set())
    return sum(1 for c in codes if c in hall.rooms and hall.rooms[c].status != "over")


# ---- rooms per identity -------------------------------------------------------------------------


async def test_seeks_count_towards_the_rooms_per_identity_limit(tmp_path: Path) -> None:
    """With a limit of 2, a third seek (another clock) is refused: each seek would become a
    room. Once one of her seeks is matched, the others are withdrawn (she sits down in one
    game: a second seek matched would start another she is not playing)."""
    async with (
        serving(tmp_path, config=ServerConfig(rooms_per_identity=2)) as server,
        clients(server, "ann", "bob", "carl", "dan") as (ann, bob, carl, dan),
    ):
        for seconds in (20, 30):
            queued = await ann.request(type="join", game="hexgomoku", clock={"per_move": seconds})
            assert queued["type"] == "queued", queued
        # the same seek again replaces the old one: not refused
        again = await ann.request(type="join", game="hexgomoku", clock={"per_move": 30})
        assert again["type"] == "queued", again
        third = await ann.request(type="join", game="hexgomoku", clock={"per_move": 40})
        assert (third["type"], third["code"]) == ("error", "not_allowed"), third
        assert "limit 2" in third["message"]
        assert len(server.hall.seeks) == 2
        for wire, seconds in ((bob, 20), (carl, 30), (dan, 40)):
            reply = await wire.request(type="join", game="hexgomoku", clock={"per_move": seconds})
            assert reply["type"] == ("room" if seconds == 20 else "queued"), reply
        assert live_rooms(server, ann) == 1


async def test_a_rematch_is_refused_for_a_player_at_the_room_limit(tmp_path: Path) -> None:
    """Games that end free their players' quota; a rematch accepted once ann has filled it
    again would seat her in one room more than her limit: refused, the offer stays."""
    async with (
        serving(tmp_path, config=ServerConfig(rooms_per_identity=1)) as server,
        clients(server, "ann", "bob") as (ann, bob),
    ):
        code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
        await bob.request(type="join", room=code)
        await bob.request(type="resign", room=code)
        assert (await ann.request(type="create", game="chess"))["type"] == "room"
        assert (await bob.request(type="offer", room=code, kind="rematch"))["type"] == "ok"
        answer = await ann.request(type="answer", room=code, kind="rematch", accept=True)
        assert (answer["type"], answer["code"]) == ("error", "not_allowed"), answer
        assert "ann" in answer["message"] and "limit 1" in answer["message"], answer
        assert live_rooms(server, ann) == 1 and live_rooms(server, bob) == 0
        assert server.hall.rooms[code].offers == {"rematch": "second"}
        # a crossing offer by ann (which accepts bob's) is refused the same way
        crossing = await ann.request(type="offer", room=code, kind="rematch")
        assert (crossing["type"], crossing["code"]) == ("error", "not_allowed"), crossing
        assert live_rooms(server, ann) == 1


# ---- two tabs -----------------------------------------------------------------------------------


async def test_a_connection_replaced_by_the_same_token_takes_its_seek_with_it(
    tmp_path: Path,
) -> None:
    """Ann seeks in one tab and opens another with her token: the first closes with 4001 and
    its seek goes with it (the new tab never asked to be matched, and was dropped into a game)."""
    async with serving(tmp_path) as server, clients(server, "ann", "bob") as (ann, bob):
        queued = await ann.request(type="join", game="hexgomoku")
        assert queued["type"] == "queued"
        tab = await WireClient.connect(server.url, "ann", token=ann.welcome["token"])
        try:
            assert await ann.wait_closed() == 4001
            assert (await tab.request(type="list"))["rooms"] == []
            reply = await bob.request(type="join", game="hexgomoku")
            assert reply["type"] == "queued", reply
            await tab.request(type="ping")
            assert tab.take_all("room") == []
        finally:
            await tab.close()


# ---- lobby and records with odd arguments ---------------------------------------------------


async def test_listing_an_unknown_game_is_unknown_game(tmp_path: Path) -> None:
    """``list`` with a game the server does not have names it, and does not start watching."""
    async with serving(tmp_path) as server, clients(server, "ann") as (ann,):
        reply = await ann.request(type="list", game="go", watch=True)
        assert (reply["type"], reply["code"]) == ("error", "unknown_game"), reply
        assert "'go'" in reply["message"]
        session = next(iter(server.hall.sessions.values()))
        assert not session.watching
        assert (await ann.request(type="list", game="chess"))["type"] == "rooms"


async def test_a_record_in_an_unknown_format_is_refused_naming_the_formats(
    tmp_path: Path,
) -> None:
    """``GET /games/ID?format=X`` served the PGN for any X; an unknown format is a 400."""
    async with serving(tmp_path) as server, clients(server, "ann", "bob") as (ann, bob):
        room = await ann.request(type="create", game="chess", color="first")
        code = room["room"]
        await bob.request(type="join", room=code)
        await ann.request(type="move", room=code, ply=0, move="e2e4")
        await bob.request(type="resign", room=code)
        path = f"/games/{room['game_id']}"
        status, body = await http_get(server.port, f"{path}?format=pgn")
        assert status == 200 and body.startswith("[Event")
        status, body = await http_get(server.port, f"{path}?format=json")
        assert status == 200 and json.loads(body)["moves"][0]["move"] == "e2e4"
        for bad in ("xml", "pdn", "PGN"):
            status, body = await http_get(server.port, f"{path}?format={bad}")
            assert status == 400, (bad, status, body)
            message = json.loads(body)["error"]
            assert f"{bad!r}" in message and "pgn" in message and "json" in message, message
        hex_room = await ann.request(type="create", game="hexgomoku", color="first")
        await bob.request(type="join", room=hex_room["room"])
        await bob.request(type="resign", room=hex_room["room"])
        status, body = await http_get(server.port, f"/games/{hex_room['game_id']}?format=pgn")
        assert status == 400 and "json" in json.loads(body)["error"]
        status, body = await http_get(server.port, f"/games/{hex_room['game_id']}?format=json")
        assert status == 200 and json.loads(body)["game"] == "hexgomoku"


# ---- clocks ---------------------------------------------------------------------------------


async def test_a_move_refused_as_late_charges_the_time_once(tmp_path: Path) -> None:
    """A move 20.3 s into a 20 s per-move limit, with no lag to credit, arrives inside the
    server's lag grace but is late: the game is lost on time and the mover's main time is
    charged 20.3 s, not twice that."""
    async with serving(tmp_path) as server, clients(server, "ann", "bob") as (ann, bob):
        clock = {"initial": 300, "per_move": 20}
        code = (await ann.request(type="create", game="hexgomoku", color="first", clock=clock))[
            "room"
        ]
        await bob.request(type="join", room=code)
        for ply, (wire, move) in enumerate(((ann, "0,0"), (bob, "0,1"), (ann, "1,0"))):
            assert (await wire.request(type="move", room=code, ply=ply, move=move))["type"] == (
                "moved"
            )
        await bob.request(type="move", room=code, ply=3, move="1,1")
        room = server.hall.rooms[code]
        before = room.clock.remaining["first"]
        room.clock.turn_start = server.loop.time() - 20.3
        reply = await ann.request(type="move", room=code, ply=4, move="2,0")
        assert (reply["type"], reply["code"]) == ("error", "game_over"), reply
        over = await ann.expect("over", room=code)
        assert (over["result"], over["reason"]) == ("second", "timeout")
        final = await ann.expect("room", room=code, status="over")
        charged = before - final["clocks"]["first"]
        assert 20_300 <= charged < 21_000, charged


# ---- offers: the wait after a refusal ---------------------------------------------------------


async def test_the_wait_after_a_refused_offer_follows_the_player_through_a_swap(
    tmp_path: Path,
) -> None:
    """Ann's draw offer is refused, so she waits 10 s; the colours are then swapped. The wait
    was kept by seat, so it passed to bob (refused) and ann could offer again at once."""
    async with serving(tmp_path) as server, clients(server, "ann", "bob") as (ann, bob):
        code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
        await bob.request(type="join", room=code)
        await ann.request(type="offer", room=code, kind="draw")
        await bob.request(type="answer", room=code, kind="draw", accept=False)
        ann.take_all("room")  # the snapshot of bob's join
        assert (await bob.request(type="offer", room=code, kind="swap"))["type"] == "ok"
        swapped = await ann.request(type="answer", room=code, kind="swap", accept=True)
        assert swapped["type"] == "ok"
        assert (await ann.expect("room", room=code))["you"] == "second"
        again = await ann.request(type="offer", room=code, kind="draw")
        assert (again["type"], again["code"]) == ("error", "not_allowed"), again
        assert "wait" in again["message"]
        assert (await bob.request(type="offer", room=code, kind="draw"))["type"] == "ok"


async def test_a_restart_keeps_the_wait_after_a_refused_offer(tmp_path: Path) -> None:
    """The refusal count was stored only with a later save of the game, and the wait not at all:
    after a restart the refused player could offer again at once."""
    async with serving(tmp_path) as server, clients(server, "ann", "bob") as (ann, bob):
        code = (await ann.request(type="create", game="hexgomoku", color="first"))["room"]
        await bob.request(type="join", room=code)
        await ann.request(type="move", room=code, ply=0, move="0,0")
        for _ in range(2):  # two refusals: 40 s to wait
            server.hall.rooms[code].offer_after["first"] = 0.0  # as if the wait were over
            await ann.request(type="offer", room=code, kind="draw")
            await bob.request(type="answer", room=code, kind="draw", accept=False)
        tokens = ann.welcome["token"], bob.welcome["token"]
    async with serving(tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann", token=tokens[0])
        try:
            assert ann.welcome["resumed"] == [code]
            again = await ann.request(type="offer", room=code, kind="draw")
            assert (again["type"], again["code"]) == ("error", "not_allowed"), again
            assert "wait 40 s" in again["message"], again
        finally:
            await ann.close()


# ---- restarts ---------------------------------------------------------------------------------


async def test_a_custom_game_resumes_with_its_stored_definition_after_the_file_changed(
    tmp_path: Path,
) -> None:
    """A variant file edited while a game of it was on (its soldiers no longer step
    diagonally): the restarted server replayed the stored moves with the new file, failed on
    the first one and dropped the game. It resumes with the definition it was started with."""
    from engines.custom.variants import __file__ as shipped

    variants = tmp_path / "variants"
    variants.mkdir()
    text = (Path(shipped).parent / "stones.toml").read_text(encoding="utf-8")
    text = text.replace('id = "stones"', 'id = "audit_river"')
    assert 'moves = "1,2,3;"' in text
    (variants / "river.toml").write_text(text, encoding="utf-8")
    db = str(tmp_path / "hall.db")
    proc = await ServerProcess.start(db, "--variants", str(variants))
    try:
        ann = await WireClient.connect(proc.url, "ann")
        bob = await WireClient.connect(proc.url, "bob")
        room = await ann.request(type="create", game="custom", variant="audit_river", color="first")
        code = room["room"]
        await bob.request(type="join", room=code)
        assert (await ann.request(type="move", room=code, ply=0, move="6,2-5,1"))["type"] == (
            "moved"
        )
        tokens = ann.welcome["token"], bob.welcome["token"]
        await ann.close()
        await bob.close()
    finally:
        await proc.kill()
    (variants / "river.toml").write_text(
        text.replace('moves = "1,2,3;"', 'moves = "2;"'), encoding="utf-8"
    )
    proc = await ServerProcess.start(db, "--variants", str(variants))
    try:
        ann = await WireClient.connect(proc.url, "ann", token=tokens[0])
        bob = await WireClient.connect(proc.url, "bob", token=tokens[1])
        assert ann.welcome["resumed"] == [code]
        snap = await ann.request(type="join", room=code)
        assert snap["type"] == "room" and snap["moves"] == ["6,2-5,1"], snap
        assert snap["variant_info"] == room["variant_info"]
        assert (await bob.request(type="move", room=code, ply=1, move="2,2-3,3"))["type"] == (
            "moved"
        )
        # a diagonal soldier step is still legal in this game, under its own rules
        assert (await ann.request(type="move", room=code, ply=2, move="6,4-5,5"))["type"] == (
            "moved"
        )
        # a new game of the variant follows the file as it is now
        fresh = await ann.request(type="create", game="custom", variant="audit_river")
        assert fresh["variant_info"] != room["variant_info"]
        await ann.close()
        await bob.close()
    finally:
        await proc.kill()


# ---- size limits in bytes -----------------------------------------------------------------------


async def test_positions_and_records_are_bounded_in_bytes(tmp_path: Path) -> None:
    """DESIGN.md bounds a position to 4 KiB and a record to 48 KiB (``welcome.limits`` calls
    them ``position_bytes`` and ``record_bytes``); the server counted characters, so a record
    of 49,226 bytes in 16,426 characters was taken. Over: ``too_large`` naming the field."""
    async with serving(tmp_path) as server, clients(server, "ann") as (ann,):
        limits = ann.welcome["limits"]
        assert (limits["position_bytes"], limits["record_bytes"]) == (4096, 49152)
        position = "象" * 1400  # 1,400 characters, 4,200 bytes
        reply = await ann.request(type="create", game="chess", position=position)
        assert (reply["type"], reply["code"]) == ("error", "too_large"), reply
        assert "'position'" in reply["message"] and "4096 bytes" in reply["message"]
        record = '[Event "x"]\n\n1. e4 {' + "象" * 16400 + "} e5 *"
        assert len(record) < 49152 < len(record.encode())
        frame = {"type": "create", "id": "big", "game": "chess", "record": record}
        await ann.send_raw(json.dumps(frame, ensure_ascii=False))  # 49 KB: under the frame limit
        reply = await ann.expect("error", re="big")
        assert reply["code"] == "too_large", reply
        assert "'record'" in reply["message"] and "49152 bytes" in reply["message"]
        assert server.hall.rooms == {}
        fits = '[Event "x"]\n\n1. e4 {' + "象" * 16000 + "} e5 *"
        assert len(fits.encode()) <= 49152
        frame = {"type": "create", "id": "fits", "game": "chess", "record": fits}
        await ann.send_raw(json.dumps(frame, ensure_ascii=False))
        room = await ann.expect(None, re="fits")
        assert room["type"] == "room" and room["position"].split()[1] == "w", room
